"""The search agent (envs.core.search): it decides from its seat's information alone, on every game;
it finds the winning move where one exists; its budget and errors."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

from envs.core.search import Search, SearchBudget, halving_schedule, unguided_search
from tests.training.toy_game import SPEC as NIM

from .helpers import random_playthrough


def quick_search(seed: int = 3, **kw) -> Search:
    """A small budget with short rollouts: enough to test behaviour on the big games quickly."""
    return Search(SearchBudget(simulations=10), max_rollout=12, seed=seed, **kw)


def test_search_decides_from_the_seats_information_alone(case):
    """Two games that differ only in what the searching seat cannot know, same seed: same action."""
    spec, _, cfg = case
    rng = np.random.default_rng(5)
    game = spec.new_game(np.random.default_rng(21), **cfg)
    checked = steps = 0
    while checked < 3 and not game.is_terminal() and steps < 400:
        if game.legal_action_mask().sum() > 1:
            p = game.current_player()
            twin = game.resample_hidden(p, rng)
            a, b = quick_search(), quick_search()
            assert a.act(game, p) == b.act(twin, p)
            assert a.last_visits == b.last_visits  # the whole search, not only its choice
            checked += 1
        legal = np.flatnonzero(game.legal_action_mask())
        game.apply_action(int(legal[rng.integers(len(legal))]))
        steps += 1
    assert checked > 0


def test_the_unguided_search_travels_by_value_and_plays_as_the_original(case):
    """Evaluation workers receive their players pickled: a game's unguided search (its scripted
    rollouts, and for a team its teammates' model) must survive that and choose as it would have."""
    spec, _, cfg = case
    game = spec.new_game(np.random.default_rng(6), **cfg)
    budget = SearchBudget(simulations=6)
    original = unguided_search(spec, game.config, budget=budget, seed=2)
    copy = pickle.loads(pickle.dumps(unguided_search(spec, game.config, budget=budget, seed=2)))
    rng, checked = np.random.default_rng(1), 0
    while checked < 3 and not (game.is_terminal() or game.is_truncated()):
        seat = game.current_player()
        if game.legal_action_mask().sum() > 1:
            assert copy.act(game, seat) == original.act(game, seat)
            checked += 1
        legal = np.flatnonzero(game.legal_action_mask())
        game.apply_action(int(legal[rng.integers(len(legal))]))
    assert checked > 0


def test_search_leaves_the_game_unchanged(case):
    spec, _, cfg = case
    game = spec.new_game(np.random.default_rng(4), **cfg)
    before = (game.state_tensor().tobytes(), game.num_decisions, game.current_player())
    quick_search().act(game, game.current_player())
    assert (game.state_tensor().tobytes(), game.num_decisions, game.current_player()) == before


def nim_at(pile: int, first: int = 0):
    game = NIM.new_game(np.random.default_rng(0))
    game.pile, game.player, game.starter = pile, first, first
    return game


@pytest.mark.parametrize("pile", [5, 6, 7, 9, 10, 11])
def test_unguided_search_finds_the_winning_nim_move(pile):
    """Two-player Nim taking 1..3: the only winning move leaves a multiple of 4 stones."""
    game = nim_at(pile)
    action = Search(SearchBudget(simulations=600), seed=1).act(game, 0)
    assert (pile - (action + 1)) % 4 == 0


def test_guided_search_follows_a_confident_prior_and_its_values():
    """With a value that says every position is even, only the prior separates the moves: PUCT
    spends its visits on the move the prior favours."""
    game = nim_at(11)

    def prior(g, player):
        p = np.full(g.num_actions, 0.05)
        p[0] = 0.9
        return p

    search = Search(
        SearchBudget(simulations=50), prior=prior, value=lambda g, viewer: np.zeros(g.num_players)
    )
    assert search.act(game, 0) == 0
    # with a flat prior, a value that knows Nim finds the winning move (take 3 from 11)

    uniform = np.full(game.num_actions, 1 / game.num_actions)
    search = Search(SearchBudget(simulations=100), prior=lambda g, p: uniform, value=nim_value)
    assert search.act(game, 0) == 2


