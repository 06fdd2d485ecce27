"""Reference agents (training.references): the shipped agents load by name wherever a player is named,
play legal games on the configurations they were trained for, and never change once shipped; names
resolve by the game played; a damaged file and an ambiguous name are refused; `freeze` makes a run a
reference agent."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import torch
import yaml

from envs.core.errors import ConfigError
from envs.core.gym_env import SingleSeatEnv
from envs.core.players import PLAYERS
from envs.core.search import Search, SearchBudget
from training import Policy, load_policy
from training import references as refs
from training.checkpoint import read_checkpoint
from training.cli import main
from training.evaluate import match
from training.games import game_info
from training.references.freeze import freeze
from training.trainer import Trainer

from .helpers import TOY, ship_reference, tiny_config

ROOT = Path(__file__).resolve().parents[2]

# The digest of every shipped file, pinned: a shipped version never changes (a new agent is a new
# version, added here beside the old ones).
PINNED = {
    "reference:artifacts-7p-v1": "026eeff41f159a5ea069040179f28250236d4074bab20d4d8089f288b860fa9f",
    "reference:exposaurus-2p-v1": "4b4721a2d706acb85b84f8f51e3d2936d66c8516b14604f04492737a2b48edba",
    "reference:exposaurus-2p-v2": "4651d0f4db8ad82df59cda820bfb27ba37bafee9612cd9a5ea59e43353e85710",
    "reference:exposed-2p-v1": "585324b2d8018aaa775e760235674dd95b51dc2d0e6fac762ce2d027e4b0a864",
    "reference:exposed-4p-v1": "e2667271042b0e9f17501af25355b41e55d9aa2d0c0556302373c228d4b3415a",
    "reference:expressions-4p-v1": "3a640acd8fa22390f218106e821279748fbfc08c87cdaf4c830f8bb615b83fed",
}
SHIPPED = refs.shipped()
MAX_MEGABYTES = 8  # per agent: the wheel stays small (float32 weights, as trained)


def info_of(reference):
    return game_info(reference.game, {"num_players": reference.num_players})


def newest(reference):
    """The newest shipped version for `reference`'s game and number of players."""
    same = [r for r in SHIPPED if (r.game, r.num_players) == (reference.game, reference.num_players)]
    return max(same, key=lambda r: r.version)


@pytest.mark.parametrize("reference", SHIPPED, ids=lambda r: r.name)
def test_a_shipped_agent_is_the_pinned_file_and_small(reference):
    assert PINNED[reference.name] == reference.sha256 == refs.file_sha256(reference.path)
    assert reference.path.stat().st_size < MAX_MEGABYTES * 2**20
    data = read_checkpoint(reference.name)
    assert data["trainer"] is None  # the policy alone: no optimizer, pool or games in progress
    assert (data["game"], data["num_players"]) == (reference.game, reference.num_players)


def test_every_pinned_agent_is_shipped_and_every_default_config_has_one():
    assert sorted(r.name for r in SHIPPED) == sorted(PINNED)
    commands = {(r.game, r.num_players): r.trained["command"] for r in SHIPPED}
    for config in (ROOT / "configs").glob("*.yaml"):
        data = yaml.safe_load(config.read_text())
        key = (data["game"], data["game_config"]["num_players"])
        assert f"configs/{config.name} " in commands[key], config.name


@pytest.mark.parametrize("reference", SHIPPED, ids=lambda r: r.name)
def test_a_shipped_agent_plays_legal_games_by_every_name(reference):
    info = info_of(reference)
    short = f"reference:{reference.game}-v{reference.version}"
    names = [reference.name, short]
    if reference is newest(reference):  # the names without a version take the newest
        names += [f"reference:{reference.game}", "reference"]
    for name in names:
        policy = PLAYERS.resolve(name, info)
        assert isinstance(policy, Policy) and policy.meta["path"] == str(reference.path)
    # a legal game against random play: the engines refuse an illegal action
    assert match(info, short, "random", games=2, seed=1)["games"] == 2
    assert isinstance(load_policy(reference.name), Policy)


@pytest.mark.parametrize("reference", [r for r in SHIPPED if r.game == "exposaurus"], ids=lambda r: r.name)
def test_the_guided_search_on_a_shipped_agent_and_the_gymnasium_face(reference):
    info = info_of(reference)
    searcher = PLAYERS.resolve(f"search:{reference.name}", info, budget=SearchBudget(simulations=4))
    assert isinstance(searcher, Search) and searcher.prior is not None
    assert match(info, searcher, "random", games=1)["games"] == 1
    env = SingleSeatEnv(info.spec, opponents=reference.name, seat=0, num_players=reference.num_players)
    _, first = env.reset(seed=0)
    assert all(isinstance(o, Policy) for s, o in enumerate(env.opponents) if s != 0)
    env.step(int(np.flatnonzero(first["action_mask"])[0]))


FAKE = (
    refs.Reference("exposed", 2, 1, "exposed-2p-v1.pt", "0" * 64, {}),
    refs.Reference("exposed", 4, 1, "exposed-4p-v1.pt", "0" * 64, {}),
    refs.Reference("exposed", 4, 2, "exposed-4p-v2.pt", "0" * 64, {}),
    refs.Reference("exposaurus", 2, 1, "exposaurus-2p-v1.pt", "0" * 64, {}),
)


