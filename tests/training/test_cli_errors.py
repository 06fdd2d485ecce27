"""The CLI as a person meets it: results in plain lines, a progress bar that keeps its total, help with
defaults, one-line errors (exit code 2, no traceback), Ctrl-C and resume that say what happened."""

from __future__ import annotations

import dataclasses
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pytest
import torch
import yaml

from envs.core.errors import ConfigError
from training import cli
from training.cli import main
from training.config import PretrainConfig, ScaledWarmStart, TrainConfig, load_config, options
from training.evaluate import match
from training.games import game_info
from training.nets import PolicyNet
from training.pretrain import collect_scripted, pretrain
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


def test_play_from_a_saved_position(run, tmp_path, capsys, monkeypatch):
    """--from starts from a position file: one stone left and the person to move, so taking it wins."""
    from .toy_game import ToyNim

    position = ToyNim(rng=np.random.default_rng(0)).to_dict()
    position["state"].update(pile=1, player=0, starter=0)
    path = tmp_path / "last_stone.json"
    path.write_text(json.dumps(position))
    answers = iter(["0"])
    monkeypatch.setattr("builtins.input", lambda prompt="": next(answers))
    assert main(["play", str(run), "--seat", "0", "--from", str(path)]) == 0
    text = capsys.readouterr().out
    assert "starting from the position" in text and "returns: {0: 1.0, 1: -1.0}" in text


@pytest.mark.parametrize("baseline", ["scripted", "random"])
def test_play_against_the_baselines(baseline, capsys, monkeypatch):
    """A person learning the game plays the scripted player or random play: always taking one stone."""
    monkeypatch.setattr("builtins.input", lambda prompt="": "0")
    assert main(["play", baseline, "--game", TOY, "--seat", "1", "--seed", "3"]) == 0
    text = capsys.readouterr().out
    assert f"you play seat 1; {baseline} plays the others" in text
    assert "seat 0 plays: take" in text and "returns: {0: " in text


@pytest.mark.parametrize(
    "content, needle",
    [
        ("not json", "is not a position file (not JSON"),
        ("[1, 2]", "is not a position file (a position is a JSON object)"),
        ("{}", "not a position"),
        ("OTHER_CONFIG", "the position is for"),
        ("OVER", "a finished game"),
    ],
)
def test_play_refuses_a_bad_position_file(run, tmp_path, capsys, content, needle):
    from .toy_game import ToyNim

    if content == "OTHER_CONFIG":
        content = json.dumps(ToyNim(rng=np.random.default_rng(0), pile=9).to_dict())
    elif content == "OVER":
        game = ToyNim(rng=np.random.default_rng(0))
        while not game.is_terminal():
            game.apply_action(0)
        content = json.dumps(game.to_dict())
    path = tmp_path / "position.json"
    path.write_text(content)
    assert main(["play", str(run), "--seat", "0", "--from", str(path)]) == 2
    one_line_error(capsys, needle)


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


# ----- train's arguments and the config's numbers ---------------------------------------------------
def files_of(run_dir: Path) -> dict:
    return {p: p.stat().st_mtime_ns for p in run_dir.rglob("*") if p.is_file()}


@pytest.mark.parametrize(
    "words, needles",
    [
        (["total_steps", "400000"], ["key=value", "got 'total_steps'", "did you mean total_steps=400000?"]),
        (["foo"], ["key=value", "got 'foo'"]),
        (["exposed", "total_steps=400"], ["key=value", "got 'exposed'"]),  # a config has no place here
        (["ppo.lr=1e-4", "total_steps", "400"], ["got 'total_steps'", "did you mean total_steps=400?"]),
    ],
)
def test_resume_takes_key_value_overrides_only(run, capsys, words, needles):
    before = files_of(run)
    assert main(["train", "--resume", str(run), *words, "--no-log"]) == 2
    one_line_error(capsys, "--resume", *needles)
    assert files_of(run) == before  # refused before anything was read or written


def test_a_new_run_names_a_broken_override_and_the_fix(tmp_path, capsys):
    assert main(["train", *TINY, f"run_dir={tmp_path / 'r'}", "total_steps", "300"]) == 2
    one_line_error(capsys, "override 'total_steps' must look like key=value", "did you mean total_steps=300?")
    assert not (tmp_path / "r").exists()


