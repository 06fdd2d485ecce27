"""One registry of named players: what a name given for a seat stands for, wherever it is given.

A player is named by a word (`"random"`, `"scripted"`, `"search"`), a prefix and what follows it
(`"search:runs/exposed-seed0"`), or a kind of name (a run directory or a checkpoint file: any path
that exists). `PLAYERS` is the one registry: the Gymnasium face's and the batched environment's
`opponents=` (envs.core.policies), and the training package's `match`, `evaluate`, `rate` and `play`,
all resolve names through it. This package registers the players it can make itself; the training
package registers the ones that need a trained run (`search:RUN`, a run directory or a checkpoint)
when it is imported, and so can anyone:

    def first_legal(name, game, seat):
        return lambda observation, action_mask: int(action_mask.argmax())

    PLAYERS.register("first-legal", first_legal)

A factory is called `factory(name, game, seat, **options)`: `name` as given, `game` the game it is
made for (a `GameSetup`, or anything with the same `spec`, `config` and `game_config`, such as the
training package's GameInfo), `seat` the seat it is made for (a scripted player plays as that seat,
a search is seeded by it; 0 where one player is asked for every seat, as `match` does), and options
that only some callers pass (the command line's search budget). It returns a player as `opponents=`
takes one: a policy `policy(observation, action_mask) -> action` (optional hooks `reset()` and
`for_seat(seat)`), an object that reads the game (`act(game, seat)`, as a Search does), or None for
uniform random play drawn from the caller's own random stream.

Installed packages may declare players too, without being imported first: an entry point in the group
`tabletop_rl.players` names a function `register(players)`, called the first time a name is not
known (so a process that never imported the training package still knows `search:RUN`).
"""

from __future__ import annotations

import importlib.metadata
from collections.abc import Callable, Collection
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .errors import ConfigError, did_you_mean
from .registry import GameSpec
from .search import unguided_search

PLUGIN_GROUP = "tabletop_rl.players"

Factory = Callable[..., Any]


@dataclass(frozen=True)
class GameSetup:
    """The game a named player is made for: its spec, its built configuration and the options that
    configuration was built from (the training package's GameInfo has the same three fields)."""

    spec: GameSpec
    config: Any
    game_config: dict


@dataclass(frozen=True)
class Entry:
    """One registered way of naming a player.

    form "name": the word `key` itself; "prefix": any name starting with `key` (which ends in ":"),
    `placeholder` naming what follows; "kind": any name `matches(name)` accepts, described by `labels`.
    `check(name)`, where given, raises a clear error for a name the entry claims but cannot make (a
    prefix followed by a path that does not exist); `suggest(name)` gives what a misspelt name may have
    meant (the paths beside it)."""

    key: str
    factory: Factory
    form: str
    labels: tuple[str, ...] = ()
    placeholder: str = ""
    matches: Callable[[str], bool] | None = None
    check: Callable[[str], None] | None = None
    suggest: Callable[[str], list[str]] | None = None

    def claims(self, name: str) -> bool:
        if self.form == "name":
            return name == self.key
        if self.form == "prefix":
            return name.startswith(self.key)
        return bool(self.matches(name))

    def label(self, command_line: bool) -> list[str]:
        """How lists of players show this entry: in Python code names are quoted strings and a prefix's
        placeholder is <run>; on the command line they are plain words and RUN."""
        if self.form == "kind":
            return list(self.labels)
        if self.form == "prefix":
            word = self.key + (self.placeholder.upper() if command_line else f"<{self.placeholder}>")
        else:
            word = self.key
        return [word if command_line else repr(word)]


FORMS = ("name", "prefix", "kind")  # the order a name is matched in, and lists show them


