"""Policy networks: masked categorical actor (MLP, GRU, or an encoder built from the observation layout)
and a critic (separate, shared or central)."""

from __future__ import annotations

from math import prod

import numpy as np
import torch
from torch import nn

from .netshape import NetShape

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


# ----- encoders built from the observation layout (net.kind = "layout") -------------------------------
# Every observation piece declares what its axes index (envs.core.layout.AXIS_KINDS). The encoder reads
# the declarations alone, no game names:
# - the first structural axis (seat / card, tile, item / row, col) of a piece says how it is read; a
#   piece that starts with a seat axis is read per seat (seats are relative: 0 = the observer, then the
#   others in turn order), with the same weights for every seat;
# - within the table (or one seat), pieces with row and col axes join a grid (other axes: channels) read
#   by two 3x3 convolutions; pieces led by a card / tile / item axis join that entity kind's set (other
#   axes, later seats included: the entity's features), each entity encoded by a shared linear plus a
#   learned id embedding, pooled by mean and max; everything else stays flat;
# - each seat's encodings go through one shared layer, and the seats are concatenated in relative order
#   (the observer's own seat first, so it stays distinct; turn order matters, so seats are not pooled);
# - the table's and the seats' encodings are joined and fed to the trunk MLP.
ENTITY_AXES = ("card", "tile", "item")
STRUCTURAL_AXES = ("seat", "row", "col", *ENTITY_AXES)


class _Reader:
    """Where one group's numbers lie in the flat observation: gather indexes [*lead, features]."""

    def __init__(self, lead: tuple[int, ...]):
        self.lead = lead
        self.parts: list[np.ndarray] = []
        self.names: list[str] = []

    def add(self, name: str, index: np.ndarray) -> None:
        self.names.append(name)
        self.parts.append(index.reshape(self.lead + (-1,)))

    def index(self) -> np.ndarray:
        return np.concatenate(self.parts, axis=-1)


def indexed_pieces(pieces: list):
    """The pieces, (name, shape, axes) each, laid end to end: (name, shape, axes, index) per piece, index
    its positions in the flat observation, shaped like the piece."""
    offset = 0
    for name, shape, axes in pieces:
        shape, axes = tuple(int(s) for s in shape), tuple(axes)
        yield name, shape, axes, np.arange(offset, offset + prod(shape)).reshape(shape)
        offset += prod(shape)


def seat_axis(axes: tuple[str, ...]) -> int | None:
    """The axis that leads a piece read per seat (its first structural axis, when that is a seat)."""
    first = next((a for a, kind in enumerate(axes) if kind in STRUCTURAL_AXES), None)
    return first if first is not None and axes[first] == "seat" else None


def plan_layout(pieces: list) -> dict:
    """Group the pieces, (name, shape, axes) each: {(seats, group): _Reader}; seats 0 = the table, group ("flat",),
    ("entity", kind, n) or ("grid", rows, cols). Each reader's lead axes are [seats?, n | rows, cols]."""
    groups: dict = {}
    for name, shape, axes, index in indexed_pieces(pieces):
        order = list(range(len(shape)))
        seat = seat_axis(axes)
        seats = shape[seat] if seat is not None else 0
        lead_axes: list[int] = [seat] if seat is not None else []
        rest = [a for a in order if a not in lead_axes]
        kinds = [axes[a] for a in rest]
        if "row" in kinds and "col" in kinds:
            row, col = rest[kinds.index("row")], rest[kinds.index("col")]
            group = ("grid", shape[row], shape[col])
            lead_axes += [row, col]
        else:
            entity = next((a for a in rest if axes[a] in ENTITY_AXES), None)
            if entity is not None:
                group = ("entity", axes[entity], shape[entity])
                lead_axes.append(entity)
            else:
                group = ("flat",)
        perm = lead_axes + [a for a in order if a not in lead_axes]
        lead = tuple(shape[a] for a in lead_axes)
        reader = groups.setdefault((seats, group), _Reader(lead))
        reader.add(name, index.transpose(perm))
    return groups


