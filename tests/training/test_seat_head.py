"""net.seats: the logits of an action block of seats come from each seat's own numbers, with the same
weights at every seat (training/nets.py SeatHead), built from the game's ActionGroup declarations."""

from __future__ import annotations

from dataclasses import replace

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
from training.nets import PolicyNet, SeatHead, seat_index
from training.netshape import SeatBlock
from training.policy import load_policy
from training.run import run_game

SEATS, DEPTH, START = 5, 2, 3
# a toy table: a flat piece, two pieces led by a seat axis (record's after a feature axis, as the
# layout encoder reads it too), one with a seat axis that does not lead
PIECES = [
    ("phase", (4,), ("feature",)),
    ("record", (2, SEATS), ("feature", "seat")),
    ("votes", (SEATS, SEATS), ("seat", "seat")),
    ("hand", (3, SEATS), ("card", "seat")),
]
OBS = 4 + SEATS * 2 + SEATS * SEATS + 3 * SEATS
# two blocks of seats: DEPTH actions per seat from START, then (one action apart) one per seat
SECOND = START + SEATS * DEPTH + 1
ACTIONS, BLOCK = SECOND + SEATS + 2, slice(START, START + SEATS * DEPTH)


def toy_head(seed: int = 0) -> SeatHead:
    torch.manual_seed(seed)
    head = SeatHead(seat_index(PIECES, SEATS), [(START, DEPTH), (SECOND, 1)], features=6, size=8)
    with torch.no_grad():  # no dead units: every weight non-zero
        for p in head.parameters():
            p.add_(0.1 * torch.randn_like(p))
    return head


