"""Learning-curve pictures of several runs (the docs' three-seed curves are made this way)."""

import json

import matplotlib.image
import pytest

from training.plot import main


def history(rates: list[float]) -> list[dict]:
    return [
        {
            "decisions": 1000 * i,
            "random": {"win_rate": r, "ci95": [r, r], "mean_return": 10 * r - 30},
            "scripted": {"win_rate": r / 2, "ci95": [0, 1], "mean_return": -7.0},
        }
        for i, r in enumerate(rates)
    ]


def test_several_runs_make_one_picture_with_a_panel_per_opponent(tmp_path):
    runs = []
    for seed, rates in enumerate(([0.5, 0.8, 0.9], [0.4, 0.7])):
        run = tmp_path / f"seed{seed}"
        run.mkdir()
        (run / "eval.json").write_text(json.dumps(history(rates)))
        runs.append(str(run))
    out = tmp_path / "curves.png"
    main([*runs, "--output", str(out), "--title", "toy"])
    height, width, _ = matplotlib.image.imread(out).shape
    assert width > 1.8 * height  # two panels side by side


def test_a_folder_without_an_evaluation_log_is_a_clear_error(tmp_path, capsys):
    with pytest.raises(SystemExit):
        main([str(tmp_path), "--output", str(tmp_path / "x.png")])
    assert "no eval.json" in capsys.readouterr().err


def test_mean_returns_are_drawn_on_their_own_scale(tmp_path, monkeypatch):
    import matplotlib.axes

    run = tmp_path / "seed0"
    run.mkdir()
    (run / "eval.json").write_text(json.dumps(history([0.0, 0.1, 0.2])))
    limits = []
    real = matplotlib.axes.Axes.get_ylim
    out = tmp_path / "returns.png"
    import matplotlib.figure

    original = matplotlib.figure.Figure.savefig

    def keep_limits(fig, *args, **kwargs):
        limits.extend(real(ax) for ax in fig.axes)
        return original(fig, *args, **kwargs)

    monkeypatch.setattr(matplotlib.figure.Figure, "savefig", keep_limits)
    main([str(run), "--output", str(out), "--metric", "mean_return"])
    assert out.is_file()
    # the returns (-30 .. -28 and -7) are on the axes, not cut to the win rate's [0, 1]
    assert min(low for low, _ in limits) <= -30 and max(high for _, high in limits) >= -7


def test_an_unknown_metric_is_refused(tmp_path, capsys):
    with pytest.raises(SystemExit):
        main([str(tmp_path), "--output", str(tmp_path / "x.png"), "--metric", "elo"])
    assert "invalid choice" in capsys.readouterr().err


def team_history(rates: list[tuple[float, float]]) -> list[dict]:
    """Evaluations of a game with two sides: each side's win rate, and the whole."""
    return [
        {
            "decisions": 1000 * i,
            "random": {
                "win_rate": (a + b) / 2,
                "ci95": [0, 1],
                "by_team": {"0": {"win_rate": a, "ci95": [0, 1]}, "1": {"win_rate": b, "ci95": [0, 1]}},
            },
        }
        for i, (a, b) in enumerate(rates)
    ]


def _drawn_panels(monkeypatch) -> list:
    """(title, y values of each line) of every panel of the next picture saved."""
    import matplotlib.figure

    panels = []
    original = matplotlib.figure.Figure.savefig

    def keep(fig, *args, **kwargs):
        panels.extend(
            (ax.get_title(), [list(line.get_ydata()) for line in ax.get_lines()]) for ax in fig.axes
        )
        return original(fig, *args, **kwargs)

    monkeypatch.setattr(matplotlib.figure.Figure, "savefig", keep)
    return panels


def test_by_team_adds_a_row_per_side_named_by_the_game(tmp_path, monkeypatch):
    run = tmp_path / "artifacts-seed0"
    run.mkdir()
    (run / "config.yaml").write_text("game: artifacts\ngame_config:\n  num_players: 7\n")
    (run / "eval.json").write_text(json.dumps(team_history([(0.8, 0.7), (0.75, 0.9)])))
    panels = _drawn_panels(monkeypatch)
    main([str(run), "--output", str(tmp_path / "sides.png"), "--by-team"])
    assert panels == [
        ("vs random", [[0.75, 0.825]]),
        ("Academics vs random", [[0.8, 0.75]]),
        ("Looters vs random", [[0.7, 0.9]]),
    ]


def test_by_team_is_refused_without_named_teams_or_for_returns(tmp_path, capsys):
    run = tmp_path / "exposed-seed0"
    run.mkdir()
    (run / "config.yaml").write_text("game: exposed\n")
    (run / "eval.json").write_text(json.dumps(history([0.5])))
    with pytest.raises(SystemExit):
        main([str(run), "--output", str(tmp_path / "x.png"), "--by-team"])
    assert "--by-team needs a game with named teams" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main([str(run), "--output", str(tmp_path / "x.png"), "--by-team", "--metric", "mean_return"])
    assert "--by-team draws win rates only" in capsys.readouterr().err
    assert not (tmp_path / "x.png").exists()
