"""A trained policy outside the trainer: `load_policy(path)` gives a plain callable
`policy(observation, action_mask) -> int`, and `export_policy` writes it for torch alone, as a
torch.export program (.pt2) or as TorchScript.

The policy protocol (the same one the Gymnasium env's `opponents=` and `match()` use): any callable
`policy(observation, action_mask) -> int`; optional hooks `reset()` (called when a game starts) and
`for_seat(seat) -> policy` (a separate policy, with its own memory, for each seat it plays).
"""

from __future__ import annotations

import copy
import json
import warnings
from pathlib import Path

import numpy as np
import torch
from torch import nn

from envs.core.game import as_action

from . import checkpoint as ckpt
from .actors import ScriptedActor
from .nets import MASKED_LOGIT, PolicyNet


class Policy:
    """A trained network choosing one action at a time: `policy(observation, action_mask) -> int`.

    greedy=True (the default) plays the most likely legal action; greedy=False samples from the
    network's distribution with its own numpy rng (`seed`), so a seeded policy is reproducible.
    A GRU network remembers the game so far: one Policy object is the memory of ONE seat. Call
    `reset()` when a new game starts, and `for_seat(seat)` for a copy (same weights, own memory, own
    rng stream) for every further seat it plays; the Gymnasium env and `match()` do both.
    Policies pickle (the weights travel with them), so they work in async vector envs. In `match()` a
    Policy plays batched (one forward pass for all games, a memory per game and seat), drawing its
    samples from match's seeded rng rather than its own.
    """

    def __init__(
        self, net: PolicyNet, greedy: bool = True, seed: int | None = None, meta: dict | None = None
    ):
        self.net = net.eval()
        self.greedy = greedy
        self.seed = seed
        self.meta = dict(meta or {})
        self.rng = np.random.default_rng(seed)
        self.hidden = self._zeros()

    # what it was trained on: gymnasium.make(f"tabletop/...", **policy.game_config) rebuilds the game
    @property
    def game(self) -> str:
        return self.meta.get("game", "")

    @property
    def game_config(self) -> dict:
        return dict(self.meta.get("game_config", {}))

    @property
    def recurrent(self) -> bool:
        return self.net.recurrent

    def _zeros(self):
        return torch.zeros(1, self.net.hidden_size) if self.net.recurrent else None

    def reset(self) -> None:
        """A new game: forget the recurrent state."""
        self.hidden = self._zeros()

    def for_seat(self, seat: int) -> Policy:
        """The same network for another seat: its own recurrent state and (when sampling) rng stream."""
        seed = None if self.seed is None else [self.seed, seat]
        return Policy(self.net, self.greedy, seed, self.meta)

    @torch.no_grad()
    def logits(self, observation, action_mask=None) -> np.ndarray:
        """Masked logits of one decision (illegal actions at -1e9); advances the recurrent state."""
        observation, action_mask = _unpack(observation, action_mask)
        obs = torch.as_tensor(np.asarray(observation, np.float32).reshape(1, -1))
        mask = torch.as_tensor(np.asarray(action_mask).astype(bool).reshape(1, -1))
        self._check(obs, mask)
        if not mask.any():
            raise ValueError("the action mask allows no action: there is no decision to make")
        out, _, hidden = self.net.step(obs, mask, self.hidden, None, need_value=False)
        if hidden is not None:
            self.hidden = hidden
        return out[0].numpy()

    def __call__(self, observation, action_mask=None) -> int:
        logits = self.logits(observation, action_mask)
        if self.greedy:
            return int(logits.argmax())
        probs = np.exp(logits - logits.max())  # illegal actions: exp(-1e9) == 0 exactly
        return int(self.rng.choice(len(probs), p=probs / probs.sum()))

    def _check(self, obs: torch.Tensor, mask: torch.Tensor) -> None:
        net = self.net
        if obs.shape[1] != net.obs_dim or mask.shape[1] != net.num_actions:
            trained = f"{self.game} {self.game_config}" if self.game else "its game"
            # the same actions but other observations: most likely this game, observed by a newer version
            hint = " (if this is that game, the policy predates a change of its observation: train a new one)"
            raise ValueError(
                f"this policy was trained on {trained}: observations of {net.obs_dim} numbers and "
                f"{net.num_actions} actions; got {obs.shape[1]} and {mask.shape[1]}"
                + (hint if mask.shape[1] == net.num_actions else "")
            )

    def __repr__(self) -> str:
        kind = self.net.kind
        how = "greedy" if self.greedy else f"sampling, seed={self.seed}"
        return f"Policy({self.game or '?'}, {kind}, {how})"


