"""Expressions: the engine, its data, its picture and its scripted baseline."""

from .rules import Expressions, ExpressionsConfig

__all__ = ["Expressions", "ExpressionsConfig"]