@pytest.mark.parametrize(
    "override, needles",
    [
        ("checkpoint_every=-1", ["checkpoint_every must be at least 0 (0 = only at the end), got -1"]),
        ("seed=-1", ["seed must be an integer from 0 to 2**63 - 1, got -1"]),
        ("seed=18446744073709551616", ["seed must be an integer from 0"]),  # past what torch can seed
        ("eval.every=-2", ["eval.every must be at least 0 (0 = only at the end), got -2"]),
        ("ppo.clip=.nan", ["ppo.clip must be > 0, got nan"]),
        ("ppo.max_grad_norm=0", ["ppo.max_grad_norm must be > 0, got 0.0"]),
        ("pretrain.lr=2", ["pretrain.lr must be in (0, 1), got 2.0"]),
        ("opponents.scripted=-1", ["opponents.scripted must be >= 0, got -1.0"]),
        ("net.kind=mpl", ["net.kind must be one of", "did you mean 'mlp'?"]),
        ("ppo.lrr=1e-3", ["unknown config key 'ppo.lrr'", "did you mean 'lr'?"]),
    ],
)
def test_bad_config_numbers_are_one_line_errors_naming_the_option(tmp_path, capsys, override, needles):
    assert train(tmp_path / "r", "total_steps=100", override) == 2
    one_line_error(capsys, *needles)
    assert not (tmp_path / "r").exists()


def numeric_options(obj, prefix: str = ""):
    """(dotted key, value) of every int or float option of a config dataclass, sections included."""
    for f in dataclasses.fields(obj):
        value = getattr(obj, f.name)
        if dataclasses.is_dataclass(value):
            yield from numeric_options(value, f"{prefix}{f.name}.")
        elif isinstance(value, (int, float)) and not isinstance(value, bool):
            yield prefix + f.name, value


def test_every_numeric_config_option_refuses_what_it_cannot_mean():
    """The audit: no count, rate or weight of the config or of the RLlib section takes a negative
    number, and no float takes NaN or infinity, without a ConfigError that names it."""
    from training.rllib.options import RLlibConfig

    cases = [(key, value, None) for key, value in numeric_options(TrainConfig())]
    cases += [(f"rllib.{key}", value, RLlibConfig) for key, value in numeric_options(RLlibConfig())]
    assert len(cases) > 40
    for key, default, section in cases:
        bad = ["-1"] + ([".nan", ".inf", "-.inf"] if isinstance(default, float) else [])
        for value in bad:
            with pytest.raises(ConfigError, match=re.escape(key)):
                if section is None:
                    load_config(None, [f"game={TOY}", f"{key}={value}"])
                else:
                    options(section, yaml.safe_load(f"{{{key.split('.', 1)[1]}: {value}}}"), "rllib")
    # and each default passes: the audit refuses only what it should
    load_config(None, [f"game={TOY}"])
    options(RLlibConfig, {}, "rllib")


def test_the_rllib_backend_names_every_option_it_cannot_train_at_once():
    from training.rllib.options import RLlibConfig, check_supported, unsupported

    # every shipped config trains under RLlib (the central critic, seat heads, layout networks...)
    for name in ("artifacts", "exposaurus", "exposed", "exposed-4p", "expressions"):
        config = load_config(ROOT / "configs" / f"{name}.yaml")
        assert unsupported(config, RLlibConfig()) == [], name
    # what RLlib cannot do, all named at once
    config = load_config(
        None, [f"game={TOY}", "net.normalize_obs=true", "device=mps", "expert.optimizer=ppo"]
    )
    with pytest.raises(ConfigError) as refused:
        check_supported(config, RLlibConfig(num_learners=2))
    message = str(refused.value)
    for name in ("net.normalize_obs=true with rllib.num_learners=2", "device=mps", "expert.optimizer=ppo"):
        assert name in message, message
    one_learner_on_the_cpu = load_config(None, [f"game={TOY}", "net.normalize_obs=true", "device=cpu"])
    assert unsupported(one_learner_on_the_cpu, RLlibConfig(num_learners=1)) == []


