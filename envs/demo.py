"""Play a few seeded games of every registered game with random players, render them, print outcomes.

python -m envs.demo [--games 3] [--out demo_pictures]
"""

from __future__ import annotations

import argparse
import importlib
from pathlib import Path

import numpy as np
from PIL import Image

import envs
from envs.core.policies import play_random_episode


def play(name: str, config: dict, seed: int, out: Path | None) -> str:
    face = importlib.import_module(f"envs.{name}_v0")
    env = face.env(render_mode="ansi", **config)
    env.reset(seed=seed)
    decisions = play_random_episode(env, np.random.default_rng(seed))
    game = env.unwrapped.game
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
        Image.fromarray(game.render_rgb()).save(out / f"{name}-seed{seed}.png")
    returns = ", ".join(f"{r:+.0f}" for r in game.returns())
    return f"{decisions} decisions, returns [{returns}]\n{game.to_string()}"


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--games", type=int, default=3)
    parser.add_argument("--out", type=Path, default=Path("demo_pictures"))
    args = parser.parse_args()
    for name in envs.GAMES:
        spec = envs.spec(name)
        for seed in range(args.games):
            print(f"=== {spec.title} {spec.benchmark_config} seed {seed}: ", end="")
            print(play(name, spec.benchmark_config, seed, args.out))
    print(f"pictures of the final tables in {args.out}/")


if __name__ == "__main__":
    main()
