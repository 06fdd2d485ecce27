"""Policy networks: masked categorical actor (MLP or GRU) and a critic (separate, shared or central)."""

from __future__ import annotations

import numpy as np
import torch
from torch import nn

MASKED_LOGIT = -1e9  # logits of illegal actions: exp() underflows to exactly 0 probability


def mlp(sizes: list[int], activate_last: bool = True) -> nn.Sequential:
    layers: list[nn.Module] = []
    for i in range(len(sizes) - 1):
        layers.append(nn.Linear(sizes[i], sizes[i + 1]))
        if activate_last or i < len(sizes) - 2:
            layers.append(nn.Tanh())
    return nn.Sequential(*layers)


def masked_logits(logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Illegal actions get MASKED_LOGIT; then log_softmax gives them probability exactly 0."""
    return torch.where(mask, logits, torch.full_like(logits, MASKED_LOGIT))


def masked_log_probs(logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    return torch.log_softmax(masked_logits(logits, mask), dim=-1)


def masked_entropy(log_probs: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Entropy over the legal actions only (illegal ones contribute nothing, not 0 * -1e9).

    Illegal entries are set to 0 before exp(): on CPU, exp() of -1e9 takes a slow path, about 15
    times slower than on ordinary values, which mattered with hundreds of actions."""
    legal = torch.where(mask, log_probs, torch.zeros_like(log_probs))
    return -torch.where(mask, legal.exp() * legal, torch.zeros_like(legal)).sum(-1)


class RunningNorm(nn.Module):
    """Running mean/std of observations (buffers, so they travel with the checkpoint)."""

    def __init__(self, dim: int):
        super().__init__()
        self.register_buffer("mean", torch.zeros(dim, dtype=torch.float64))
        self.register_buffer("var", torch.ones(dim, dtype=torch.float64))
        self.register_buffer("count", torch.tensor(1e-4, dtype=torch.float64))

    @torch.no_grad()
    def update(self, x: np.ndarray) -> None:
        x = torch.as_tensor(x, dtype=torch.float64)
        if len(x) == 0:
            return
        batch_mean, batch_var, n = x.mean(0), x.var(0, unbiased=False), x.shape[0]
        delta = batch_mean - self.mean
        total = self.count + n
        self.mean += delta * n / total
        m2 = self.var * self.count + batch_var * n + delta**2 * self.count * n / total
        self.var.copy_(m2 / total)
        self.count.copy_(total)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return ((x - self.mean.float()) / torch.sqrt(self.var.float() + 1e-8)).clamp(-10, 10)


class PolicyNet(nn.Module):
    """Actor: observation -> MLP trunk [-> GRU] -> logits. Critic: see NetConfig.critic."""

    def __init__(self, obs_dim: int, num_actions: int, state_dim: int, net_config):
        super().__init__()
        c = net_config
        self.obs_dim, self.num_actions, self.state_dim = obs_dim, num_actions, state_dim
        self.recurrent = c.kind == "gru"
        self.critic_kind = c.critic
        self.normalize = c.normalize_obs
        self.obs_norm = RunningNorm(obs_dim) if c.normalize_obs else None
        self.trunk = mlp([obs_dim, *c.hidden])
        feat = c.hidden[-1] if c.hidden else obs_dim
        self.hidden_size = c.gru_size if self.recurrent else 0
        if self.recurrent:
            self.gru = nn.GRUCell(feat, c.gru_size)
            feat = c.gru_size
        self.actor_head = nn.Linear(feat, num_actions)
        if c.critic == "shared":
            self.critic = None
            self.value_head = nn.Linear(feat, 1)
        else:
            critic_in = obs_dim + (state_dim if c.critic == "central" else 0)
            self.critic = mlp([critic_in, *c.critic_hidden])
            self.value_head = nn.Linear(c.critic_hidden[-1] if c.critic_hidden else critic_in, 1)
        for module in self.modules():
            if isinstance(module, nn.Linear):
                nn.init.orthogonal_(module.weight, np.sqrt(2))
                nn.init.zeros_(module.bias)
        nn.init.orthogonal_(self.actor_head.weight, 0.01)
        nn.init.orthogonal_(self.value_head.weight, 1.0)

    @property
    def uses_state(self) -> bool:
        return self.critic_kind == "central"

    def _norm(self, obs: torch.Tensor) -> torch.Tensor:
        return self.obs_norm(obs) if self.obs_norm is not None else obs

    def step(self, obs, mask, hidden=None, state=None, need_value=True):
        """One decision for a batch: (masked logits, value or None, new hidden or None)."""
        x = self._norm(obs)
        feat = self.trunk(x)
        new_hidden = None
        if self.recurrent:
            new_hidden = self.gru(feat, hidden)
            feat = new_hidden
        logits = masked_logits(self.actor_head(feat), mask)
        value = None
        if need_value:
            value = self._value(x, feat, state)
        return logits, value, new_hidden

    def _value(self, x, feat, state):
        if self.critic is None:
            return self.value_head(feat).squeeze(-1)
        inp = torch.cat([x, state], -1) if self.uses_state else x
        return self.value_head(self.critic(inp)).squeeze(-1)

    def sequence(self, obs, mask, starts, h0, state=None):
        """Recurrent evaluation of [T, B, ...] sequences; hidden resets to zero where starts is True."""
        x = self._norm(obs)
        feat = self.trunk(x)
        outs = []
        h = h0
        keep = (~starts).float().unsqueeze(-1)
        for t in range(feat.shape[0]):
            h = self.gru(feat[t], h * keep[t])
            outs.append(h)
        feat = torch.stack(outs)
        logits = masked_logits(self.actor_head(feat), mask)
        return logits, self._value(x, feat, state)

    def evaluate_flat(self, obs, mask, state=None):
        x = self._norm(obs)
        feat = self.trunk(x)
        logits = masked_logits(self.actor_head(feat), mask)
        return logits, self._value(x, feat, state)
