"""Copies for search: clone() copies the state and shares the fixed definition; resample_hidden() draws
consistent deals (a random deal, then a constraint-keeping swap chain; an exhaustive search if random
tries fail)."""

from __future__ import annotations

import copy
import itertools
from collections import Counter

import numpy as np
import pytest

from envs.core import Layout
from envs.core.flow import TurnFlow
from envs.core.observer import Observer
from envs.expressions.rules import Expressions, any_deal, hand_facts, mix_deal, random_deal
from envs.expressions_v0 import SPEC

from .test_information import random_states
from .test_rules import deal, guess, play

# what play changes, copied by clone (the rest of the state: immutable values and read-only arrays)
COPIED = {
    "hands",
    "ruled_out",
    "timer",
    "harmony",
    "agony",
    "suggestions",
    "flow",
    "rng",
    "_src",
    "_can_name",
}


def fields(game: Expressions) -> dict:
    """Every field of the game, deep-copied (the rng as its state; layouts, which are built once per
    player count and shared by every game, as themselves; so is the observer), to compare before and
    after; not the list of state names a clone keeps with the game (`_copied`, a cache)."""
    out = {
        k: v if isinstance(v, Layout | Observer) else copy.deepcopy(v)
        for k, v in game.__dict__.items()
        if k not in ("rng", "_copied")
    }
    out["rng"] = game.rng.bit_generator.state
    return out


def assert_same_fields(a: dict, b: dict) -> None:
    assert a.keys() == b.keys()
    for key in a:
        x, y = a[key], b[key]
        if isinstance(x, np.ndarray) or x is None or isinstance(y, np.ndarray):
            assert (x is None) == (y is None) and (x is None or np.array_equal(x, y)), key
        elif isinstance(x, Layout):
            assert x is y, key
        elif isinstance(x, TurnFlow):  # the same frames, waiting in the same order
            assert x.frames == y.frames, key
        else:
            assert x == y, key


def play_out(game: Expressions, rng: np.random.Generator) -> None:
    while not game.is_terminal():
        legal = game.legal_actions()
        game.apply_action(int(legal[rng.integers(len(legal))]))


def test_clone_copies_the_mutable_state_and_shares_the_fixed_definition():
    game = next(random_states({"num_players": 4}, games=1, seed=2, share=0.5))
    game.legal_action_mask()  # a cached mask travels too
    twin = game.clone()
    assert twin.__dict__.keys() == game.__dict__.keys()
    caches = {"_copied"}  # the base class's count of the state names, the copy's own
    assert {
        key for key, value in game.__dict__.items() if twin.__dict__[key] is not value and key not in caches
    } == COPIED
    for key in game._fixed:  # layouts, observer, offsets, config, numbers: one object for every copy
        assert twin.__dict__[key] is game.__dict__[key], f"{key} is part of the fixed definition: shared"
    assert_same_fields(fields(twin), fields(game))
    assert twin.observation_layout is game.observation_layout and twin._observer is game._observer
    assert not game.legal_action_mask().flags.writeable
    facts = [hand_facts(hand) for hand in game.hands]  # memoized for every game: read-only
    assert all(not array.flags.writeable for hand in facts for array in hand), (
        "shared hand facts are read-only"
    )


@pytest.mark.parametrize("config", SPEC.test_configs, ids=str)
def test_acting_on_a_clone_leaves_the_original_unchanged_and_back(config):
    rng = np.random.default_rng(4)
    for original in random_states(config, games=4, seed=9, share=0.3):
        before = fields(original)
        twin = original.clone()
        assert_same_fields(fields(twin), before)  # an exact copy, rng state included
        play_out(twin, rng)
        twin.rng.random(3)
        assert_same_fields(fields(original), before)
        after_twin = fields(twin)
        play_out(original, rng)
        original.rng.random(3)
        assert_same_fields(fields(twin), after_twin)


def test_a_clone_dealt_again_leaves_the_original_unchanged():
    game = deal(["red 1, red 2, green 5", "green 8, blue 1", "yellow 4, blue 4"], first=0)
    play(game, "green 5", 0)
    before = fields(game)
    twin = game.clone()
    twin.set_deal([[0], [1], [2]], list(range(3, 50)))  # set-up draws from the clone's own rng
    assert_same_fields(fields(game), before)


