"""The layout-built network (net.kind=layout) beside the flat MLP: CPU milliseconds per forward pass,
and the CPU cost of a training run.

    OMP_NUM_THREADS=1 python -m benchmarks.layout_net speed            # every game's default config
                                                  # (+ net.cells / net.seats where a block has cells / seats)
    OMP_NUM_THREADS=1 python -m benchmarks.layout_net train exposaurus net.kind=layout run_dir=/tmp/x

`train` is `python -m training train` (which binds the game's layout itself) with the run's CPU time.
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np
import torch

from envs.core import ActionGroup
from training.cli import config_file, report
from training.config import load_config
from training.games import game_info
from training.nets import PolicyNet

GAMES = ("exposed", "exposaurus", "artifacts", "expressions")


# (kind, overrides, label); the cell heads only on games with a cell block, the seat heads only on
# games with a block of seats. Every variant says what it turns on, so a default config's own net
# options do not leak into another line.
PLAIN = ("net.cells=false", "net.cell_keys=0", "net.cell_seats=false", "net.seats=false")
CELLS = ("net.cells=true", "net.cell_keys=0", "net.cell_seats=false", "net.seats=false")
NETS = (
    ("mlp", PLAIN, "mlp"),
    ("mlp", ("net.cells=false", "net.cell_keys=0", "net.cell_seats=false", "net.seats=true"), "mlp + seats"),
    ("layout", PLAIN, "layout"),
    ("layout", CELLS, "layout + cells"),
    ("layout", (*CELLS, "net.cell_keys=64"), "layout + cells + 64 keys"),
    ("layout", (*CELLS, "net.cell_seats=true"), "layout + cells + every seat's cells"),
)


def has_blocks(game: str, overrides) -> bool:
    """Whether the game has the action blocks a variant's heads read (cells, seats)."""
    info = game_info(game, load_config(config_file(game)).game_config)
    groups = [ActionGroup(*g) for g in info.new_game(0).action_groups()]
    cells = "net.cells=true" not in overrides or any(g.cells for g in groups)
    return cells and ("net.seats=true" not in overrides or any(g.seats for g in groups))


def net_for(game: str, kind: str, overrides=()):
    config = load_config(config_file(game), [f"net.kind={kind}", *overrides])
    info = game_info(config.game, config.game_config)
    torch.manual_seed(0)
    return PolicyNet(info.net_shape, config.net), info


def sample_batch(info, batch: int, seed: int = 0):
    """Real observations and masks from random play (the encoder's cost does not depend on them, but
    the numbers stay in their declared ranges)."""
    rng = np.random.default_rng(seed)
    obs, masks = [], []
    game = info.new_game(seed)
    while len(obs) < batch:
        if game.is_terminal() or game.is_truncated():
            game = info.new_game(int(rng.integers(1 << 30)))
            continue
        p = game.current_player()
        mask = game.legal_action_mask()
        obs.append(game.observation(p))
        masks.append(mask)
        game.apply_action(int(rng.choice(np.flatnonzero(mask))))
    state = torch.zeros(batch, info.state_dim)
    return torch.as_tensor(np.array(obs), dtype=torch.float32), torch.as_tensor(np.array(masks)).bool(), state


def ms_per_call(fn, repeats: int, trials: int = 3) -> float:
    """CPU milliseconds per call (process time, one thread: what the call computes, not how long the
    shared machine's other processes made it wait), the fastest of `trials` timings."""
    fn()
    best = float("inf")
    for _ in range(trials):
        start = time.process_time()
        for _ in range(repeats):
            fn()
        best = min(best, (time.process_time() - start) / repeats)
    return 1000 * best


def timings(net, obs, mask, state) -> tuple[float, float, float]:
    """ms for the actor alone, actor and critic, and actor and critic with the backward pass."""
    repeats = max(2, 1000 // len(obs))

    def update():
        logits, value = net.evaluate_flat(obs, mask, state)
        (torch.log_softmax(logits, -1).mean() + value.mean()).backward()

    with torch.no_grad():
        actor = ms_per_call(lambda: net.step(obs, mask, None, state, need_value=False), repeats)
        both = ms_per_call(lambda: net.evaluate_flat(obs, mask, state), repeats)
    return actor, both, ms_per_call(update, repeats)


def speed(batches=(64, 512)) -> None:
    torch.set_num_threads(1)
    print("| game | net | params | batch | actor ms | actor+critic ms | + backward ms |")
    print("|---|---|---|---|---|---|---|")
    for game in GAMES:
        for kind, overrides, label in NETS:
            if not has_blocks(game, overrides):
                continue
            net, info = net_for(game, kind, overrides)
            params = sum(p.numel() for p in net.parameters())
            for batch in batches:
                obs, mask, state = sample_batch(info, batch)
                actor, both, full = timings(net, obs, mask, state if net.uses_state else None)
                print(f"| {game} | {label} | {params:,} | {batch} | {actor:.2f} | {both:.2f} | {full:.2f} |")


def train(game: str, overrides: list[str]) -> int:
    """A training run (the packaged config of `game` with `overrides`), then its CPU cost: process
    seconds (one torch thread) per 1,000 learner decisions, rollouts, updates and evaluations included."""
    from training.trainer import Trainer

    config = load_config(config_file(game), overrides)
    start = time.process_time()
    trainer = Trainer(config, overwrite=True)
    summary = trainer.train()
    cpu = time.process_time() - start
    report(summary, summary["final_eval"], trainer.info, trainer.config.eval.games)
    print(
        f"{config.net.kind}: {summary['decisions']} decisions, {cpu:.1f} CPU s, "
        f"{1000 * cpu / max(1, summary['decisions']):.2f} CPU s per 1,000 decisions",
        file=sys.stderr,
    )
    return 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("speed")
    t = sub.add_parser("train")
    t.add_argument("game")
    t.add_argument("overrides", nargs="*")
    args = parser.parse_args(argv)
    if args.command == "speed":
        speed()
        return 0
    return train(args.game, args.overrides)


if __name__ == "__main__":
    sys.exit(main())
