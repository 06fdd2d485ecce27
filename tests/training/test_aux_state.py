"""The auxiliary target (net.aux_state): the actor's features predict the state as the deciding seat
sees it; training only, the policy still acts on its observation."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from envs.core.errors import ConfigError
from training import checkpoint as ckpt
from training.config import NetConfig, PPOConfig
from training.evaluate import match
from training.games import game_info
from training.nets import PolicyNet
from training.netshape import NetShape
from training.ppo import ppo_update
from training.trainer import Trainer

from .helpers import tiny_config, toy_rollout


def test_the_state_seen_by_a_seat_numbers_seats_as_its_observation_does():
    info = game_info("expressions", {"num_players": 4})
    game = info.new_game(5)
    for _ in range(30):  # some suggestions and guesses on the table
        legal = np.flatnonzero(game.legal_action_mask())
        game.apply_action(int(legal[len(legal) // 2]))
    n = info.num_players
    seen = info.state_seen_by(np.repeat(game.state_tensor()[None], n, 0), np.arange(n) + 3 * n)
    public = [
        p.name for p in game.observation_layout if "seat" in p.axes and p.name in info.state_layout.names()
    ]
    assert "suggestions" in public
    for p in range(n):
        state, obs = info.state_layout.split(seen[p]), game.observation_layout.split(game.observation(p))
        for name in public:  # a public piece, copied into the state in absolute seats, read back as p sees it
            assert np.array_equal(state[name], obs[name]), (p, name)
    artifacts = game_info("artifacts", {"num_players": 7})
    game = artifacts.new_game(3)
    seen = artifacts.state_seen_by(np.repeat(game.state_tensor()[None], 7, 0), np.arange(7))
    for p in range(7):  # the first row of the roles is the seat's own role
        own = game.observation_layout.split(game.observation(p))["my_role"]
        assert np.array_equal(artifacts.state_layout.split(seen[p])["roles"][0], own)


@pytest.mark.parametrize("num_players", (2, 4, 6))
def test_exposed_state_seen_by_a_seat_matches_its_observation_on_public_seat_pieces(num_players):
    info = game_info("exposed", {"num_players": num_players})
    game, rng = info.new_game(2), np.random.default_rng(0)
    for _ in range(40):
        if game.is_terminal():
            break
        game.apply_action(int(rng.choice(np.flatnonzero(game.legal_action_mask()))))
    n = num_players
    seen = info.state_seen_by(np.repeat(game.state_tensor()[None], n, 0), np.arange(n))
    public = ("exposed_players", "kept_items", "blocked_swaps", "last_kinds", "last_seats", "turn", "knows")
    for p in range(n):
        state, obs = info.state_layout.split(seen[p]), game.observation_layout.split(game.observation(p))
        for name in public:
            assert np.array_equal(state[name], obs[name]), (p, name)


@pytest.mark.parametrize("num_players", (2, 3, 4))
def test_exposaurus_state_seen_by_a_seat_is_its_observation_and_the_hidden_stock(num_players):
    info = game_info("exposaurus", {"num_players": num_players})
    game, rng = info.new_game(2), np.random.default_rng(0)
    for _ in range(60):  # museums, markers and gems on the table
        game.apply_action(int(rng.choice(np.flatnonzero(game.legal_action_mask()))))
    n, state = num_players, game.state_tensor()
    seen = info.state_seen_by(np.repeat(state[None], n, 0), np.arange(n))
    hidden = info.state_layout.split(state)["stock_order"]
    assert hidden.any()
    for p in range(n):  # every observation piece is public, so the rotated state holds all of it
        got, obs = info.state_layout.split(seen[p]), game.observation_layout.split(game.observation(p))
        for name in obs:
            assert np.array_equal(got[name], obs[name]), (p, name)
        assert np.array_equal(got["stock_order"], hidden)  # no seat axis: the same for every seat
    assert not np.array_equal(seen[0], seen[1])  # seats really are rotated


@pytest.mark.parametrize("kind,critic", [("mlp", "separate"), ("gru", "central")])
def test_the_aux_head_learns_the_state_and_acting_needs_no_state(kind, critic):
    config = NetConfig(kind=kind, hidden=[16], critic_hidden=[16], gru_size=8, critic=critic, aux_state=1.0)
    info, net, batch = toy_rollout(config)
    assert net.uses_state and batch.state.shape == (len(batch.obs), net.state_dim)  # recorded for training
    with pytest.raises(ValueError, match="aux_target"):
        ppo_update(net, torch.optim.Adam(net.parameters()), batch, PPOConfig(), np.random.default_rng(0))
    batch.aux_target = info.state_seen_by(batch.state, batch.chain)
    opt = torch.optim.Adam(net.parameters(), lr=1e-2)
    losses = [
        ppo_update(net, opt, batch, PPOConfig(epochs=2, minibatches=2), np.random.default_rng(i))[
            "loss/aux_state"
        ]
        for i in range(15)
    ]
    assert losses[-1] < 0.5 * losses[0], losses
    obs, mask = torch.from_numpy(batch.obs[:4]), torch.from_numpy(batch.mask[:4])
    hidden = torch.zeros(4, net.hidden_size) if net.recurrent else None
    logits, value, _ = net.step(obs, mask, hidden, None, need_value=False)
    assert value is None and torch.isfinite(logits[mask]).all()


@pytest.mark.parametrize("aux_state", (0.0, 1.0))
def test_only_the_aux_target_moves_the_trunk_without_a_policy_gradient(aux_state):
    """Zero advantages, no entropy bonus and a separate critic: nothing but the auxiliary target can
    move the actor's trunk."""
    config = NetConfig(hidden=[16], critic_hidden=[16], critic="separate", aux_state=aux_state)
    info, net, batch = toy_rollout(config)
    batch.advantage[:] = 0.0
    if aux_state:
        batch.aux_target = info.state_seen_by(batch.state, batch.chain)
    before = [p.detach().clone() for p in net.trunk.parameters()]
    opt = torch.optim.Adam(net.parameters(), lr=1e-2)
    cfg = PPOConfig(epochs=2, ent_coef=0.0, normalize_advantages=False)
    ppo_update(net, opt, batch, cfg, np.random.default_rng(0))
    moved = any(not torch.equal(a, b) for a, b in zip(before, net.trunk.parameters()))
    assert moved == (aux_state > 0)