# ----- the swap chain keeps the uniform distribution over consistent deals --------------------------
def consistent_deals(hidden: list[int], owners: list) -> list[tuple[int, ...]]:
    """Every deal of `hidden` to the owners that the constraints allow, by enumeration."""
    out = []
    for order in itertools.permutations(hidden):
        deal_, start = [], 0
        for count, _, _ in owners:
            deal_.append(sum(1 << c for c in order[start : start + count]))
            start += count
        if all(
            not bits & ruled and all(bits & r for r in reqs) for bits, (_, ruled, reqs) in zip(deal_, owners)
        ):
            out.append(tuple(deal_))
    return sorted(set(out))


def test_swap_chain_reaches_every_consistent_deal_equally_often():
    # owners of unequal sizes: seat A holds 1 card, one of cards 1, 2, 4, not card 0; seat B holds 2,
    # not card 3, one of cards 0, 5; the timer the other 4
    owners = [(1, 1 << 0, (0b10110,)), (2, 1 << 3, (0b100001,)), (4, 0, ())]
    hidden = list(range(7))
    every = consistent_deals(hidden, owners)
    start = list(every[0])
    rng = np.random.default_rng(0)
    samples = 6000
    counts = Counter(tuple(mix_deal(start, owners, rng, sweeps=10)) for _ in range(samples))
    assert set(counts) == set(every), "the chain reaches every consistent deal and nothing else"
    expected = samples / len(every)
    assert all(abs(k - expected) < 5 * expected**0.5 for k in counts.values()), (len(every), counts)


def test_random_deal_is_consistent_or_gives_up():
    owners = [(2, 0, ()), (2, ~0b11 & 0b111111, ()), (2, 0, ())]  # seat B may hold only cards 0 and 1
    rng = np.random.default_rng(1)
    dealt = [random_deal(0b111111, owners, rng, tries=30) for _ in range(50)]
    assert all(d is not None and d[1] == 0b11 and sum(d) == 0b111111 for d in dealt)
    assert any(random_deal(0b111111, owners, np.random.default_rng(s), tries=1) is None for s in range(20))


def test_exhaustive_deal_backtracks_its_witnesses_and_rematches_cards():
    # seat A holds 1 card of {1, 2}; seat B holds 1 card, and must hold card 1: A must take card 2
    owners = [(1, ~0b110 & 0b1111, (0b110,)), (1, 0, (0b10,)), (2, 0, ())]
    assert any_deal(0b1111, owners) == [0b100, 0b10, 0b1001]
    # no requirement, but seat B may hold only card 1: the matching moves seat A to card 2
    owners = [(1, ~0b110 & 0b1111, ()), (1, ~0b10 & 0b1111, ()), (2, 0, ())]
    assert any_deal(0b1111, owners) == [0b100, 0b10, 0b1001]


def test_resample_without_random_tries_still_fits_and_reads_only_public_facts(monkeypatch):
    monkeypatch.setattr(Expressions, "DEAL_TRIES", 0)  # every deal from the exhaustive search
    rng = np.random.default_rng(3)
    for config in ({"num_players": 2}, {"num_players": 4}, {"num_players": 5, "mode": "hard"}):
        for state in random_states(config, games=3, seed=5, share=0.3):
            for p in range(state.num_players):
                twin = state.resample_hidden(p, rng)  # a table p cannot tell from the real one
                seed = int(rng.integers(2**31))
                a = state.resample_hidden(p, np.random.default_rng(seed))
                b = twin.resample_hidden(p, np.random.default_rng(seed))
                a.check_invariants()
                assert np.array_equal(a.observation(p), state.observation(p))
                assert a.hands == b.hands and a.timer == b.timer


def test_wrong_guess_of_a_timer_card_holds_in_the_exhaustive_search_too(monkeypatch):
    monkeypatch.setattr(Expressions, "DEAL_TRIES", 0)
    game = deal(["red 1, red 2, green 5", "green 8, blue 1, yellow 6", "green 10, yellow 4, blue 4"], first=0)
    guess(game, 1, "purple 3")  # nobody holds purple 3: it is in the Timer Stack
    sample = game.resample_hidden(2, np.random.default_rng(0))
    assert 3 * 10 + 2 not in {c for p in range(3) for c in range(50) if sample.hands[p] >> c & 1}
    assert 32 in sample.timer
