"""The masked PPO update: masks stored with the rollout are re-applied, entropy over legal actions only."""

from __future__ import annotations

import numpy as np
import torch

from .nets import masked_entropy
from .runner import Batch


def standardized(adv: torch.Tensor, weight: torch.Tensor) -> torch.Tensor:
    """A minibatch's advantages at mean 0 and standard deviation 1 over its rows of weight 1 (the
    ppo.normalize_advantages of both backends)."""
    total = weight.sum().clamp(min=1.0)
    mean = (adv * weight).sum() / total
    std = torch.sqrt(((adv - mean) ** 2 * weight).sum() / total + 1e-8)
    return (adv - mean) / (std + 1e-8)


def _losses(net, cfg, logits, values, action, old_logp, adv, ret, old_value, mask, weight, teacher=None):
    log_probs = torch.log_softmax(logits, -1)
    logp = log_probs.gather(-1, action.unsqueeze(-1)).squeeze(-1)
    entropy = masked_entropy(log_probs, mask)
    total = weight.sum().clamp(min=1.0)
    if cfg.normalize_advantages:
        adv = standardized(adv, weight)
    log_ratio = logp - old_logp
    ratio = log_ratio.exp()
    pg = torch.max(-adv * ratio, -adv * ratio.clamp(1 - cfg.clip, 1 + cfg.clip))
    pg_loss = (pg * weight).sum() / total
    if cfg.clip_value:
        clipped = old_value + (values - old_value).clamp(-cfg.clip, cfg.clip)
        v_err = torch.max((values - ret) ** 2, (clipped - ret) ** 2)
    else:
        v_err = (values - ret) ** 2
    v_loss = 0.5 * (v_err * weight).sum() / total
    ent = (entropy * weight).sum() / total
    loss = pg_loss + cfg.vf_coef * v_loss - cfg.ent_coef * ent
    with torch.no_grad():
        approx_kl = (((ratio - 1) - log_ratio) * weight).sum() / total
        clipfrac = (((ratio - 1).abs() > cfg.clip).float() * weight).sum() / total
        values = torch.stack([pg_loss, v_loss, ent, approx_kl, clipfrac]).tolist()  # one copy, not five
    stats = dict(zip(_STAT_NAMES, values))
    if teacher is not None:
        coef, labels = teacher
        imitation, agreement = imitation_loss(log_probs, labels, weight)
        loss = loss + coef * imitation
        stats |= {"teacher/cross_entropy": imitation.item(), "teacher/agreement": agreement}
    return loss, stats


_STAT_NAMES = ("loss/policy", "loss/value", "loss/entropy", "loss/approx_kl", "loss/clipfrac")


def imitation_loss(log_probs, labels, weight):
    """Cross-entropy towards the teacher's action on the rows it labelled (label -1: not labelled),
    and how often the policy's most likely action is the teacher's."""
    labelled = (labels >= 0).float() * weight
    count = labelled.sum().clamp(min=1.0)
    logp = log_probs.gather(-1, labels.clamp(min=0).unsqueeze(-1)).squeeze(-1)
    with torch.no_grad():
        agreement = (((log_probs.argmax(-1) == labels).float() * labelled).sum() / count).item()
    return -(logp * labelled).sum() / count, agreement


