"""A game's state as a value: copied for a clone, written as JSON data for a saved position.

A game object holds two kinds of attributes. Its configuration's fixed definition (layouts, offsets,
tables, frames: a `Definition`, built once per configuration and frozen) is shared by every game of
that configuration and by every copy. Everything else is its state, and what a state value is follows
from its type, never from a list of names kept by hand:

- `copy_value` copies a state value for `clone()` (numpy arrays, lists, dicts, the turn flow and the
  generator copied; immutable values and read-only arrays shared; an unknown type refused), so a new
  state field is copied by construction;
- `encode` / `decode` write a state value as JSON data and read it back, to the same types. The turn
  flow's frames name their functions by qualified name, looked up in a table of the game's own
  functions (`Handlers`): a saved position names no code, and loading one imports nothing.

A position file is `{"format": "tabletop-position", "version": 1, "game", "config", "state"}`
(`Game.to_dict` / `Game.from_dict`).
"""

from __future__ import annotations

import dataclasses
import json
import sys
from collections.abc import Callable
from functools import cache
from pathlib import Path
from types import FunctionType
from typing import Any

import numpy as np

from .errors import PositionError
from .flow import Decide, Do, TurnFlow
from .layout import Layout

FORMAT = "tabletop-position"
VERSION = 1
BIT_GENERATORS = {"PCG64": np.random.PCG64, "PCG64DXSM": np.random.PCG64DXSM, "MT19937": np.random.MT19937,
                  "Philox": np.random.Philox, "SFC64": np.random.SFC64}  # fmt: skip

IMMUTABLE = frozenset((int, float, bool, str, type(None), tuple))  # the common kinds, checked first
_ANY_SEED = np.random.SeedSequence(0)  # copy_rng overwrites the state at once


class Definition:
    """What a configuration fixes, built once and shared by every game of it and by every copy.

    Subclasses set their attributes in `__init__` and end it with `self.freeze()`; after that an
    assignment raises, so no game can change what its siblings share."""

    _frozen = False

    def freeze(self) -> None:
        for value in vars(self).values():
            if type(value) is np.ndarray:
                value.flags.writeable = False
        object.__setattr__(self, "_frozen", True)

    def __setattr__(self, name: str, value: Any) -> None:
        if self._frozen:
            raise AttributeError(
                f"a Definition is frozen (shared by every game of its configuration): {name}"
            )
        object.__setattr__(self, name, value)


# ----- copying a state value (clone) ------------------------------------------------------------------
class _SeedWords(np.random.bit_generator.ISeedSequence):
    """Seed words generated once and handed out again: a new bit generator's state is overwritten at
    once by `copy_rng`, so hashing a seed for it (SeedSequence's cost, half of a copy's) is wasted."""

    words: dict = {}

    def generate_state(self, n_words: int, dtype=np.uint32) -> np.ndarray:
        key = (n_words, np.dtype(dtype))
        words = self.words.get(key)
        if words is None:
            words = self.words[key] = _ANY_SEED.generate_state(n_words, dtype)
        return words.copy()


_SEED_WORDS = _SeedWords()


def copy_rng(rng: np.random.Generator) -> np.random.Generator:
    """An independent generator in the same state: the same draws from here on, at a small fraction of
    deepcopy's cost. Its seed sequence is not the original's; no engine spawns from it."""
    bits = rng.bit_generator
    new = type(bits)(_SEED_WORDS)
    new.state = bits.state
    return np.random.Generator(new)


_IMMUTABLE_KINDS = (
    int,
    float,
    str,
    bytes,
    tuple,
    frozenset,
    type(None),
    np.generic,
    FunctionType,
    Definition,
    Layout,
)
_verdicts: dict[type, bool] = {kind: True for kind in IMMUTABLE}


