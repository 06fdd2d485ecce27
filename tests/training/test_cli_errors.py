"""The CLI as a person meets it: results in plain lines, a progress bar that keeps its total, help with
defaults, one-line errors (exit code 2, no traceback), Ctrl-C and resume that say what happened."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import torch

from training import cli
from training.cli import main
from training.config import load_config
from training.runlog import progress_bar

from .helpers import TOY

ROOT = Path(__file__).resolve().parents[2]
TINY = [
    f"game={TOY}",
    "ppo.num_envs=8",
    "ppo.rollout_steps=16",
    "eval.every=0",
    "eval.games=20",
    "checkpoint_every=5",
    "progress=false",
    "net.hidden=[16]",
    "net.critic_hidden=[16]",
    "--no-log",
]


def train(run, *extra) -> int:
    return main(["train", *TINY, f"run_dir={run}", *extra])


def one_line_error(capsys, *needles) -> str:
    err = capsys.readouterr().err.strip()
    assert "Traceback" not in err and len(err.splitlines()) == 1, err
    assert err.startswith("error: ")
    for needle in needles:
        assert needle in err, err
    return err


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    """A finished two-player run (2 iterations of 128 decisions)."""
    run_dir = tmp_path_factory.mktemp("cli") / "run"
    assert train(run_dir, "total_steps=200") == 0
    return run_dir


# ----- results at a glance -------------------------------------------------------------------------
RATE = r"(\d\.\d\d) \[(\d\.\d\d), (\d\.\d\d)\]"


def test_evaluate_prints_plain_win_rates_before_the_json(run, capsys):
    assert main(["evaluate", str(run), "--opponents", "random,scripted", "--games", "30"]) == 0
    captured = capsys.readouterr()
    out = json.loads(captured.out)  # stdout stays pure JSON for programs
    first, meaning = captured.err.splitlines()[:2]
    found = re.fullmatch(f"vs random {RATE} · vs scripted {RATE}", first)
    assert found, first
    for i, key in enumerate(("vs_random", "vs_scripted")):
        r = out["results"][key]
        assert [float(x) for x in found.groups()[3 * i : 3 * i + 3]] == pytest.approx(
            [r["win_rate"], *r["ci95"]], abs=0.005
        )
    assert "run/latest" in meaning and "30 games each" in meaning and "seats alternating" in meaning


def test_team_and_cooperative_results_are_explained_in_words(tmp_path, capsys):
    assert (
        train(tmp_path / "teams", "total_steps=100", "game_config.num_players=4", "game_config.teams=true")
        == 0
    )
    err = capsys.readouterr().err
    assert re.search(f"^vs random {RATE} · vs scripted {RATE}$", err, re.M), err
    assert "4 players in 2 fixed teams" in err and "equal play wins 1/2 = 0.50" in err
    assert re.search(r"^by team: vs random: team 0 \d\.\d\d, team 1 \d\.\d\d · vs scripted: ", err, re.M), err

    coop = ["game_config.num_players=3", "game_config.cooperative=true"]
    assert train(tmp_path / "coop", "total_steps=100", *coop) == 0
    capsys.readouterr()
    assert main(["evaluate", str(tmp_path / "coop"), "--opponents", "scripted", "--games", "20"]) == 0
    err = capsys.readouterr().err
    assert re.search(f"^team of coop/latest {RATE} · team of scripted {RATE}$", err, re.M), err
    assert "cooperative game: one policy plays all 3 seats" in err


def test_progress_bar_keeps_its_total_and_announces_the_final_evaluation(capsys):
    bar = progress_bar(True, 200, 0, "toy")
    bar.update(128)
    assert "final evaluation" not in bar.desc
    bar.update(256 - bar.n)  # the last iteration ends past total_steps
    assert (bar.n, bar.total) == (200, 200) and bar.desc.endswith("final evaluation running")
    bar.close()
    assert "200/200" in capsys.readouterr().err


def test_every_cli_argument_has_help_and_shows_its_default():
    parser = cli.build_parser()
    commands = next(a for a in parser._actions if a.dest == "command").choices
    assert set(commands) >= {"train", "evaluate", "rate", "play", "export"}
    for name, sub in commands.items():
        formatter = sub._get_formatter()
        for action in sub._actions:
            if action.dest == "help":
                continue
            assert action.help, f"{name} {action.dest} has no help"
            if action.option_strings or action.nargs in ("?", "*"):
                assert "default" in formatter._get_help_string(action), f"{name} {action.dest}"
        assert "(default: 1000)" in commands["evaluate"].format_help()


# ----- clean errors --------------------------------------------------------------------------------
def test_unreadable_config_files_name_the_file(tmp_path, capsys):
    bad = tmp_path / "bad.yaml"
    bad.write_text("game: [unclosed\n  x: {\n")
    assert main(["train", str(bad)]) == 2
    one_line_error(capsys, str(bad), "not valid YAML", "line 2")

    binary = tmp_path / "binary.yaml"
    binary.write_bytes(bytes(range(256)) * 4)
    assert main(["train", str(binary)]) == 2
    one_line_error(capsys, str(binary), "not a text file")

    folder = tmp_path / "folder"
    folder.mkdir()
    assert main(["train", str(folder)]) == 2
    one_line_error(capsys, str(folder), "is a directory")
    with pytest.raises(Exception, match="is a directory"):
        load_config(folder)


def test_a_game_that_is_not_a_gamespec_is_refused(tmp_path, capsys):
    config = tmp_path / "sep.yaml"
    config.write_text("game: os:sep\n")
    assert main(["train", str(config)]) == 2
    one_line_error(capsys, "os:sep", "not a GameSpec")
    assert main(["train", "game=os:sep", f"run_dir={tmp_path / 'r'}"]) == 2  # overrides alone name the game
    one_line_error(capsys, "not a GameSpec")


@pytest.mark.parametrize("games", ["-3", "0"])
def test_evaluate_refuses_no_games(run, capsys, games):
    assert main(["evaluate", str(run), "--games", games]) == 2
    one_line_error(capsys, f"--games must be at least 1, got {games}")


def test_play_at_end_of_input_exits_cleanly(run, capsys, monkeypatch):
    def no_more_input(prompt=""):
        raise EOFError

    monkeypatch.setattr("builtins.input", no_more_input)
    assert main(["play", str(run), "--seat", "0", "--seed", "1"]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and "end of input" in err


# ----- Ctrl-C and resume ---------------------------------------------------------------------------
def interrupt_update_number(monkeypatch, n: int) -> None:
    """Ctrl-C during the n-th PPO update (as if the person pressed it then)."""
    import training.trainer as trainer_module

    real = trainer_module.ppo_update
    calls = [0]

    def update(*args, **kw):
        calls[0] += 1
        if calls[0] == n:
            raise KeyboardInterrupt
        return real(*args, **kw)

    monkeypatch.setattr(trainer_module, "ppo_update", update)


def test_ctrl_c_says_where_the_last_checkpoint_is_and_how_to_resume(tmp_path, capsys, monkeypatch):
    run_dir = tmp_path / "run"
    interrupt_update_number(monkeypatch, 7)  # iterations 1-6 done, checkpoint at iteration 5
    assert train(run_dir, "total_steps=2000") == 130
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert (
        f"the last checkpoint is {run_dir / 'checkpoints' / 'latest.pt'} (iteration 5, 640 decisions)" in err
    )
    command = re.search(r"resume with: python -m training (.+)$", err, re.M).group(1).split()
    assert command == ["train", "--resume", str(run_dir)]
    monkeypatch.undo()
    assert main([*command, "--no-log"]) == 0  # the command it gives continues the run to its end
    summary = json.loads(capsys.readouterr().out)
    assert summary["decisions"] >= 2000 and summary["iterations"] == 16

    interrupt_update_number(monkeypatch, 2)
    assert train(tmp_path / "early", "total_steps=2000") == 130
    assert "no checkpoint was written yet" in capsys.readouterr().err


def test_sigint_to_a_training_process(tmp_path):
    """A real Ctrl-C: SIGINT to `python -m training train` once it has written a checkpoint."""
    run_dir = tmp_path / "run"
    args = [*TINY, f"run_dir={run_dir}", "total_steps=100000000", "checkpoint_every=1"]
    env = dict(os.environ, PYTHONPATH=str(ROOT), OMP_NUM_THREADS="1")
    proc = subprocess.Popen(
        [sys.executable, "-m", "training", "train", *args],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        # as in a terminal: a test run started in the background (`cmd &`) inherits an ignored SIGINT,
        # and Python then installs no KeyboardInterrupt handler
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    try:
        deadline = time.monotonic() + 120
        while not (run_dir / "checkpoints" / "latest.pt").exists():
            assert proc.poll() is None and time.monotonic() < deadline, (
                proc.stderr.read() if proc.poll() else ""
            )
            time.sleep(0.2)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
    assert proc.returncode == 130, err
    assert "Traceback" not in err and out == ""
    assert "the last checkpoint is" in err and f"--resume {run_dir}" in err


def test_resuming_a_finished_run_does_nothing_and_says_so(run, capsys):
    files = {p: p.stat().st_mtime_ns for p in run.rglob("*") if p.is_file()}
    history = json.loads((run / "eval.json").read_text())
    assert main(["train", "--resume", str(run), "--no-log"]) == 0
    captured = capsys.readouterr()
    assert "already finished" in captured.err and "nothing to do" in captured.err
    assert f"--resume {run} total_steps=400" in captured.err  # how to train it longer
    assert json.loads(captured.out)["final_eval"] == history[-1]
    assert json.loads((run / "eval.json").read_text()) == history  # no duplicate final evaluation
    assert {p: p.stat().st_mtime_ns for p in run.rglob("*") if p.is_file()} == files


def test_resuming_a_run_written_before_its_games_observation_changed_says_so(run, tmp_path, capsys):
    """A run's own latest checkpoint with another observation size (the same game, players and
    actions): the error says the checkpoint predates the observation, not that it is another game's."""
    old = tmp_path / "old"
    shutil.copytree(run, old)
    latest = old / "checkpoints" / "latest.pt"
    data = torch.load(latest, weights_only=True)
    data["obs_dim"] -= 7  # as written by a version whose observation was 7 numbers shorter
    torch.save(data, latest)
    before = latest.read_bytes()
    assert main(["train", "--resume", str(old), f"run_dir={old}", "total_steps=400", "--no-log"]) == 2
    err = one_line_error(capsys, "does not match this run's game", "predates a change")
    assert "another game's run" not in err
    assert latest.read_bytes() == before


def test_resuming_into_another_games_run_directory_is_refused(run, tmp_path, capsys):
    other = tmp_path / "teams"
    assert train(other, "total_steps=200", "game_config.num_players=4", "game_config.teams=true") == 0
    capsys.readouterr()
    latest = other / "checkpoints" / "latest.pt"
    before = latest.read_bytes()
    iter_ckpt = run / "checkpoints" / "final.pt"
    assert main(["train", "--resume", str(iter_ckpt), f"run_dir={other}", "total_steps=400", "--no-log"]) == 2
    one_line_error(capsys, "refusing to resume", str(other), "num_players 4 vs 2")
    # the same through a checkpoint copied into the other run's folder
    copy = other / "checkpoints" / "copied.pt"
    copy.write_bytes(iter_ckpt.read_bytes())
    assert main(["train", "--resume", str(copy), "total_steps=400", "--no-log"]) == 2
    one_line_error(capsys, "another game's run")
    assert latest.read_bytes() == before