# ----- the numeric options of evaluate, rate, play ---------------------------------------------------
@pytest.mark.parametrize(
    "args, needle",
    [
        (["evaluate", "{run}", "--seed", "-1"], "--seed must be an integer from 0 to 2**63 - 1, got -1"),
        (["rate", "{run}", "random", "--seed", "-1"], "--seed must be an integer from 0"),
        (["play", "{run}", "--seed", "-1"], "--seed must be an integer from 0"),
        (["evaluate", "{run}", "--threads", "0"], "--threads must be at least 1, got 0"),
        (["rate", "{run}", "random", "--games", "0"], "--games must be at least 1, got 0"),
        (["evaluate", "{run}", "--record", "x", "--record-games", "0"], "--record-games must be at least 1"),
        (
            ["evaluate", "{run}", "--opponents", "search", "--simulations", "0"],
            "--simulations must be at least 1",
        ),
        (["evaluate", "{run}", "--opponents", "search", "--seconds", "0"], "--seconds must be > 0, got 0.0"),
        (["play", "search", "--game", TOY, "--seconds", "nan"], "--seconds must be > 0, got nan"),
        (["play", "{run}", "--seat", "2"], "--seat must be from 0 to 1 (2 players), got 2"),
        (["play", "{run}", "--seat", "-1"], "--seat must be from 0 to 1 (2 players), got -1"),
        (["evaluate", "{run}", "--opponents", ","], "--opponents names no player"),
    ],
)
def test_bad_numbers_on_the_command_line_are_one_line_errors(run, capsys, args, needle):
    assert main([a.format(run=run) for a in args]) == 2
    one_line_error(capsys, needle)


def test_usage_mistakes_are_one_line_errors_too():
    """argparse's own errors (a word for a number, a missing argument) in a real process: one line that
    points to --help, exit code 2."""
    env = dict(os.environ, PYTHONPATH=str(ROOT), OMP_NUM_THREADS="1")
    for args, needle in (
        (["evaluate", "random", "--games", "abc"], "argument --games: invalid int value: 'abc'"),
        (["evaluate"], "the following arguments are required: checkpoint"),
    ):
        done = subprocess.run(
            [sys.executable, "-m", "training", *args], env=env, capture_output=True, text=True, timeout=120
        )
        assert done.returncode == 2 and done.stdout == ""
        assert done.stderr.splitlines() == [f"error: {needle} (see python -m training {args[0]} --help)"], (
            done.stderr
        )


# ----- players by name ---------------------------------------------------------------------------------
NAMES = (
    "a player is random, scripted, search, reference, reference:GAME, search:RUN, a run directory or a "
    "checkpoint file"
)


@pytest.mark.parametrize(
    "args, needles",
    [
        (
            ["evaluate", "{run}", "--opponents", "random,randm"],
            ["unknown player 'randm'", NAMES, "'random'?"],
        ),
        (["evaluate", "scriptd", "--game", TOY], ["unknown player 'scriptd'", NAMES, "'scripted'?"]),
        (["rate", "{run}", "serch"], ["unknown player 'serch'", NAMES, "did you mean 'search'?"]),
        (
            ["evaluate", "{run}", "--opponents", "search:{run}x"],
            ["'search:{run}x': no run directory", "{run}'?"],
        ),
        (["evaluate", "{run}x"], ["unknown player '{run}x'", "did you mean '{run}'?"]),
        (
            ["play", "scriptd", "--game", TOY],
            ["unknown player 'scriptd': a player is random, scripted, search,", "did you mean 'scripted'?"],
        ),
        (["play", "random"], ["no checkpoint names the game: give --game NAME"]),
    ],
)
def test_unknown_players_list_the_names_and_suggest_the_closest(run, capsys, args, needles):
    assert main([a.format(run=run) for a in args]) == 2
    one_line_error(capsys, *(n.format(run=run) for n in needles))


