"""The PPO core: masking, entropy over legal actions, GAE by hand, per-seat credit assignment,
truncation (games cut at their length limit bootstrap from the critic)."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from training.actors import NetActor
from training.config import NetConfig, PPOConfig
from training.games import game_info, team_outcomes
from training.nets import PolicyNet, masked_entropy, masked_log_probs
from training.netshape import NetShape
from training.ppo import ppo_update
from training.runner import Runner, compute_gae

from .helpers import TOY, batch_log_probs, toy_rollout


@pytest.mark.parametrize("kind", ["mlp", "gru"])
def test_masked_distribution_never_samples_a_masked_action(kind):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    net = PolicyNet(NetShape(12, 9), NetConfig(kind=kind, hidden=[16], gru_size=8, critic="shared"))
    # push the logits of actions 0..4 far up, so any leak through the mask would be sampled
    with torch.no_grad():
        net.actor_head.bias[:5] = 50.0
    actor = NetActor(net)
    seen = np.zeros(9, int)
    for _ in range(50):
        obs = rng.normal(size=(64, 12)).astype(np.float32)
        mask = rng.random((64, 9)) < 0.3
        mask[np.arange(64), rng.integers(0, 9, 64)] = True  # at least one legal action per row
        hidden = np.zeros((64, net.hidden_size), np.float32)
        actions, logp, _, _ = actor.act(obs, mask, hidden, None, rng, need_value=False)
        assert mask[np.arange(64), actions].all()
        assert np.isfinite(logp).all()
        seen += np.bincount(actions, minlength=9)
    assert (seen > 0).sum() >= 6  # sampling still explores the legal actions


def test_masked_log_probs_give_zero_probability_and_legal_entropy():
    logits = torch.tensor([[3.0, 1.0, 2.0, 0.0], [0.0, 0.0, 0.0, 0.0]])
    mask = torch.tensor([[False, True, False, True], [True, True, True, False]])
    logp = masked_log_probs(logits, mask)
    probs = logp.exp()
    assert torch.all(probs[~mask] == 0)
    assert torch.allclose(probs.sum(-1), torch.ones(2))
    # row 0: softmax over logits (1, 0) of the two legal actions
    p = torch.softmax(torch.tensor([1.0, 0.0]), 0)
    expected = -(p * p.log()).sum()
    ent = masked_entropy(logp, mask)
    assert torch.allclose(ent[0], expected)
    assert math.isclose(ent[1].item(), math.log(3), rel_tol=1e-6)  # uniform over 3 legal actions


def test_gae_equals_hand_computed_case():
    # two seats of one game interleaved: chain 0 = rows 0, 2, 4 (row 4 ends the game); chain 1 = rows
    # 1, 3 (row 3 still pending: its seat has not decided again) ; chain 2 = row 5 done on its own
    chain = np.array([0, 1, 0, 1, 0, 2])
    reward = np.array([0.5, 0.0, 0.0, 1.0, 1.0, -1.0], np.float32)
    value = np.array([0.2, 0.1, 0.4, 0.3, 0.6, 0.5], np.float32)
    done = np.array([False, False, False, False, True, True])
    g, lam = 0.9, 0.8
    adv, ret, trainable, _ = compute_gae(chain, reward, value, done, g, lam)
    d4 = 1.0 - 0.6
    d2 = 0.0 + g * 0.6 - 0.4
    d0 = 0.5 + g * 0.4 - 0.2
    a4 = d4
    a2 = d2 + g * lam * a4
    a0 = d0 + g * lam * a2
    d1 = 0.0 + g * 0.3 - 0.1
    a1 = d1  # its successor (row 3) is pending: truncated there, bootstrapped by V(row 3)
    a5 = -1.0 - 0.5
    np.testing.assert_allclose(adv, [a0, a1, a2, 0.0, a4, a5], rtol=1e-6, atol=1e-7)
    np.testing.assert_array_equal(trainable, [True, True, True, False, True, True])
    np.testing.assert_allclose(ret, adv + value, rtol=1e-6)


def test_gae_bootstraps_a_truncated_row_from_the_value_at_the_cut():
    # chain 0 = rows 0, 1: the game was cut after row 1 (truncated, the critic's value of the seat at
    # the cut is 0.9); chain 1 = row 2 ended for real (terminal: its boot entry must be ignored)
    chain = np.array([0, 0, 1])
    reward = np.array([0.5, 0.2, 0.3], np.float32)
    value = np.array([0.1, 0.4, 0.6], np.float32)
    done = np.array([False, True, True])
    truncated = np.array([False, True, False])
    boot = np.array([0.0, 0.9, 5.0], np.float32)
    g, lam = 0.9, 0.8
    adv, ret, trainable, _ = compute_gae(chain, reward, value, done, g, lam, truncated, boot)
    a1 = 0.2 + g * 0.9 - 0.4  # bootstrapped from V at the cut, not a terminal zero
    a0 = (0.5 + g * 0.4 - 0.1) + g * lam * a1
    a2 = 0.3 - 0.6
    np.testing.assert_allclose(adv, [a0, a1, a2], rtol=1e-6)
    np.testing.assert_allclose(ret, [a0 + 0.1, 0.2 + g * 0.9, 0.3], rtol=1e-6)
    assert trainable.all()
    # without the flag the same rows are terminal: row 1 then gets 0.2 - 0.4
    plain, _, _, _ = compute_gae(chain, reward, value, done, g, lam)
    assert plain[1] == pytest.approx(0.2 - 0.4)


def _toy_runner(num_envs=4, net_config=None, **game):
    info = game_info(TOY, game)
    torch.manual_seed(0)
    net = PolicyNet(info.net_shape, net_config or NetConfig(hidden=[16], critic_hidden=[16]))
    actors = {"learner": NetActor(net)}

    def assign(slot, rng, game):
        return ["learner"] * info.num_players, None

    runner = Runner(
        info, num_envs, np.random.default_rng(1), actors, assign, record=True, capacity=num_envs * 40
    )
    return info, runner


def test_turn_based_credit_assignment_sums_rewards_between_own_decisions():
    # every stone pays its taker 0.1 during play, and the end pays +1 / -1: a decision's reward must
    # be exactly its own stones, plus the game's end when the game ended before the seat decided again
    info, runner = _toy_runner(num_envs=4, pile=9, stone_reward=0.1)
    batch = runner.collect(40, gamma=1.0, lam=1.0)
    pile_size = info.config.pile + 1
    checked_end = checked_mid = 0
    for i in np.flatnonzero(batch.trainable):
        pile = int(np.argmax(batch.obs[i, :pile_size]))
        take = int(batch.action[i]) + 1
        expected = 0.1 * take
        if batch.done[i]:
            # the game ended before this seat's next decision: either it took the last stone (won),
            # or the opponent did (lost)
            expected += 1.0 if take == pile else -1.0
            checked_end += 1
        else:
            checked_mid += 1
        assert batch.reward[i] == pytest.approx(expected, abs=1e-5)
    assert checked_end > 10 and checked_mid > 10
    # each done row is the last decision of its seat in that game: the next row of its chain starts
    for col in batch.layout.T:
        rows = col[col >= 0]
        for a, b in zip(rows[:-1], rows[1:]):
            assert batch.start[b] == batch.done[a]


def test_pending_decisions_carry_into_the_next_rollout():
    info, runner = _toy_runner(num_envs=3, pile=30, stone_reward=0.1)
    first = runner.collect(5, 1.0, 1.0)  # 30 stones: no game can end within 5 steps
    assert not first.done.any()
    pending = ~first.trainable
    assert pending.sum() == 3 * 2  # each seat of each game has one decision waiting
    second = runner.collect(5, 1.0, 1.0)
    # the carried decisions come first, unchanged, now with their rewards completed
    carried = {
        int(c): (int(a), float(lp)) for c, a, lp in zip(second.chain[:6], second.action[:6], second.logp[:6])
    }
    waiting = {
        int(c): (int(a), float(lp))
        for c, a, lp in zip(first.chain[pending], first.action[pending], first.logp[pending])
    }
    assert carried == waiting
    assert second.trainable[:6].all()
    np.testing.assert_allclose(second.reward[:6], 0.1 * (second.action[:6] + 1), rtol=1e-5)
    # and each carried decision is followed in its chain by that seat's next decision
    for col in second.layout.T:
        assert col[0] < 6


@pytest.mark.parametrize(
    "net_config",
    [
        NetConfig(hidden=[16], critic_hidden=[16]),
        NetConfig(kind="gru", hidden=[16], gru_size=8, critic="shared", normalize_obs=True),
    ],
)
def test_rollout_stops_a_truncated_game_and_bootstraps_from_the_critic(net_config):
    # 30 stones, cut after 5 decisions: no game can end (5 takes remove at most 15 stones), so after
    # 5 steps every game is cut and each seat's last decision is truncated, not pending and not lost
    info, runner = _toy_runner(num_envs=3, net_config=net_config, pile=30, max_decisions=5, stone_reward=0.1)
    net = runner.actors["learner"].net
    gamma = 0.9
    batch = runner.collect(5, gamma, 0.95)
    assert len(batch) == 15 and batch.trainable.all() and runner.carried is None
    np.testing.assert_array_equal(batch.truncated, batch.done)
    pile_size = info.config.pile + 1
    pile = batch.obs[:, :pile_size].argmax(1)
    take = batch.action + 1
    np.testing.assert_allclose(batch.reward, 0.1 * take, rtol=1e-5)  # only its own stones: no loss
    for slot in range(3):
        rows = np.flatnonzero(batch.chain // 2 == slot)
        final_pile = int((pile[rows] - take[rows]).min())
        assert final_pile == 30 - take[rows].sum()
        for seat in (0, 1):
            own = rows[batch.chain[rows] % 2 == seat]
            assert batch.truncated[own].tolist() == [False] * (len(own) - 1) + [True]
            last = own[-1]
            # the seat's observation at the cut: its own last observation with the pile left
            at_cut = batch.obs[last].copy()
            at_cut[:pile_size] = 0.0
            at_cut[final_pile] = 1.0
            expected = _value_after(net, batch.obs[own], at_cut, info.num_actions)
            assert batch.boot[last] == pytest.approx(expected, abs=1e-5)
            assert batch.advantage[last] == pytest.approx(
                batch.reward[last] + gamma * expected - batch.value[last], abs=1e-5
            )
    second = runner.collect(5, gamma, 0.95)  # fresh games: nothing carried over from the cut ones
    assert second.start[:3].all() and second.truncated.sum() == 6


def _value_after(net, history, obs, num_actions):
    """The critic's value of `obs` for a seat that decided on `history` before (its memory, if any)."""
    mask = torch.ones((1, num_actions), dtype=torch.bool)
    h = torch.zeros(1, net.hidden_size) if net.recurrent else None
    with torch.no_grad():
        for o in history:
            _, _, h = net.step(torch.from_numpy(o[None]), mask, h, None, False)
        _, value, _ = net.step(torch.from_numpy(obs[None]), mask, h, None, True)
    return float(value[0])


