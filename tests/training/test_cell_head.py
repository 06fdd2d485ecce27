"""net.cells: the logits of an action block laid over a grid's cells come from each cell's features
(training/nets.py CellHead), built from the game's ActionGroup declarations alone."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
import torch

from envs.core.errors import ConfigError
from tests.training.helpers import tiny_config
from tests.training.test_layout_net import (
    check_rebuilt_and_exported,
    layout_net,
    logits_with_and_without,
    random_decisions,
)
from training import Trainer
from training import checkpoint as ckpt
from training.config import load_config
from training.games import game_info
from training.nets import CellHead, LayoutEncoder, PolicyNet
from training.netshape import CellBlock
from training.policy import load_policy
from training.run import run_game

ROWS, COLS, CHANNELS, DEPTH, SEATS = 8, 9, 3, 2, 2
# a toy table: each seat's grid, then a flat piece; the block's actions start at 7
PIECES = [
    ("board", (SEATS, ROWS, COLS, CHANNELS), ("seat", "row", "col", "feature")),
    ("extra", (4,), ("feature",)),
]
START = 7
OBS, ACTIONS = SEATS * ROWS * COLS * CHANNELS + 4, START + ROWS * COLS * DEPTH + 5


def toy_head(seed: int = 0, keys: int = 0) -> tuple[LayoutEncoder, CellHead]:
    torch.manual_seed(seed)
    encoder = LayoutEncoder(PIECES, size=4, channels=6)
    head = CellHead(encoder.grid_of("board"), [(START, DEPTH)], features=3, size=8, keys=keys)
    with torch.no_grad():  # no dead cells: every weight non-zero
        for p in head.parameters():
            p.add_(0.1 * torch.randn_like(p))
    return encoder, head


def board(obs: torch.Tensor) -> torch.Tensor:
    return obs[:, : SEATS * ROWS * COLS * CHANNELS].view(-1, SEATS, ROWS, COLS, CHANNELS)


def block_cells(changed: torch.Tensor) -> set[tuple[int, int]]:
    """Cells (row, col) of the block actions whose logit changed."""
    return {divmod(int(a - START) // DEPTH, COLS) for a in torch.nonzero(changed).flatten()}


def run_head(head: CellHead, obs: torch.Tensor, features: torch.Tensor) -> torch.Tensor:
    with torch.no_grad():
        return head(obs, features, torch.zeros(obs.shape[0], ACTIONS))


@pytest.mark.parametrize("keys", (0, 5))
def test_a_cells_logits_read_that_cell_and_its_neighbourhood_only(keys):
    """The encoder's two 3x3 convolutions and the head's one (and the keys' one): changing the acting
    seat's cell (r, c) moves the logits of the cells within three steps of it, in the block's (row *
    cols + col) * depth + k order, and no other."""
    _, head = toy_head(keys=keys)
    obs, features = torch.rand(1, OBS), torch.rand(1, 3)
    before = run_head(head, obs, features)
    for r, c in [(0, 0), (4, 2), (7, 8)]:
        moved = obs.clone()
        board(moved)[0, 0, r, c] += 1.0
        changed = (run_head(head, moved, features) != before)[0]
        near = {(i, j) for i in range(ROWS) for j in range(COLS) if abs(i - r) <= 3 and abs(j - c) <= 3}
        assert block_cells(changed) <= near and (r, c) in block_cells(changed)
        assert not changed[:START].any() and not changed[START + ROWS * COLS * DEPTH :].any()


@pytest.mark.parametrize("keys", (0, 5))
def test_only_the_acting_seats_grid_feeds_the_cell_logits(keys):
    _, head = toy_head(keys=keys)
    obs, features = torch.rand(3, OBS), torch.rand(3, 3)
    before = run_head(head, obs, features)
    other = obs.clone()
    board(other)[:, 1] = torch.rand(3, ROWS, COLS, CHANNELS)  # the other seat's grid
    assert torch.equal(run_head(head, other, features), before)
    # the trunk's features (what is in hand) do reach every cell
    block = slice(START, START + ROWS * COLS * DEPTH)
    moved = run_head(head, obs, features + 1.0)[:, block] != before[:, block]
    assert moved.view(3, ROWS * COLS, DEPTH).any(-1).all()


def fit_products(keys: int, steps: int = 300) -> float:
    """Train a head on logits that are products: cell (r, c)'s k-th logit = its channel 0 times the
    context's feature k (a placement's logit: this edge's colour where that neighbour needs it). The
    final mean squared error."""
    _, head = toy_head(keys=keys)
    optimizer = torch.optim.Adam(head.parameters(), lr=1e-2)
    rng = torch.Generator().manual_seed(1)
    block = slice(START, START + ROWS * COLS * DEPTH)
    for _ in range(steps):
        obs, features = torch.rand(64, OBS, generator=rng), torch.rand(64, 3, generator=rng) * 2 - 1
        cell = board(obs)[:, 0, :, :, 0].reshape(64, ROWS * COLS, 1)
        target = (cell * features[:, None, :DEPTH]).reshape(64, -1)
        loss = ((head(obs, features, torch.zeros(64, ACTIONS))[:, block] - target) ** 2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    return loss.item()


def test_cell_keys_learn_a_product_of_a_cell_and_the_context():
    """The keys' dot product states a product directly; the convolution head alone only approximates it
    with its ReLUs (same steps, same data)."""
    with_keys, without = fit_products(keys=4), fit_products(keys=0)
    assert with_keys < 0.01 and with_keys < without / 5, (with_keys, without)


def test_exposaurus_binds_its_placements_and_a_net_with_cells_plays_legally():
    net, info, config = layout_net("exposaurus", "net.cells=true")
    assert info.net_shape.cell_blocks == (CellBlock("place", 198, 4, "museum"),)
    assert len(net.cell_heads) == 1 and net.cell_heads[0].grid is net.trunk.encoder.grid_of("museum")
    obs, mask = random_decisions(info, 40)
    logits, value = net.evaluate_flat(obs, mask)
    assert logits.shape == (40, info.num_actions) and value.shape == (40,)
    probs = torch.softmax(logits, -1)
    assert torch.all(probs[~mask] == 0) and torch.allclose(probs.sum(-1), torch.ones(40))
    # the placements' logits differ from those of the same net without the head
    ours, without = logits_with_and_without(net, info, config, "cell_heads", obs, mask)
    placing = mask[:, 198 : 198 + 196].any(-1)
    assert placing.any()
    assert not torch.equal(ours[placing][:, 198:394], without[placing][:, 198:394])
    assert torch.equal(ours[:, :198], without[:, :198]) and torch.equal(ours[:, 394:], without[:, 394:])


def test_cells_config_is_checked():
    with pytest.raises(ConfigError, match="net.cells=true .* needs net.kind=layout"):
        load_config(None, ["game=exposaurus", "net.cells=true"])
    for bad in (["net.cell_keys=8"], ["net.cells=true", "net.cell_keys=-1"]):
        with pytest.raises(ConfigError, match="net.cell_keys must be >= 0 and needs net.cells=true"):
            load_config(None, ["game=exposaurus", "net.kind=layout", *bad])
    with pytest.raises(ConfigError, match="unknown"):  # the blocks are the game's, not a setting
        load_config(None, ["game=exposaurus", "net.kind=layout", "net.cell_actions=['place: 198']"])
    with pytest.raises(ConfigError, match="no action block laid over a grid"):
        run_game(load_config(None, ["game=expressions", "net.kind=layout", "net.cells=true"]))
    _, info, config = layout_net("exposaurus")
    config.net.cells = True
    elsewhere = replace(info.net_shape, cell_blocks=(CellBlock("place", 198, 4, "nowhere"),))
    with pytest.raises(ValueError, match="no grid of the layout encoder reads piece 'nowhere'"):
        PolicyNet(elsewhere, config.net)
    too_far = replace(info.net_shape, cell_blocks=(CellBlock("place", 300, 4, "museum"),))
    with pytest.raises(ValueError, match="runs past the 397 actions"):
        PolicyNet(too_far, config.net)


@pytest.mark.filterwarnings("ignore:.*torch.jit.load.*:DeprecationWarning")
@pytest.mark.parametrize("keys", (0, 8))
def test_checkpoint_and_export_rebuild_the_cell_head(tmp_path, keys):
    net, info, config = layout_net("exposaurus", "net.cells=true", f"net.cell_keys={keys}")
    assert (net.cell_heads[0].keys is not None) == (keys > 0)
    check_rebuilt_and_exported(tmp_path, net, info, config)


def test_a_run_with_cells_binds_the_games_blocks_and_its_policy_loads(tmp_path):
    config = tiny_config(
        tmp_path / "run", "net.kind=layout", "net.cells=true", "total_steps=600", game="exposaurus"
    )
    Trainer(config, log=False).train()
    saved = ckpt.read_checkpoint(tmp_path / "run")
    assert saved["net_shape"]["cell_blocks"] == [
        {"name": "place", "start": 198, "depth": 4, "grid": "museum"}
    ]
    policy = load_policy(tmp_path / "run")
    obs, mask = random_decisions(game_info("exposaurus", {}), 5, seed=4)
    for o, m in zip(obs.numpy(), mask.numpy()):
        assert m[policy(o, m)]
    assert np.isfinite(policy.logits(obs[0].numpy(), mask[0].numpy())[mask[0].numpy()]).all()


def test_exposed_lays_its_cell_actions_over_the_grid_as_the_rules_place_them():
    """Exposed's steal, expose and tile blocks are declared over the `grid` piece's cells; the rule "expose
    only an unexposed tile in your row or column, not your own" then holds of the cells the declaration
    names: every legal Expose, decoded as (row * cols + col), shares a line with the observer's own cell
    (its `identity` at seat 0, read through the same row x col axes)."""
    for n in (2, 4, 6):
        info = game_info("exposed", {"num_players": n})
        blocks = {b.name: b for b in info.net_shape.cell_blocks}
        assert sorted(blocks) == ["expose", "steal", "tile"] and {b.grid for b in blocks.values()} == {"grid"}
        expose, checked = blocks["expose"], 0
        rng = np.random.default_rng(n)
        game = info.new_game(n)
        while checked < 20:
            if game.is_terminal() or game.is_truncated():
                game = info.new_game(int(rng.integers(1 << 30)))
                continue
            p, mask = game.current_player(), game.legal_action_mask()
            identity = game.observation_dict(p)["identity"][0]  # my Guest's cell, row x col
            cols = identity.shape[1]
            legal = np.flatnonzero(mask[expose.start : expose.start + identity.size])
            if len(legal):
                (mine,) = zip(*np.nonzero(identity))
                for r, c in (divmod(int(cell), cols) for cell in legal):
                    assert (r == mine[0] or c == mine[1]) and (r, c) != mine
                checked += 1
            game.apply_action(int(rng.choice(np.flatnonzero(mask))))


def test_cell_seats_bring_every_seats_grid_to_its_cell():
    """With the seat grids (net.cell_seats) the other seat's grid reaches the cell logits, at its own
    cell and the cells near it only; without them it does not (the test above)."""
    encoder, _ = toy_head()
    torch.manual_seed(0)
    head = CellHead(
        encoder.grid_of("board"), [(START, DEPTH)], 3, 8, seat_grids=encoder.seat_grids(ROWS, COLS)
    )
    obs, features = torch.rand(1, OBS), torch.rand(1, 3)
    before = run_head(head, obs, features)
    for r, c in [(0, 0), (5, 6)]:
        moved = obs.clone()
        board(moved)[0, 1, r, c] += 1.0  # the other seat's grid
        changed = (run_head(head, moved, features) != before)[0]
        near = {(i, j) for i in range(ROWS) for j in range(COLS) if abs(i - r) <= 3 and abs(j - c) <= 3}
        assert (r, c) in block_cells(changed) and block_cells(changed) <= near


def test_blocks_on_one_grid_share_one_head_and_keep_their_own_places():
    """Two blocks on one grid: one head, each block's logits at its own actions (a cell's change moves
    both blocks' logits of that cell), the actions between and after them untouched."""
    encoder, _ = toy_head()
    second = START + ROWS * COLS * DEPTH + 2  # two plain actions between the blocks
    head = CellHead(encoder.grid_of("board"), [(second, 1), (START, DEPTH)], features=3, size=8)
    actions = second + ROWS * COLS + 3
    obs, features = torch.rand(1, OBS), torch.rand(1, 3)
    with torch.no_grad():
        before = head(obs, features, torch.zeros(1, actions))
        moved = obs.clone()
        board(moved)[0, 0, 2, 3] += 1.0
        changed = (head(moved, features, torch.zeros(1, actions)) != before)[0]
    first_end = START + ROWS * COLS * DEPTH
    assert not changed[:START].any() and not changed[first_end:second].any()
    assert not changed[second + ROWS * COLS :].any()
    assert changed[START + (2 * COLS + 3) * DEPTH] and changed[second + 2 * COLS + 3]
    with pytest.raises(ValueError, match="overlap"):
        CellHead(encoder.grid_of("board"), [(START, DEPTH), (START + 4, 1)], features=3, size=8)


def test_an_exposed_net_with_cell_seats_plays_legally_and_rebuilds(tmp_path):
    net, info, config = layout_net(
        "exposed", "game_config.num_players=4", "net.cells=true", "net.cell_seats=true"
    )
    # 4 players, a 5x5 grid: swaps 0-39, steal 40-64, expose 65-89, snitch 90-93, tile 94-118
    assert len(net.cell_heads) == 1 and net.cell_heads[0].blocks == [(40, 65, 1), (65, 90, 1), (94, 119, 1)]
    assert len(net.cell_heads[0].seat_grids) == 1 and net.cell_heads[0].seat_grids[0].seats == 4
    obs, mask = random_decisions(info, 60)
    ours, without = logits_with_and_without(net, info, config, "cell_heads", obs, mask)
    assert torch.all(torch.softmax(ours, -1)[~mask] == 0)
    for plain in (slice(0, 40), slice(90, 94), slice(119, None)):
        assert torch.equal(ours[:, plain], without[:, plain])
    for block in (slice(40, 65), slice(65, 90), slice(94, 119)):
        legal = mask[:, block].any(-1)
        assert legal.any() and not torch.equal(ours[legal][:, block], without[legal][:, block])
    check_rebuilt_and_exported(tmp_path, net, info, config)


def test_cell_seats_config_is_checked():
    with pytest.raises(
        ConfigError, match="net.cell_seats=true adds to the cell heads: it needs net.cells=true"
    ):
        load_config(None, ["game=exposed", "net.kind=layout", "net.cell_seats=true"])