def is_immutable(kind: type) -> bool:
    """Whether values of this type are never changed in place, so a copy may share them: numbers,
    strings, tuples (records included: their contents are never changed in place either), frozen
    dataclasses (configurations), functions, definitions and layouts."""
    verdict = _verdicts.get(kind)
    if verdict is None:
        params = getattr(kind, "__dataclass_params__", None)
        verdict = _verdicts[kind] = issubclass(kind, _IMMUTABLE_KINDS) or bool(params and params.frozen)
    return verdict


def _copy_list(value: list) -> list:
    # a list holds one kind of item (tests/core checks it along games): its first tells which
    if value and not is_immutable(type(value[0])):
        return [copy_value(item) for item in value]
    return value[:]


def _copy_dict(value: dict) -> dict:
    if value and not is_immutable(type(next(iter(value.values())))):
        return {key: copy_value(item) for key, item in value.items()}
    return value.copy()


def _copy_array(value: np.ndarray) -> np.ndarray:
    return value.copy() if value.flags.writeable else value  # read-only arrays are never changed


COPIERS: dict[type, Callable[[Any], Any]] = {
    list: _copy_list,
    dict: _copy_dict,
    set: set.copy,
    np.ndarray: _copy_array,
    TurnFlow: TurnFlow.copy,
    np.random.Generator: copy_rng,
}


def copy_value(value: Any) -> Any:
    """A copy of one state value that shares nothing mutable with it (immutable values are shared)."""
    kind = type(value)
    if kind in IMMUTABLE:
        return value
    copier = COPIERS.get(kind)
    if copier is None:
        if is_immutable(kind):
            return value
        copier = getattr(value, "copy", None)  # a game's own state object (Artifacts' vault)
        if copier is None:
            raise TypeError(f"cannot copy a state value of type {kind.__name__}: give it a copy() method")
        return copier()
    return copier(value)


# ----- the game's own functions and records, by name (for the turn flow's frames) ---------------------
class Handlers:
    """The functions a game's frames may name and the record types its state may hold, by qualified
    name: the functions and classes defined in the modules of the game class and its bases. A saved
    position names only these; loading looks names up here and never imports."""

    def __init__(self, game_class: type):
        modules = {klass.__module__ for klass in game_class.__mro__} - {"builtins", "abc"}
        modules |= set(getattr(game_class, "rule_modules", ()))  # modules of frame functions beside them
        self.functions: dict[str, Callable] = {}
        self.records: dict[str, type] = {}
        for module_name in sorted(modules):
            for value in vars(sys.modules[module_name]).values():
                self._add(value, module_name)
        for klass in game_class.__mro__:
            for value in vars(klass).values():
                self._add(getattr(value, "__func__", value), klass.__module__)

    def _add(self, value: Any, module_name: str) -> None:
        if getattr(value, "__module__", None) != module_name:
            return
        if isinstance(value, type):
            if hasattr(value, "_fields") or dataclasses.is_dataclass(value):
                self.records[value.__qualname__] = value
            for member in vars(value).values():  # methods of helper classes (mixins are in the MRO)
                member = getattr(member, "__func__", member)
                if callable(member) and getattr(member, "__module__", None) == module_name:
                    self.functions.setdefault(member.__qualname__, member)
        elif callable(value) and hasattr(value, "__qualname__"):
            self.functions.setdefault(value.__qualname__, value)

    def name_of(self, fn: Callable) -> str:
        name = getattr(fn, "__qualname__", None)
        if name is None or self.functions.get(name) is not fn:
            raise TypeError(f"the turn flow names {fn!r}, which is not one of the game's own functions")
        return name

    def function(self, name: Any) -> Callable:
        fn = self.functions.get(name) if isinstance(name, str) else None
        if fn is None:
            raise PositionError(f"the turn flow names {name!r}, which is not one of this game's rules")
        return fn

    def record(self, name: Any) -> type:
        record = self.records.get(name) if isinstance(name, str) else None
        if record is None:
            raise PositionError(f"unknown record type {name!r} in the state")
        return record


@cache
def handlers(game_class: type) -> Handlers:
    return Handlers(game_class)