class GroupReader(nn.Module):
    """Gathers one group's numbers from the flat observation: [B, obs] -> [B, *lead, features]."""

    def __init__(self, index: np.ndarray):
        super().__init__()
        self.register_buffer("index", torch.as_tensor(index.reshape(-1), dtype=torch.long), persistent=False)
        self.shape: list[int] = [int(s) for s in index.shape]

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        return obs.index_select(1, self.index).reshape([obs.shape[0]] + self.shape)


class EntitySet(nn.Module):
    """A set of n entities with f features each: relu(linear(features) + id embedding), mean and max
    pooled over the entities -> 2 * size."""

    def __init__(self, index: np.ndarray, size: int):
        super().__init__()
        self.read = GroupReader(index)
        n, f = index.shape[-2], index.shape[-1]
        self.embed = nn.Linear(f, size)
        self.ids = nn.Parameter(torch.randn(n, size) * 0.1)
        self.size = size
        self.out_size = 2 * size

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        x = self.read(obs)
        lead = list(x.shape[:-2])
        n, f = x.shape[-2], x.shape[-1]
        x = x.reshape(-1, n, f)
        # ids + bias + x W^T in one batched matmul, relu in place: about 4x faster on CPU than
        # linear, add and relu as three fresh [batch, n, size] tensors
        start = (self.ids + self.embed.bias).expand(x.shape[0], n, self.size)
        h = torch.baddbmm(start, x, self.embed.weight.t().expand(x.shape[0], f, self.size)).relu_()
        # max() rather than amax(): its backward scatters to the argmax instead of comparing every entry
        return torch.cat([h.mean(-2), h.max(-2)[0]], -1).reshape(lead + [self.out_size])


class Grid(nn.Module):
    """A rows x cols grid with c channels: two 3x3 convolutions, flattened (positions matter), one
    linear layer -> 2 * size."""

    def __init__(self, index: np.ndarray, size: int, channels: int):
        super().__init__()
        self.read = GroupReader(index)
        rows, cols, c = index.shape[-3], index.shape[-2], index.shape[-1]
        self.grid: list[int] = [rows, cols, c]
        self.conv = nn.Sequential(
            nn.Conv2d(c, channels, 3, padding=1),
            nn.ReLU(),
            nn.Conv2d(channels, channels, 3, padding=1),
            nn.ReLU(),
        )
        self.out = nn.Linear(rows * cols * channels, 2 * size)
        self.out_size = 2 * size
        self.channels = channels
        self.seats = int(index.shape[0]) if index.ndim == 4 else 0  # 0: the table's grid
        # the acting seat's grid alone (seat 0 of a grid read per seat), for actions on its cells
        self.own = GroupReader(index.reshape((-1, rows, cols, c))[0])

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        x = self.read(obs)
        lead = list(x.shape[:-3])
        x = x.reshape([-1] + self.grid).permute(0, 3, 1, 2)
        h = self.conv(x).flatten(1)
        return torch.relu(self.out(h)).reshape(lead + [self.out_size])

    def cells(self, obs: torch.Tensor) -> torch.Tensor:
        """[B, obs] -> the acting seat's grid and its convolution features per cell, [B, c + channels,
        rows, cols]."""
        x = self.own(obs).permute(0, 3, 1, 2)
        return torch.cat([x, self.conv(x)], 1)

    def seat_cells(self, obs: torch.Tensor) -> torch.Tensor:
        """A grid read per seat: [B, obs] -> every seat's grid and its convolution features per cell,
        seats in relative order, [B, seats * (c + channels), rows, cols]."""
        rows, cols = self.grid[0], self.grid[1]
        x = self.read(obs).reshape(-1, rows, cols, self.grid[2]).permute(0, 3, 1, 2)
        return torch.cat([x, self.conv(x)], 1).reshape(obs.shape[0], -1, rows, cols)

    @property
    def cell_width(self) -> int:
        """Numbers per cell that cells() (or seat_cells(), per seat) gives."""
        return self.grid[2] + self.channels


class Flat(nn.Module):
    """Numbers passed on as they are: [B, *lead, features]."""

    def __init__(self, index: np.ndarray):
        super().__init__()
        self.read = GroupReader(index)
        self.out_size = int(index.shape[-1])

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        return self.read(obs)