def nim_value(g, viewer):
    """Nim's exact value: the player to move loses from a multiple of 4 stones."""
    to_move_loses = g.pile % 4 == 0
    v = np.full(g.num_players, -1.0 if to_move_loses else 1.0)
    v[1 - g.player] = -v[g.player]
    return v


@pytest.mark.parametrize("pile", [9, 10, 11])
def test_a_batched_search_evaluates_its_leaves_together_and_still_finds_the_nim_move(pile):
    """batch=8: every `leaves` call holds at most 8 leaves, one call per 8 simulations (a batch of walks
    that all ended the game needs none), the leaves' priors come from those calls (the prior alone is
    asked for the root only: a walk that reaches a leaf of its batch stops there), and the search still
    finds the winning move with a flat prior."""
    game = nim_at(pile)
    uniform = np.full(game.num_actions, 1 / game.num_actions)
    single, calls = [], []

    def prior(g, player):
        single.append(g.pile)
        return uniform

    def leaves(states, players, viewer):
        calls.append(len(states))
        assert viewer == 0 and all(p in (-1, s.current_player()) for s, p in zip(states, players))
        return [uniform] * len(states), [nim_value(s, viewer) for s in states]

    search = Search(
        SearchBudget(simulations=96), prior=prior, value=nim_value, batch=8, leaves=leaves, seed=2
    )
    assert (pile - (search.act(game, 0) + 1)) % 4 == 0
    assert search.simulations == 96 and sum(search.last_visits.values()) == 96
    assert 0 < len(calls) <= 12 and max(calls) <= 8
    assert single == [pile]  # one at a time, about one prior per walk that revisits a node


def test_a_batched_search_counts_walks_not_leaves_and_walks_apart():
    """The virtual loss: the walks of one batch go to different children of the root while there are
    untried ones (each counts its visit before the next walk starts), and a budget that is not a
    multiple of the batch is kept exactly."""
    game = nim_at(11)
    uniform = np.full(game.num_actions, 1 / game.num_actions)
    even = lambda g, viewer: np.zeros(g.num_players)  # noqa: E731 - every position even
    search = Search(SearchBudget(simulations=3), prior=lambda g, p: uniform, value=even, batch=3)
    search.act(game, 0)
    assert search.last_visits == {0: 1, 1: 1, 2: 1}
    search = Search(SearchBudget(simulations=10), prior=lambda g, p: uniform, value=even, batch=4)
    search.act(game, 0)
    assert search.simulations == 10 and sum(search.last_visits.values()) == 10
    with pytest.raises(ValueError, match="batch .* at least 1"):
        Search(batch=0)


@pytest.mark.parametrize("root", ["puct", "gumbel"])
def test_a_batched_guided_search_decides_from_the_seats_information_alone(case, root):
    """The leaf evaluations of a batch are asked from the searching seat's own information too (and a
    Gumbel root's prior and value): two games that differ only in what it cannot know give the same
    search, visit for visit."""
    spec, _, cfg = case
    rng = np.random.default_rng(6)
    game = spec.new_game(np.random.default_rng(22), **cfg)
    flat = lambda g, p: np.full(g.num_actions, 1.0 / g.num_actions)  # noqa: E731
    seen = lambda g, viewer: np.full(g.num_players, float(g.observation(viewer).sum()))  # noqa: E731
    checked = steps = 0
    while checked < 2 and not game.is_terminal() and steps < 400:
        if game.legal_action_mask().sum() > 1:
            p = game.current_player()
            a, b = (
                Search(SearchBudget(simulations=12), prior=flat, value=seen, batch=4, seed=1, root=root)
                for _ in "ab"
            )
            assert a.act(game, p) == b.act(game.resample_hidden(p, rng), p)
            assert a.last_visits == b.last_visits
            checked += 1
        legal = np.flatnonzero(game.legal_action_mask())
        game.apply_action(int(legal[rng.integers(len(legal))]))
        steps += 1
    assert checked > 0


