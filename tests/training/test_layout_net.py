"""net.kind=layout: the encoder built from the observation layout's axis declarations (training/nets.py)."""

from __future__ import annotations

import copy

import numpy as np
import pytest
import torch

from envs.core.errors import ConfigError
from envs.core.layout import Layout, PieceSpec
from tests.training.helpers import tiny_config
from training import Trainer
from training import checkpoint as ckpt
from training.cli import config_file, main
from training.config import load_config
from training.games import game_info
from training.nets import MASKED_LOGIT, LayoutEncoder, PolicyNet, plan_layout
from training.netshape import NetShape, Piece
from training.policy import load_policy

GAMES = ("exposed", "exposaurus", "artifacts", "expressions")


def layout_net(game: str, *overrides: str):
    """The game's default config with net.kind=layout, its layout bound, and the network it builds."""
    config = load_config(config_file(game), ["net.kind=layout", *overrides])
    info = game_info(config.game, config.game_config)
    torch.manual_seed(0)
    return PolicyNet(info.net_shape, config.net), info, config


def logits_with_and_without(net, info, config, heads: str, obs, mask, state=None):
    """The net's logits, and those of the same net (same weights) with its `heads` ModuleList emptied."""
    plain = PolicyNet(info.net_shape, config.net)
    plain.load_state_dict(net.state_dict())
    setattr(plain, heads, torch.nn.ModuleList())
    with torch.no_grad():
        return net.evaluate_flat(obs, mask, state)[0], plain.evaluate_flat(obs, mask, state)[0]


def random_decisions(info, count: int, seed: int = 0):
    """Observations and masks of `count` decisions of random play, as tensors."""
    rng = np.random.default_rng(seed)
    game, obs, masks = info.new_game(seed), [], []
    while len(obs) < count:
        if game.is_terminal() or game.is_truncated():
            game = info.new_game(int(rng.integers(1 << 30)))
            continue
        mask = game.legal_action_mask()
        obs.append(game.observation(game.current_player()))
        masks.append(mask)
        game.apply_action(int(rng.choice(np.flatnonzero(mask))))
    return torch.as_tensor(np.array(obs), dtype=torch.float32), torch.as_tensor(np.array(masks)).bool()


@pytest.mark.parametrize("game", GAMES)
def test_default_config_builds_a_layout_net_with_the_right_shapes(game):
    net, info, _ = layout_net(game)
    obs, mask = random_decisions(info, 8)
    state = torch.zeros(8, info.state_dim) if net.uses_state else None
    logits, value = net.evaluate_flat(obs, mask, state)
    assert logits.shape == (8, info.num_actions) and value.shape == (8,)
    step_logits, step_value, hidden = net.step(obs, mask, None, state)
    assert torch.equal(step_logits, logits) and torch.equal(step_value, value) and hidden is None
    # every piece is read exactly once, into one group of one scope
    pieces = [p.name for p in info.new_game(0).observation_layout]
    read = [name for names in net.trunk.encoder.plan.values() for name in names]
    assert sorted(read) == sorted(pieces)
    # leading batch axes pass through the encoder (the trainer evaluates [T, B, obs] too)
    assert net.trunk(obs.reshape(2, 4, -1)).shape == (2, 4, net.trunk.out_size)


@pytest.mark.parametrize("game", ("exposed", "expressions"))
def test_illegal_actions_get_the_masked_logit_and_zero_probability(game):
    net, info, _ = layout_net(game)
    obs, mask = random_decisions(info, 16, seed=1)
    logits, _ = net.evaluate_flat(obs, mask)
    assert torch.all(logits[~mask] == MASKED_LOGIT)
    assert torch.all(logits[mask] > MASKED_LOGIT / 2)
    probs = torch.softmax(logits, -1)
    assert torch.all(probs[~mask] == 0)
    assert torch.allclose(probs.sum(-1), torch.ones(16))


def seat_scope(encoder: LayoutEncoder, seats: int):
    return next(scope for scope in encoder.scopes if scope.seats == seats)