@pytest.fixture
def fake(monkeypatch):
    monkeypatch.setattr(refs, "shipped", lambda: FAKE)


def test_names_fill_what_they_leave_out_from_the_game_played(fake):
    four, two = game_info("exposed", {"num_players": 4}), game_info("exposed", {"num_players": 2})
    assert refs.find("reference", four) is FAKE[2]  # the newest version for 4 players
    assert refs.find("reference:exposed-v1", four) is FAKE[1]
    assert refs.find("reference:exposed", two) is FAKE[0]
    assert refs.find("reference:exposed-4p-v1") is FAKE[1]
    assert refs.find("reference:exposaurus") is FAKE[3]  # one configuration: no game needed
    assert refs.parse("reference:exposed-4p-v12") == ("exposed", 4, 12)


def test_a_manifest_names_files_of_its_own_folder_only():
    for outside in ("../exposed-2p-v1.pt", "/etc/passwd", "sub/exposed.pt", ""):
        with pytest.raises(ConfigError, match="not a file of"):
            refs.Reference("exposed", 2, 1, outside, "0" * 64, {}).verified_path()


def test_names_that_match_none_or_several_agents_are_refused_with_the_names_that_would_do(fake):
    with pytest.raises(ConfigError, match=r"names 2 reference agents \(reference:exposed-2p-v1, "):
        refs.find("reference:exposed-v1")  # which number of players?
    with pytest.raises(ConfigError, match="no reference agent 'reference:exposed-v2' for exposed with 2"):
        refs.find("reference:exposed-v2", game_info("exposed", {"num_players": 2}))
    with pytest.raises(ConfigError, match=r"with 6 players \(this game's are for num_players=2 or 4\)"):
        refs.find("reference", game_info("exposed", {"num_players": 6}))  # which counts would do
    with pytest.raises(ConfigError, match="plays exposaurus, not exposed"):
        refs.find("reference:exposaurus", game_info("exposed", {"num_players": 2}))
    for bad in ("reference:", "reference:Exposed", "reference:exposed-v", "reference:exposed-4p1"):
        with pytest.raises(ConfigError, match="not a reference agent's name"):
            refs.parse(bad)
    with pytest.raises(ConfigError, match="not a reference agent's name"):
        PLAYERS.check("search:reference:exposed-x")


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    root = tmp_path_factory.mktemp("reference_run")
    Trainer(tiny_config(root / "mlp", "total_steps=600"), log=False).train()
    return root / "mlp"


def test_freeze_ships_a_runs_policy_alone_once_per_version(run, tmp_path, monkeypatch):
    entry = ship_reference(run, tmp_path, monkeypatch)
    path = tmp_path / entry["file"]
    assert entry["sha256"] == refs.file_sha256(path) and entry["trained"]["decisions"] > 0
    assert entry["trained"]["environment"]["torch"] == torch.__version__  # where it was trained
    listed = json.loads((tmp_path / "references.json").read_text())
    assert listed["agents"] == [entry]
    with pytest.raises(ConfigError, match="shipped already; a new agent is a new version"):
        freeze(run, 1, folder=tmp_path)
    assert json.loads((tmp_path / "references.json").read_text()) == listed  # nothing changed
    # the frozen policy is the run's: the same network, no trainer state
    frozen, original = read_checkpoint(path), read_checkpoint(run)
    assert frozen["trainer"] is None and original["trainer"] is not None
    for key, tensor in original["model"].items():
        assert torch.equal(frozen["model"][key], tensor)
    # loaded by name from a manifest, and refused once its bytes change
    assert entry["game"] == "toy_nim" and refs.find("reference:toy_nim").path == path
    assert match(game_info(TOY, {}), "reference", "random", games=2)["games"] == 2
    damaged = bytearray(path.read_bytes())
    damaged[-100] ^= 1
    path.write_bytes(bytes(damaged))
    with pytest.raises(ConfigError, match="is damaged or was replaced"):
        load_policy("reference:toy_nim-v1")


def test_freeze_records_no_environment_for_a_checkpoint_without_its_run_and_refuses_a_damaged_summary(
    run, tmp_path
):
    import shutil

    alone = tmp_path / "copied" / "checkpoints" / "final.pt"  # a checkpoint without its run's summary
    alone.parent.mkdir(parents=True)
    shutil.copy(read_checkpoint(run)["path"], alone)
    assert freeze(alone, 1, folder=tmp_path)["trained"]["environment"] is None
    (tmp_path / "copied" / "summary.json").write_text("[1, 2]")
    with pytest.raises(ConfigError, match="is not a run's summary"):
        freeze(alone, 2, folder=tmp_path)
    assert not (tmp_path / "toy_nim-2p-v2.pt").exists()  # refused before anything is written


def test_the_command_line_evaluates_a_reference_agent_by_name(capsys):
    reference = SHIPPED[0]
    short = f"reference:{reference.game}-v{reference.version}"
    assert main(["evaluate", short, "--opponents", "random", "--games", "2"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["agent"] == reference.name and out["results"]["vs_random"]["games"] == 2


def test_the_list_names_every_shipped_agent_with_its_digest(capsys):
    from training.references.freeze import main as references_main

    assert references_main(["list"]) == 0
    out = capsys.readouterr().out
    for reference in SHIPPED:
        assert f"| `{reference.name}` | `{reference.trained['command']}` |" in out
        assert reference.sha256[:16] in out