# ----- writing a state value as JSON data ---------------------------------------------------------------
def encode(value: Any, names: Handlers) -> Any:
    """JSON data for a state value: ints, floats, strings, booleans, None and lists as themselves,
    everything else as a one-key object naming its kind (`array`, `tuple`, `dict`, `set`, `record`,
    `flow`, `rng`)."""
    kind = type(value)
    if kind in (int, float, str, bool, type(None)):
        return value
    if kind is list:
        return [encode(item, names) for item in value]
    if isinstance(value, np.generic):
        return value.item()
    if kind is np.ndarray:
        return {"array": value.tolist(), "dtype": value.dtype.name, "shape": list(value.shape)}
    if kind is TurnFlow:
        return {"flow": [_encode_frame(frame, names) for frame in value.frames]}
    if kind is np.random.Generator:
        return {"rng": value.bit_generator.state}
    if hasattr(value, "_fields") or dataclasses.is_dataclass(value):
        fields = (
            list(value)
            if hasattr(value, "_fields")
            else [getattr(value, f.name) for f in dataclasses.fields(value)]
        )
        names.record(kind.__qualname__)  # only the game's own record types
        return {"record": kind.__qualname__, "fields": [encode(field, names) for field in fields]}
    if kind is tuple:
        return {"tuple": [encode(item, names) for item in value]}
    if kind is dict:
        return {"dict": [[encode(k, names), encode(v, names)] for k, v in value.items()]}
    if kind in (set, frozenset):
        return {kind.__name__: [encode(item, names) for item in sorted(value)]}
    raise TypeError(f"cannot write a state value of type {kind.__name__} as data")


def _encode_frame(frame: Decide | Do, names: Handlers) -> dict:
    args = [encode(arg, names) for arg in frame.args]
    if type(frame) is Do:
        return {"do": names.name_of(frame.run), "args": args}
    return {
        "decide": frame.kind,
        "player": frame.player,
        "legal": names.name_of(frame.legal),
        "then": names.name_of(frame.then),
        "args": args,
    }


def decode(data: Any, names: Handlers) -> Any:
    """The state value `encode` wrote (PositionError naming the problem for anything else)."""
    kind = type(data)
    if kind in (int, float, str, bool, type(None)):
        return data
    if kind is list:
        return [decode(item, names) for item in data]
    if kind is not dict or len(data) not in (1, 2, 3):
        raise PositionError(f"not a state value: {_short(data)}")
    if "array" in data:
        return _decode_array(data)
    if "flow" in data:
        return TurnFlow([_decode_frame(frame, names) for frame in _list(data["flow"], "flow")])
    if "rng" in data:
        return _decode_rng(data["rng"])
    if "record" in data:
        record = names.record(data["record"])
        fields = [decode(field, names) for field in _list(data.get("fields"), "record fields")]
        try:
            return record(*fields)
        except TypeError as error:
            raise PositionError(f"record {data['record']}: {error}") from None
    if "tuple" in data:
        return tuple(decode(item, names) for item in _list(data["tuple"], "tuple"))
    if "dict" in data:
        pairs = _list(data["dict"], "dict")
        if not all(type(pair) is list and len(pair) == 2 for pair in pairs):
            raise PositionError(f"a dict is a list of [key, value] pairs: {_short(pairs)}")
        out = {}
        for k, v in pairs:
            key = _hashable(decode(k, names))
            if key in out:
                raise PositionError(f"a dict names the key {_short(key)} twice")
            out[key] = decode(v, names)
        return out
    for set_kind in (set, frozenset):
        if set_kind.__name__ in data:
            return set_kind(_hashable(decode(item, names)) for item in _list(data[set_kind.__name__], "set"))
    raise PositionError(f"not a state value: {_short(data)}")