class Scope(nn.Module):
    """The table (seats = 0) or the seats (one shared encoder per seat, seats concatenated)."""

    def __init__(self, seats: int, groups: list[nn.Module], size: int):
        super().__init__()
        self.groups = nn.ModuleList(groups)
        width = sum(g.out_size for g in groups)
        self.seats = seats
        self.seat = nn.Sequential(nn.Linear(width, 2 * size), nn.ReLU()) if seats else nn.Identity()
        self.out_size = seats * 2 * size if seats else width

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        parts = [group(obs) for group in self.groups]
        return self.seat(torch.cat(parts, -1)).flatten(1)

    def per_seat(self, obs: torch.Tensor) -> torch.Tensor:
        """[B, seats, 2 * size]: each seat's embedding (for tests and inspection)."""
        return self.seat(torch.cat([group(obs) for group in self.groups], -1))


class LayoutEncoder(nn.Module):
    """Observation [B, obs_dim] -> [B, out_size], built from the pieces' axis declarations (see above)."""

    def __init__(self, pieces: list, size: int = 32, channels: int = 16):
        super().__init__()
        plan = plan_layout(pieces)
        self.obs_dim = sum(prod(int(s) for s in shape) for _, shape, _ in pieces)
        self.plan = {key: reader.names for key, reader in plan.items()}  # which pieces went where
        scopes = []
        self._grids: dict[str, Grid] = {}  # piece name -> the Grid that reads it (for cell heads)
        for seats in sorted({seats for seats, _ in plan}):
            groups: list[nn.Module] = []
            for (s, group), reader in plan.items():
                if s != seats:
                    continue
                index = reader.index()
                if group[0] == "grid":
                    groups.append(Grid(index, size, channels))
                    self._grids.update(dict.fromkeys(reader.names, groups[-1]))
                elif group[0] == "entity":
                    groups.append(EntitySet(index, size))
                else:
                    groups.append(Flat(index))
            scopes.append(Scope(seats, groups, size))
        self.scopes = nn.ModuleList(scopes)
        self.out_size = sum(s.out_size for s in scopes)

    def seat_grids(self, rows: int, cols: int) -> list[Grid]:
        """The grids read per seat with `rows` x `cols` cells (net.cell_seats: what a cell is to each player)."""
        grids = {id(g): g for g in self._grids.values() if g.seats and g.grid[:2] == [rows, cols]}
        return list(grids.values())

    def grid_of(self, piece: str) -> Grid:
        """The Grid module that reads observation piece `piece` (ValueError if no grid reads it)."""
        if piece not in self._grids:
            raise ValueError(
                f"no grid of the layout encoder reads piece {piece!r} (grids: {sorted(self._grids)})"
            )
        return self._grids[piece]

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        lead = list(obs.shape[:-1])
        flat = obs.reshape(-1, obs.shape[-1])
        out = torch.cat([scope(flat) for scope in self.scopes], -1)
        return out.reshape(lead + [self.out_size])