def test_others_play_a_known_policy_inside_the_tree():
    """Cooperative 3-player Nim (the team wins when the starter, seat 0, takes the last stone). If the
    teammates are known to take 2 stones whenever they can, from 6 only taking 1 wins (6 -> 5 -> 3 -> 1
    -> seat 0 takes it); taking 2 or 3 lets seat 2 take the last. Searched like oneself instead, the
    teammates could make any first move win."""
    game = NIM.new_game(np.random.default_rng(0), num_players=3, cooperative=True)
    game.pile, game.player, game.starter = 6, 0, 0
    take_two = lambda g, p, rng: min(1, g.pile - 1)  # noqa: E731 - action 1 = take 2 stones
    for seed in range(3):
        assert Search(SearchBudget(simulations=200), others=take_two, seed=seed).act(game, 0) == 0


def test_search_budget_and_errors():
    with pytest.raises(ValueError, match="simulations or seconds"):
        SearchBudget(simulations=None, seconds=None)
    with pytest.raises(ValueError, match="at least 1"):
        SearchBudget(simulations=0)
    with pytest.raises(ValueError, match="positive"):
        SearchBudget(simulations=None, seconds=-1.0)
    game = nim_at(7)
    with pytest.raises(ValueError, match="seat 1 asked to move on seat 0"):
        Search().act(game, 1)


def test_a_seconds_budget_stops_the_search():
    game = nim_at(11)
    search = Search(SearchBudget(simulations=None, seconds=0.02), seed=0)
    search.act(game, 0)
    assert search.simulations >= 1 and search.seconds < 2.0


def test_same_seed_same_decisions():
    spec_games = []
    for _ in range(2):
        game = nim_at(11)
        search = Search(SearchBudget(simulations=40), seed=9)
        moves = []
        while not game.is_terminal():
            a = search.act(game, game.current_player())
            moves.append(a)
            game.apply_action(a)
        spec_games.append(moves)
    assert spec_games[0] == spec_games[1]


def test_search_plays_a_whole_game_of_each_kind(case):
    """Every decision of a game taken by a (tiny) search is legal and the game ends."""
    spec, _, cfg = case
    game = spec.new_game(np.random.default_rng(8), **cfg)
    search = Search(SearchBudget(simulations=2), max_rollout=3, seed=0)
    rng = np.random.default_rng(0)
    decisions = 0
    while not (game.is_terminal() or game.is_truncated()) and decisions < 30:
        game.apply_action(search.act(game, game.current_player()))  # raises if illegal
        decisions += 1
    random_playthrough(game, rng)


def test_a_default_policy_is_opened_first_and_improved_on():
    """With one simulation the search plays the default policy's action; with a budget it widens past
    a poor default (always take 1) to the winning Nim move."""
    take_one = lambda g, p, rng: 0  # noqa: E731
    game = nim_at(11)
    assert Search(SearchBudget(simulations=1), default=take_one, seed=0).act(game, 0) == 0
    search = Search(SearchBudget(simulations=1000), default=take_one, seed=0)
    assert search.act(game, 0) == 2
    assert len(search.last_visits) == 3  # widened to every move


def test_widening_opens_actions_one_square_at_a_time():
    """A node visited n times considers 1 + sqrt(n) actions: with 3 simulations at the root only the
    default's action and one other are tried."""
    game = nim_at(11)
    search = Search(SearchBudget(simulations=3), default=lambda g, p, rng: 1, seed=0)
    search.act(game, 0)
    assert set(search.last_visits) <= {1, 0, 2} and len(search.last_visits) == 2
    assert 1 in search.last_visits


