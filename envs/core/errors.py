"""Errors every game raises, so users can catch one type whatever the game."""

import difflib


class IllegalActionError(ValueError):
    """An action that the rules do not allow now (masked out, out of range, wrong player, game over)."""


class ConfigError(ValueError):
    """A game configuration value that the rules do not allow (unknown key, bad player count, ...)."""


class OrderError(RuntimeError):
    """An environment method called out of order (step before reset, step after the game ended, ...)."""


def did_you_mean(name: str, known) -> str:
    """The hint `; did you mean 'random'?` when `name` looks like a misspelling of one of `known` (the
    closest by difflib's ratio), else an empty string: error messages end with it."""
    close = difflib.get_close_matches(str(name), [str(k) for k in known], n=1, cutoff=0.6)
    return f"; did you mean {close[0]!r}?" if close else ""


class PositionError(ValueError):
    """A saved position that cannot be loaded: not a position of this game, or a state the rules forbid."""