def put_seat(layout: Layout, obs: torch.Tensor, names: list[str], source: int, target: int) -> torch.Tensor:
    """A copy of `obs` with the seat-led pieces `names` of seat `target` replaced by seat `source`'s."""
    out = obs.clone()
    views = {p.name: out[:, p.slice].view(-1, *p.shape) for p in layout}
    for name in names:
        views[name][:, target] = views[name][:, source]
    return out


@pytest.mark.parametrize("game", ("exposed", "exposaurus", "artifacts", "expressions"))
def test_seats_share_weights_and_keep_their_relative_order(game):
    net, info, _ = layout_net(game)
    layout = info.new_game(0).observation_layout
    encoder = net.trunk.encoder
    n = info.num_players
    names = [name for (seats, _), group in encoder.plan.items() if seats == n for name in group]
    scope = seat_scope(encoder, n)
    obs, _ = random_decisions(info, 32, seed=2)
    # seat 1 given exactly seat 0's pieces: the same per-seat embedding (one encoder for every seat)
    same = put_seat(layout, obs, names, source=0, target=1)
    per_seat = scope.per_seat(same)
    assert torch.allclose(per_seat[:, 0], per_seat[:, 1], atol=1e-6)
    # the seats are concatenated in relative order: the embedding of seat 1 sits in slot 1, and the
    # observer's own seat stays distinct (exchanging the two seats' contents changes the output)
    per_seat = scope.per_seat(obs)
    differ = (per_seat[:, 0] - per_seat[:, 1]).abs().amax(-1) > 1e-5
    assert differ.any()
    exchanged = obs.clone()
    views = {p.name: exchanged[:, p.slice].view(-1, *p.shape) for p in layout}
    for name in names:
        views[name][:, [0, 1]] = views[name][:, [1, 0]]
    flipped = scope.per_seat(exchanged)
    assert torch.allclose(flipped[:, 0], per_seat[:, 1], atol=1e-6)
    assert torch.allclose(flipped[:, 1], per_seat[:, 0], atol=1e-6)
    assert not torch.allclose(encoder(exchanged)[differ], encoder(obs)[differ])


def test_the_first_structural_axis_decides_how_a_piece_is_read():
    pieces = [
        PieceSpec("where", (5, 3), "", 0, 1, ("tile", "feature")),
        PieceSpec("owner", (5, 2), "", 0, 1, ("tile", "seat")),  # led by tile: the tile's features
        PieceSpec("board", (2, 3, 3, 4), "", 0, 1, ("seat", "row", "col", "feature")),
        PieceSpec("hands", (2, 6), "", 0, 1, ("seat", "card")),
        PieceSpec("score", (2,), "", 0, 1, ("seat",)),
        PieceSpec("cells", (3, 3, 5), "", 0, 1, ("row", "col", "tile")),  # a grid: tiles are channels
        PieceSpec("phase", (4,), "", 0, 1),
    ]
    layout = Layout(pieces)
    described = [(p.name, p.shape, p.axes) for p in layout]
    plan = plan_layout(described)
    assert {key: reader.names for key, reader in plan.items()} == {
        (0, ("entity", "tile", 5)): ["where", "owner"],
        (2, ("grid", 3, 3)): ["board"],
        (2, ("entity", "card", 6)): ["hands"],
        (2, ("flat",)): ["score"],
        (0, ("grid", 3, 3)): ["cells"],
        (0, ("flat",)): ["phase"],
    }
    # the gather indexes put each entity's (seat's, cell's) numbers together, features last
    obs = np.arange(layout.size)
    views = layout.views(obs)
    tiles = obs[plan[(0, ("entity", "tile", 5))].index()]
    assert tiles.shape == (5, 5)
    assert np.array_equal(tiles[3], np.concatenate([views["where"][3], views["owner"][3]]))
    boards = obs[plan[(2, ("grid", 3, 3))].index()]
    assert boards.shape == (2, 3, 3, 4) and np.array_equal(boards[1, 2, 0], views["board"][1, 2, 0])
    hands = obs[plan[(2, ("entity", "card", 6))].index()]
    assert hands.shape == (2, 6, 1) and np.array_equal(hands[1, :, 0], views["hands"][1])
    encoder = LayoutEncoder(described, size=4, channels=3)
    # table: tiles (2*4) + cells grid (2*4) + phase (4); seats: 2 seats x 2*4
    assert encoder.out_size == 8 + 8 + 4 + 2 * 8
    assert encoder(torch.rand(7, layout.size)).shape == (7, encoder.out_size)


