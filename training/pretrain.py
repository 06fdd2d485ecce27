"""Optional warm start: imitate the game's scripted baseline before PPO (behaviour cloning).

The scripted policy plays every seat of `pretrain.games` games; each decision's observation, mask and
action are recorded with the seat's return from that decision to the end (gamma = 1). The actor learns
the actions by masked cross-entropy and the critic the returns by squared error. The baseline uses only
observations, so the clone sees nothing a player could not. Off by default (pretrain.games = 0).
"""

from __future__ import annotations

import numpy as np
import torch

from .runner import chain_layout


def collect_scripted(
    info, games: int, seed: int, uses_state: bool, random_share: float = 0.0
) -> dict[str, np.ndarray]:
    """Record the scripted players' decisions. In a `random_share` of the games one team (a random
    seat where there are no teams) is scripted and every other seat plays at random, unrecorded, so
    the clone also sees the positions it will meet against weaker play."""
    rng = np.random.default_rng(seed)
    obs, masks, actions, seats, chains, ret_before, states, finals = [], [], [], [], [], [], [], []
    for j in range(games):
        game = info.new_game(int(rng.integers(2**63)))
        policies = [info.scripted(s) for s in range(info.num_players)]
        scripted = _scripted_seats(info, game, rng, random_share)
        first = len(actions)
        while not (game.is_terminal() or game.is_truncated()):  # a cut game ends at the limit
            p = game.current_player()
            m = game.legal_action_mask().copy()
            if not scripted[p]:
                legal = np.flatnonzero(m)
                game.apply_action(int(legal[rng.integers(len(legal))]))
                continue
            o = game.observation(p)
            a = int(policies[p](o, m))
            obs.append(o)
            masks.append(m)
            actions.append(a)
            seats.append(p)
            chains.append(j * info.num_players + p)
            ret_before.append(float(game.returns()[p]))
            if uses_state:
                states.append(game.state_tensor())
            game.apply_action(a)
        final = np.asarray(game.returns(), float)
        finals.extend(final[seats[k]] for k in range(first, len(actions)))
    n = len(actions)
    chain = np.asarray(chains, np.int64)
    # a seat's first decision of each game starts its sequence (chains are per game and seat)
    start = np.ones(n, bool)
    seen: set = set()
    for i, c in enumerate(chain):
        start[i] = c not in seen
        seen.add(c)
    return {
        "obs": np.asarray(obs, np.float32),
        "mask": np.asarray(masks, bool),
        "action": np.asarray(actions, np.int64),
        "returns": np.asarray(finals, np.float32) - np.asarray(ret_before, np.float32),
        "chain": chain,
        "start": start,
        "state": np.asarray(states, np.float32) if uses_state else np.zeros((n, 0), np.float32),
    }


def _scripted_seats(info, game, rng: np.random.Generator, random_share: float) -> list[bool]:
    teams = info.teams_of(game)
    # no draw at all when the share is 0, so such runs replay exactly as before the option existed
    if random_share <= 0 or len(set(teams)) == 1 or rng.random() >= random_share:
        return [True] * len(teams)
    side = teams[int(rng.integers(len(teams)))]
    return [t == side for t in teams]


def pretrain(net, data: dict, cfg, reward_scale: float, rng: np.random.Generator) -> dict[str, float]:
    """Behaviour cloning of the recorded scripted decisions; returns the final losses and accuracy."""
    if net.obs_norm is not None:
        net.obs_norm.update(data["obs"])
    optimizer = torch.optim.Adam(net.parameters(), lr=cfg.lr, eps=1e-5, fused=True)
    returns = data["returns"] * reward_scale
    stats = {}
    if net.recurrent:
        layout = chain_layout(data["chain"])
        valid = layout >= 0
        safe = np.where(valid, layout, 0)
        pad = {
            "obs": torch.from_numpy(data["obs"][safe]),
            "mask": torch.from_numpy(data["mask"][safe] | ~valid[..., None]),
            "action": torch.from_numpy(data["action"][safe]),
            "returns": torch.from_numpy(returns[safe]),
            "start": torch.from_numpy(data["start"][safe] | ~valid),
            "state": torch.from_numpy(data["state"][safe]),
            "weight": torch.from_numpy(valid.astype(np.float32)),
        }
        width = layout.shape[1]
        cols_per = max(1, cfg.minibatch // max(1, layout.shape[0]))
        for _ in range(cfg.epochs):
            perm = rng.permutation(width)
            for k in range(0, width, cols_per):
                cols = torch.from_numpy(perm[k : k + cols_per])
                mb = {f: t[:, cols] for f, t in pad.items()}
                h0 = torch.zeros(len(cols), net.hidden_size)
                logits, values = net.sequence(
                    mb["obs"], mb["mask"], mb["start"], h0, mb["state"] if net.uses_state else None
                )
                stats = _step(optimizer, net, logits, values, mb["action"], mb["returns"], mb["weight"])
    else:
        n = len(data["action"])
        tensors = {f: torch.from_numpy(v) for f, v in data.items() if f in ("obs", "mask", "action", "state")}
        tensors["returns"] = torch.from_numpy(returns)
        for _ in range(cfg.epochs):
            perm = torch.from_numpy(rng.permutation(n))
            for k in range(0, n, cfg.minibatch):
                idx = perm[k : k + cfg.minibatch]
                mb = {f: t[idx] for f, t in tensors.items()}
                logits, values = net.evaluate_flat(
                    mb["obs"], mb["mask"], mb["state"] if net.uses_state else None
                )
                stats = _step(
                    optimizer, net, logits, values, mb["action"], mb["returns"], torch.ones(len(idx))
                )
    return stats


def _step(optimizer, net, logits, values, action, returns, weight):
    logp = torch.log_softmax(logits, -1).gather(-1, action.unsqueeze(-1)).squeeze(-1)
    total = weight.sum().clamp(min=1.0)
    bc = -(logp * weight).sum() / total
    v = 0.5 * (((values - returns) ** 2) * weight).sum() / total
    loss = bc + 0.5 * v
    optimizer.zero_grad()
    loss.backward()
    torch.nn.utils.clip_grad_norm_(net.parameters(), 1.0)
    optimizer.step()
    with torch.no_grad():
        acc = (((logits.argmax(-1) == action).float() * weight).sum() / total).item()
    return {"pretrain/cross_entropy": bc.item(), "pretrain/value": v.item(), "pretrain/accuracy": acc}
