"""Learning-curve pictures of several runs (the README's three-seed curves are made this way)."""

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
