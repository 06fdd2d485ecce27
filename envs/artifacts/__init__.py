"""Artifacts (Academics vs Looters): the engine, its data, its picture and its scripted baselines."""

from .rules import Artifacts, ArtifactsConfig

__all__ = ["Artifacts", "ArtifactsConfig"]
