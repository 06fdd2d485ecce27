"""`python -m training export`: every kind of network training/nets.py builds, on real observations of
every game, written as a torch.export program and as TorchScript and run by a script that imports torch
alone: the same logits as the policy, one decision at a time (a GRU's memory carried per seat) and
batched."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
import torch

from training import checkpoint as ckpt
from training.cli import config_file, main
from training.config import load_config
from training.games import game_info
from training.nets import PolicyNet
from training.policy import export_format, load_policy

# small networks: what is checked is that each piece is carried over, not its size
SMALL = ["net.hidden=[48]", "net.critic_hidden=[8]", "net.gru_size=16", "net.embed=8", "net.conv_channels=4"]
PLAIN = ["net.seats=false", "net.cells=false", "net.cell_keys=0", "net.critic=separate", "net.aux_state=0"]
VARIANTS = {
    "mlp": ["net.kind=mlp", "net.normalize_obs=true", "net.direct=true"],
    "gru": ["net.kind=gru", "net.normalize_obs=true"],
    "layout": ["net.kind=layout"],
    "layout-cells": ["net.kind=layout", "net.cells=true", "net.cell_keys=4"],
    "mlp-seats": ["net.kind=mlp", "net.seats=true"],
    "gru-seats": ["net.kind=gru", "net.seats=true", "net.direct=true"],
    "layout-seats": ["net.kind=layout", "net.seats=true"],
}
# every game with the plain kinds; the heads with games whose actions they lay out (Exposaurus' cells,
# Exposed's and Artifacts' seats)
PLAIN_KINDS = ("mlp", "gru", "layout")
GAMES = ("exposed", "exposaurus", "artifacts", "expressions")
HEADS = [
    ("exposaurus", "layout-cells"),
    ("exposed", "mlp-seats"),
    ("artifacts", "gru-seats"),
    ("artifacts", "layout-seats"),
]
CASES = [(game, kind) for game in GAMES for kind in PLAIN_KINDS] + HEADS
FORMATS = {"export": "pt2", "torchscript": "pt"}
PER_GAME = 10  # decisions from the start of each of two games: the memory is reset in between
pytestmark = pytest.mark.xdist_group("export")  # one worker builds the exports once

TORCH_ONLY = """
import json, sys
for name in ("envs", "training", "tests"):
    sys.modules[name] = None  # importing any of them now fails: torch alone loads and runs the files
import torch

def load(path):
    if path.endswith(".pt2"):
        extra = {"policy.json": ""}
        net = torch.export.load(path, extra_files=extra).module()
        return net, json.loads(extra["policy.json"])
    net = torch.jit.load(path)
    keys = ("obs_dim", "num_actions", "recurrent", "hidden_size", "game", "game_config")
    meta = {k: getattr(net, k) for k in keys}
    return net, dict(meta, game_config=json.loads(meta["game_config"]))

for job in json.load(open(sys.argv[1])):
    net, meta = load(job["path"])
    data = torch.load(job["inputs"], weights_only=True)
    obs, mask, seats, starts = data["obs"], data["mask"], data["seat"], data["start"]
    hidden, steps = {}, []
    for i in range(len(obs)):
        if starts[i]:
            hidden = {}
        seat = int(seats[i])
        h = hidden.get(seat, torch.zeros(1, meta["hidden_size"]))
        logits, hidden[seat] = net(obs[i : i + 1], mask[i : i + 1], h)
        steps.append(logits[0])
    batched, h = net(obs, mask, torch.zeros(len(obs), meta["hidden_size"]))
    out = {"steps": torch.stack(steps), "batched": batched, "hidden": h, "meta": json.dumps(meta)}
    torch.save(out, job["output"])
