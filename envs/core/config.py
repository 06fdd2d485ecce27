"""Game configurations: frozen dataclasses with checked fields and clear errors."""

from __future__ import annotations

import dataclasses
from typing import Any

from .errors import ConfigError


def build_config(config_cls: type, kwargs: dict[str, Any]):
    """Make `config_cls(**kwargs)`, naming any unknown key or bad value in a ConfigError."""
    fields = {f.name: f for f in dataclasses.fields(config_cls)}
    unknown = sorted(set(kwargs) - set(fields))
    if unknown:
        raise ConfigError(
            f"unknown option(s) {unknown} for {config_cls.__name__}; known options: {sorted(fields)}"
        )
    for key, value in kwargs.items():
        expected = fields[key].type
        if expected in ("int", int) and (isinstance(value, bool) or not isinstance(value, int)):
            raise ConfigError(f"{key} must be an integer, got {value!r}")
        if expected in ("bool", bool) and not isinstance(value, bool):
            raise ConfigError(f"{key} must be True or False, got {value!r}")
        if expected in ("str", str) and not isinstance(value, str):
            raise ConfigError(f"{key} must be a string, got {value!r}")
    config = config_cls(**kwargs)
    check = getattr(config, "validate", None)
    if check is not None:
        check()
    return config


def require_choice(name: str, value: Any, choices) -> None:
    if value not in choices:
        raise ConfigError(f"{name} must be one of {list(choices)}, got {value!r}")


def require_range(name: str, value: int, low: int, high: int) -> None:
    if not low <= value <= high:
        raise ConfigError(f"{name} must be between {low} and {high}, got {value!r}")