class CellHead(nn.Module):
    """The logits of the action blocks laid over one grid's cells (a block's action start + (row * cols +
    col) * depth + k), added to the blocks' logits from the ordinary head. The acting seat's grid, as it
    is and through the encoder's own convolutions, beside the trunk's features (what is in hand, the
    phase) at every cell, goes through a 3x3 convolution (a cell and its neighbours, as they are: what
    a placement must match) and a 1x1 convolution -> each block's `depth` logits per cell (the blocks
    on one grid share the 3x3 convolution: a cell is read once). With `keys` (net.cell_keys) each
    cell's keys (a 3x3 convolution of the same cell features) dotted with a query per k (from the
    trunk's features) join the k-th logit: a match of two inputs is their product. With `seat_grids`
    (net.cell_seats) a cell's numbers also hold each seat's grids of the same size at that cell (what
    each player knows of it or may be standing on), seats in relative order."""

    def __init__(
        self,
        grid: Grid,
        blocks: list[tuple[int, int]],
        features: int,
        size: int,
        keys: int = 0,
        seat_grids: list[Grid] | None = None,
    ):
        """`blocks`: (start, depth) of each action block on this grid."""
        super().__init__()
        self.grid = grid
        self.seat_grids = nn.ModuleList(seat_grids or [])
        rows, cols = grid.grid[0], grid.grid[1]
        self.rows, self.cols = rows, cols
        # (start, end, depth) in action order; they must not overlap
        self.blocks = sorted((start, start + rows * cols * depth, depth) for start, depth in blocks)
        if not self.blocks or any(a[1] > b[0] for a, b in zip(self.blocks, self.blocks[1:])):
            raise ValueError(
                f"cell blocks (start, depth) {blocks} are empty or overlap on {rows}x{cols} cells"
            )
        self.depth = sum(depth for _, _, depth in self.blocks)  # logits per cell, every block's
        width = grid.cell_width + sum(g.seats * g.cell_width for g in self.seat_grids)
        self.context = nn.Linear(features, size)
        self.hidden = nn.Conv2d(width + size, size, 3, padding=1)
        self.out = nn.Conv2d(size, self.depth, 1)
        # net.cell_keys: keys per cell (linear in the cell and its neighbours), a query per action k
        self.keys = nn.Conv2d(width, keys, 3, padding=1) if keys else None
        self.query = nn.Linear(features, keys * self.depth) if keys else None

    def forward(self, obs: torch.Tensor, features: torch.Tensor, logits: torch.Tensor) -> torch.Tensor:
        """obs [N, obs_dim], features [N, F], logits [N, actions] -> logits with the blocks' added."""
        cells = [self.grid.cells(obs)]
        for grid in self.seat_grids:
            cells.append(grid.seat_cells(obs))
        cells = torch.cat(cells, 1) if len(cells) > 1 else cells[0]
        context = torch.relu(self.context(features))[:, :, None, None].expand(-1, -1, self.rows, self.cols)
        h = torch.relu(self.hidden(torch.cat([cells, context], 1)))
        block = self.out(h)
        if self.keys is not None:  # [N, keys, rows, cols] . [N, keys, depth] -> [N, depth, rows, cols]
            query = self.query(features).reshape(obs.shape[0], -1, self.depth)
            block = block + torch.einsum("nkrc,nkd->ndrc", self.keys(cells), query)
        parts: list[torch.Tensor] = []
        at, k = 0, 0
        for start, end, depth in self.blocks:
            mine = block[:, k : k + depth].permute(0, 2, 3, 1).reshape(obs.shape[0], -1)  # (row, col, k)
            parts.append(logits[:, at:start])
            parts.append(logits[:, start:end] + mine)
            at, k = end, k + depth
        parts.append(logits[:, at:])
        return torch.cat(parts, 1)


def seat_index(pieces: list, seats: int) -> np.ndarray:
    """Where each seat's numbers lie in the flat observation, [seats, features]: every piece led by a
    seat axis of `seats` seats (seat_axis, as plan_layout reads it; ValueError if none is)."""
    parts = []
    for _, shape, axes, index in indexed_pieces(pieces):
        seat = seat_axis(axes)
        if seat is not None and shape[seat] == seats:
            parts.append(np.moveaxis(index, seat, 0).reshape(seats, -1))
    if not parts:
        raise ValueError(f"no observation piece is led by a seat axis of {seats} seats")
    return np.concatenate(parts, 1)


