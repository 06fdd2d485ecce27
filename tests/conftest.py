"""Shared fixtures: the registered games and their test configurations."""

from __future__ import annotations

import importlib

import pytest

import envs
from envs.core.registry import config_id

CASES = [(name, cfg) for name in envs.GAMES for cfg in envs.spec(name).test_configs]
CASE_IDS = [f"{name}[{config_id(cfg)}]" for name, cfg in CASES]


def face(name: str):
    return importlib.import_module(f"envs.{name}_v0")


@pytest.fixture(params=CASES, ids=CASE_IDS)
def case(request):
    name, cfg = request.param
    return envs.spec(name), face(name), dict(cfg)