class Players:
    """Named players: name -> factory, with prefix entries ("search:") and kinds of names (a run
    directory). `resolve(name, game, seat)` makes the player; an unknown name is a ConfigError that
    lists what a player can be and suggests the closest name."""

    def __init__(self, plugins: str | None = PLUGIN_GROUP):
        self._entries: dict[str, Entry] = {}
        self._plugins = plugins
        self._plugin_errors: list[str] | None = None  # None until the plugins are loaded

    # ----- registering ---------------------------------------------------------------------------------
    def register(self, name: str, factory: Factory, *, replace: bool = False) -> None:
        """The word `name` stands for `factory(name, game, seat, **options)`."""
        if not isinstance(name, str) or not name or ":" in name:
            raise ValueError(f"a player's name is a non-empty word without ':', got {name!r}")
        self._add(Entry(name, factory, "name"), replace)

    def register_prefix(
        self,
        prefix: str,
        factory: Factory,
        *,
        placeholder: str,
        check: Callable[[str], None] | None = None,
        replace: bool = False,
    ) -> None:
        """Every name that starts with `prefix` (ending in ":", e.g. "search:"), listed as
        `prefix<placeholder>`; the factory gets the whole name."""
        if not isinstance(prefix, str) or not prefix.endswith(":") or prefix.count(":") != 1:
            raise ValueError(f"a prefix is a word ending in ':', got {prefix!r}")
        self._add(Entry(prefix, factory, "prefix", placeholder=placeholder, check=check), replace)

    def register_kind(
        self,
        key: str,
        labels: tuple[str, ...],
        matches: Callable[[str], bool],
        factory: Factory,
        *,
        suggest: Callable[[str], list[str]] | None = None,
        replace: bool = False,
    ) -> None:
        """Every name that `matches` accepts (e.g. a path that exists), listed as `labels` ("a run
        directory", "a checkpoint file"); `key` names the kind (for `unregister` and `only=`)."""
        self._add(Entry(key, factory, "kind", tuple(labels), matches=matches, suggest=suggest), replace)

    def _add(self, entry: Entry, replace: bool) -> None:
        old = self._entries.get(entry.key)
        if old is not None and old != entry and not replace:
            raise ValueError(f"a player {entry.key!r} is registered already (replace=True replaces it)")
        self._entries[entry.key] = entry

    def unregister(self, key: str) -> None:
        """Forget the name, prefix or kind `key`."""
        if key not in self._entries:
            raise KeyError(f"no player {key!r} is registered")
        del self._entries[key]

    # ----- looking up ----------------------------------------------------------------------------------
    def entries(self, only: Collection[str] | None = None) -> list[Entry]:
        """The entries (of the keys in `only`, if given): names, then prefixes, then kinds, each in the
        order they were registered."""
        chosen = [e for e in self._entries.values() if only is None or e.key in only]
        return sorted(chosen, key=lambda e: FORMS.index(e.form))

    def entry(self, name: str, only: Collection[str] | None = None) -> Entry | None:
        """The entry that claims `name` (a word, then the longest prefix, then a kind), or None; the
        plugins are loaded first if no entry claims it yet."""
        found = self._claim(name, only)
        if found is None and self.load_plugins():
            found = self._claim(name, only)
        return found

    def _claim(self, name: str, only: Collection[str] | None) -> Entry | None:
        if not isinstance(name, str):
            return None
        entries = self.entries(only)
        for form in FORMS:
            claiming = [e for e in entries if e.form == form and e.claims(name)]
            if claiming:  # the first, and of prefixes the longest
                return max(claiming, key=lambda e: len(e.key)) if form == "prefix" else claiming[0]
        return None

    def check(
        self,
        name: str,
        only: Collection[str] | None = None,
        *,
        noun: str = "player",
        command_line: bool = False,
    ) -> Entry:
        """The entry of `name`, having run its own check; a ConfigError for a name no entry claims,
        listing what a `noun` can be (as Python code or a command line writes it) and suggesting the
        closest name."""
        found = self.entry(name, only)
        if found is None:
            raise ConfigError(self.unknown(name, only, noun=noun, command_line=command_line))
        if found.check is not None:
            found.check(name)
        return found

    def resolve(self, name: str, game, seat: int = 0, *, noun: str = "player", **options) -> Any:
        """The player `name` stands for, made for `game` (a GameSetup or the like) and `seat`; `options`
        go to its factory (e.g. a search's budget)."""
        return self.check(name, noun=noun).factory(name, game, seat, **options)

    def labels(self, only: Collection[str] | None = None, command_line: bool = False) -> list[str]:
        """What a player can be, in the order lists show it ('random', ..., 'search:<run>', ...); the
        installed plugins' players included."""
        self.load_plugins()
        return [label for e in self.entries(only) for label in e.label(command_line)]

    def unknown(
        self,
        name: str,
        only: Collection[str] | None = None,
        *,
        noun: str = "player",
        command_line: bool = False,
    ) -> str:
        """The message for a name no entry claims: what a player can be, and the closest known name
        (a word, or a path beside a misspelt one)."""
        labels = self.labels(only, command_line)
        listing = f"a {noun} is {either(labels)}" if command_line else f"use {either([*labels, 'a policy'])}"
        candidates = [e.key for e in self.entries(only) if e.form == "name"]
        for e in self.entries(only):
            if e.suggest is not None:
                candidates += e.suggest(name)
        text = f"unknown {noun} {name!r}: {listing}" + did_you_mean(
            str(Path(name)) if name else name, candidates
        )
        if self._plugin_errors:
            text += f" (players not loaded: {'; '.join(self._plugin_errors)})"
        return text

    # ----- plugins -------------------------------------------------------------------------------------
    def load_plugins(self) -> bool:
        """Call every `register(players)` that an installed package declares in the entry-point group
        (once; a plugin that fails to load is named in unknown-name messages). Whether any loaded now."""
        if self._plugin_errors is not None or self._plugins is None:
            return False
        self._plugin_errors = []
        loaded = False
        for point in importlib.metadata.entry_points(group=self._plugins):
            try:
                point.load()(self)
                loaded = True
            except Exception as exc:  # a plugin's missing extra must not hide the built-in players
                self._plugin_errors.append(f"{point.name}: {exc}")
        return loaded


