"""The pyspiel bridge: any engine (the Game contract alone) as a Python `pyspiel.Game`.

OpenSpiel's Python games (open_spiel/python/games/*.py) subclass `pyspiel.Game` and `pyspiel.State`
and register a factory; OpenSpiel's algorithms and bots then run on them. This module does that for
every engine through the contract only: clone, current_player, legal_action_mask, apply_action,
returns, is_terminal, is_truncated, observation, resample_hidden, action_to_string, to_string,
game_type.

What the bridge declares, and why:
- chance SAMPLED_STOCHASTIC: an engine draws its own randomness (deals, shuffles, dice) from its rng
  inside `apply_action`; there are no chance nodes and no chance outcome lists.
- information IMPERFECT_INFORMATION, dynamics SEQUENTIAL, reward model TERMINAL: every engine's
  `returns()` stay zero until the end (tests/openspiel checks it on every game), so a step's reward
  is pyspiel's default (the returns at the end, zeros before).
- information_state_tensor and observation_tensor are both `observation(player)`: that player's
  information state as the engine designs it (a summary of what the player has seen, not necessarily
  an action-by-action recall); information_state_string is a key of that vector (equal vectors, equal
  keys), observation_string is `to_string(player)`.
- max_game_length is `max_decisions`: a state past it is terminal here (truncated, with the returns
  accrued so far, zeros for games that pay at the end).
- `resample_from_infostate(player, sampler)` is the engine's `resample_hidden`, seeded from the
  sampler, so Python ISMCTS (open_spiel.python.algorithms.ismcts) searches over determinizations.
  pyspiel's C++ bots (pyspiel.ISMCTSBot, pyspiel.MCTSBot) crash on any Python game, OpenSpiel's own
  python_kuhn_poker included: use the Python algorithms.
"""

from __future__ import annotations

import dataclasses
import hashlib
from typing import Any

import numpy as np
import pyspiel

from .config import build_config
from .errors import ConfigError
from .registry import GameSpec, spec

SHORT_NAME_PREFIX = "tabletop_"
RNG_SEED = "rng_seed"  # OpenSpiel's name for a sampled-stochastic game's seed; -1: fresh entropy

_UTILITY = {
    "zero_sum": pyspiel.GameType.Utility.ZERO_SUM,
    "constant_sum": pyspiel.GameType.Utility.CONSTANT_SUM,
    "general_sum": pyspiel.GameType.Utility.GENERAL_SUM,
    "identical": pyspiel.GameType.Utility.IDENTICAL,
}
_PARAMETER_TYPES = (bool, int, float, str)  # what a pyspiel GameParameter holds


def short_name(spec: GameSpec) -> str:
    return SHORT_NAME_PREFIX + spec.name


def parameter_specification(spec: GameSpec) -> dict[str, Any]:
    """The config fields pyspiel can carry (bool/int/float/str defaults), plus `rng_seed`.

    A field whose default is None (Exposaurus' `die`: by player count) stays out: pyspiel parameters
    cannot be None. `load_game(..., die=True)` still sets it; `pyspiel.load_game(...)` cannot."""
    params = {}
    for f in dataclasses.fields(spec.game_class.config_class):
        if f.default is not dataclasses.MISSING and isinstance(f.default, _PARAMETER_TYPES):
            params[f.name] = f.default
    params[RNG_SEED] = -1
    return params


def player_range(spec: GameSpec) -> tuple[int, int]:
    """(min, max) player counts the config accepts (probed through the config's own validation)."""
    ok = []
    for n in range(1, 33):
        try:
            build_config(spec.game_class.config_class, {"num_players": n})
        except ConfigError:
            continue
        ok.append(n)
    return min(ok), max(ok)


def spiel_game_type(spec: GameSpec, engine) -> pyspiel.GameType:
    """The pyspiel GameType of `engine`'s configuration (registered with the default one's)."""
    low, high = player_range(spec)
    if engine.game_type().reward_model != "terminal":  # the State below reports returns only
        raise ValueError(f"{spec.title}: the OpenSpiel bridge takes games with terminal rewards only")
    return pyspiel.GameType(
        short_name=short_name(spec),
        long_name=f"Tabletop {spec.title}",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.SAMPLED_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=_UTILITY[engine.game_type().utility],
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=high,
        min_num_players=low,
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=parameter_specification(spec),
    )


def spiel_game_info(engine) -> pyspiel.GameInfo:
    kind = engine.game_type()
    return pyspiel.GameInfo(
        num_distinct_actions=engine.num_actions,
        max_chance_outcomes=0,  # no explicit chance nodes
        num_players=engine.num_players,
        min_utility=float(kind.min_return),
        max_utility=float(kind.max_return),
        utility_sum=kind.utility_sum,  # 0 for zero-sum, the declared total for constant-sum games
        max_game_length=kind.max_decisions,
    )