@pytest.mark.parametrize("game", GAMES)
def test_the_net_shape_describes_every_piece_and_reads_back_as_data(game):
    info = game_info(game, {})
    layout = info.new_game(0).observation_layout
    shape = info.net_shape
    assert shape.layout() == [(p.name, tuple(p.shape), tuple(p.axes)) for p in layout]
    assert (shape.obs_dim, shape.num_actions, shape.state_dim) == (
        info.obs_dim,
        info.num_actions,
        info.state_dim,
    )
    assert NetShape.from_dict(shape.to_dict()) == shape


def test_a_net_shape_read_back_is_checked_and_a_layout_net_needs_one():
    good = game_info("exposed", {}).net_shape.to_dict()
    for edit, message in (
        (lambda d: d["pieces"][0].update(axes=["chair"] * len(d["pieces"][0]["shape"])), "axes"),
        (lambda d: d["pieces"][0].update(shape=[0]), "size must be an integer >= 1"),
        (lambda d: d["pieces"].pop(), "the pieces describe"),
        (lambda d: d.update(obs_dim="ten"), "obs_dim must be an integer"),
        (lambda d: d.update(colour=1), "has no"),
        (lambda d: d.update(seat_blocks=[{"name": "x", "start": 0, "depth": 0, "seats": 2}]), "depth"),
    ):
        data = copy.deepcopy(good)
        edit(data)
        with pytest.raises(ValueError, match=message):
            NetShape.from_dict(data)
    config = load_config(None, ["game=exposed", "net.kind=layout"])
    with pytest.raises(ValueError, match="net.kind=layout needs the observation's pieces"):
        PolicyNet(NetShape(10, 3), config.net)
    with pytest.raises(ValueError, match="the pieces describe 4 numbers, the observation has 10"):
        PolicyNet(NetShape(10, 3, pieces=(Piece("a", (4,), ("feature",)),)), config.net)
    with pytest.raises(ConfigError, match="unknown"):  # the game's pieces are not a user's setting
        load_config(None, ["game=exposed", "net.layout=['a: 4']"])
    with pytest.raises(ConfigError, match="net.kind"):
        load_config(None, ["game=exposed", "net.kind=conv"])


def check_rebuilt_and_exported(tmp_path, net, info, config) -> None:
    """A checkpoint of `net` (non-zero weights everywhere, so a missing tensor would show) rebuilds it
    from the checkpoint alone (the layout and action blocks travel in its config): the same logits and
    values; load_policy and the TorchScript export give the same logits up to float rounding."""
    with torch.no_grad():
        for p in net.parameters():
            p.add_(0.05 * torch.randn_like(p))
    path = ckpt.save_checkpoint(tmp_path / "latest.pt", net, config, info, 1, 100)
    rebuilt = ckpt.build_net(ckpt.read_checkpoint(path))
    obs, mask = random_decisions(info, 12, seed=3)
    state = torch.rand(12, info.state_dim) if net.uses_state else None
    with torch.no_grad():
        expected, value = net.evaluate_flat(obs, mask, state)
        got, got_value = rebuilt.evaluate_flat(obs, mask, state)
    assert torch.equal(expected, got) and torch.equal(value, got_value)
    policy = load_policy(path)
    # one decision at a time: the same logits up to float rounding (other batch size, other kernels)
    assert np.allclose(policy.logits(obs[0].numpy(), mask[0].numpy()), expected[0].numpy(), atol=1e-5)
    out = tmp_path / "policy.pt"
    assert main(["export", str(path), str(out)]) == 0
    logits, hidden = torch.jit.load(str(out))(obs, mask)
    assert torch.allclose(logits, expected, atol=1e-5) and hidden.shape == (12, 0)