def either(items: list[str]) -> str:
    """'a, b or c'."""
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} or {items[-1]}"


# ----- the players every game has -------------------------------------------------------------------------
def random_player(name: str, game, seat: int = 0) -> None:
    """Uniform random play over the legal actions, drawn from the caller's own stream (None)."""
    return None


class ScriptedPlayer:
    """The game's scripted baseline at one seat (`GameSpec.scripted_policy(config, seat)`);
    `for_seat(seat)` gives another seat its own."""

    def __init__(self, spec: GameSpec, config, seat: int = 0):
        if spec.scripted_policy is None:
            raise ConfigError(f"{spec.name} has no scripted player (GameSpec.scripted_policy)")
        self.spec, self.config, self.seat = spec, config, seat
        self.policy = spec.scripted_policy(config, seat)

    def __call__(self, observation, action_mask):
        return self.policy(observation, action_mask)

    def for_seat(self, seat: int) -> ScriptedPlayer:
        return ScriptedPlayer(self.spec, self.config, seat)

    def __repr__(self) -> str:
        return f"ScriptedPlayer({self.spec.name}, seat {self.seat})"


def scripted_player(name: str, game, seat: int = 0) -> ScriptedPlayer:
    return ScriptedPlayer(game.spec, game.config, seat)


def search_player(name: str, game, seat: int = 0, budget=None, rollout: str | None = None, seed="seat"):
    """The unguided search (envs.core.search.unguided_search) with the game's defaults; seeded by the
    seat unless `seed` is given (None: fresh randomness)."""
    try:
        return unguided_search(game.spec, game.config, rollout, budget, seat if seed == "seat" else seed)
    except ValueError as exc:
        raise ConfigError(str(exc)) from None


PLAYERS = Players()
PLAYERS.register("random", random_player)
PLAYERS.register("scripted", scripted_player)
PLAYERS.register("search", search_player)
