"""Exposaurus: build a 4x4 fossil museum, collect gems for closed circles, match gems to fossil groups."""

from .rules import Exposaurus, ExposaurusConfig

__all__ = ["Exposaurus", "ExposaurusConfig"]