def test_aux_state_needs_a_state_tensor_and_a_non_negative_weight():
    with pytest.raises(ValueError, match="state_tensor"):
        PolicyNet(NetShape(5, 3), NetConfig(aux_state=1.0))
    with pytest.raises(ConfigError, match="net.aux_state"):
        NetConfig(aux_state=-0.5).validate()
    net = PolicyNet(NetShape(5, 3, 4), NetConfig())
    with pytest.raises(ValueError, match="aux_state"):
        net.evaluate_flat(torch.zeros(1, 5), torch.ones(1, 3, dtype=torch.bool), None, True)


@pytest.mark.parametrize("kind", ("mlp", "gru"))
def test_aux_state_runs_through_warm_start_ppo_and_checkpoint(tmp_path, kind):
    run = tmp_path / kind
    config = tiny_config(
        run,
        "total_steps=256",
        "pretrain.games=50",
        "pretrain.epochs=3",
        "net.aux_state=0.5",
        f"net.kind={kind}",
    )
    trainer = Trainer(config, log=False)
    summary = trainer.train()
    assert trainer.pretrain_stats["pretrain/aux_state"] > 0  # the warm start fits the state too
    assert summary["decisions"] >= 256
    rebuilt = ckpt.build_net(ckpt.read_checkpoint(run))
    assert torch.equal(rebuilt.aux_head.weight, trainer.backend.net.aux_head.weight)
    # what the policy plays needs no state: evaluation acts on observations
    assert match(trainer.info, rebuilt, "random", 10, seed=0)["games"] == 10