def test_config_and_library_player_names_suggest_the_closest():
    with pytest.raises(
        ConfigError,
        match=r"eval.opponents entries must be 'random' or 'scripted', got 'scriptd'; did you mean 'scripted'\?",
    ):
        load_config(None, [f"game={TOY}", "eval.opponents=[random, scriptd]"])
    info = game_info(TOY, {})
    with pytest.raises(ValueError, match=r"unknown player 'randon'.*did you mean 'random'\?"):
        match(info, "randon", "random", 2)


# ----- a short run's warm start ------------------------------------------------------------------------
def test_a_short_run_of_a_config_scales_its_warm_start_and_says_so():
    path = ROOT / "configs" / "expressions.yaml"
    planned = yaml.safe_load(path.read_text())
    steps, games = planned["total_steps"], planned["pretrain"]["games"]
    with pytest.warns(ScaledWarmStart, match=f"records 25 of its {games:,} scripted games"):
        short = load_config(path, ["total_steps=2000"])
    assert short.pretrain.games == -(-games * 2000 // steps) == 25
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # none of these scales: no warning either
        assert load_config(path).pretrain.games == games
        assert load_config(path, [f"total_steps={2 * steps}"]).pretrain.games == games
        assert load_config(path, ["total_steps=2000", f"pretrain.games={games}"]).pretrain.games == games
        assert load_config(path, ["total_steps=2000", "pretrain.games=40"]).pretrain.games == 40
        # a run that starts from a checkpoint plays no warm start, so none is scaled
        assert load_config(path, ["total_steps=2000", "init=runs/a"]).pretrain.games == games


def test_every_shipped_config_at_its_own_length_keeps_its_whole_warm_start():
    for path in sorted((ROOT / "configs").glob("*.yaml")):
        planned = yaml.safe_load(path.read_text())
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            config = load_config(path)
        assert config.pretrain.games == planned.get("pretrain", {}).get("games", 0), path
        assert config.total_steps == planned["total_steps"], path


def test_cli_short_run_records_the_scaled_warm_start(tmp_path, capsys):
    config = tmp_path / "warm.yaml"
    config.write_text(f"game: {TOY}\ntotal_steps: 1024\npretrain:\n  games: 40\n  epochs: 1\n")
    run_dir = tmp_path / "short"
    assert main(["train", str(config), *TINY[1:], f"run_dir={run_dir}", "total_steps=256"]) == 0
    captured = capsys.readouterr()
    notes = [line for line in captured.err.splitlines() if line.startswith("note: ")]
    assert notes == [
        f"note: total_steps=256 is 25.00% of the 1,024 that {str(config)!r} plans, so its warm start "
        "records 10 of its 40 scripted games (pretrain.games=40 keeps them all)"
    ]
    assert yaml.safe_load((run_dir / "config.yaml").read_text())["pretrain"]["games"] == 10
    seeds = json.loads(captured.out)["seeds"]
    recorded = collect_scripted(game_info(TOY, {}), 10, seeds["warm_start"], uses_state=False)
    assert json.loads(captured.out)["pretrain"]["pretrain/decisions"] == len(recorded["action"])


def test_the_warm_start_shows_its_progress_and_trains_the_same_with_it(capsys):
    info = game_info(TOY, {})
    net_config = load_config(None, [f"game={TOY}", "net.hidden=[16]", "net.critic_hidden=[16]"]).net
    cfg = PretrainConfig(games=6, epochs=2, minibatch=8)
    trained = []
    for progress in (False, True):
        data = collect_scripted(info, cfg.games, seed=0, uses_state=False, progress=progress)
        torch.manual_seed(0)
        net = PolicyNet(info.net_shape, net_config)
        pretrain(net, data, cfg, 1.0, np.random.default_rng(0), progress=progress)
        trained.append(net.state_dict())
    err = capsys.readouterr().err
    batches = cfg.epochs * -(-len(data["action"]) // cfg.minibatch)
    assert re.search(r"warm start: recording scripted games: 100%.* 6/6 ", err), err
    assert re.search(rf"warm start: cloning them \(2 epochs\): 100%.* {batches}/{batches} ", err), err
    assert all(torch.equal(trained[0][k], trained[1][k]) for k in trained[0])  # the bars change nothing