class SeatHead(nn.Module):
    """The logits of the action blocks of seats (block action start + seat * depth + k, seats
    relative), added to their logits from the ordinary head. Each seat's own numbers (seat_index) are
    encoded by one layer and, beside the trunk's features (the decision, what the observer knows), go
    through one hidden layer -> `depth` logits per block, the same weights at every seat; each seat's
    keys dotted with a query per action from the trunk's features join its logit (the seat's record,
    for or against as the decision wants it: a product of two inputs). One head serves every block
    (`blocks`: (start, depth) each), so a seat is read once per decision."""

    def __init__(self, index: np.ndarray, blocks: list[tuple[int, int]], features: int, size: int):
        super().__init__()
        self.read = GroupReader(index)
        self.seats = seats = int(index.shape[0])
        self.depth = depth = sum(d for _, d in blocks)
        # where each seat's outputs go, in the [seats, depth] order the layers produce them
        actions = [start + seat * d + k for seat in range(seats) for start, d in blocks for k in range(d)]
        self.register_buffer("actions", torch.tensor(actions, dtype=torch.long), persistent=False)
        self.embed = nn.Linear(int(index.shape[1]), size)
        self.context = nn.Linear(features, size)
        self.hidden = nn.Linear(2 * size, size)
        self.out = nn.Linear(size, depth)
        self.keys = nn.Linear(size, size)
        self.query = nn.Linear(features, size * depth)

    def forward(self, obs: torch.Tensor, features: torch.Tensor, logits: torch.Tensor) -> torch.Tensor:
        """obs [N, obs_dim], features [N, F], logits [N, actions] -> logits with the blocks' added."""
        n = obs.shape[0]
        seats = torch.relu(self.embed(self.read(obs)))  # [N, seats, size]
        context = torch.relu(self.context(features))[:, None, :].expand(-1, self.seats, -1)
        block = self.out(torch.relu(self.hidden(torch.cat([seats, context], -1))))  # [N, seats, depth]
        query = self.query(features).reshape(n, -1, self.depth)
        block = block + torch.bmm(self.keys(seats), query)
        return logits.index_add(1, self.actions, block.reshape(n, -1))


class LayoutTrunk(nn.Module):
    """The layout encoder, then an MLP; with `extra` > 0 (the central critic) the last `extra` inputs
    (the state tensor) bypass the encoder and join its output."""

    def __init__(self, pieces: list, sizes: list[int], size: int, channels: int, extra: int = 0):
        super().__init__()
        self.encoder = LayoutEncoder(pieces, size, channels)
        self.obs_dim = self.encoder.obs_dim
        self.extra = extra
        self.mlp = mlp([self.encoder.out_size + extra, *sizes])
        self.out_size = sizes[-1] if sizes else self.encoder.out_size + extra

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        feat = self.encoder(x[..., : self.obs_dim])
        if self.extra > 0:
            feat = torch.cat([feat, x[..., self.obs_dim :]], -1)
        return self.mlp(feat)


