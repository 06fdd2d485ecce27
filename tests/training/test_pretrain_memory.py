"""The warm start's recording is compact (sparse observation and state rows) and learns exactly what the
dense recording learnt: the dense recording and trainer of before are kept here as the reference (both
recordings read the same played games, `pretrain.scripted_games`)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from training import pretrain as pt
from training.config import NetConfig, PretrainConfig
from training.games import game_info
from training.nets import PolicyNet
from training.runner import chain_layout

from .helpers import TOY

FIELDS = ("obs", "mask", "action", "returns", "chain", "start", "state")


# ----- the dense path as it was (the reference) ---------------------------------------------------
def dense_collect(info, games: int, seed: int, uses_state: bool, random_share: float = 0.0) -> dict:
    played = pt.scripted_games(info, games, seed, uses_state, random_share)
    rows = [
        (j * info.num_players + d[0], *d[1:], final[d[0]])
        for j, decisions, final in played
        for d in decisions
    ]
    chains, obs, masks, actions, ret_before, states, finals = (list(column) for column in zip(*rows))
    n = len(actions)
    chain = np.asarray(chains, np.int64)
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


def dense_pretrain(net, data: dict, cfg, reward_scale: float, rng: np.random.Generator) -> dict:
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
                target = pt.Targets(mb["action"], mb["mask"], mb["returns"], None, mb["weight"])
                stats = pt._step(optimizer, net, (logits, values), target, cfg.label_smoothing)
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
                target = pt.Targets(mb["action"], mb["mask"], mb["returns"], None, torch.ones(len(idx)))
                stats = pt._step(optimizer, net, (logits, values), target, cfg.label_smoothing)
    return stats


# ----- helpers ------------------------------------------------------------------------------------
def _same_bits(a: np.ndarray, b: np.ndarray) -> bool:
    a, b = np.asarray(a), np.asarray(b)
    if a.dtype != b.dtype or a.shape != b.shape:
        return False
    if a.dtype == np.float32:  # by bits: -0.0 differs from +0.0, NaN equals itself
        return np.array_equal(a.view(np.uint32), b.view(np.uint32))
    return np.array_equal(a, b)


def _pair_of_nets(info, **net):
    cfg = NetConfig(hidden=[32], critic_hidden=[32], gru_size=16, **net)
    torch.manual_seed(7)
    first = PolicyNet(info.net_shape, cfg)
    second = PolicyNet(info.net_shape, cfg)
    second.load_state_dict(first.state_dict())
    return first, second


def _pretrain_both_ways(info, net: dict, games: int, uses_state: bool, epochs: int = 3):
    recorded = pt.collect_scripted(info, games, seed=11, uses_state=uses_state, random_share=0.3)
    dense = dense_collect(info, games, seed=11, uses_state=uses_state, random_share=0.3)
    cfg = PretrainConfig(games=games, epochs=epochs, minibatch=64)
    compact_net, dense_net = _pair_of_nets(info, **net)
    got = pt.pretrain(compact_net, recorded, cfg, 0.5, np.random.default_rng(3))
    want = dense_pretrain(dense_net, dense, cfg, 0.5, np.random.default_rng(3))
    return (compact_net, got), (dense_net, want)


# ----- the recording --------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "chunk_rows,max_codes,distinct,kept_as",
    [
        (4096, 1 << 16, 20, np.uint8),  # few distinct values: a byte of code each
        (4096, 1 << 16, 1000, np.uint16),
        (8, 1 << 16, 1000, np.uint16),  # the table grows chunk by chunk
        (8, 50, 1000, np.float32),  # too many to code: the chunks coded so far are decoded
    ],
)
def test_sparse_rows_keep_every_float32_bit_and_index_like_a_dense_array(
    monkeypatch, chunk_rows, max_codes, distinct, kept_as
):
    monkeypatch.setattr(pt, "RECORD_CHUNK_ROWS", chunk_rows)
    monkeypatch.setattr(pt, "MAX_CODES", max_codes)
    rng = np.random.default_rng(0)
    values = rng.standard_normal(distinct).astype(np.float32)
    dense = np.where(rng.random((60, 70)) < 0.3, rng.choice(values, (60, 70)), 0).astype(np.float32)
    dense[3, :4] = [-0.0, np.nan, np.inf, np.float32(1e-45)]  # -0.0 is not +0.0; a denormal; NaN
    dense[5] = 0  # an empty row
    rows = pt.SparseRows.from_dense(dense)
    assert rows.values.dtype == kept_as and (rows.table is None) == (kept_as == np.float32)
    assert _same_bits(np.asarray(rows), dense)
    idx = rng.integers(0, 60, size=(6, 9))  # any shape of row indices, as a dense array indexes
    assert _same_bits(rows[idx], dense[idx])
    assert _same_bits(rows[7:19], dense[7:19])
    assert all(_same_bits(a, b) for a, b in zip(rows, dense))
    assert rows.shape == dense.shape and rows.nbytes < dense.nbytes / 2


@pytest.mark.parametrize(
    "game,game_config,games,uses_state",
    [
        (TOY, {"num_players": 4, "teams": True}, 30, True),
        (TOY, {"num_players": 3}, 30, False),
        ("artifacts", {"num_players": 7}, 3, True),
    ],
)
def test_the_recording_holds_exactly_what_the_dense_one_held(game, game_config, games, uses_state):
    info = game_info(game, game_config)
    recorded = pt.collect_scripted(info, games, seed=5, uses_state=uses_state, random_share=0.5)
    dense = dense_collect(info, games, seed=5, uses_state=uses_state, random_share=0.5)
    assert set(recorded) == set(FIELDS)
    for name in FIELDS:
        assert _same_bits(recorded[name], dense[name]), name


def test_artifacts_recording_is_far_below_its_dense_size():
    info = game_info("artifacts", {"num_players": 7})
    recorded = pt.collect_scripted(info, 50, seed=0, uses_state=True)
    n = len(recorded["action"])
    dense_nbytes = sum(np.asarray(recorded[name]).nbytes for name in FIELDS)
    assert n > 5000 and dense_nbytes > n * (info.obs_dim + info.state_dim) * 4
    # observation and state rows are 13-17% non-zero here, with few distinct values: 2 bytes of
    # index and 1 of code each
    assert recorded.obs.values.dtype == recorded.state.values.dtype == np.uint8
    assert recorded.nbytes < dense_nbytes / 6, (recorded.nbytes, dense_nbytes)


# ----- what is learnt -------------------------------------------------------------------------------
def _assert_same_weights(a, b):
    sa, sb = a.state_dict(), b.state_dict()
    assert sa.keys() == sb.keys()
    for k in sa:
        assert torch.equal(sa[k], sb[k]), k


@pytest.mark.parametrize(
    "net",
    [
        {"kind": "mlp", "critic": "separate"},
        {"kind": "mlp", "critic": "central", "normalize_obs": True},
        {"kind": "gru", "critic": "central", "normalize_obs": True},
    ],
)
def test_compact_warm_start_learns_bit_for_bit_what_the_dense_one_learnt(net):
    info = game_info(TOY, {"num_players": 4, "teams": True})
    (compact_net, got), (dense_net, want) = _pretrain_both_ways(info, net, games=60, uses_state=True)
    assert got == want
    _assert_same_weights(compact_net, dense_net)


def test_compact_warm_start_on_artifacts_learns_what_the_dense_one_learnt():
    info = game_info("artifacts", {"num_players": 7})
    net = {"kind": "mlp", "critic": "central", "normalize_obs": True}
    (compact_net, got), (dense_net, want) = _pretrain_both_ways(info, net, games=4, uses_state=True, epochs=2)
    assert got == want
    _assert_same_weights(compact_net, dense_net)


def test_normalizer_fed_in_chunks_matches_one_pass_to_the_last_bits(monkeypatch):
    """Past NORM_CHUNK_FLOATS the normalizer sees the observations in chunks (merged by the parallel
    variance formula): its statistics then differ from one pass only by float64 rounding, and the
    weights learnt from them agree to 1e-6."""
    info = game_info(TOY, {"num_players": 4, "teams": True})
    monkeypatch.setattr(pt, "NORM_CHUNK_FLOATS", 7 * info.obs_dim)  # chunks of 7 rows
    net = {"kind": "mlp", "critic": "separate", "normalize_obs": True}
    (compact_net, got), (dense_net, want) = _pretrain_both_ways(info, net, games=60, uses_state=False)
    a, b = compact_net.obs_norm, dense_net.obs_norm
    assert a.count.item() == b.count.item()
    torch.testing.assert_close(a.mean, b.mean, rtol=1e-12, atol=1e-12)
    torch.testing.assert_close(a.var, b.var, rtol=1e-12, atol=1e-12)
    for (k, x), y in zip(compact_net.state_dict().items(), dense_net.state_dict().values()):
        torch.testing.assert_close(x, y, rtol=0, atol=1e-6, msg=k)
    assert got == pytest.approx(want, abs=1e-5)
