"""The most and the fewest cards Harmony can hold at the end, over every deal and every line of play.

Used to declare the game's true return bounds (`data.MOST_HARMONY`; RULES.md, "Return bounds"). Each
mode is dealt by its side of the set-up chart (`data.setup_chart`). What the search shows: a lucky
team can win every mode at every player count (the most is above 25 everywhere). Hard dealt by the
Normal side, flipping 2 a round, could not be won with 3 or 4 players (12 turns move at most 24 cards
to Harmony); dealt by the Hard side (data.HARD_SETUP_CHART) its most is 32 / 41 / 43 / 48 with 2 / 3 /
4 / 5 players, never above Normal's (32 / 47 / 48 / 49).

The search drops card identities: a table is the seat to act, the round, the timer count, the hand
sizes and the Agony and Harmony counts, and every guess may come out as the team likes (a lucky team).
A played Suggestion counts in Agony at once (it ends there; counting it early only gives an
empty-handed guesser more to move back, so the search can only overestimate the most). The most it
finds is reached by a real game (tests/expressions/test_game_type.py replays the line found on the
engine).

Moves: ("play",), ("right", target), ("wrong", target, holder or None for a timer card), ("add",).
"""

from __future__ import annotations

from functools import cache

from .data import setup_chart

Table = tuple  # (seat, turns this round, timer left, final round, hand sizes, Agony, Harmony)


def harmony_extremes(num_players: int, mode: str, most: bool = True) -> tuple[int, list[tuple]]:
    """(the most or fewest cards in Harmony at the end, one line of moves that reaches it)."""
    rules = _Rules(num_players, mode)
    best = max if most else min

    @cache
    def value(table: Table) -> int:
        return best(end if end is not None else value(nxt) for _, nxt, end in rules.moves(table))

    table, line = rules.start(), []
    while True:
        target = value(table)
        move, nxt, end = next(
            m for m in rules.moves(table) if (m[2] if m[2] is not None else value(m[1])) == target
        )
        line.append(move)
        if end is not None:
            return target, line
        table = nxt


class _Rules:
    def __init__(self, n: int, mode: str):
        self.n, self.mode = n, mode
        self.hand, self.timer = setup_chart(n, mode)
        self.flips = 2 if (n == 2 or mode == "hard") else 1
        self.hands_to_harmony = n == 2 and mode != "hard"

    def start(self) -> Table:
        return (0, 0, self.timer, False, (self.hand,) * self.n, 0, 0)

    def moves(self, table: Table):
        """(move, next table or None, final Harmony or None) for every move of the seat to act;
        non-Suggestion moves first, so a line prefers them on ties."""
        k, _, timer, _, hands, agony, harmony = table
        had = hands[k]
        targets = [t for t in range(self.n) if t != k and hands[t]]
        for t in targets:
            hs = list(hands)
            hs[t] -= 1  # right: the card goes to Harmony, then the guesser's card (or, empty, Agony's top)
            if had:
                hs[k] -= 1
                yield self._after(("right", t), table, hs, agony, harmony + 2)
            else:
                yield self._after(("right", t), table, hs, agony - bool(agony), harmony + 1 + bool(agony))
            holders = [h for h in range(self.n) if h != t and hands[h]] + ([None] if timer else [])
            for h in holders:  # wrong: the holder's card to Agony, then the guesser's (or Harmony's top)
                hs, a, hm = list(hands), agony, harmony
                if h is not None:
                    hs[h] -= 1
                    a += 1
                if hs[k]:
                    hs[k] -= 1
                    a += 1
                elif not had and hm:
                    hm -= 1
                    a += 1
                yield self._after(("wrong", t, h), table, hs, a, hm)
        if had and not targets:
            hs = list(hands)
            hs[k] -= 1
            yield self._after(("add",), table, hs, agony, harmony + 1)
        if had:
            hs = list(hands)
            hs[k] -= 1
            yield self._after(("play",), table, hs, agony + 1, harmony)

    def _after(self, move, table: Table, hands: list[int], agony: int, harmony: int):
        k, turns, timer, final, _, _, _ = table
        if not any(hands):  # no card in any hand: the timer runs into Agony, the game ends
            return move, None, harmony
        turns += 1
        if turns == self.n:
            turns = 0
            if final:
                return move, None, self._end(hands, harmony)
            flipped = min(self.flips, timer)
            timer, agony = timer - flipped, agony + flipped
            if not timer:
                if self.mode != "easy":
                    return move, None, self._end(hands, harmony)
                final = True
        return move, ((k + 1) % self.n, turns, timer, final, tuple(hands), agony, harmony), None

    def _end(self, hands: list[int], harmony: int) -> int:
        return harmony + sum(hands) if self.hands_to_harmony else harmony