"""


def build_net(game: str, kind: str):
    """A network of this kind for the game's default configuration, its weights and observation
    statistics moved off their initial values (zero-initialised heads included), so a piece the export
    dropped would show in the logits."""
    config = load_config(config_file(game), [*SMALL, *PLAIN, *VARIANTS[kind]])
    info = game_info(config.game, config.game_config)
    torch.manual_seed(0)
    net = PolicyNet(info.net_shape, config.net)
    with torch.no_grad():
        for p in net.parameters():
            p.add_(0.05 * torch.randn_like(p))
    return net, info, config


def opening_decisions(info, seed: int = 0) -> dict[str, torch.Tensor]:
    """The first PER_GAME decisions of two random games: each seat's observation and legal mask, the
    seat, and whether a game starts there."""
    rng = np.random.default_rng(seed)
    rows = []
    for g in range(2):
        game = info.new_game(seed + g)
        for i in range(PER_GAME):
            seat, mask = game.current_player(), game.legal_action_mask()
            rows.append((game.observation(seat).copy(), mask.copy(), seat, i == 0))
            game.apply_action(int(rng.choice(np.flatnonzero(mask))))
    obs, masks, seats, starts = zip(*rows)
    return {
        "obs": torch.as_tensor(np.array(obs), dtype=torch.float32),
        "mask": torch.as_tensor(np.array(masks), dtype=torch.bool),
        "seat": torch.tensor(seats),
        "start": torch.tensor(starts),
    }


@torch.no_grad()
def policy_logits(path, data) -> tuple[torch.Tensor, torch.Tensor]:
    """What load_policy plays: its logits one decision at a time (a policy per seat, new at each game),
    and the network's logits of the whole batch with no memory yet."""
    policy = load_policy(path)
    seats, steps = {}, []
    for obs, mask, seat, start in zip(data["obs"], data["mask"], data["seat"].tolist(), data["start"]):
        if start:
            seats = {}
        seat_policy = seats.setdefault(seat, policy.for_seat(seat))
        steps.append(torch.from_numpy(seat_policy.logits(obs.numpy(), mask.numpy())))
    net = policy.net
    hidden = torch.zeros(len(data["obs"]), net.hidden_size) if net.recurrent else None
    batched, _, _ = net.step(data["obs"], data["mask"], hidden, need_value=False)
    return torch.stack(steps), batched


@dataclass
class Case:
    """One network exported in one format: what the policy plays and what torch alone played."""

    net: PolicyNet
    game_config: dict
    data: dict  # the decisions (opening_decisions)
    steps: torch.Tensor  # the policy's logits, one decision at a time
    batched: torch.Tensor  # the network's logits of all decisions at once, no memory
    output: Path  # what the torch-only process wrote: its logits, hidden state and the metadata it read

    def got(self) -> dict:
        return torch.load(self.output, weights_only=True)