def test_sequential_halving_shares_the_budget_in_rounds_that_halve_the_actions():
    """ceil(log2 m) rounds of m, m/2, ... actions (never below two), each action of a round visited
    simulations // (rounds x actions) times; rounds go on until the budget is spent."""
    assert halving_schedule(16, 4) == [(4, 2), (2, 4)]
    schedule = halving_schedule(100, 16)
    assert [k for k, _ in schedule[:4]] == [16, 8, 4, 2] and schedule[0] == (16, 1)
    planned = [k * each for k, each in schedule]
    assert sum(planned) >= 100 and sum(planned[:-1]) < 100
    assert halving_schedule(5, 1) == [(1, 5)]


def misleading_prior(g, player):
    """Nim from 11: the prior favours taking 1 (leaves 10, a loss); taking 3 (action 2) wins."""
    p = np.full(g.num_actions, 0.1)
    p[0] = 0.8
    return p


def test_a_gumbel_root_finds_the_winning_move_a_misleading_prior_hides_from_puct():
    """A budget of one simulation per action, an exact value: PUCT spends it on the prior's favourite
    and plays it; the Gumbel root visits every sampled action once and plays the one whose value is
    best (its Gumbel noise on the prior can outweigh that only rarely: at least 18 seeds of 20). (With
    more simulations the tree below the root, where the prior misleads the opponent too, blurs both.)"""
    game = nim_at(11)
    budget = SearchBudget(simulations=3)
    puct = [Search(budget, prior=misleading_prior, value=nim_value, seed=s).act(game, 0) for s in range(20)]
    gumbel = [
        Search(budget, prior=misleading_prior, value=nim_value, seed=s, root="gumbel").act(game, 0)
        for s in range(20)
    ]
    assert puct.count(2) == 0
    assert gumbel.count(2) >= 18
    # without the noise (gumbel_scale=0, an agent playing to win) the best action by prior and value
    greedy = Search(budget, prior=misleading_prior, value=nim_value, root="gumbel", gumbel_scale=0.0)
    assert [greedy.act(game, 0) for _ in range(5)] == [2] * 5


@pytest.mark.parametrize("batch", [1, 4])
def test_a_gumbel_root_visits_the_actions_sequential_halving_keeps(batch):
    """Nim taking 1..8 with a flat prior and every position even: 4 actions sampled, 16 simulations,
    2 visits each in the first round, then the better two (by noise alone here) 4 more each; the
    choice is one of those two. Batched walks keep the same shares."""
    game = NIM.new_game(np.random.default_rng(0), max_take=8, pile=20)
    flat = lambda g, p: np.full(g.num_actions, 1 / g.num_actions)  # noqa: E731
    even = lambda g, viewer: np.zeros(g.num_players)  # noqa: E731
    search = Search(
        SearchBudget(simulations=16), prior=flat, value=even, seed=5, root="gumbel", considered=4, batch=batch
    )
    action = search.act(game, game.current_player())
    assert sorted(search.last_visits.values()) == [2, 2, 6, 6]
    assert search.last_visits[action] == 6 and search.simulations == 16


def test_a_gumbel_root_needs_a_guide_and_a_number_of_simulations():
    flat = lambda g, p: np.full(g.num_actions, 1 / g.num_actions)  # noqa: E731
    even = lambda g, viewer: np.zeros(g.num_players)  # noqa: E731
    with pytest.raises(ValueError, match="root must be one of"):
        Search(prior=flat, value=even, root="ucb")
    with pytest.raises(ValueError, match="needs a guided search"):
        Search(root="gumbel")
    with pytest.raises(ValueError, match="simulations only"):
        Search(SearchBudget(simulations=None, seconds=0.1), prior=flat, value=even, root="gumbel")
    with pytest.raises(ValueError, match="considered .* at least 1"):
        Search(prior=flat, value=even, root="gumbel", considered=0)
    with pytest.raises(ValueError, match="gumbel_scale must be a number of at least 0"):
        Search(prior=flat, value=even, root="gumbel", gumbel_scale=-1.0)
