"""An observation tells its seat what it is deciding: the same observation of the acting seat always
comes with the same legal actions, on every game and configuration, in random and scripted games.

A seat that cannot tell two decisions apart (the Firefighter's line and the tile that follows it)
gets contradictory targets, and OpenSpiel's ISMCTS, which keys its nodes by the observation, finds
an action it never saw in a node (tests/openspiel/test_ismcts_games.py)."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

import numpy as np

from envs.core import GameType, Layout

from .helpers import TwoSeatToy

# Per configuration, whole games until each budget of decisions is played: uniformly random play, then
# the game's scripted players (they steal Marks and use every item, which random play rarely does).
# Before the fix (Exposed's Firefighter and Nurse steps), these budgets found 17-36 such decisions in
# every Exposed configuration in the scripted games, 0-1 in the random ones; about 26 s on one core.
RANDOM_DECISIONS = 5_000
SCRIPTED_DECISIONS = 2_500
SHOWN = 3  # collisions printed in full in a failure


@dataclass
class Position:
    """Where a decision was seen: the game (its seed and the actions played) and the step."""

    seed: int
    actions: list[int]
    step: int


def observation_key(observation: np.ndarray) -> bytes:
    return hashlib.blake2b(np.ascontiguousarray(observation).tobytes(), digest_size=16).digest()


class MaskBook:
    """The legal mask first seen with each observation of the acting seat, and every later position
    whose observation is the same but whose mask differs."""

    def __init__(self):
        self.first: dict[bytes, tuple[bytes, Position]] = {}
        self.collisions: list[tuple[Position, Position]] = []

    def record(self, game, position: Position) -> None:
        player = game.current_player()
        mask = np.packbits(game.legal_action_mask()).tobytes()
        seen = self.first.setdefault(observation_key(game.observation(player)), (mask, position))
        if seen[0] != mask:
            self.collisions.append((seen[1], position))


def play(new_game, seed: int, choose, book: MaskBook) -> int:
    """One game from `new_game(seed)` to its end (or truncation), `choose(game)` picking each action;
    every decision recorded in `book`. Returns the number of decisions."""
    game = new_game(seed)
    actions: list[int] = []
    while not (game.is_terminal() or game.is_truncated()):
        book.record(game, Position(seed, actions, len(actions)))
        actions.append(int(choose(game)))
        game.apply_action(actions[-1])
    return len(actions)


def play_until(decisions: int, new_game, first_seed: int, chooser, book: MaskBook) -> None:
    """Whole games (seeds from `first_seed` on, `chooser(seed)` choosing) until `decisions` are played."""
    seed, played = first_seed, 0
    while played < decisions:
        played += play(new_game, seed, chooser(seed), book)
        seed += 1


def replayed(new_game, position: Position):
    game = new_game(position.seed)
    for action in position.actions[: position.step]:
        game.apply_action(action)
    return game


def describe(new_game, first: Position, second: Position) -> str:
    """Both positions as the acting seat sees them, and the actions legal in one of them only."""
    a, b = replayed(new_game, first), replayed(new_game, second)
    mask_a, mask_b = a.legal_action_mask(), b.legal_action_mask()
    only_a = [a.action_to_string(int(x)) for x in np.flatnonzero(mask_a & ~mask_b)]
    only_b = [b.action_to_string(int(x)) for x in np.flatnonzero(mask_b & ~mask_a)]
    lines = []
    for name, game, position, only in (("A", a, first, only_a), ("B", b, second, only_b)):
        seat = game.current_player()
        lines += [
            f"--- position {name}: game seed {position.seed}, decision {position.step}, seat {seat}",
            game.to_string(seat),
            f"legal in {name} only ({len(only)}): {only[:8]}{' ...' if len(only) > 8 else ''}",
        ]
    return "\n".join(lines)


def collision_report(new_game, book: MaskBook, where: str) -> str:
    shown = [describe(new_game, *pair) for pair in book.collisions[:SHOWN]]
    return (
        f"{where}: {len(book.collisions)} decisions whose acting seat's observation was seen before with "
        f"other legal actions (the observation does not say what is being decided):\n" + "\n\n".join(shown)
    )


def random_chooser(seed: int):
    rng = np.random.default_rng(seed)
    return lambda game: rng.choice(np.flatnonzero(game.legal_action_mask()))


def scripted_chooser(spec, cfg, num_players: int):
    policies = [spec.scripted_policy(spec.config(**cfg), seat) for seat in range(num_players)]

    def choose(game):
        p = game.current_player()
        return policies[p](game.observation(p), game.legal_action_mask())

    return choose


def test_the_same_observation_comes_with_the_same_legal_actions(case):
    spec, _, cfg = case

    def new_game(seed):
        return spec.new_game(np.random.default_rng(seed), **cfg)

    book = MaskBook()
    play_until(RANDOM_DECISIONS, new_game, 10_000, random_chooser, book)
    if spec.scripted_policy is not None:
        num_players = new_game(0).num_players
        play_until(
            SCRIPTED_DECISIONS, new_game, 20_000, lambda seed: scripted_chooser(spec, cfg, num_players), book
        )
    assert not book.collisions, collision_report(new_game, book, f"{spec.name} {cfg}")


@dataclass(frozen=True)
class SubStepConfig:
    num_players: int = 2
    show_step: bool = False  # whether the observation shows the decision's step


class HiddenSubStep(TwoSeatToy):
    """A toy whose decisions have two steps (choose, then confirm: only action 0), observing the
    moves made and, with `show_step`, the step: without it, the same observation, two masks."""

    name = "sub_step"
    config_class = SubStepConfig

    def __init__(self, config=None, rng=None, **options):
        super().__init__(config, rng, **options)
        self.observation_layout = self.state_layout = Layout(
            [("moves", (1,), "moves made", 0, 4), ("confirming", (1,), "1 while confirming", 0, 1)]
        )
        self.confirming = False

    def _legal_mask(self):
        return np.array([True, not self.confirming])

    def _apply(self, action):
        self.confirming = not self.confirming
        self.moves += not self.confirming

    def current_player(self):
        return -1 if self.is_terminal() else self.moves % 2

    def is_terminal(self):
        return self.moves >= 4

    def returns(self):
        return np.zeros(2)

    def game_type(self):
        return GameType("zero_sum", "none", 0.0, 0.0, 100)

    def observation(self, player):
        return np.array([self.moves, self.confirming and self.config.show_step], dtype=np.float32)


def toy_collisions(show_step: bool) -> tuple[MaskBook, str]:
    def new_game(seed):
        return HiddenSubStep(SubStepConfig(show_step=show_step), np.random.default_rng(seed))

    book = MaskBook()
    for seed in range(5):
        play(new_game, seed, random_chooser(seed), book)
    return book, collision_report(new_game, book, "sub_step")


def test_the_check_finds_a_hidden_sub_step_and_names_both_positions():
    book, report = toy_collisions(show_step=False)
    assert book.collisions
    assert "position A" in report and "position B" in report
    assert "legal in A only (1): ['1']" in report or "legal in B only (1): ['1']" in report


def test_the_check_passes_once_the_observation_shows_the_step():
    book, _ = toy_collisions(show_step=True)
    assert not book.collisions