@pytest.fixture(scope="module")
def exported(tmp_path_factory) -> tuple[Path, dict[tuple[str, str, str], Case]]:
    """Every network exported in both formats through the CLI, then run by one torch-only process: the
    folder of the files, and a Case per (game, kind, format)."""
    root = tmp_path_factory.mktemp("export")
    jobs, cases = [], {}
    for game, kind in CASES:
        net, info, config = build_net(game, kind)
        data = opening_decisions(info)
        if net.obs_norm is not None:  # observation statistics of real play, not the initial 0 / 1
            net.obs_norm.update(data["obs"].numpy())
        path = ckpt.save_checkpoint(root / f"{game}-{kind}.ckpt", net, config, info, 1, 100)
        inputs = root / f"{game}-{kind}.inputs"
        torch.save(data, inputs)
        steps, batched = policy_logits(path, data)
        for format, suffix in FORMATS.items():
            out = root / f"{game}-{kind}.{suffix}"
            assert main(["export", str(path), str(out)]) == 0
            output = root / f"{game}-{kind}-{format}.out"
            jobs.append({"path": str(out), "inputs": str(inputs), "output": str(output)})
            cases[(game, kind, format)] = Case(net, dict(config.game_config), data, steps, batched, output)
    (root / "jobs.json").write_text(json.dumps(jobs))
    (root / "torch_only.py").write_text(TORCH_ONLY)
    done = subprocess.run(
        [sys.executable, str(root / "torch_only.py"), str(root / "jobs.json")],
        capture_output=True,
        text=True,
        cwd=root,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    return root, cases


@pytest.mark.parametrize("format", FORMATS)
@pytest.mark.parametrize("game, kind", CASES)
def test_the_exported_policy_plays_the_policys_logits_with_torch_alone(exported, game, kind, format):
    case = exported[1][(game, kind, format)]
    got, steps, net = case.got(), case.steps, case.net
    legal = case.data["mask"]
    assert torch.equal(steps > -1e9, legal) and (~legal).any()  # real masks, illegal actions among them
    # one decision at a time (a GRU carrying each seat's memory through a game) and all of them at once:
    # the same logits up to float rounding (other batch sizes, other kernels), illegal ones at -1e9
    assert torch.allclose(got["steps"], steps, atol=1e-5, rtol=1e-5)
    assert torch.allclose(got["batched"], case.batched, atol=1e-5, rtol=1e-5)
    assert torch.equal(got["steps"][~legal], steps[~legal])
    assert got["hidden"].shape == (len(steps), net.hidden_size)
    assert json.loads(got["meta"]) == {
        "obs_dim": net.obs_dim,
        "num_actions": net.num_actions,
        "recurrent": net.recurrent,
        "hidden_size": net.hidden_size,
        "game": game,
        "game_config": case.game_config,
    }


def test_the_memory_carried_through_the_programs_matters(exported):
    """A recurrent program's logits at a seat's later decisions of a game differ from those of the same
    decisions without memory: the step-by-step check above really follows the hidden state."""
    differs = []
    for case in exported[1].values():
        if case.net.recurrent:
            got, seats = case.got(), case.data["seat"]
            for i in range(len(seats)):
                if seats[i] in seats[i - i % PER_GAME : i]:  # the seat acted earlier in this game
                    differs.append(not torch.allclose(got["steps"][i], got["batched"][i], atol=1e-4))
    assert len(differs) >= 10 and all(differs)


@pytest.mark.filterwarnings("ignore:.*torch.jit.load.*:DeprecationWarning")
def test_the_suffix_or_format_option_picks_the_format(exported, tmp_path):
    root, cases = exported
    path, net = root / "exposed-mlp.ckpt", cases[("exposed", "mlp", "export")].net
    for name, option, loads in [
        ("a.pt2", [], "export"),
        ("a.pt", [], "torchscript"),
        ("b.pt", ["--format", "export"], "export"),
        ("b.pt2", ["--format", "torchscript"], "torchscript"),
        ("c.bin", [], "torchscript"),
    ]:
        out = tmp_path / name
        assert main(["export", str(path), str(out), *option]) == 0
        assert export_format(out, option[1] if option else None) == loads
        if loads == "export":
            extra = {"policy.json": ""}
            torch.export.load(out, extra_files=extra)
            assert json.loads(extra["policy.json"])["num_actions"] == net.num_actions
        else:
            assert torch.jit.load(str(out)).num_actions == net.num_actions
    with pytest.raises(ValueError, match="export format must be one of export, torchscript; got 'onnx'"):
        export_format("a.pt2", "onnx")
    with pytest.raises(SystemExit):
        main(["export", str(path), str(tmp_path / "d.onnx"), "--format", "onnx"])


def test_a_program_refuses_inputs_of_another_shape_or_kind(exported):
    """An observation of another game configuration, a 0/1 number mask, no hidden state or a batch that
    does not match: torch's own checks of the program's inputs refuse them."""
    root, cases = exported
    net = cases[("artifacts", "gru", "export")].net
    program = torch.export.load(root / "artifacts-gru.pt2").module()
    obs, mask = torch.zeros(3, net.obs_dim), torch.ones(3, net.num_actions, dtype=torch.bool)
    hidden = torch.zeros(3, net.hidden_size)
    assert program(obs, mask, hidden)[0].shape == (3, net.num_actions)
    for bad in [(obs[:, 1:], mask, hidden), (obs, mask.long(), hidden), (obs, mask), (obs, mask[:2], hidden)]:
        with pytest.raises((RuntimeError, AssertionError, ValueError)):
            program(*bad)
