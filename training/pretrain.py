"""Optional warm start: imitate the game's scripted baseline before PPO (behaviour cloning).

The scripted policy plays every seat of `pretrain.games` games; each decision's observation, mask and
action are recorded with the seat's return from that decision to the end (gamma = 1). The actor learns
the actions by masked cross-entropy (with `pretrain.label_smoothing`, towards a target that spreads that
share over the legal actions) and the critic the returns by squared error. The baseline uses only
observations, so the clone sees nothing a player could not. Off by default (pretrain.games = 0). A
run made shorter than its config file's (total_steps=...) records proportionally fewer games
(`config.load_config`); bars show the recording and the cloning as they go (config.progress).

Observations and states are mostly zeros (2-17% non-zero, few distinct values), so they are recorded
sparsely (`SparseRows`, exact) and each minibatch is made dense when it is drawn, in the same order as
from dense arrays: Artifacts' default warm start (4,000 games, 563k decisions) records 0.38 GB instead
of 3.0 GB, and its process peaks at 0.8 GB resident instead of 6.3 GB (benchmarks/memory.py).
"""

from __future__ import annotations

from array import array
from collections.abc import Mapping
from typing import NamedTuple

import numpy as np
import torch

from envs.core.workers import split, stream

from .nets import masked_entropy
from .runlog import warm_start_bar
from .runner import chain_layout

# the observation normalizer sees the recorded observations in chunks of about this many floats
NORM_CHUNK_FLOATS = 1 << 22
# rows whose values are coded together while recording
RECORD_CHUNK_ROWS = 4096


class SparseRows:
    """A float32 matrix kept as each row's non-zero entries (CSR: row offsets, column indices, values).

    Exact, bit for bit: an entry is kept when its bits are not those of +0.0, so -0.0 and NaN survive.
    Observations take few distinct values (counts, one-hots, a few fractions), so the values are kept
    as codes into `table` (uint8 up to 256 distinct values, else uint16), or as float32 when there
    are more than 65,536 (`table` is None).
    `rows[idx]` (an int array of any shape, or a slice) gives the dense float32 rows, shape idx.shape +
    (width,), as indexing a dense array would; `np.asarray(rows)` the whole dense matrix."""

    def __init__(self, width: int, indptr, indices, values, table: np.ndarray | None = None):
        self.width, self.indptr, self.indices, self.values, self.table = width, indptr, indices, values, table

    @classmethod
    def empty(cls, n: int, width: int = 0) -> SparseRows:
        return cls(
            width, np.zeros(n + 1, np.int64), np.zeros(0, _index_dtype(width)), np.zeros(0, np.float32)
        )

    @classmethod
    def from_dense(cls, x: np.ndarray) -> SparseRows:
        recorder = _SparseRecorder()
        for row in np.asarray(x, np.float32):
            recorder.append(row)
        return recorder.finish(np.shape(x)[1] if np.ndim(x) == 2 else 0)

    @property
    def shape(self) -> tuple[int, int]:
        return (len(self), self.width)

    @property
    def nbytes(self) -> int:
        table = self.table.nbytes if self.table is not None else 0
        return self.indptr.nbytes + self.indices.nbytes + self.values.nbytes + table

    def __len__(self) -> int:
        return len(self.indptr) - 1

    @classmethod
    def concatenate(cls, parts: list[SparseRows]) -> SparseRows:
        """The rows of `parts`, one after another, exactly (the value tables are joined by their bits)."""
        width = max((p.width for p in parts), default=0)
        counts = np.concatenate([np.diff(p.indptr) for p in parts]) if parts else np.zeros(0, np.int64)
        indptr = np.zeros(len(counts) + 1, np.int64)
        np.cumsum(counts, out=indptr[1:])
        indices = np.concatenate([p.indices for p in parts]).astype(_index_dtype(width), copy=False)
        if any(p.table is None for p in parts):
            values = np.concatenate([p._floats() for p in parts])
            return cls(width, indptr, indices, values)
        bits = np.unique(np.concatenate([p.table.view(np.uint32) for p in parts]))
        if len(bits) > MAX_CODES:
            return cls(width, indptr, indices, np.concatenate([p._floats() for p in parts]))
        code = np.uint8 if len(bits) <= 1 << 8 else np.uint16
        values = np.concatenate(
            [np.searchsorted(bits, p.table.view(np.uint32))[p.values].astype(code) for p in parts]
        )
        return cls(width, indptr, indices, values, bits.view(np.float32))

    def _floats(self) -> np.ndarray:
        """The stored values as float32 (decoded when they are codes)."""
        return self.values if self.table is None else self.table[self.values]

    def __getitem__(self, idx) -> np.ndarray:
        if isinstance(idx, slice):
            idx = np.arange(len(self))[idx]
        idx = np.asarray(idx, np.int64)
        return self._dense(idx.ravel()).reshape(idx.shape + (self.width,))

    def __array__(self, dtype=None, copy=None) -> np.ndarray:
        dense = self[:]
        return dense if dtype is None else dense.astype(dtype)

    def __iter__(self):
        for k in range(len(self)):
            yield self._dense(np.array([k]))[0]

    def _dense(self, rows: np.ndarray) -> np.ndarray:
        start = self.indptr[rows]
        count = self.indptr[rows + 1] - start
        out = np.zeros((len(rows), self.width), np.float32)
        total = int(count.sum())
        if total:
            # entry t of the gathered run belongs to row `which`; its place in the CSR arrays is `at`
            which = np.repeat(np.arange(len(rows)), count)
            at = np.arange(total) + np.repeat(start - (np.cumsum(count) - count), count)
            values = self.values[at]
            out[which, self.indices[at]] = values if self.table is None else self.table[values]
        return out


