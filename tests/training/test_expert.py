"""Expert iteration (training/expert.py): the guided search's games as training targets - what a round
records, that distillation moves the policy to the search's choice, and the run loop around it."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from envs.core import ConfigError
from envs.core.search import C_SCALE, C_VISIT, Search, SearchBudget
from training.config import ExpertConfig, NetConfig
from training.expert import (
    Lessons,
    LessonTerm,
    completed_q_policy,
    distil,
    entropy,
    entropy_held,
    kl_step_policy,
    lesson_loss,
    play_round,
    targets,
)
from training.games import game_info
from training.nets import PolicyNet
from training.policy import Policy
from training.search import guided_search
from training.trainer import Trainer, resume

from .helpers import TOY, RoundSpy, assert_same_lessons, round_in_shares, tiny_config

PILE, PERIOD = 11, 4  # the toy game's pile and max_take + 1


def _net(info, seed: int = 0) -> PolicyNet:
    torch.manual_seed(seed)
    return PolicyNet(info.net_shape, NetConfig(hidden=[32], critic_hidden=[32]))


def _piles(lessons: Lessons) -> np.ndarray:
    return np.argmax(lessons.obs[:][:, : PILE + 1], axis=1)


def _round(info, net, games=12, seed=0, **expert) -> Lessons:
    cfg = ExpertConfig(games=games, **({"simulations": 200, "scripted": 0.0} | expert))
    with torch.no_grad():
        return play_round(info, Policy(net), cfg, 1.0, games, [seed], uses_state=False)


def test_a_round_records_each_searched_decision_with_its_visit_distribution():
    info = game_info(TOY, {})
    lessons = _round(info, _net(info))
    assert len(lessons) > 0
    np.testing.assert_allclose(lessons.target.sum(1), 1.0, rtol=1e-6)
    assert not (lessons.target[~lessons.mask] > 0).any(), "visits on an illegal action"
    assert (lessons.mask.sum(1) > 1).all(), "a forced move was recorded"
    # two-player Nim pays +1 / -1: a seat's return from a decision to the end is its final result
    assert set(np.unique(lessons.returns)) <= {-1.0, 1.0}
    assert (lessons.searched_result == -1).all()  # no game against the scripted players


@pytest.mark.parametrize("batch", [1, 8])
def test_the_search_finds_the_winning_moves_its_policy_does_not_know(batch):
    """Also with `expert.batch`: the leaves of 8 simulations evaluated in one network call."""
    info = game_info(TOY, {})
    lessons = _round(info, _net(info), batch=batch)
    piles = _piles(lessons)
    # a pile with a winning move (take pile % 4) that 200 simulations search to the end
    winning = (piles % PERIOD != 0) & (piles <= 7)
    searched = np.argmax(lessons.target, 1)[winning] + 1
    assert winning.sum() >= 10 and np.mean(searched == piles[winning] % PERIOD) >= 0.95
    with torch.no_grad():  # the untrained policy that guided it does not know them
        logits, _ = _net(info).evaluate_flat(torch.from_numpy(lessons.obs[:]), torch.from_numpy(lessons.mask))
    prior = logits.argmax(-1).numpy()[winning] + 1
    assert np.mean(prior == piles[winning] % PERIOD) <= 0.7


def test_distilling_a_round_moves_the_policy_to_the_search_s_choice():
    info = game_info(TOY, {})
    net = _net(info)
    lessons = _round(info, net)

    @torch.no_grad()
    def divergence() -> float:
        """KL(search's visit distribution || policy), averaged over the positions."""
        logits, _ = net.evaluate_flat(torch.from_numpy(lessons.obs[:]), torch.from_numpy(lessons.mask))
        log_policy = torch.log_softmax(logits, -1).numpy()
        t = lessons.target
        return float((t * (np.log(np.where(t > 0, t, 1.0)) - log_policy)).sum(1).mean())

    before = divergence()
    optimizer = torch.optim.Adam(net.parameters(), lr=3e-3)
    cfg = ExpertConfig(games=1, epochs=60, minibatch=64)
    stats = distil(net, optimizer, lessons, cfg, 1.0, np.random.default_rng(0))
    assert divergence() < before / 3
    assert stats["expert/positions"] == len(lessons) and stats["expert/cross_entropy"] > 0


def test_against_the_scripted_players_only_the_searched_side_is_recorded():
    info = game_info(TOY, {"num_players": 4, "teams": True})  # seats 0 and 2 against 1 and 3
    lessons = _round(info, _net(info), games=10, scripted=1.0, simulations=20)
    assert len(lessons.searched_result) == 10 and set(lessons.searched_result) <= {0.0, 0.5, 1.0}
    sides = {int(g): set((lessons.seat[lessons.game == g] % 2).tolist()) for g in np.unique(lessons.game)}
    assert all(len(side) == 1 for side in sides.values()), sides
    assert {next(iter(side)) for side in sides.values()} == {0, 1}  # each side gets searched
    everyone = _round(info, _net(info), games=10, scripted=0.0, simulations=20)
    assert all(set((everyone.seat[everyone.game == g] % 2).tolist()) == {0, 1} for g in range(10))


def test_a_cooperative_round_searches_every_seat():
    info = game_info(TOY, {"num_players": 3, "cooperative": True})
    lessons = _round(info, _net(info), games=4, simulations=20)
    assert len(lessons) > 0 and (lessons.searched_result == -1).all()


def test_expert_options_are_checked():
    with pytest.raises(ConfigError, match="expert.games"):
        ExpertConfig(games=-1).validate()
    with pytest.raises(ConfigError, match="expert.scripted"):
        ExpertConfig(scripted=1.5).validate()
    with pytest.raises(ConfigError, match="expert.lr"):
        ExpertConfig(lr=0.0).validate()
    with pytest.raises(ConfigError, match="expert.temperature"):
        ExpertConfig(temperature=-1.0).validate()
    with pytest.raises(ConfigError, match="expert.batch"):
        ExpertConfig(batch=0).validate()
    with pytest.raises(ConfigError, match="expert.target must be one of"):
        ExpertConfig(target="values").validate()


def test_the_completed_q_policy_is_the_prior_where_values_agree_and_moves_towards_higher_ones():
    prior = np.array([0.5, 0.3, 0.2, 0.0])
    mask = np.array([True, True, True, False])
    visits = np.array([3.0, 1.0, 0.0, 0.0])  # action 2 untried, action 3 illegal
    same = completed_q_policy(prior, visits, np.array([0.4, 0.4, 0.0, 0.0]), 0.4, mask)
    np.testing.assert_allclose(same, prior, atol=1e-12)  # nothing learnt: nothing moves
    values = np.array([0.2, 0.8, 0.0, 0.0])
    improved = completed_q_policy(prior, visits, values, 0.5, mask)
    assert improved[3] == 0.0 and np.isclose(improved.sum(), 1.0)
    assert improved[1] / improved[0] > prior[1] / prior[0]  # towards the higher searched value
    # the untried action is valued v_mix: the root's 0.5 mixed with the prior-weighted tried values;
    # the completed values [0.2, 0.8, v_mix] are then stretched to [0, 1]
    v_mix = (0.5 + 4 * (0.5 * 0.2 + 0.3 * 0.8) / 0.8) / 5
    sigma = (C_VISIT + 3) * C_SCALE
    stretched = (v_mix - 0.2) / (0.8 - 0.2)
    assert np.isclose(np.log(improved[2] / improved[0]), np.log(0.2 / 0.5) + sigma * stretched)
    assert np.isclose(np.log(improved[1] / improved[0]), np.log(0.3 / 0.5) + sigma)
    # only the order and ratios of the values count: the same values on another scale, the same policy
    np.testing.assert_allclose(
        completed_q_policy(prior, visits, 0.1 + values / 10, 0.1 + 0.05, mask), improved
    )
    # policy improvement: the completed values' expectation rises
    completed = np.array([0.2, 0.8, v_mix, 0.0])
    assert improved @ completed > prior @ completed


def _kl(target: np.ndarray, prior: np.ndarray) -> float:
    inside = target > 0
    return float((target[inside] * np.log(target[inside] / prior[inside])).sum())


def test_the_kl_step_moves_the_prior_towards_higher_returns_by_the_kl_asked():
    prior = np.array([0.4, 0.3, 0.2, 0.1, 0.0])
    mask = np.array([True, True, True, True, False])
    returns = np.array([0.0, 0.1, 0.5, 0.2, 9.0])  # the illegal action's return is never read
    for kl in (0.01, 0.1, 1.0):
        target = kl_step_policy(prior, returns, mask, kl)
        assert target[4] == 0.0 and np.isclose(target.sum(), 1.0)
        assert _kl(target, prior) == pytest.approx(kl, rel=1e-6)
        assert target[:4] @ returns[:4] > prior[:4] @ returns[:4]  # policy improvement
        ratios = target[:4] / prior[:4]
        assert (np.argsort(ratios) == np.argsort(returns[:4])).all()  # moved in the returns' order
    # nearer than the kl asked even at its sharpest: the best-valued action alone
    np.testing.assert_allclose(kl_step_policy(prior, returns, mask, 5.0), [0, 0, 1, 0, 0])
    # values that agree move nothing, however they are scaled
    np.testing.assert_allclose(kl_step_policy(prior, np.full(5, 0.3), mask, 0.1), prior)
    # the step depends on the returns' differences, not on their offset
    np.testing.assert_allclose(
        kl_step_policy(prior, returns + 7.0, mask, 0.1), kl_step_policy(prior, returns, mask, 0.1)
    )


def test_kl_targets_stay_within_their_step_of_the_prior_and_teach_the_winning_moves():
    info = game_info(TOY, {})
    visits = _round(info, _net(info), simulations=16)
    moved = _round(info, _net(info), simulations=16, target="kl", kl=0.5)
    np.testing.assert_array_equal(visits.mask, moved.mask)  # the same games and searches
    np.testing.assert_allclose(moved.target.sum(1), 1.0, rtol=1e-6)
    assert not (moved.target[~moved.mask] > 0).any(), "target mass on an illegal action"
    with torch.no_grad():
        prior = (
            Policy(_net(info))
            .net.evaluate_flat(
                torch.from_numpy(moved.obs[np.arange(len(moved))]), torch.from_numpy(moved.mask), None
            )[0]
            .softmax(-1)
            .numpy()
        )
    assert max(_kl(t, p) for t, p in zip(moved.target, prior)) <= 0.5 + 1e-4
    piles = _piles(moved)
    winning = np.flatnonzero((piles % PERIOD != 0) & (piles <= 7))
    assert len(winning) >= 10
    move = piles[winning] % PERIOD - 1
    assert moved.target[winning, move].mean() > prior[winning, move].mean() + 0.1
    with pytest.raises(ConfigError, match="expert.kl"):
        ExpertConfig(kl=0.0).validate()


def test_a_held_target_is_the_search_s_mixed_with_the_prior_at_the_prior_s_entropy():
    prior = np.array([0.4, 0.3, 0.2, 0.1, 0.0])
    mask = np.array([True, True, True, True, False])
    visits = np.array([0.0, 0.0, 0.9, 0.1, 0.0])  # sharper than the prior, on another action
    held = entropy_held(visits, prior, mask)
    assert entropy(held) == pytest.approx(entropy(prior[:4]), abs=1e-6)
    assert held[4] == 0.0 and np.isclose(held.sum(), 1.0)
    share = (held[0] - visits[0]) / (prior[0] - visits[0])  # a point on the segment target-prior
    assert 0 < share < 1
    np.testing.assert_allclose(held, (1 - share) * visits + share * prior, atol=1e-9)
    assert held.argmax() == 2  # the search's choice leads, at the policy's own entropy
    # the least share that reaches the prior's entropy: a smaller one stays under it
    assert entropy((1 - share + 0.01) * visits + (share - 0.01) * prior) < entropy(prior[:4])
    # a target at least as flat as the prior is kept
    flat = np.array([0.25, 0.25, 0.25, 0.25, 0.0])
    np.testing.assert_allclose(entropy_held(flat, prior, mask), flat)


def test_held_targets_of_a_round_keep_the_policy_s_entropy_and_the_search_s_choices():
    info = game_info(TOY, {})
    visits = _round(info, _net(info), simulations=16)
    held = _round(info, _net(info), simulations=16, hold_entropy=True)
    np.testing.assert_array_equal(visits.mask, held.mask)  # the same games and searches
    with torch.no_grad():
        logits = _net(info).evaluate_flat(torch.from_numpy(held.obs[:]), torch.from_numpy(held.mask))[0]
    prior = logits.softmax(-1).numpy()
    for v, h, p, m in zip(visits.target, held.target, prior, held.mask):
        assert entropy(h) == pytest.approx(max(entropy(p[m] / p[m].sum()), entropy(v)), abs=1e-4)
        p = np.where(m, p, 0.0) / p[m].sum()
        if np.allclose(v, p, atol=1e-6):
            continue
        share = float((h - v) @ (p - v) / ((p - v) @ (p - v)))  # h on the segment from v to p
        assert -1e-6 <= share <= 1 + 1e-6
        np.testing.assert_allclose(h, (1 - share) * v + share * p, atol=1e-5)
    assert not (held.target[~held.mask] > 0).any(), "target mass on an illegal action"


def test_completed_q_targets_teach_the_winning_moves_more_than_the_visits_of_the_same_searches():
    """At 16 simulations the visits stay near the untrained prior; the searched returns do not."""
    info = game_info(TOY, {})
    visits = _round(info, _net(info), simulations=16)
    improved = _round(info, _net(info), simulations=16, target="completed_q")
    # the same games and searches (the root values resample from a stream of their own)
    np.testing.assert_array_equal(visits.mask, improved.mask)
    np.testing.assert_array_equal(visits.returns, improved.returns)
    np.testing.assert_allclose(improved.target.sum(1), 1.0, rtol=1e-6)
    assert not (improved.target[~improved.mask] > 0).any(), "target mass on an illegal action"
    piles = _piles(visits)
    winning = np.flatnonzero((piles % PERIOD != 0) & (piles <= 7))
    move = piles[winning] % PERIOD - 1  # take pile % 4
    assert len(winning) >= 10
    assert improved.target[winning, move].mean() > visits.target[winning, move].mean() + 0.1


def test_a_gumbel_root_teaches_the_winning_moves_at_a_small_budget():
    """expert.root=gumbel: at 16 simulations sequential halving tries every move of the root and its
    completed-Q targets put most of their mass on the winning move (PUCT's visits: about 0.6)."""
    info = game_info(TOY, {})
    gumbel = _round(info, _net(info), simulations=16, target="completed_q", root="gumbel")
    visits = _round(info, _net(info), simulations=16)
    rows = []
    for lessons in (gumbel, visits):
        piles = _piles(lessons)
        winning = np.flatnonzero((piles % PERIOD != 0) & (piles <= 7))
        assert len(winning) >= 10
        rows.append(lessons.target[winning, piles[winning] % PERIOD - 1].mean())
    assert rows[0] >= 0.9 and rows[0] > rows[1] + 0.2
    with pytest.raises(ConfigError, match="expert.root=gumbel needs expert.target=completed_q or kl"):
        ExpertConfig(games=4, root="gumbel").validate()
    with pytest.raises(ConfigError, match="expert.root"):
        ExpertConfig(games=4, root="ucb").validate()


def test_a_guided_search_keeps_its_roots_values_and_prior_and_an_unguided_one_has_no_root_value():
    info = game_info(TOY, {})
    policy = Policy(_net(info))
    search = guided_search(policy, SearchBudget(simulations=24), seed=0)
    game = info.new_game(0)
    seat = game.current_player()
    search.act(game, seat)
    assert set(search.last_values) == set(search.last_visits) and len(search.last_visits) > 1
    assert all(0.0 <= v <= 1.0 for v in search.last_values.values())
    legal = game.legal_action_mask()
    assert np.isclose(search.last_prior[legal].sum(), 1.0) and not search.last_prior[~legal].any()
    assert 0.0 <= search.root_value(game, seat, np.random.default_rng(0)) <= 1.0
    with pytest.raises(ValueError, match="guided search"):
        Search(SearchBudget(simulations=4)).root_value(game, seat, np.random.default_rng(0))


def test_the_temperature_sharpens_the_visit_distribution():
    visits = np.array([[0.5, 0.3, 0.2, 0.0], [0.25, 0.25, 0.5, 0.0]], np.float32)
    np.testing.assert_array_equal(targets(visits, 0.0), [[1, 0, 0, 0], [0, 0, 1, 0]])
    np.testing.assert_array_equal(targets(visits, 1.0), visits)
    half = targets(visits, 0.5)
    np.testing.assert_allclose(half[0], np.array([25, 9, 4, 0]) / 38, rtol=1e-6)
    np.testing.assert_allclose(half.sum(1), 1.0, rtol=1e-6)


def test_a_recurrent_network_is_refused(tmp_path):
    with pytest.raises(ConfigError, match="feed-forward"):
        Trainer(tiny_config(tmp_path / "r", "expert.games=2", "net.kind=gru"), log=False)


EXPERT_RUN = ("expert.games=4", "expert.simulations=16", "total_steps=512")


def test_a_run_with_expert_iteration_logs_its_rounds_and_resumes(tmp_path):
    trainer = Trainer(tiny_config(tmp_path / "e", *EXPERT_RUN), log=False)
    stats = trainer.backend.iterate()
    assert stats["expert/decisions"] > 0 and stats["expert/positions"] == stats["expert/decisions"]
    assert 0.0 <= stats["expert/agreement"] <= 1.0
    trainer.train()
    rounds = trainer.backend.expert.played
    assert rounds == trainer.iteration  # expert.every=1: a round after every update
    steps = trainer.backend.expert.optimizer.state_dict()["state"][0]["step"]
    again = resume(tmp_path / "e", {"total_steps": 1024})
    assert again.backend.expert.played == rounds
    assert again.backend.expert.state_dict()["optimizer"]["state"][0]["step"] == steps  # its own Adam, kept
    again.train()
    assert again.backend.expert.played == again.iteration


def test_the_distillation_step_anneals_with_ppo_s_only_when_asked(tmp_path):
    steps = ("expert.lr=2e-4", "total_steps=1024")
    fixed = Trainer(tiny_config(tmp_path / "fixed", *EXPERT_RUN, *steps), log=False).backend
    annealed = Trainer(
        tiny_config(tmp_path / "ann", *EXPERT_RUN, *steps, "expert.anneal_lr=true"), log=False
    ).backend
    for backend in (fixed, annealed):
        backend.iterate()
    left = 1.0 - annealed.decisions / 1024  # the share of total_steps left when the second update starts
    assert 0 < left < 1
    for backend in (fixed, annealed):
        backend.iterate()
    assert fixed.expert.optimizer.param_groups[0]["lr"] == pytest.approx(2e-4)
    assert annealed.expert.optimizer.param_groups[0]["lr"] == pytest.approx(2e-4 * left)
    assert annealed.optimizer.param_groups[0]["lr"] == pytest.approx(annealed.config.ppo.lr * left)


def test_the_same_seed_gives_the_same_expert_run(tmp_path):
    weights = []
    for name in ("a", "b"):
        trainer = Trainer(tiny_config(tmp_path / name, *EXPERT_RUN), log=False)
        trainer.train()
        weights.append(trainer.backend.policy().state_dict())
    assert all(torch.equal(weights[0][k], weights[1][k]) for k in weights[0])


def test_rounds_are_played_on_the_rollout_workers_in_their_shares_and_streams(tmp_path):
    trainer = Trainer(tiny_config(tmp_path / "w", *EXPERT_RUN, "workers=2"), log=False)
    backend = trainer.backend
    spy = RoundSpy(backend.expert)
    try:
        stats = backend.iterate()
        workers = backend.workers()
        count = len(workers)
    finally:
        backend.close()
    assert stats["expert/decisions"] > 0
    [(policy, played_on)] = spy.calls
    assert played_on is workers and count == 2
    config = trainer.config
    expected = round_in_shares(trainer.info, policy, config.expert, 1.0, [config.seed, 3, 0], 2)
    assert_same_lessons(backend.expert.rounds[0], expected)


def _cross_entropy(net, lessons: Lessons) -> float:
    """The policy's mean cross-entropy towards the lessons' most visited actions."""
    with torch.no_grad():
        logits, _ = net.evaluate_flat(torch.from_numpy(lessons.obs[:]), torch.from_numpy(lessons.mask))
        target = torch.from_numpy(targets(lessons.target, 0))
        return float(-(target * torch.log_softmax(logits, -1)).sum(-1).mean())


def test_with_ppo_s_optimizer_the_lessons_join_the_next_update_and_move_the_policy(tmp_path):
    """expert.optimizer=ppo: no optimizer of the distillation's own; each minibatch of the update after
    a round carries a minibatch of its lessons, and weighted up they move the policy to the targets
    further than the same update without them (one round only: expert.every beyond the run)."""
    one_round = (
        *EXPERT_RUN,
        "expert.every=1000",
        "expert.optimizer=ppo",
        "expert.temperature=0",
        "ppo.lr=3e-3",
    )
    after = {}
    for coef in ("1e-9", "20"):
        backend = Trainer(tiny_config(tmp_path / coef, *one_round, f"expert.coef={coef}"), log=False).backend
        first = backend.iterate()
        assert first["expert/decisions"] > 0 and "expert/cross_entropy" not in first  # no lessons yet
        lessons = backend.expert.rounds[0]
        before = _cross_entropy(backend.net, lessons)
        for _ in range(3):
            stats = backend.iterate()
        assert stats["expert/positions"] == len(lessons) and backend.expert.played == 1
        assert backend.expert.optimizer is None
        after[coef] = _cross_entropy(backend.net, lessons)
    assert after["20"] < before and after["20"] < after["1e-9"] - 0.05, (before, after)


def test_a_lesson_term_draws_its_minibatch_from_every_kept_position():
    info = game_info(TOY, {})
    net = _net(info)
    lessons = _round(info, net, games=4)
    term = LessonTerm(lessons, ExpertConfig(games=1, minibatch=8, coef=2.0), 1.0, np.random.default_rng(0))
    loss = term(net)
    assert loss.requires_grad and term.calls == 1
    whole = LessonTerm(
        lessons, ExpertConfig(games=1, minibatch=10**6, coef=2.0), 1.0, np.random.default_rng(0)
    )
    expected, _ = lesson_loss(net, lessons, np.arange(len(lessons)), ExpertConfig(games=1), 1.0)
    assert whole(net).item() == pytest.approx(2.0 * expected.item(), rel=1e-5)
    assert whole.stats()["expert/positions"] == len(lessons)


def test_the_distillation_s_optimizer_is_checked():
    with pytest.raises(ConfigError, match="expert.optimizer must be one of"):
        ExpertConfig(optimizer="sgd").validate()
    with pytest.raises(ConfigError, match="expert.coef"):
        ExpertConfig(coef=0).validate()