@pytest.mark.filterwarnings("ignore:.*torch.jit.load.*:DeprecationWarning")
@pytest.mark.parametrize("critic", ("separate", "central", "shared"))
def test_checkpoint_load_policy_and_export_rebuild_the_layout_net(tmp_path, critic):
    net, info, config = layout_net("exposed", f"net.critic={critic}")
    check_rebuilt_and_exported(tmp_path, net, info, config)


def test_a_run_trains_a_layout_net_from_the_game_and_its_policy_loads(tmp_path):
    config = tiny_config(tmp_path / "run", "net.kind=layout", "total_steps=600", game="exposed")
    Trainer(config, log=False).train()
    saved = ckpt.read_checkpoint(tmp_path / "run")
    info = game_info("exposed", {})
    layout = info.new_game(0).observation_layout
    assert (
        len(saved["net_shape"]["pieces"]) == len(layout.pieces)
        and "layout" not in saved["train_config"]["net"]
    )
    policy = load_policy(tmp_path / "run")
    obs, mask = random_decisions(info, 5, seed=4)
    for o, m in zip(obs.numpy(), mask.numpy()):
        assert m[policy(o, m)]


def legacy_lines(shape: dict) -> dict:
    """A shape as versions 1 and 2 kept it: text lines in the run's net config."""

    def piece(p):
        sizes = [str(n) if kind == "feature" else f"{n} {kind}" for n, kind in zip(p["shape"], p["axes"])]
        return f"{p['name']}: {' x '.join(sizes)}"

    return {
        "layout": [piece(p) for p in shape["pieces"]],
        "cell_actions": [
            f"{b['name']}: {b['start']} + {b['depth']} per cell of {b['grid']}" for b in shape["cell_blocks"]
        ],
        "seat_actions": [
            f"{b['name']}: {b['start']} + {b['depth']} per seat of {b['seats']}" for b in shape["seat_blocks"]
        ],
    }


@pytest.mark.parametrize(
    "game, options",
    [("exposaurus", ["net.cells=true", "net.cell_keys=4"]), ("artifacts", ["net.seats=true"])],
)
def test_a_version_2_checkpoint_keeps_its_layout_net(tmp_path, game, options):
    """Version 2 kept the game's shape as text lines in the config: read once into net_shape, the same
    network comes back; a damaged line is refused in our words."""
    net, info, config = layout_net(game, *options)
    path = ckpt.save_checkpoint(tmp_path / "latest.pt", net, config, info, 1, 100)
    data = torch.load(path, weights_only=True)
    shape = data.pop("net_shape")
    data["version"] = 2
    data["train_config"]["net"].update(legacy_lines(shape))
    old = tmp_path / "old.pt"
    torch.save(data, old)
    read = ckpt.read_checkpoint(old)
    assert read["net_shape"] == NetShape.from_dict(shape).to_dict()
    assert not {"layout", "cell_actions", "seat_actions"} & set(read["train_config"]["net"])
    rebuilt = ckpt.build_net(read)
    obs, mask = random_decisions(info, 6, seed=2)
    state = torch.rand(6, info.state_dim) if net.uses_state else None
    with torch.no_grad():
        assert torch.equal(net.evaluate_flat(obs, mask, state)[0], rebuilt.evaluate_flat(obs, mask, state)[0])
    data["train_config"]["net"]["layout"][0] = "museum 2 seat"
    torch.save(data, old)
    with pytest.raises(ckpt.CheckpointError, match="its network's layout is unreadable"):
        ckpt.read_checkpoint(old)
