"""Exposed: hidden Guests on a grid; expose the others or collect 7 Wallets (2-6 players)."""

from .rules import Exposed, ExposedConfig

__all__ = ["Exposed", "ExposedConfig"]
