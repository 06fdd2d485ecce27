"""Errors every game raises, so users can catch one type whatever the game."""


class IllegalActionError(ValueError):
    """An action that the rules do not allow now (masked out, out of range, wrong player, game over)."""


class ConfigError(ValueError):
    """A game configuration value that the rules do not allow (unknown key, bad player count, ...)."""


class OrderError(RuntimeError):
    """An environment method called out of order (step before reset, step after the game ended, ...)."""