def _unpack(observation, action_mask):
    """Also accept the dict observation of the AEC env / dict_observation=True, mask inside."""
    if isinstance(observation, dict):
        if action_mask is None:
            action_mask = observation["action_mask"]
        observation = observation["observation"]
    if action_mask is None:
        raise TypeError("give the action mask: policy(observation, action_mask)")
    return observation, action_mask


def load_policy(path: str | Path, greedy: bool = True, seed: int | None = None) -> Policy:
    """The policy of a run directory (its checkpoints/latest.pt) or of a checkpoint file.

    Raises CheckpointError for a missing, damaged or foreign file."""
    return checkpoint_policy(ckpt.read_checkpoint(path), greedy, seed)


def checkpoint_policy(data: dict, greedy: bool = True, seed: int | None = None) -> Policy:
    """The policy of a checkpoint read by `checkpoint.read_checkpoint`; its meta says what it was trained
    on and with (game, game_config, the run's train_config) and where it was read (path)."""
    meta = {
        "game": data["game"],
        "game_config": dict(data.get("game_config", {})),
        "train_config": data["train_config"],
        "path": data["path"],
    }
    return Policy(ckpt.build_net(data), greedy=greedy, seed=seed, meta=meta)


def run_evaluates_greedy(meta: dict | None) -> bool:
    """A run's eval.greedy, from its checkpoint (or a Policy's meta); False (sampling) without one."""
    return bool(meta and meta["train_config"].get("eval", {}).get("greedy", False))


def as_run_evaluates(net: PolicyNet, meta: dict, greedy: bool | None = None) -> Policy:
    """A trained network played as its run's own evaluations played it (its most likely actions where
    the run's config says eval.greedy, else sampled), unless `greedy` says otherwise."""
    return Policy(net, greedy=run_evaluates_greedy(meta) if greedy is None else greedy, meta=meta)


class ExportedPolicy(nn.Module):
    """A trained policy for torch alone, observation -> masked logits, as both export formats run it.

    forward(observation, action_mask, hidden) -> (logits, hidden)
      observation: float32 [batch, obs_dim] (the env's flat observation vector)
      action_mask: bool [batch, num_actions] (legal actions)
      hidden:      the recurrent state from the previous call of the same seat, float32
                   [batch, hidden_size]; zeros at the start of a game (hidden_size is 0 for networks
                   without memory: torch.zeros(batch, 0))
      logits:      float32 [batch, num_actions], illegal actions at -1e9; the greedy action is
                   logits.argmax(-1), sampling is torch.distributions.Categorical(logits=logits)
      hidden:      the new recurrent state to pass back next time (empty, [batch, 0], without memory)
    TorchScript also takes a single decision ([obs_dim], [num_actions], [hidden_size]), a 0/1 number
    mask and hidden=None (zeros); a torch.export program takes exactly the forms above, any batch size.
    Metadata: obs_dim, num_actions, recurrent, hidden_size, game, game_config (see `metadata`).
    """

    # TorchScript compiles only the branch it takes
    __constants__ = ["recurrent", "has_direct", "masked_logit"]

    def __init__(self, net: PolicyNet, game: str = "", game_config: dict | None = None):
        super().__init__()
        net = copy.deepcopy(net).eval()
        self.norm = net.obs_norm if net.obs_norm is not None else nn.Identity()
        self.trunk = net.trunk
        self.gru = net.gru if net.recurrent else nn.Identity()
        self.actor_head = net.actor_head
        self.has_direct = net.direct is not None
        self.direct = net.direct if net.direct is not None else nn.Identity()
        self.cell_heads = net.cell_heads
        self.seat_heads = net.seat_heads
        self.obs_dim: int = net.obs_dim
        self.num_actions: int = net.num_actions
        self.recurrent = net.recurrent
        self.masked_logit = MASKED_LOGIT
        self.hidden_size: int = net.hidden_size
        self.game: str = game
        self.game_config: str = json.dumps(game_config or {}, sort_keys=True)
        for p in self.parameters():
            p.requires_grad_(False)

    def metadata(self) -> dict:
        """What a user needs besides the weights (a .pt2 program carries it as its policy.json)."""
        return {
            "obs_dim": self.obs_dim,
            "num_actions": self.num_actions,
            "recurrent": self.recurrent,
            "hidden_size": self.hidden_size,
            "game": self.game,
            "game_config": json.loads(self.game_config),
        }

    def forward(
        self, observation: torch.Tensor, action_mask: torch.Tensor, hidden: torch.Tensor | None = None
    ) -> tuple[torch.Tensor, torch.Tensor]:
        if observation.shape[-1] != self.obs_dim or action_mask.shape[-1] != self.num_actions:
            raise ValueError(
                f"this policy takes observations of {self.obs_dim} numbers and {self.num_actions} actions (game {self.game}, options {self.game_config}); got {observation.shape[-1]} and {action_mask.shape[-1]}"
            )
        single = observation.dim() == 1
        obs = observation.to(torch.float32).reshape(-1, self.obs_dim)
        mask = action_mask.to(torch.bool).reshape(-1, self.num_actions)
        x = self.norm(obs)
        feat = self.trunk(x)
        if self.recurrent:
            h = torch.zeros(obs.shape[0], self.hidden_size) if hidden is None else hidden
            feat = self.gru(feat, h.reshape(-1, self.hidden_size))
            new_hidden = feat
        else:
            new_hidden = torch.zeros(obs.shape[0], 0)
        logits = self.actor_head(feat)
        if self.has_direct:
            logits = logits + self.direct(x)
        for head in self.cell_heads:
            logits = head(x, feat, logits)
        for head in self.seat_heads:
            logits = head(x, feat, logits)
        logits = logits.masked_fill(~mask, self.masked_logit)
        if single:
            return logits[0], new_hidden[0]
        return logits, new_hidden