class SpielGame(pyspiel.Game):
    """One configuration of an engine as a `pyspiel.Game`; `new_initial_state()` deals a new game.

    The deals come from one rng per SpielGame, seeded by `rng_seed` (-1: fresh entropy)."""

    def __init__(self, spec: GameSpec, params: dict[str, Any] | None = None):
        params = dict(params or {})
        seed = params.pop(RNG_SEED, -1)
        self.spec = spec
        self.config = spec.config(**params)
        self._rng = np.random.default_rng(None if seed is None or seed < 0 else seed)
        probe = spec.game_class(self.config, np.random.default_rng(0))
        self.observation_layout = probe.observation_layout
        spiel_params = {k: v for k, v in params.items() if isinstance(v, _PARAMETER_TYPES)}
        spiel_params[RNG_SEED] = -1 if seed is None else int(seed)
        super().__init__(spiel_game_type(spec, probe), spiel_game_info(probe), spiel_params)

    def new_engine(self):
        return self.spec.game_class(self.config, np.random.default_rng(self._rng.integers(2**63)))

    def new_initial_state(self) -> SpielState:
        return SpielState(self)

    def make_py_observer(self, iig_obs_type=None, params=None) -> EngineObserver:
        if isinstance(iig_obs_type, dict):  # pyspiel calls make_py_observer(params) for the default type
            iig_obs_type, params = None, iig_obs_type
        return EngineObserver(self.observation_layout, iig_obs_type, params)


class _Engine:
    """Holds a state's engine; built on first use, deep-copied through the engine's own clone().

    pyspiel clones a Python state by making a new initial state and deep-copying the old state's
    attributes over it: the lazy build keeps that throw-away initial state from dealing a game."""

    __slots__ = ("game", "make")

    def __init__(self, make=None, game=None):
        self.make, self.game = make, game

    def get(self):
        if self.game is None:
            self.game, self.make = self.make(), None
        return self.game

    def __deepcopy__(self, memo):
        return _Engine(game=self.get().clone())

    def __getstate__(self):  # pyspiel serializes a Python state by pickling its attributes:
        return self.get().to_dict()  # the engine goes as its position (data, Game.to_dict)

    def __setstate__(self, position):
        self.make, self.game = None, spec(position["game"]).game_class.from_dict(position)


class _Handover(_Engine):
    """An engine passed to a clone as it is (resample_hidden already made a fresh copy)."""

    __slots__ = ()

    def __deepcopy__(self, memo):
        return _Engine(game=self.game)


class SpielState(pyspiel.State):
    """A game in progress, as a `pyspiel.State`. `state.engine` is the engine behind it."""

    def __init__(self, game: SpielGame):
        super().__init__(game)
        self._box = _Engine(game.new_engine)

    @property
    def engine(self):
        return self._box.get()

    def current_player(self) -> int:
        if self.is_terminal():
            return pyspiel.PlayerId.TERMINAL
        return int(self.engine.current_player())

    def _legal_actions(self, player: int) -> list[int]:
        return self.engine.legal_actions().tolist()

    def _apply_action(self, action: int) -> None:
        self.engine.apply_action(action)

    def _action_to_string(self, player: int, action: int) -> str:
        return self.engine.action_to_string(int(action))

    def is_terminal(self) -> bool:
        engine = self.engine
        return bool(engine.is_terminal() or engine.is_truncated())

    def returns(self) -> list[float]:
        return [float(r) for r in self.engine.returns()]

    def resample_from_infostate(self, player_id: int, probability_sampler) -> SpielState:
        """A state drawn by the engine's `resample_hidden(player_id)`: the same information state
        for `player_id`, the hidden part redrawn, its own rng for the future; seeded from
        `probability_sampler` (a callable giving uniform floats, e.g. pyspiel.UniformProbabilitySampler)."""
        seed = [int(probability_sampler() * 2**32) for _ in range(4)]
        drawn = self.engine.resample_hidden(player_id, np.random.default_rng(seed))
        box = self._box
        self._box = _Handover(game=drawn)
        try:
            return self.clone()  # pyspiel's clone keeps the history and move number
        finally:
            self._box = box

    def __str__(self) -> str:
        return self.engine.to_string()


class EngineObserver:
    """pyspiel's Python observer: the tensor is `observation(player)` with the layout's pieces as
    `dict` views; the string is a key of that vector (information state) or `to_string(player)`."""

    def __init__(self, layout, iig_obs_type=None, params=None):
        if params:
            raise ValueError(f"observation parameters are not supported; passed {params}")
        if iig_obs_type is not None and iig_obs_type.private_info != pyspiel.PrivateInfoType.SINGLE_PLAYER:
            raise ValueError(
                "only a player's own view is available (private_info=SINGLE_PLAYER): the engines "
                "declare no public-only or all-players observation"
            )
        self.perfect_recall = iig_obs_type is not None and iig_obs_type.perfect_recall
        self.tensor = np.zeros(layout.size, np.float32)
        self.dict = {p.name: self.tensor[p.slice].reshape(p.shape or (1,)) for p in layout}

    def set_from(self, state: SpielState, player: int) -> None:
        self.tensor[:] = state.engine.observation(player)

    def string_from(self, state: SpielState, player: int) -> str:
        if self.perfect_recall:
            return information_state_key(state.engine.observation(player))
        return state.engine.to_string(player)


def information_state_key(observation: np.ndarray) -> str:
    """A short string, equal for equal observation vectors (the information state ISMCTS keys nodes
    by): a 128-bit digest, so distinct vectors collide with negligible probability."""
    data = np.ascontiguousarray(observation, dtype=np.float32).tobytes()
    return hashlib.blake2b(data, digest_size=16).hexdigest()
