"""The training package's players in the one registry (envs.core.players.PLAYERS): registered when it is
imported, a run directory or checkpoint and search:RUN resolve through it wherever a player is named
(the Gymnasium face's opponents=, match, the command line), and so does a user's own player."""

from __future__ import annotations

import json
import re
import sys

import numpy as np
import pytest

from envs.core.errors import ConfigError
from envs.core.gym_env import SingleSeatEnv
from envs.core.players import PLAYERS
from envs.core.search import Search
from training import CheckpointError, Policy
from training.cli import main
from training.evaluate import match
from training.games import game_info
from training.players import GUIDED, RUN
from training.trainer import Trainer

from .helpers import TOY, tiny_config
from .toy_game import SPEC

USER_MODULE = '''
import numpy as np

from envs.core.players import PLAYERS


def first_legal(name, game, seat=0):
    """Always the lowest legal action."""
    return lambda observation, action_mask: int(np.flatnonzero(action_mask)[0])


PLAYERS.register("first-legal", first_legal)
'''


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    root = tmp_path_factory.mktemp("players_run")
    Trainer(tiny_config(root / "mlp", "total_steps=600"), log=False).train()
    return root / "mlp"


def test_importing_training_registers_its_players(run):
    assert PLAYERS.check(str(run)).key == RUN
    assert PLAYERS.check(f"search:{run}").key == GUIDED
    assert PLAYERS.check("reference:exposed-v1").key == "reference:"
    assert PLAYERS.labels(command_line=True)[:8] == [
        "random",
        "scripted",
        "search",
        "reference",
        "reference:GAME",
        "search:RUN",
        "a run directory",
        "a checkpoint file",
    ]


def test_a_run_by_name_is_its_policy_checked_against_the_game(run):
    policy = PLAYERS.resolve(str(run), game_info(TOY, {}))
    assert isinstance(policy, Policy) and policy.greedy and policy.meta["path"].endswith("latest.pt")
    env = SingleSeatEnv(SPEC, opponents=str(run), seat=0)  # the Gymnasium face resolves it the same way
    assert isinstance(env.opponents[1], Policy)
    obs, info = env.reset(seed=0)
    env.step(int(np.flatnonzero(info["action_mask"])[0]))
    with pytest.raises(CheckpointError, match="does not match the game it plays: num_players 2 vs 3"):
        PLAYERS.resolve(str(run), game_info(TOY, {"num_players": 3}))


def test_a_run_seated_many_times_is_read_once_while_its_file_is_unchanged(tmp_path, monkeypatch):
    import os
    import shutil

    from training import checkpoint as ckpt

    Trainer(tiny_config(tmp_path / "r", "total_steps=200"), log=False).train()
    reads = []
    load = ckpt.load_data
    monkeypatch.setattr(ckpt, "load_data", lambda path: reads.append(path) or load(path))
    info = game_info(TOY, {})
    seats = [PLAYERS.resolve(str(tmp_path / "r"), info, s % 2) for s in range(6)]  # 3 games x 2 seats
    assert len(reads) == 1
    assert len({id(p.net) for p in seats}) == 6  # each seat its own network (and recurrent state)
    seats[0].meta["train_config"]["seed"] = 99  # a player's meta is its own
    assert seats[1].meta["train_config"]["seed"] != 99
    # a new checkpoint in the run directory (another file, another time) is read again
    latest = tmp_path / "r" / "checkpoints" / "latest.pt"
    shutil.copy(tmp_path / "r" / "checkpoints" / "final.pt", latest)
    os.utime(latest, ns=(1, 1))
    PLAYERS.resolve(str(tmp_path / "r"), info, 0)
    assert len(reads) == 2


def test_match_plays_a_run_and_a_guided_search_by_name(run):
    info = game_info(TOY, {})
    assert match(info, str(run), "random", games=6)["games"] == 6
    guided = PLAYERS.resolve(f"search:{run}", info, seed=3)
    assert isinstance(guided, Search) and guided.prior is not None
    assert match(info, f"search:{run}", "scripted", games=2)["games"] == 2


def test_a_users_own_player_plays_in_match_and_on_the_command_line(tmp_path, monkeypatch, capsys):
    (tmp_path / "my_players.py").write_text(USER_MODULE)
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        argv = ["evaluate", "first-legal", "--import", "my_players", "--game", TOY, "--games", "4"]
        assert main(argv) == 0
        out = json.loads(capsys.readouterr().out)
        assert out["agent"] == "first-legal" and out["results"]["vs_random"]["games"] == 4
        assert main([*argv, "--workers", "2"]) == 0  # the workers import the module too
        assert json.loads(capsys.readouterr().out)["results"]["vs_random"]["games"] == 4
        assert match(game_info(TOY, {}), "first-legal", "scripted", games=4)["games"] == 4
    finally:
        PLAYERS.unregister("first-legal")
        sys.modules.pop("my_players", None)


def test_an_unknown_name_in_match_lists_the_training_players_too():
    names = (
        "'random', 'scripted', 'search', 'reference', 'reference:<game>', 'search:<run>', a run directory, "
        "a checkpoint file or a policy"
    )
    with pytest.raises(
        ConfigError, match=re.escape(f"unknown player 'randon': use {names}; did you mean 'random'?")
    ):
        match(game_info(TOY, {}), "randon", "random", 2)