def _index_dtype(width: int):
    return np.uint16 if width <= 1 << 16 else np.int32


# distinct values past which a recording keeps float32 values instead of codes
MAX_CODES = 1 << 16
# the recording grows in blocks this large: mapped apart from the heap, so the games' many small
# temporaries freed around them are given back (with heap-allocated chunks RSS reached 2.7x the data)
BLOCK_BYTES = 1 << 26


class _Column:
    """A 1-D array that grows in large blocks; `finish` copies it into one array, freeing each block
    once copied, so the data is never held twice."""

    def __init__(self, dtype):
        self.dtype, self.blocks, self.size = np.dtype(dtype), [], 0

    def extend(self, values: np.ndarray) -> None:
        cap = max(1, BLOCK_BYTES // self.dtype.itemsize)
        done = 0
        while done < len(values):
            at = self.size % cap
            if at == 0:
                self.blocks.append(np.empty(cap, self.dtype))
            k = min(cap - at, len(values) - done)
            self.blocks[-1][at : at + k] = values[done : done + k]
            done, self.size = done + k, self.size + k

    def finish(self, dtype=None) -> np.ndarray:
        out = np.empty(self.size, dtype or self.dtype)
        at = 0
        self.blocks.reverse()
        while self.blocks:
            block = self.blocks.pop()
            k = min(len(block), self.size - at)
            out[at : at + k] = block[:k]
            at += k
        return out

    def recast(self, dtype, convert=lambda x: x) -> _Column:
        """The same entries, converted, in a column of `dtype` (this one is emptied)."""
        other = _Column(dtype)
        other.extend(convert(self.finish()))
        return other


class _SparseRecorder:
    """Appends rows one at a time: each row's non-zero column indices and values, the values coded by
    the table of distinct values seen so far (in order of first sight), a chunk of rows at a time."""

    def __init__(self):
        self.width = None
        self.counts = array("q")
        self.indices: _Column | None = None
        self.values = _Column(np.uint8)  # codes; uint16 past 256 distinct values, float32 past MAX_CODES
        self.pending: list = []
        self.codes: dict[int, int] | None = {}  # float32 bits -> code; None once there are too many

    def append(self, row) -> None:
        row = np.ascontiguousarray(row, np.float32).ravel()
        if self.indices is None:
            self.width = len(row)
            self.indices = _Column(_index_dtype(self.width))
        keep = np.flatnonzero(row.view(np.uint32))  # by bits: -0.0 is kept
        self.indices.extend(keep)
        self.pending.append(row[keep])
        self.counts.append(len(keep))
        if len(self.pending) >= RECORD_CHUNK_ROWS:
            self._seal()

    def _seal(self) -> None:
        if self.pending:
            coded = self._code(np.concatenate(self.pending))  # may widen self.values first
            self.values.extend(coded)
            self.pending.clear()

    def _code(self, values: np.ndarray) -> np.ndarray:
        if self.codes is None:
            return values
        distinct, inverse = np.unique(values.view(np.uint32), return_inverse=True)
        for bits in distinct.tolist():
            self.codes.setdefault(bits, len(self.codes))
        if len(self.codes) > MAX_CODES:  # too many to code: decode what is kept, keep values from now on
            self.values = self.values.recast(np.float32, self._table().__getitem__)
            self.codes = None
            return values
        if len(self.codes) > 1 << 8 and self.values.dtype == np.uint8:
            self.values = self.values.recast(np.uint16)
        return np.array([self.codes[b] for b in distinct.tolist()], np.int64)[inverse.ravel()]

    def _table(self) -> np.ndarray:
        return np.array(list(self.codes), np.uint32).view(np.float32)

    def finish(self, width: int | None = None) -> SparseRows:
        self._seal()
        width = self.width if self.width is not None else (width or 0)
        indptr = np.zeros(len(self.counts) + 1, np.int64)
        np.cumsum(self.counts, out=indptr[1:])
        indices = self.indices.finish() if self.indices is not None else np.zeros(0, _index_dtype(width))
        table = self._table() if self.codes is not None else None
        return SparseRows(width, indptr, indices, self.values.finish(), table)


class _DenseRecorder:
    """Appends equal-shaped rows (flattened into one column)."""

    def __init__(self, dtype):
        self.column, self.shape = _Column(dtype), None

    def append(self, row) -> None:
        row = np.asarray(row, self.column.dtype)
        self.shape = row.shape
        self.column.extend(row.ravel())

    def finish(self) -> np.ndarray:
        flat = self.column.finish()
        return flat.reshape(-1, *self.shape) if self.shape is not None else flat


class Recording(Mapping):
    """The recorded decisions: `obs` and `state` as SparseRows, the rest (mask, action, returns, chain,
    start) as arrays. `data["obs"]` builds the dense array on request (for inspection; pretraining
    never does); `data.nbytes` is what the recording holds."""

    def __init__(self, obs: SparseRows, state: SparseRows, **arrays: np.ndarray):
        self.obs, self.state, self.arrays = obs, state, arrays

    def __getitem__(self, name: str) -> np.ndarray:
        if name in ("obs", "state"):
            return np.asarray(getattr(self, name))
        return self.arrays[name]

    def __iter__(self):
        return iter(("obs", "state", *self.arrays))

    def __len__(self) -> int:
        return 2 + len(self.arrays)

    @property
    def nbytes(self) -> int:
        return self.obs.nbytes + self.state.nbytes + sum(a.nbytes for a in self.arrays.values())


def scripted_games(info, games: int, seed: int, uses_state: bool, random_share: float = 0.0):
    """Play `games` games for the warm start; yield each as (index, decisions, final returns), its
    scripted decisions as (seat, observation, mask, action, the seat's return before it, the state or
    None). In a `random_share` of the games one team (a random seat where there are no teams) is
    scripted and every other seat plays at random, unrecorded."""
    rng = np.random.default_rng(seed)
    for j in range(games):
        game = info.new_game(int(rng.integers(2**63)))
        policies = [info.scripted(s) for s in range(info.num_players)]
        scripted = _scripted_seats(info, game, rng, random_share)
        decisions = []
        while not (game.is_terminal() or game.is_truncated()):  # a cut game ends at the limit
            p = game.current_player()
            m = game.legal_action_mask().copy()
            if not scripted[p]:
                legal = np.flatnonzero(m)
                game.apply_action(int(legal[rng.integers(len(legal))]))
                continue
            o = game.observation(p)
            a = int(policies[p](o, m))
            state = game.state_tensor() if uses_state else None
            decisions.append((p, o, m, a, float(game.returns()[p]), state))
            game.apply_action(a)
        yield j, decisions, np.asarray(game.returns(), float)


def collect_scripted(
    info, games: int, seed: int, uses_state: bool, random_share: float = 0.0, progress: bool = False
) -> Recording:
    """Record the scripted players' decisions (`scripted_games`); a `random_share` of the games puts
    one scripted team against random play, so the clone also sees the positions it will meet against
    weaker play. `progress`: a bar counts the games."""
    obs, states, masks = _SparseRecorder(), _SparseRecorder(), _DenseRecorder(bool)
    # typed arrays, not lists of number objects: 8 bytes an entry, and no long-lived small objects
    # among the games' temporaries
    actions, chains, ret_before, finals = (array(t) for t in "qqdd")
    bar = warm_start_bar(progress, games, "recording scripted games", "game")
    for j, decisions, final in scripted_games(info, games, seed, uses_state, random_share):
        if bar is not None:
            bar.update()
        for seat, o, m, a, before, state in decisions:
            obs.append(o)
            masks.append(m)
            actions.append(a)
            chains.append(j * info.num_players + seat)
            ret_before.append(before)
            finals.append(float(final[seat]))
            if uses_state:
                states.append(state)
    if bar is not None:
        bar.close()
    n = len(actions)
    chain = np.frombuffer(chains, np.int64).copy()
    # a seat's first decision of each game starts its sequence (chains are per game and seat)
    start = np.ones(n, bool)
    seen: set = set()
    for i, c in enumerate(chain):
        start[i] = c not in seen
        seen.add(c)
    return Recording(
        obs=obs.finish(),
        state=states.finish() if uses_state else SparseRows.empty(n),
        mask=masks.finish(),
        action=np.frombuffer(actions, np.int64).copy(),
        returns=np.frombuffer(finals).astype(np.float32) - np.frombuffer(ret_before).astype(np.float32),
        chain=chain,
        start=start,
    )


def collect_on_workers(
    info, workers, games: int, seed: int, uses_state: bool, random_share: float = 0.0
) -> Recording:
    """`collect_scripted` spread over rollout workers: worker w records a contiguous share of the games
    from its own stream (seed, number of workers, w); the shares are joined in order."""
    shares = split(games, len(workers))
    calls = [
        (len(share), stream(seed, len(workers), w), uses_state, random_share)
        for w, share in enumerate(shares)
    ]
    return join_recordings(
        workers.call("record_scripted", calls), [s.start for s in shares], info.num_players
    )


def join_recordings(parts: list[Recording], first_games: list[int], num_players: int) -> Recording:
    """Recordings of consecutive shares of the games as one (each share's chains renumbered)."""
    chains = [p.arrays["chain"] + first * num_players for p, first in zip(parts, first_games)]
    arrays = {name: np.concatenate([p.arrays[name] for p in parts]) for name in parts[0].arrays}
    arrays["chain"] = np.concatenate(chains)
    return Recording(
        obs=SparseRows.concatenate([p.obs for p in parts]),
        state=SparseRows.concatenate([p.state for p in parts]),
        **arrays,
    )


def _scripted_seats(info, game, rng: np.random.Generator, random_share: float) -> list[bool]:
    teams = info.teams_of(game)
    # no draw at all when the share is 0, so such runs replay exactly as before the option existed
    if random_share <= 0 or len(set(teams)) == 1 or rng.random() >= random_share:
        return [True] * len(teams)
    side = teams[int(rng.integers(len(teams)))]
    return [t == side for t in teams]


def pretrain(
    net,
    data: Mapping,
    cfg,
    reward_scale: float,
    rng: np.random.Generator,
    state_seen_by=None,
    progress: bool = False,
) -> dict[str, float]:
    """Behaviour cloning of the recorded scripted decisions; returns the final losses and accuracy.
    `data` is a Recording (or a mapping of dense arrays); each minibatch is made dense when drawn.
    With net.aux_state, `state_seen_by(states, chains)` (GameInfo's) gives the auxiliary target.
    `progress`: a bar counts the minibatches of all epochs."""
    obs, state = _rows(data, "obs"), _rows(data, "state")
    mask, action, start = data["mask"], data["action"], data["start"]
    if net.obs_norm is not None:
        step = max(1, NORM_CHUNK_FLOATS // max(1, obs.shape[1]))
        for k in range(0, len(obs), step):
            net.obs_norm.update(obs[k : k + step])
    optimizer = torch.optim.Adam(net.parameters(), lr=cfg.lr, eps=1e-5, fused=True)
    returns = data["returns"] * reward_scale
    aux = net.aux_head is not None  # the auxiliary target (net.aux_state) joins the cloning loss
    if aux and state_seen_by is None:
        raise ValueError("net.aux_state needs state_seen_by: the state as each recorded seat sees it")
    chain = np.asarray(data["chain"])
    device = next(net.parameters()).device  # (the minibatches go where the network is: see config.device)

    def tensor(rows: np.ndarray | None) -> torch.Tensor | None:
        return None if rows is None else torch.from_numpy(rows).to(device)

    def seen(rows: np.ndarray, states: np.ndarray) -> torch.Tensor | None:
        """The rows' states as their seats see them (any shape of rows), or None without aux."""
        if not aux:
            return None
        flat = state_seen_by(states.reshape(-1, states.shape[-1]), chain[rows.reshape(-1)])
        return tensor(flat.reshape(states.shape))

    stats = {}
    if net.recurrent:
        layout = chain_layout(chain)
        valid = layout >= 0
        safe = np.where(valid, layout, 0)
        width = layout.shape[1]
        cols_per = max(1, cfg.minibatch // max(1, layout.shape[0]))
        bar = _cloning_bar(progress, cfg.epochs, width, cols_per)
        for _ in range(cfg.epochs):
            perm = rng.permutation(width)
            for k in range(0, width, cols_per):
                cols = perm[k : k + cols_per]
                rows, pad = safe[:, cols], ~valid[:, cols]
                h0 = torch.zeros(len(cols), net.hidden_size, device=device)
                states = state[rows] if net.uses_state else None
                legal = tensor(mask[rows] | pad[..., None])
                outs = net.sequence(
                    tensor(obs[rows]), legal, tensor(start[rows] | pad), h0, tensor(states), aux
                )
                weight = tensor((~pad).astype(np.float32))
                target = Targets(
                    tensor(action[rows]), legal, tensor(returns[rows]), seen(rows, states), weight
                )
                stats = _step(optimizer, net, outs, target, cfg.label_smoothing)
                _tick(bar)
    else:
        n = len(action)
        bar = _cloning_bar(progress, cfg.epochs, n, cfg.minibatch)
        for _ in range(cfg.epochs):
            perm = rng.permutation(n)
            for k in range(0, n, cfg.minibatch):
                idx = perm[k : k + cfg.minibatch]
                states = state[idx] if net.uses_state else None
                legal = tensor(mask[idx])
                outs = net.evaluate_flat(tensor(obs[idx]), legal, tensor(states), aux)
                weight = torch.ones(len(idx), device=device)
                target = Targets(tensor(action[idx]), legal, tensor(returns[idx]), seen(idx, states), weight)
                stats = _step(optimizer, net, outs, target, cfg.label_smoothing)
                _tick(bar)
    if bar is not None:
        bar.close()
    return stats


def _cloning_bar(show: bool, epochs: int, rows: int, per_minibatch: int):
    """A bar over the cloning's minibatches: `epochs` passes over `rows` (decisions, or sequences of a
    recurrent net) `per_minibatch` at a time."""
    return warm_start_bar(
        show, epochs * -(-rows // per_minibatch), f"cloning them ({epochs} epochs)", "batch"
    )


def _tick(bar) -> None:
    if bar is not None:
        bar.update()


def _rows(data: Mapping, name: str):
    """The recorded rows of `name`, as kept: SparseRows from a Recording, else the dense array."""
    return getattr(data, name) if isinstance(data, Recording) else np.asarray(data[name])


class Targets(NamedTuple):
    """What one minibatch of the cloning learns: the scripted action among the legal ones, the game's
    return, the auxiliary target (or None), and each row's weight (0 for a recurrent batch's padding)."""

    action: torch.Tensor
    legal: torch.Tensor
    returns: torch.Tensor
    aux: torch.Tensor | None
    weight: torch.Tensor


def _step(optimizer, net, outs, target: Targets, smoothing: float):
    logits, values = outs[:2]
    weight = target.weight
    total = weight.sum().clamp(min=1.0)
    log_probs = torch.log_softmax(logits, -1)
    logp = log_probs.gather(-1, target.action.unsqueeze(-1)).squeeze(-1)
    bc = -(logp * weight).sum() / total
    cloning = bc
    if smoothing:  # the target's other share, spread evenly over the legal actions
        spread = _mean_over_legal(log_probs, target.legal)
        cloning = (1 - smoothing) * bc - smoothing * (spread * weight).sum() / total
    v = 0.5 * (((values - target.returns) ** 2) * weight).sum() / total
    loss = cloning + 0.5 * v
    aux = net.aux_loss(outs[2], target.aux, weight) if len(outs) > 2 else None
    if aux is not None:
        loss = loss + aux
    optimizer.zero_grad()
    loss.backward()
    torch.nn.utils.clip_grad_norm_(net.parameters(), 1.0)
    optimizer.step()
    with torch.no_grad():
        acc = (((logits.argmax(-1) == target.action).float() * weight).sum() / total).item()
        entropy = ((masked_entropy(log_probs, target.legal) * weight).sum() / total).item()
    # cross_entropy: against the scripted action alone, smoothing or not (comparable between runs)
    stats = {
        "pretrain/cross_entropy": bc.item(),
        "pretrain/value": v.item(),
        "pretrain/accuracy": acc,
        "pretrain/entropy": entropy,
    }
    return stats | ({"pretrain/aux_state": aux.item()} if aux is not None else {})


def _mean_over_legal(values: torch.Tensor, legal: torch.Tensor) -> torch.Tensor:
    """Each row's mean of `values` over its legal actions (illegal log-probabilities are -1e9: left out)."""
    legal_values = torch.where(legal, values, torch.zeros_like(values))
    return legal_values.sum(-1) / legal.sum(-1).clamp(min=1)
