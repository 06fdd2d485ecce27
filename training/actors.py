"""Who can play a seat: a network (batched inference), the scripted baseline, or uniform random play."""

from __future__ import annotations

import numpy as np
import torch

from .nets import PolicyNet


class NetActor:
    """A PolicyNet choosing for many games at once (sampling with Gumbel noise from the runner's rng)."""

    kind = "net"

    def __init__(self, net: PolicyNet, greedy: bool = False, name: str = "net"):
        self.net = net
        self.greedy = greedy
        self.name = name

    @property
    def recurrent(self) -> bool:
        return self.net.recurrent

    @torch.no_grad()
    def act(self, obs, mask, hidden, state, rng, need_value: bool):
        """Returns (actions, log-probs, values or None, new hidden or None) as numpy arrays."""
        net = self.net
        h = torch.from_numpy(hidden) if net.recurrent else None
        s = torch.from_numpy(state) if (need_value and net.uses_state) else None
        logits, value, new_h = net.step(torch.from_numpy(obs), torch.from_numpy(mask), h, s, need_value)
        logp_all = torch.log_softmax(logits, -1).numpy()
        if self.greedy:
            actions = logp_all.argmax(-1)
        else:
            gumbel = -np.log(-np.log(rng.random(logp_all.shape) + 1e-300) + 1e-300)
            actions = (logp_all + gumbel).argmax(-1)
        logp = logp_all[np.arange(len(actions)), actions]
        return (
            actions,
            logp,
            value.numpy() if value is not None else None,
            new_h.numpy() if new_h is not None else None,
        )


class ScriptedActor:
    """The game's scripted baseline (GameSpec.scripted_policy), one policy object per slot and seat."""

    kind = "scripted"
    recurrent = False

    def __init__(self, info, name: str = "scripted"):
        self.info = info
        self.name = name
        self._policies: dict[tuple[int, int], object] = {}

    def new_episode(self, slot: int, seats: list[int]) -> None:
        for seat in seats:
            self._policies[(slot, seat)] = self.info.scripted(seat)

    def choose(self, slot: int, seat: int, obs, mask) -> int:
        policy = self._policies.get((slot, seat))
        if policy is None:
            policy = self._policies[(slot, seat)] = self.info.scripted(seat)
        return int(policy(obs, mask))


class RandomActor:
    """Uniform over the legal actions (drawn from the runner's rng, so runs are reproducible)."""

    kind = "random"
    recurrent = False
    name = "random"

    @staticmethod
    def choose(mask, rng) -> int:
        legal = np.flatnonzero(mask)
        return int(legal[rng.integers(len(legal))])