def _decode_frame(data: Any, names: Handlers) -> Decide | Do:
    if type(data) is not dict:
        raise PositionError(f"a turn-flow frame is an object, not {_short(data)}")
    args = tuple(decode(arg, names) for arg in _list(data.get("args", []), "frame args"))
    if "do" in data:
        return Do(names.function(data["do"]), args)
    kind, player = data.get("decide"), data.get("player")
    if type(kind) is not int or type(player) is not int:
        raise PositionError(f"a decision frame needs integer 'decide' and 'player': {_short(data)}")
    return Decide(kind, player, names.function(data.get("legal")), names.function(data.get("then")), args)


def _decode_array(data: dict) -> np.ndarray:
    try:
        dtype = np.dtype(data["dtype"])
        if dtype.kind not in "biuf":
            raise TypeError(dtype)
        array = np.array(data["array"], dtype=dtype)
        shape = tuple(data["shape"])
    except (KeyError, TypeError, ValueError) as error:
        raise PositionError(f"not an array: {_short(data)} ({error})") from None
    if array.shape != shape:
        raise PositionError(f"an array of shape {list(array.shape)} where its shape says {list(shape)}")
    return array


def _decode_rng(state: Any) -> np.random.Generator:
    kind = BIT_GENERATORS.get(state.get("bit_generator")) if type(state) is dict else None
    if kind is None:
        raise PositionError(f"unknown generator state {_short(state)}")
    bits = kind(_ANY_SEED)
    try:
        bits.state = state
    except (TypeError, ValueError, KeyError) as error:
        raise PositionError(f"bad generator state: {error}") from None
    return np.random.Generator(bits)


def _list(value: Any, what: str) -> list:
    if type(value) is not list:
        raise PositionError(f"{what} must be a list, got {_short(value)}")
    return value


def _hashable(value: Any) -> Any:
    try:
        hash(value)
    except TypeError:
        raise PositionError(f"{_short(value)} cannot be a dict key or a set member") from None
    return value


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


# ----- checks a game's check_position shares ------------------------------------------------------------
def ints_within(values: Any, low: int, high: int | None = None, length: int | None = None) -> bool:
    """Whether `values` holds integers (not booleans) in low..high (no upper bound when high is None),
    `length` of them when given."""
    if length is not None and len(values) != length:
        return False
    return all(is_int(x) and x >= low and (high is None or x <= high) for x in values)


def check_ints(name: str, values: Any, low: int, high: int | None = None, length: int | None = None) -> None:
    """PositionError naming the state value `name` unless it holds integers in low..high (`length` of
    them when given)."""
    if length is not None and len(values) != length:
        raise PositionError(f"{name} must hold {length} integers, not {len(values)}")
    for x in values:
        if not ints_within((x,), low, high):
            raise PositionError(
                f"{name} holds {x!r}; it must be an integer in {low}..{'' if high is None else high}"
            )


def is_int(x: Any) -> bool:
    return isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_))


# ----- position files ----------------------------------------------------------------------------------
MAX_FILE_BYTES = 50 * 2**20  # far above any game's position; a bigger file is not one


def write_position(game: Any, path: str | Path) -> Path:
    """Write `game.to_dict()` to `path` as JSON (a position file a person can read and edit)."""
    path = Path(path)
    path.write_text(json.dumps(game.to_dict(), indent=1) + "\n")
    return path


def read_position(path: str | Path) -> dict:
    """The JSON data of a position file (PositionError for a missing, huge or non-JSON file; loading it
    into a game, `Game.from_dict`, checks the rest). It is data: nothing in it is run or imported."""
    path = Path(path)
    try:
        if path.stat().st_size > MAX_FILE_BYTES:
            raise PositionError(f"{path}: {path.stat().st_size} bytes is not a position file")
        data = json.loads(path.read_text())
    except OSError as error:
        raise PositionError(f"cannot read the position file {path}: {error.strerror or error}") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise PositionError(f"{path} is not a position file (not JSON: {error})") from None
    if type(data) is not dict:
        raise PositionError(f"{path} is not a position file (a position is a JSON object)")
    return data
