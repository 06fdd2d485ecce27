"""Learning-curve pictures of several runs (the README's three-seed curves are made this way)."""

import json

import matplotlib.image
import pytest

from training.plot import main


def history(rates: list[float]) -> list[dict]:
    return [
        {
            "decisions": 1000 * i,
            "random": {"win_rate": r, "ci95": [r, r]},
            "scripted": {"win_rate": r / 2, "ci95": [0, 1]},
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