EXPORT_FORMATS = ("export", "torchscript")
METADATA_FILE = "policy.json"  # inside a .pt2 program: torch.export.load(path, extra_files={...})


def export_format(out: str | Path, format: str | None = None) -> str:
    """The format asked for, or the one the file's suffix names: .pt2 a torch.export program, anything
    else TorchScript."""
    if format is None:
        return "export" if Path(out).suffix == ".pt2" else "torchscript"
    if format not in EXPORT_FORMATS:
        raise ValueError(f"export format must be one of {', '.join(EXPORT_FORMATS)}; got {format!r}")
    return format


def export_policy(source: str | Path | Policy, out: str | Path, format: str | None = None) -> Path:
    """Write the policy of a run directory, checkpoint or Policy for torch alone (see ExportedPolicy).

    format "export": a torch.export program, loaded with
    `torch.export.load(out, extra_files={"policy.json": ""}).module()` (the metadata as JSON in that
    dict); "torchscript": loaded with `torch.jit.load(out)` (the metadata as attributes; deprecated by
    torch 2.13). None: from the suffix, .pt2 the program, anything else TorchScript."""
    format = export_format(out, format)
    policy = source if isinstance(source, Policy) else load_policy(source)
    module = ExportedPolicy(policy.net, policy.game, policy.game_config)
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    if format == "export":
        save_program(module, out)
    else:
        save_torchscript(module, out)
    return out


def save_program(module: ExportedPolicy, out: Path) -> None:
    """A torch.export program of `module` for any batch size, its metadata beside it as policy.json."""
    batch = torch.export.Dim("batch")
    # an example batch of 2: a batch of 1 would fix the size at 1
    example = (
        torch.zeros(2, module.obs_dim),
        torch.ones(2, module.num_actions, dtype=torch.bool),
        torch.zeros(2, module.hidden_size),
    )
    program = torch.export.export(module, example, dynamic_shapes=({0: batch}, {0: batch}, {0: batch}))
    torch.export.save(program, out, extra_files={METADATA_FILE: json.dumps(module.metadata())})


def save_torchscript(module: ExportedPolicy, out: Path) -> None:
    with warnings.catch_warnings():
        # torch 2.13 deprecates TorchScript for torch.export; this format stays for the users who load it
        warnings.simplefilter("ignore", DeprecationWarning)
        torch.jit.save(torch.jit.script(module), str(out))


class CallableActor(ScriptedActor):
    """A policy callable playing seats in `match()`: each (game slot, seat) gets `for_seat(seat)` when
    the policy has that hook (else the policy itself), and `reset()` when its game starts."""

    def __init__(self, policy, name: str = "callable"):
        self.policy = policy
        self.name = name
        self._policies: dict[tuple[int, int], object] = {}

    def _seat_policy(self, seat: int):
        for_seat = getattr(self.policy, "for_seat", None)
        policy = for_seat(seat) if callable(for_seat) else self.policy
        reset = getattr(policy, "reset", None)
        if callable(reset):
            reset()
        return policy

    def new_episode(self, slot: int, seats: list[int]) -> None:
        for seat in seats:
            self._policies[(slot, seat)] = self._seat_policy(seat)

    def choose(self, slot: int, seat: int, obs, mask) -> int:
        policy = self._policies.get((slot, seat))
        if policy is None:
            policy = self._policies[(slot, seat)] = self._seat_policy(seat)
        return as_action(policy(obs, mask.copy()))  # a copy: a policy may write to its mask