def seat_rows(obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Views of the two seat-led pieces: record [N, seats, 2], votes [N, seats, seats]."""
    record = obs[:, 4 : 4 + SEATS * 2].view(-1, 2, SEATS).transpose(1, 2)
    votes = obs[:, 4 + SEATS * 2 : 4 + SEATS * 2 + SEATS * SEATS].view(-1, SEATS, SEATS)
    return record, votes


def run_head(head: SeatHead, obs: torch.Tensor, features: torch.Tensor) -> torch.Tensor:
    with torch.no_grad():
        return head(obs, features, torch.zeros(obs.shape[0], ACTIONS))


def test_seat_index_gathers_every_piece_led_by_a_seat_axis():
    index = seat_index(PIECES, SEATS)
    assert index.shape == (SEATS, 2 + SEATS)
    for seat in range(SEATS):  # record's two numbers, then votes' row; not phase, not hand
        assert list(index[seat, :2]) == [4 + seat, 4 + SEATS + seat]
        assert list(index[seat, 2:]) == [4 + SEATS * 2 + SEATS * seat + j for j in range(SEATS)]
    with pytest.raises(ValueError, match="no observation piece is led by a seat axis of 4 seats"):
        seat_index(PIECES, 4)


def test_a_seats_logits_read_that_seat_only():
    """Changing seat s's numbers moves the logits of seat s in each block (its `depth` actions) and no
    other action's; the trunk's features (the decision, what is known) reach every seat."""
    head = toy_head()
    obs, features = torch.rand(2, OBS), torch.rand(2, 6)
    before = run_head(head, obs, features)
    for seat in range(SEATS):
        moved = obs.clone()
        seat_rows(moved)[0][:, seat] += 1.0
        changed = (run_head(head, moved, features) != before).any(0)
        moved_actions = torch.nonzero(changed).flatten().tolist()
        assert moved_actions == [START + seat * DEPTH + k for k in range(DEPTH)] + [SECOND + seat]
    other = obs.clone()
    other[:, :4] += 1.0  # the flat piece: the trunk reads it, the seat head does not
    other[:, -3 * SEATS :] += 1.0  # a seat axis that does not lead the piece
    assert torch.equal(run_head(head, other, features), before)
    context = run_head(head, obs, features + 1.0) != before
    assert context[:, BLOCK].all() and context[:, SECOND : SECOND + SEATS].all()
    assert not context[:, :START].any() and not context[:, SECOND - 1].any() and not context[:, -2:].any()


def test_the_same_weights_at_every_seat():
    """Swapping two seats' numbers swaps their logits: a seat's logits depend on what is at that seat,
    not on where it sits."""
    head = toy_head(1)
    obs, features = torch.rand(4, OBS), torch.rand(4, 6)
    before = run_head(head, obs, features)[:, BLOCK].view(4, SEATS, DEPTH)
    swapped = obs.clone()
    for piece in seat_rows(swapped):
        piece[:, [1, 3]] = piece[:, [3, 1]]
    after = run_head(head, swapped, features)[:, BLOCK].view(4, SEATS, DEPTH)
    assert torch.allclose(after[:, [3, 1]], before[:, [1, 3]]) and torch.equal(
        after[:, [0, 2, 4]], before[:, [0, 2, 4]]
    )


def pick_the_highest(seat_head: bool, steps: int = 300) -> float:
    """Train on choosing the seat whose record[0] is highest, with the answer always seat 0, 1 or 2 in
    training; the share of right choices where the answer is seat 3 or 4 (never seen as an answer)."""
    torch.manual_seed(0)
    head = SeatHead(seat_index(PIECES, SEATS), [(START, 1)], features=6, size=16)
    plain = torch.nn.Linear(OBS, SEATS)  # the ordinary head: one logit per seat from the whole vector
    model = head.parameters() if seat_head else plain.parameters()
    optimizer = torch.optim.Adam(model, lr=1e-2)
    rng = torch.Generator().manual_seed(2)

    def batch(seats: list[int]) -> tuple[torch.Tensor, torch.Tensor]:
        obs = torch.rand(256, OBS, generator=rng)
        answer = torch.tensor(seats)[torch.randint(len(seats), (256,), generator=rng)]
        seat_rows(obs)[0][torch.arange(256), answer, 0] += 1.0
        return obs, answer

    def logits(obs: torch.Tensor) -> torch.Tensor:
        if seat_head:
            return head(obs, torch.zeros(len(obs), 6), torch.zeros(len(obs), START + SEATS))[:, START:]
        return plain(obs)

    for _ in range(steps):
        obs, answer = batch([0, 1, 2])
        loss = torch.nn.functional.cross_entropy(logits(obs), answer)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    obs, answer = batch([3, 4])
    with torch.no_grad():
        return (logits(obs).argmax(-1) == answer).float().mean().item()


def test_what_is_learnt_at_one_seat_holds_at_every_seat():
    """Shared weights: a rule learnt from choices of seats 0-2 picks seats 3 and 4 right; the ordinary
    head, which has a weight per seat, never learns to pick them."""
    shared, plain = pick_the_highest(seat_head=True), pick_the_highest(seat_head=False)
    assert shared > 0.95 and plain < 0.05, (shared, plain)


@pytest.mark.parametrize("kind", ("mlp", "layout"))
def test_artifacts_binds_its_seat_blocks_and_a_net_with_seats_plays_legally(kind):
    net, info, config = layout_net("artifacts", f"net.kind={kind}", "net.seats=true")
    assert info.net_shape.seat_blocks == (
        SeatBlock("seat", 3, 1, 7),
        SeatBlock("accuse", 30, 1, 7),
        SeatBlock("vouch", 37, 1, 7),
    )
    # one head reads the seats once for every block: its outputs go to the blocks' actions
    assert len(net.seat_heads) == 1
    assert sorted(net.seat_heads[0].actions.tolist()) == [*range(3, 10), *range(30, 44)]
    obs, mask = random_decisions(info, 60)
    logits, value = net.evaluate_flat(obs, mask, torch.zeros(60, info.state_dim))
    probs = torch.softmax(logits, -1)
    assert torch.all(probs[~mask] == 0) and torch.allclose(probs.sum(-1), torch.ones(60))
    # the seat blocks' logits differ from those of the same net without the heads; no other does
    ours, without = logits_with_and_without(
        net, info, config, "seat_heads", obs, mask, torch.zeros(60, info.state_dim)
    )
    seats = torch.zeros(info.num_actions, dtype=torch.bool)
    seats[3:10] = seats[30:44] = True
    legal_seat = mask & seats
    assert legal_seat.any() and not torch.equal(ours[legal_seat], without[legal_seat])
    assert torch.equal(ours[:, ~seats], without[:, ~seats])


def test_seats_config_is_checked():
    with pytest.raises(ConfigError, match="unknown"):  # the blocks are the game's, not a setting
        load_config(None, ["game=artifacts", "net.seats=true", "net.seat_actions=['seat: 3']"])
    with pytest.raises(ConfigError, match="no action block of seats"):
        run_game(load_config(None, ["game=exposaurus", "net.seats=true"]))
    _, info, config = layout_net("artifacts", "net.kind=mlp", "net.seats=true")

    def shape(*blocks):
        return replace(info.net_shape, seat_blocks=blocks)

    with pytest.raises(ValueError, match="runs past the 44 actions"):
        PolicyNet(shape(SeatBlock("vouch", 40, 1, 7)), config.net)
    with pytest.raises(ValueError, match="no observation piece is led by a seat axis of 6 seats"):
        PolicyNet(shape(SeatBlock("vouch", 37, 1, 6)), config.net)
    with pytest.raises(ValueError, match="every block of seats must span the same seats"):
        PolicyNet(shape(SeatBlock("seat", 3, 1, 7), SeatBlock("vouch", 37, 1, 6)), config.net)
    with pytest.raises(ValueError, match="no action block of seats"):
        PolicyNet(shape(), config.net)


@pytest.mark.filterwarnings("ignore:.*torch.jit.load.*:DeprecationWarning")
def test_checkpoint_and_export_rebuild_the_seat_heads(tmp_path):
    net, info, config = layout_net("artifacts", "net.kind=mlp", "net.seats=true", "net.critic=central")
    check_rebuilt_and_exported(tmp_path, net, info, config)


def test_a_run_with_seats_binds_the_games_blocks_and_checkpoints_them(tmp_path):
    config = tiny_config(tmp_path / "run", "net.seats=true", "total_steps=600", game="artifacts")
    Trainer(config, log=False).train()
    saved = ckpt.read_checkpoint(tmp_path / "run")
    assert saved["net_shape"]["seat_blocks"][0] == {"name": "seat", "start": 3, "depth": 1, "seats": 7}
    pieces = game_info("artifacts", {}).new_game(0).observation_layout.pieces
    assert len(saved["net_shape"]["pieces"]) == len(pieces)
    policy = load_policy(tmp_path / "run")
    assert policy.net.seat_heads[0].actions.numel() == 21
    obs, mask = random_decisions(game_info("artifacts", {}), 5, seed=4)
    for o, m in zip(obs.numpy(), mask.numpy()):
        assert m[policy(o, m)]