def ppo_update(
    net, optimizer, batch: Batch, cfg, rng: np.random.Generator, teacher_coef: float = 0.0, term=None
) -> dict[str, float]:
    """Run cfg.epochs epochs of minibatch PPO on `batch`; returns mean statistics. With `batch.teacher`
    and `teacher_coef` > 0, a cross-entropy towards the teacher's labels joins the loss; with `term` (a
    callable of the network giving a loss, e.g. expert iteration's `LessonTerm`), its loss joins each
    minibatch's."""
    taught = teacher_coef > 0 and batch.teacher is not None
    if net.obs_norm is not None:
        net.obs_norm.update(batch.obs[batch.trainable])
    stats: list[dict] = []
    device = next(net.parameters()).device  # the minibatches go where the network is (config.device)
    if net.recurrent:
        batches = _recurrent_minibatches(batch, cfg, rng, taught, device)
    else:
        batches = _flat_minibatches(batch, cfg, rng, taught, device)
    aux = net.aux_head is not None
    if aux and batch.aux_target is None:
        raise ValueError("net.aux_state needs batch.aux_target: the state as each row's seat sees it")
    for _epoch in range(cfg.epochs):
        kls = []
        for mb in batches():
            if net.recurrent:
                outs = net.sequence(mb["obs"], mb["mask"], mb["start"], mb["h0"], mb.get("state"), aux)
            else:
                outs = net.evaluate_flat(mb["obs"], mb["mask"], mb.get("state"), aux)
            logits, values = outs[:2]
            loss, s = _losses(
                net,
                cfg,
                logits,
                values,
                mb["action"],
                mb["logp"],
                mb["advantage"],
                mb["returns"],
                mb["value"],
                mb["mask"],
                mb["weight"],
                (teacher_coef, mb["teacher"]) if taught else None,
            )
            if aux:  # the auxiliary target: the actor's features predict the state as its seat sees it
                aux_loss = net.aux_loss(outs[2], mb["aux_target"], mb["weight"])
                loss = loss + aux_loss
                s["loss/aux_state"] = aux_loss.item()
            if term is not None:
                loss = loss + term(net)
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(net.parameters(), cfg.max_grad_norm)
            optimizer.step()
            stats.append(s)
            kls.append(s["loss/approx_kl"])
        if cfg.target_kl > 0 and np.mean(kls) > cfg.target_kl:
            break
    if not stats:
        return {}
    out = {k: float(np.mean([s[k] for s in stats])) for k in stats[0]}
    y, pred = batch.returns[batch.trainable], batch.value[batch.trainable]
    var = np.var(y)
    out["loss/explained_variance"] = float(1 - np.var(y - pred) / var) if var > 0 else 0.0
    return out


_ROW_FIELDS = ("obs", "mask", "action", "logp", "advantage", "returns", "value")


def _row_fields(batch: Batch, taught: bool) -> tuple[str, ...]:
    """The per-row fields a minibatch carries: the PPO ones, the teacher's labels when taught, the
    auxiliary target when the batch has one (the state is handled by each minibatch kind)."""
    return (
        _ROW_FIELDS
        + (("teacher",) if taught else ())
        + (("aux_target",) if batch.aux_target is not None else ())
    )


def _flat_minibatches(batch: Batch, cfg, rng, taught: bool = False, device=None):
    rows = np.flatnonzero(batch.trainable)
    fields = _row_fields(batch, taught) + (("state",) if batch.state.shape[1] > 0 else ())
    if len(rows) == len(batch.trainable):  # every row trains: use the arrays as they are, no copy
        tensors = {f: torch.from_numpy(np.ascontiguousarray(getattr(batch, f))) for f in fields}
    else:
        tensors = {f: torch.from_numpy(getattr(batch, f)[rows]) for f in fields}
    tensors = {f: t.to(device) for f, t in tensors.items()}  # (on the CPU: the same tensors, no copy)
    n = len(rows)
    size = max(1, -(-n // cfg.minibatches))

    def gen():
        perm = torch.from_numpy(rng.permutation(n)).to(device)
        for k in range(0, n, size):
            idx = perm[k : k + size]
            mb = {f: t.index_select(0, idx) for f, t in tensors.items()}
            mb["weight"] = torch.ones(len(idx), device=device)
            yield mb

    return gen


def _recurrent_minibatches(batch: Batch, cfg, rng, taught: bool = False, device=None):
    layout = batch.layout  # [L, C]
    valid = layout >= 0
    safe = np.where(valid, layout, 0)
    use_state = batch.state.shape[1] > 0
    fields = _row_fields(batch, taught)
    padded = {f: torch.from_numpy(np.ascontiguousarray(getattr(batch, f)[safe])) for f in fields}
    padded["start"] = torch.from_numpy(batch.start[safe] & valid)
    if use_state:
        padded["state"] = torch.from_numpy(batch.state[safe])
    padded["weight"] = torch.from_numpy((batch.trainable[safe] & valid).astype(np.float32))
    # padding rows keep a legal action so their (ignored) log-probabilities stay finite
    padded["mask"] = padded["mask"] | torch.from_numpy(~valid)[..., None]
    h0 = torch.from_numpy(batch.hbefore[safe[0]]).to(device)
    padded = {f: t.to(device) for f, t in padded.items()}  # (on the CPU: the same tensors, no copy)
    width = layout.shape[1]
    size = max(1, -(-width // cfg.minibatches))

    def gen():
        perm = torch.from_numpy(rng.permutation(width)).to(device)
        for k in range(0, width, size):
            cols = perm[k : k + size]
            mb = {f: t[:, cols] for f, t in padded.items()}
            mb["h0"] = h0[cols]
            yield mb

    return gen