class RunningNorm(nn.Module):
    """Running mean/std of observations (buffers, so they travel with the checkpoint)."""

    def __init__(self, dim: int):
        super().__init__()
        self.register_buffer("mean", torch.zeros(dim, dtype=torch.float64))
        self.register_buffer("var", torch.ones(dim, dtype=torch.float64))
        self.register_buffer("count", torch.tensor(1e-4, dtype=torch.float64))

    @torch.no_grad()
    def update(self, x: np.ndarray) -> None:
        x = torch.as_tensor(x, dtype=torch.float64, device=self.mean.device)
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
    """Actor: observation -> trunk (MLP, or the layout encoder then an MLP) [-> GRU] -> logits.
    Critic: see NetConfig.critic (with kind="layout" a separate or central critic has its own encoder)."""

    def __init__(self, shape: NetShape, net_config, initialize: bool = True):
        """`initialize=False` skips the orthogonal initialization, most of the cost of building a network
        whose weights are loaded next (a checkpoint's)."""
        super().__init__()
        c = net_config
        self.shape = shape  # what the network reads of its game (stored in checkpoints as data)
        obs_dim, num_actions, state_dim = shape.obs_dim, shape.num_actions, shape.state_dim
        self.obs_dim, self.num_actions, self.state_dim = obs_dim, num_actions, state_dim
        self.kind = c.kind  # "mlp", "gru" or "layout"
        self.recurrent = c.kind == "gru"
        self.critic_kind = c.critic
        self.normalize = c.normalize_obs
        self.obs_norm = RunningNorm(obs_dim) if c.normalize_obs else None
        self.layout = c.kind == "layout"
        if self.layout:
            self.trunk = self._layout_trunk(c, c.hidden)
            feat = self.trunk.out_size
        else:
            self.trunk = mlp([obs_dim, *c.hidden])
            feat = c.hidden[-1] if c.hidden else obs_dim
        self.hidden_size = c.gru_size if self.recurrent else 0
        if self.recurrent:
            self.gru = nn.GRUCell(feat, c.gru_size)
            feat = c.gru_size
        self.actor_head = nn.Linear(feat, num_actions)
        self.direct = nn.Linear(obs_dim, num_actions) if c.direct else None
        self.cell_heads = nn.ModuleList(self._cell_heads(c, feat) if c.cells else [])
        self.seat_heads = nn.ModuleList(self._seat_heads(c, feat) if c.seats else [])
        self.aux_weight = float(c.aux_state)
        self.aux_head = self._aux_head(feat) if self.aux_weight > 0 else None
        if c.critic == "shared":
            self.critic = None
            self.value_head = nn.Linear(feat, 1)
        else:
            extra = state_dim if c.critic == "central" else 0
            critic_in = obs_dim + extra
            if self.layout:
                self.critic = self._layout_trunk(c, c.critic_hidden, extra)
                critic_out = self.critic.out_size
            else:
                self.critic = mlp([critic_in, *c.critic_hidden])
                critic_out = c.critic_hidden[-1] if c.critic_hidden else critic_in
            self.value_head = nn.Linear(critic_out, 1)
        if initialize:
            self._initialize()

    def _initialize(self) -> None:
        """Orthogonal weights (gain sqrt 2), zero biases; the output heads near zero, so the policy starts
        near uniform."""
        for module in self.modules():
            if isinstance(module, nn.Linear):
                nn.init.orthogonal_(module.weight, np.sqrt(2))
                nn.init.zeros_(module.bias)
        nn.init.orthogonal_(self.actor_head.weight, 0.01)
        nn.init.orthogonal_(self.value_head.weight, 1.0)
        if self.direct is not None:  # the policy starts as it would without it
            nn.init.zeros_(self.direct.weight)
        for head in [*self.cell_heads, *self.seat_heads]:  # near-uniform at the start, like the actor head
            nn.init.orthogonal_(head.out.weight, 0.01)
            nn.init.zeros_(head.out.bias)
            if head.query is not None:
                nn.init.orthogonal_(head.query.weight, 0.01)

    def _cell_heads(self, c, features: int) -> list[CellHead]:
        if not self.layout:
            raise ValueError("net.cells needs net.kind=layout (the cells are the layout encoder's grids)")
        if not self.shape.cell_blocks:
            raise ValueError("net.cells=true, but this game has no action block laid over a grid's cells")
        on_grid: dict[int, list] = {}  # the blocks on each Grid module (one head reads a grid once)
        for block in self.shape.cell_blocks:
            grid = self.trunk.encoder.grid_of(block.grid)
            rows, cols = grid.grid[:2]
            if block.start + rows * cols * block.depth > self.num_actions:
                raise ValueError(f"the cell block {block.name!r} runs past the {self.num_actions} actions")
            on_grid.setdefault(id(grid), [grid, []])[1].append((block.start, block.depth))
        heads = []
        for grid, blocks in on_grid.values():
            seat_grids = self.trunk.encoder.seat_grids(*grid.grid[:2]) if c.cell_seats else []
            if c.cell_seats and not seat_grids:
                raise ValueError(
                    "net.cell_seats=true, but no grid read per seat has the cells of the cell blocks"
                )
            heads.append(CellHead(grid, blocks, features, c.embed, c.cell_keys, seat_grids))
        return heads

    def _seat_heads(self, c, features: int) -> list[SeatHead]:
        """One head for every block of seats (they all read the same seats)."""
        blocks = self.shape.seat_blocks
        if not blocks:
            raise ValueError("net.seats=true, but this game has no action block of seats")
        for b in blocks:
            if b.start + b.seats * b.depth > self.num_actions:
                raise ValueError(f"the seat block {b.name!r} runs past the {self.num_actions} actions")
        if len({b.seats for b in blocks}) > 1:
            raise ValueError(f"every block of seats must span the same seats, got {list(blocks)}")
        index = seat_index(self.shape.layout(), blocks[0].seats)
        return [SeatHead(index, [(b.start, b.depth) for b in blocks], features, c.embed)]

    def _aux_head(self, features: int) -> nn.Linear:
        if self.state_dim < 1:
            raise ValueError("net.aux_state predicts the game's state_tensor(), and this game has none")
        return nn.Linear(features, self.state_dim)

    def _layout_trunk(self, c, sizes: list[int], extra: int = 0) -> LayoutTrunk:
        if not self.shape.pieces:
            raise ValueError("net.kind=layout needs the observation's pieces (NetShape.of(game) gives them)")
        trunk = LayoutTrunk(self.shape.layout(), sizes, c.embed, c.conv_channels, extra)
        if trunk.obs_dim != self.obs_dim:
            raise ValueError(
                f"the pieces describe {trunk.obs_dim} numbers, the observation has {self.obs_dim}"
            )
        return trunk

    @property
    def uses_state(self) -> bool:
        """Whether training needs state_tensor() beside each decision (a central critic's input, or the
        auxiliary target); acting never does."""
        return self.critic_kind == "central" or self.aux_head is not None

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
        logits = masked_logits(self._logits(x, feat), mask)
        value = None
        if need_value:
            value = self._value(x, feat, state)
        return logits, value, new_hidden

    def values(self, obs, state=None):
        """The critic's values of a batch of observations, without the actor's logits (a shared critic
        reads the trunk's features; a recurrent net's need its sequence: use `sequence`)."""
        if self.recurrent and self.critic is None:
            raise ValueError("a recurrent net with a shared critic values sequences: use sequence()")
        x = self._norm(obs)
        return self._value(x, self.trunk(x) if self.critic is None else None, state)

    def _value(self, x, feat, state):
        if self.critic is None:
            return self.value_head(feat).squeeze(-1)
        inp = torch.cat([x, state], -1) if self.critic_kind == "central" else x
        return self.value_head(self.critic(inp)).squeeze(-1)

    def sequence(self, obs, mask, starts, h0, state=None, predict_state=False):
        """Recurrent evaluation of [T, B, ...] sequences; hidden resets to zero where starts is True.
        With predict_state, also the auxiliary head's prediction of the state (net.aux_state)."""
        x = self._norm(obs)
        feat = self.trunk(x)
        outs = []
        h = h0
        keep = (~starts).float().unsqueeze(-1)
        for t in range(feat.shape[0]):
            h = self.gru(feat[t], h * keep[t])
            outs.append(h)
        feat = torch.stack(outs)
        return self._outputs(x, feat, mask, state, predict_state)

    def evaluate_flat(self, obs, mask, state=None, predict_state=False):
        """(logits, values) of a batch of decisions; with predict_state, the predicted state third."""
        x = self._norm(obs)
        return self._outputs(x, self.trunk(x), mask, state, predict_state)

    def _outputs(self, x, feat, mask, state, predict_state):
        out = (masked_logits(self._logits(x, feat), mask), self._value(x, feat, state))
        if predict_state:
            if self.aux_head is None:
                raise ValueError("predict_state needs net.aux_state > 0 (the auxiliary head)")
            out += (self.aux_head(feat),)
        return out

    def aux_loss(self, predicted: torch.Tensor, target: torch.Tensor, weight: torch.Tensor) -> torch.Tensor:
        """The auxiliary target's loss, already times net.aux_state: the mean squared error of the
        predicted state (as the deciding seat sees it) over its entries, averaged over the rows that
        train (weight)."""
        err = ((predicted - target) ** 2).mean(-1)
        return self.aux_weight * (err * weight).sum() / weight.sum().clamp(min=1.0)

    def _logits(self, x, feat):
        """The head's logits, plus the direct map of the (normalized) observation when net.direct, each
        cell head's block when net.cells and each seat head's block when net.seats."""
        logits = self.actor_head(feat)
        if self.direct is not None:
            logits = logits + self.direct(x)
        if len(self.cell_heads) or len(self.seat_heads):
            lead = list(logits.shape[:-1])
            flat_x, flat_feat = x.reshape(-1, x.shape[-1]), feat.reshape(-1, feat.shape[-1])
            flat = logits.reshape(-1, logits.shape[-1])
            for head in self.cell_heads:
                flat = head(flat_x, flat_feat, flat)
            for head in self.seat_heads:
                flat = head(flat_x, flat_feat, flat)
            logits = flat.reshape(lead + [flat.shape[-1]])
        return logits
