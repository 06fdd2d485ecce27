"""Regenerate the golden playthroughs on purpose (after an intended rule or observation change).

    python scripts/regenerate_golden.py [game ...]

Records GOLDEN_SEEDS games for every test configuration of each game; review the diff before committing.
"""

from __future__ import annotations

import sys

import envs
from envs.core import golden

GOLDEN_SEEDS = (0, 1)


def main(names: list[str]) -> None:
    for name in names or list(envs.GAMES):
        spec = envs.spec(name)
        for old in golden.golden_paths(spec):
            old.unlink()
        for config in spec.test_configs:
            for seed in GOLDEN_SEEDS:
                path = golden.golden_path(spec, config, seed)
                golden.save(path, golden.record(spec, config, seed))
                print("wrote", path.relative_to(golden.GOLDEN_DIR.parent.parent))


if __name__ == "__main__":
    main(sys.argv[1:])
