"""The one registry of named players (envs.core.players): each kind of entry resolves, an unknown name
lists what a player can be and suggests the closest, registrations are explicit, a user's own player
plays through the Gymnasium face's opponents=, and installed packages add players as plugins. (The
training package's players: tests/training/test_players.py.)"""

from __future__ import annotations

import pickle
import re
import sys

import gymnasium
import numpy as np
import pytest

import envs
from envs.core.errors import ConfigError
from envs.core.players import PLAYERS, GameSetup, Players, ScriptedPlayer, either
from envs.core.search import Search, reads_game


def exposed_setup(**options) -> GameSetup:
    spec = envs.spec("exposed")
    return GameSetup(spec, spec.config(**options), options)


def first_legal(name, game, seat):
    """A user's own player: always the lowest legal action."""
    return lambda observation, action_mask: int(np.flatnonzero(action_mask)[0])


@pytest.fixture
def registered():
    """'first-legal' registered in the one registry for the test, forgotten after it."""
    PLAYERS.register("first-legal", first_legal)
    yield "first-legal"
    PLAYERS.unregister("first-legal")


def test_the_built_in_players_resolve_for_a_seat():
    game = exposed_setup(num_players=3)
    assert PLAYERS.resolve("random", game, 1) is None  # random play from the caller's own stream
    scripted = PLAYERS.resolve("scripted", game, 2)
    assert isinstance(scripted, ScriptedPlayer) and scripted.seat == 2 and scripted.for_seat(0).seat == 0
    probe = game.spec.new_game(np.random.default_rng(0), **game.game_config)
    p = probe.current_player()
    assert probe.legal_action_mask()[scripted(probe.observation(p), probe.legal_action_mask())]
    search = PLAYERS.resolve("search", game, 1)
    assert isinstance(search, Search) and reads_game(search)
    assert pickle.loads(pickle.dumps(scripted)).seat == 2  # a Gymnasium env with it pickles


def test_a_name_a_prefix_and_a_kind_each_claim_their_names(tmp_path):
    players = Players(plugins=None)
    made = lambda label: lambda name, game, seat=0, **options: (label, name, seat, options)  # noqa: E731
    players.register("plain", made("word"))
    echo = made("echo")
    players.register_prefix("echo:", echo, placeholder="text")
    players.register_prefix("echo:", echo, placeholder="text")  # the same entry again: no change
    players.register_kind("file", ("a file",), lambda name: (tmp_path / name).exists(), made("file"))
    (tmp_path / "plain").write_text("")  # a file named like a word: the word wins
    (tmp_path / "notes").write_text("")
    assert players.resolve("plain", None, 3) == ("word", "plain", 3, {})
    assert players.resolve("echo:hi", None, budget=5) == ("echo", "echo:hi", 0, {"budget": 5})
    assert players.resolve("notes", None) == ("file", "notes", 0, {})
    assert [e.key for e in players.entries()] == ["plain", "echo:", "file"]
    assert players.labels() == ["'plain'", "'echo:<text>'", "a file"]
    assert players.labels(command_line=True) == ["plain", "echo:TEXT", "a file"]


def test_an_unknown_name_lists_what_a_player_can_be_and_suggests_the_closest():
    players = Players(plugins=None)
    players.register("random", lambda name, game, seat=0: None)
    players.register("scripted", lambda name, game, seat=0: None)
    players.register_prefix("search:", lambda name, game, seat=0: None, placeholder="run")
    with pytest.raises(ConfigError) as caught:
        players.resolve("scriptd", None, noun="opponent")
    assert str(caught.value) == (
        "unknown opponent 'scriptd': use 'random', 'scripted', 'search:<run>' or a policy; did you mean 'scripted'?"
    )
    with pytest.raises(
        ConfigError,
        match=re.escape("unknown player 'alphazero': a player is random, scripted or search:RUN") + "$",
    ):
        players.check("alphazero", command_line=True)  # nothing close: no suggestion
    with pytest.raises(ConfigError, match=re.escape("unknown player 'random': a player is search:RUN") + "$"):
        players.check("random", only=("search:",), command_line=True)
    assert either(["a"]) == "a" and either(["a", "b", "c"]) == "a, b or c"


def test_a_prefix_checks_what_follows_it_before_anything_is_made():
    def check(name):
        if name != "echo:ok":
            raise ConfigError(f"{name!r}: only echo:ok")

    players = Players(plugins=None)
    players.register_prefix("echo:", lambda name, game, seat=0: name, placeholder="x", check=check)
    assert players.resolve("echo:ok", None) == "echo:ok"
    with pytest.raises(ConfigError, match="'echo:no': only echo:ok"):
        players.resolve("echo:no", None)


def test_registrations_are_explicit():
    players = Players(plugins=None)
    players.register("mine", first_legal)
    with pytest.raises(ValueError, match="'mine' is registered already"):
        players.register("mine", lambda name, game, seat=0: None)
    players.register("mine", lambda name, game, seat=0: "new", replace=True)
    assert players.resolve("mine", None) == "new"
    players.unregister("mine")
    with pytest.raises(KeyError):
        players.unregister("mine")
    for bad in ("", "a:b", None):
        with pytest.raises(ValueError, match="a player's name"):
            players.register(bad, first_legal)
    with pytest.raises(ValueError, match="a prefix"):
        players.register_prefix("search", first_legal, placeholder="run")


def test_a_users_own_player_plays_through_the_gymnasium_face(registered):
    assert registered in PLAYERS.labels(command_line=True)
    env = gymnasium.make("tabletop/Exposed-v0", num_players=3, seat=0, opponents=registered)
    opponents = env.unwrapped.opponents
    assert len(opponents) == 3 and all(callable(o) for o in opponents)
    mixed = gymnasium.make("tabletop/Exposed-v0", num_players=3, opponents=["random", registered, "scripted"])
    assert callable(mixed.unwrapped.opponents[1])
    obs, info = env.reset(seed=0)
    for _ in range(20):  # the opponents' seats are played by the user's player
        obs, reward, terminated, truncated, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
        if terminated or truncated:
            break
    with pytest.raises(ConfigError, match=r"unknown opponent 'first-legl'.*did you mean 'first-legal'\?"):
        gymnasium.make("tabletop/Exposed-v0", opponents="first-legl")


PLUGIN = """
def register(players):
    players.register("from-plugin", lambda name, game, seat=0: "made by the plugin")


def broken(players):
    raise ImportError("the plugin needs an extra: pip install it")
"""


def test_installed_packages_add_players_as_plugins_when_a_name_is_unknown(tmp_path, monkeypatch):
    """An entry point in the registry's group names `register(players)`: called the first time a name
    is not known; a plugin that fails to load is named in the messages, and the rest still work."""
    (tmp_path / "demo_plugin.py").write_text(PLUGIN)
    info = tmp_path / "demo_plugin-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: demo-plugin\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(
        "[tabletop_rl_test.players]\ndemo = demo_plugin:register\nbroken = demo_plugin:broken\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "demo_plugin", raising=False)
    players = Players(plugins="tabletop_rl_test.players")
    assert players.entry("from-plugin") is not None  # not registered yet: the plugins load
    assert players.resolve("from-plugin", None) == "made by the plugin"
    with pytest.raises(ConfigError, match=r"players not loaded: broken: the plugin needs an extra"):
        players.resolve("nobody", None)