def test_team_outcomes():
    assert team_outcomes(np.array([1.0, -1.0]), [0, 1]) == {0: 1.0, 1: 0.0}
    assert team_outcomes(np.array([0.0, 0.0]), [0, 1]) == {0: 0.5, 1: 0.5}  # a draw
    assert team_outcomes(np.array([1.0, -1.0, 1.0, -1.0]), [0, 1, 0, 1]) == {0: 1.0, 1: 0.0}
    # a first place shared by k players is worth 1/k of a win
    assert team_outcomes(np.array([1.0, 1.0, -1.0]), [0, 1, 2]) == {0: 0.5, 1: 0.5, 2: 0.0}
    # secret sides given per game (team ids as the game names them)
    assert team_outcomes(np.array([-1.0, 1.0, 1.0, -1.0, 1.0]), [3, 5, 5, 3, 5]) == {3: 0.0, 5: 1.0}
    # cooperative: one team, won when its return is positive
    assert team_outcomes(np.array([2.0, 2.0]), [0, 0]) == {0: 1.0}
    assert team_outcomes(np.array([-1.0, -1.0]), [0, 0]) == {0: 0.0}


@pytest.mark.parametrize(
    "kind,critic", [("mlp", "separate"), ("mlp", "central"), ("gru", "shared"), ("gru", "central")]
)
def test_ppo_update_moves_the_policy_toward_positive_advantages(kind, critic):
    config = NetConfig(kind=kind, hidden=[16], critic_hidden=[16], gru_size=8, critic=critic)
    _, net, batch = toy_rollout(config)
    # reward taking exactly one stone, whatever the game says
    batch.advantage[:] = np.where(batch.action == 0, 1.0, -1.0)
    opt = torch.optim.Adam(net.parameters(), lr=1e-2)

    def mean_logp_take_one():
        log_probs, _ = batch_log_probs(net, batch)
        return log_probs[:, 0].mean().item()

    before = mean_logp_take_one()
    stats = ppo_update(
        net, opt, batch, PPOConfig(epochs=4, minibatches=2, ent_coef=0.0), np.random.default_rng(0)
    )
    after = mean_logp_take_one()
    assert after > before + 0.05
    assert np.isfinite(list(stats.values())).all()
