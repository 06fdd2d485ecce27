"""Exposed: a game's state as a value (a mixin of `rules.Exposed`: every method is still
`Exposed._name`).

No rule is played here. Everything an Exposed game holds beside its definition (definition.py) is its
state: `clone` copies it by the type of each value, `to_dict` writes it as a position (RULES.md,
"Positions"). `DERIVED` names the caches the rest of the state determines: a position leaves them out
and `_derive` makes them again, exactly. `NOT_COPIED` names the views of the packed flags (a copy
binds them to its own `_flags`: `_after_copy`) and the observation's scratch buffers (made again on
first use). The packed flags themselves are state: they hold the public record of each player's latest
turn, found nowhere else; their other tables (who was shown whose card, the Marks, the discards) must
agree with the lists they mirror.

`check_position` refuses, with a PositionError naming the rule, a state the rules cannot reach: a
value of the wrong kind or out of range, a card in two places or in none, a negative count, fewer
Wallets than the set-up laid out, flags that disagree with the lists, a kept item whose card was never
used, a turn flow that is not a turn (a decision of the wrong seat, a kind that does not match its
rules, arguments out of range), a game that should have ended or ended with other winners.
"""

from __future__ import annotations

from collections import Counter

import numpy as np

from envs.core import PositionError
from envs.core.flow import Decide, Do
from envs.core.position import check_ints, is_int

from .actions import ActionRules
from .data import COPS_MAX, GUESTS, ITEM_CHOICES, ITEM_GUEST, MOST_REPEATS
from .decisions import ACTION, DECISION_NAMES, DENTIST, MOVE1, MOVE2, OFFER, PICK, PILOT, SNITCH_FLIP
from .definition import FLAG_TABLES
from .hidden import HiddenRules
from .items import _STEP_PLANS, ItemRules, ItemStep
from .movement import MovementRules

_SCRATCH = ("_obs_src", "_obs_cache")  # the observation's buffers: a copy makes its own on first use

# each decision kind: its mask, the rule carrying the choice out, and what its arguments after the
# deciding seat are
DECISIONS = {
    ACTION: (ActionRules._action_mask, ActionRules._action, ()),
    MOVE1: (MovementRules._first_swap_mask, MovementRules._first_swap, ("optional",)),
    MOVE2: (MovementRules._swaps_mask, MovementRules._second_swap, ("edge",)),
    SNITCH_FLIP: (ActionRules._snitch_flip_mask, ActionRules._snitch_flip, ()),
    OFFER: (ActionRules._offer_mask, ActionRules._offer, ("stolen",)),
    PICK: (ItemRules._item_step_mask, ItemRules._item_step_chosen, ("step",)),
    DENTIST: (HiddenRules._dentist_mask, HiddenRules._dentist_told, ("asker",)),
    PILOT: (MovementRules._pilot_mask, MovementRules._pilot_swap, ("pilot",)),
}
# the rules' own steps an action leaves on the flow (above the turn's clean-up): their arguments
STEPS = {
    ActionRules._discard_stolen: ("stolen",),
    ItemRules._server_take: ("user", "seat"),
    ItemRules._item_captain: ("user", "captain"),
}
# what may wait above the ACTION decision, by kind, before the action: the Soldier's free Move (its
# first or its second swap) and the Pilot's swap, pushed under it
BEFORE_THE_ACTION = ((), (MOVE1,), (PILOT,), (MOVE1, PILOT), (MOVE2,))


def _names(guests) -> str:
    return ", ".join(GUESTS[g].name for g in guests) or "none"


class PositionRules:
    """The state as a value: derived caches, copies' views, the checks of a loaded position."""

    # caches the rest of the state determines (left out of a position, made again by `_derive`)
    DERIVED = frozenset(
        (
            "cell_of_guest",  # the inverse of guest_on
            "holder_of",  # the inverse of ident
            "player_exposed",  # whether each player's Guest tile is exposed
            "n_unexposed",
            "dentist_candidates",  # what the Dentist answers (dentist_records) allow
            "created",  # Wallets made beyond the set-up's: everything on the table less those
            "kept_any",  # whether any item is kept (fast paths)
            "items_any",  # whether any latest turn targeted a player or used an item (fast paths)
            "_stamp",  # the knowledge stamp of the observation cache (a new game's starts at 0)
            "_undoable",  # `_undoable_swaps` of the last position it was computed in
        )
    )
    # views of `_flags`, bound again to a copy's own (`_after_copy`); observation buffers, made on use
    NOT_COPIED = frozenset((*FLAG_TABLES, *_SCRATCH))

    def _bind_flags(self) -> None:
        flags = self._flags
        d = self.__dict__
        for name, part, shape in self._flag_views:  # (a copy pays this: slices and shapes made once)
            d[name] = flags[part] if shape is None else flags[part].reshape(shape)

    def _after_copy(self) -> None:
        self._bind_flags()  # (over the original's views: nothing to drop first)
        state = self.__dict__
        for name in _SCRATCH:
            state.pop(name, None)

    def __getstate__(self) -> dict:
        return {k: v for k, v in self.__dict__.items() if k not in self.NOT_COPIED}

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._after_copy()

    def _derive(self) -> None:
        """The DERIVED caches made again from the rest of a loaded state (checked first: they are
        made only from values of the right kind and range)."""
        self._bind_flags()
        self._check_values()
        n, t = self.num_players, self.num_tiles
        self.cell_of_guest[self.guest_on] = self._arange_t
        holder = [-1] * t
        for q, g in enumerate(self.ident):
            holder[g] = q
        self.holder_of = tuple(holder)
        self.player_exposed = tuple(self.tile_exposed[self.cell_of_guest[self.ident]].tolist())
        self.n_unexposed = n - sum(self.player_exposed)
        self._dentist_allowed()
        self.created = self._wallets_now() - self.initial_wallets
        self.kept.flags.writeable = False  # (replaced whole when it changes: `_keep`)
        self.kept_any = bool(self.kept.any())
        self.items_any = bool(self.last_seats.any() or self.last_items.any())
        self._stamp = 0
        self._undoable = (None, [])
        for name in _SCRATCH:
            self.__dict__.pop(name, None)

    def _wallets_now(self) -> int:
        return int(self.wallets_on.sum()) + sum(self.stash) + self.lost_found

    def check_position(self) -> None:
        """Refuse (PositionError naming the rule) a state the rules cannot reach (the module's
        docstring); then the invariants and a decision waiting while the game goes on."""
        self._check_values()
        self._check_records()
        self._check_flow()
        self._check_end_state()
        super().check_position()

    # ================================================================ each value, alone
    def _check_values(self) -> None:
        """Each state value of the right kind and within its range, the cards each in one place."""
        n, t = self.num_players, self.num_tiles
        if self.rng is not None:
            raise PositionError(
                "Exposed draws all its chance at set-up and keeps no generator: rng must be null"
            )
        if self.num_decisions < 0 or not 0 <= self.turn < n:
            raise PositionError(
                f"num_decisions ({self.num_decisions}) is never negative; turn ({self.turn}) is a seat"
            )
        if not np.array_equal(np.sort(self.guest_on), self._arange_t):
            raise PositionError(f"guest_on must place each of the {t} Guests on one cell")
        for name in ("ident", "deck", "marks", "stolen", "discard"):
            check_ints(name, getattr(self, name), 0, t - 1, n if name == "ident" else None)
        cards = Counter([*self.ident, *self.deck, *self.marks, *self.stolen, *self.discard])
        twice = sorted(g for g, k in cards.items() if k > 1)
        missing = sorted(set(range(t)) - cards.keys())
        if twice or missing:
            raise PositionError(
                "every Identity card is in exactly one place (a hand, the deck, the Marks, stolen, the "
                f"discard pile): in two places {_names(twice)}; in none {_names(missing)}"
            )
        if len(self.marks) > self.num_marks:
            raise PositionError(f"at most {self.num_marks} Marks are in play, not {len(self.marks)}")
        check_ints("deck_seen", self.deck_seen, 0, (1 << n) - 1, len(self.deck))
        check_ints("stash", self.stash, 0, None, n)
        check_ints("lost_found", [self.lost_found], 0, None)
        if (self.wallets_on < 0).any():
            raise PositionError("wallets_on: a tile never holds a negative number of Wallets")
        if self._wallets_now() < self.initial_wallets:
            raise PositionError(
                f"the table holds {self._wallets_now()} Wallets (tiles, Stashes, Lost & Found), fewer than "
                f"the {self.initial_wallets} of the set-up: no Wallet ever leaves the game"
            )
        check_ints("known_by", self.known_by, 0, (1 << n) - 1, n)
        if any(self.known_by[p] >> p & 1 for p in range(n)):
            raise PositionError("known_by: no player is shown their own card")
        check_ints("epoch", self.epoch, 0, None, n)
        pilot_soldier, cops = self.kept[:, :2], self.kept[:, 2]
        if not ((pilot_soldier >= 0) & (pilot_soldier <= 1)).all():
            raise PositionError("kept: a player keeps the Pilot, the Soldier, once or not at all")
        if (cops < 0).any() or cops.sum() > COPS_MAX:
            raise PositionError(
                f"kept: the one Cop card lies under {COPS_MAX} cards at most (a Mark once, then the Actor)"
            )
        self._check_moves()
        self._check_dentist_records()
        check_ints("item_cells", self.item_cells, 0, t - 1)
        check_ints("item_seats", self.item_seats, 0, n - 1)
        check_ints("item_in_use", [self.item_in_use], -1, t - 1)
        check_ints("winners", self.winners, 0, n - 1)

    def _check_moves(self) -> None:
        """latest_move: for each player, the swaps of their latest Move (two at most), each (edge, the
        Guests it left on the edge's two cells)."""
        n, t = self.num_players, self.num_tiles
        if len(self.latest_move) != n:
            raise PositionError(f"latest_move must hold the latest Move of each of the {n} players")
        for q, swaps in enumerate(self.latest_move):
            if type(swaps) is not tuple or len(swaps) > 2:
                raise PositionError(f"latest_move[{q}]: a Move is two swaps at most")
            for swap in swaps:
                if type(swap) is not tuple or len(swap) != 3:
                    raise PositionError(f"latest_move[{q}]: a swap is (edge, Guest, Guest), not {swap!r}")
                check_ints(f"latest_move[{q}]", [swap[0]], 0, self.num_edges - 1)
                check_ints(f"latest_move[{q}]", list(swap[1:]), 0, t - 1)
                if swap[1] == swap[2]:
                    raise PositionError(f"latest_move[{q}]: a swap moves two different tiles")

    def _check_dentist_records(self) -> None:
        """Each Dentist answer: (asker, target, the target's card's epoch, the line told, the grid as it
        was), the target's Guest on that line then, about the card the target holds now."""
        n, t = self.num_players, self.num_tiles
        for record in self.dentist_records:
            if type(record) is not tuple or len(record) != 5:
                raise PositionError(f"a Dentist record is (asker, target, epoch, line, grid), not {record!r}")
            asker, target, epoch, line, snap = record
            check_ints("a Dentist record", [asker, target], 0, n - 1)
            check_ints("a Dentist record's line", [line], 0, 2 * self.side - 1)
            if asker == target or epoch != self.epoch[target]:
                raise PositionError(
                    f"a Dentist answer comes from another player ({asker} asked {target}), about the card "
                    f"the target holds now (epoch {epoch}, theirs is {self.epoch[target]})"
                )
            if (
                type(snap) is not np.ndarray
                or snap.shape != (t,)
                or not np.array_equal(np.sort(snap), self._arange_t)
            ):
                raise PositionError("a Dentist record's grid places each Guest on one cell")
            if self.ident[target] not in snap[self.line_cells[line]]:
                raise PositionError(f"player {target} told a line that did not hold their Guest (Dentist)")

    # ================================================================ the values together
    def _check_records(self) -> None:
        """The flags agree with the lists they mirror; discarded and stolen cards' tiles are exposed;
        an exposed player's Stash is empty; a kept item's card was used; an item in use has its card."""
        n = self.num_players
        knows = [[bool(self.known_by[p] >> q & 1) for p in range(n)] for q in range(n)]
        if not np.array_equal(self.knows, knows):
            raise PositionError(
                "the flags' table of who was shown whose card (knows) disagrees with known_by"
            )
        for flags, cards, what in (
            (self.is_mark, self.marks, "Marks"),
            (self.is_discarded, self.discard, "discards"),
        ):
            if not np.array_equal(np.flatnonzero(flags), sorted(cards)):
                raise PositionError(f"the flags' {what} disagree with the list of {what}")
        used = [*self.discard, *self.stolen]
        hidden = [g for g in used if not self.tile_exposed[self.cell_of_guest[g]]]
        if hidden:
            raise PositionError(f"a discarded or stolen card's tile is exposed: not {_names(hidden)}")
        for q in range(n):
            if self.player_exposed[q] and self.stash[q]:
                raise PositionError(
                    f"player {q} is exposed: their Wallets lie on their Guest, their Stash is empty"
                )
            if not self.player_exposed[q] and not self.public_candidates[q, self.ident[q]]:
                raise PositionError(
                    f"public_candidates: a public deduction excludes player {q}'s own Guest "
                    f"({GUESTS[self.ident[q]].name}): what the table saw never contradicts the cards"
                )
        for column, item in enumerate(("pilot", "soldier", "cop")):
            if self.kept[:, column].any() and ITEM_GUEST[item] not in used:
                raise PositionError(
                    f"kept: the {item} is kept, but its card was never used (stolen or discarded)"
                )
        if self.item_in_use >= 0 and not self.stolen:
            raise PositionError("an item is in use (item_in_use) but no stolen Mark waits for it to end")

    def _check_end_state(self) -> None:
        """A game that goes on has two unexposed players or more and nobody with 7 Wallets; a game
        over names the winners the end rule names."""
        unexposed = [q for q in range(self.num_players) if not self.player_exposed[q]]
        winners = self._winners(unexposed, self.wallets_on.tolist())
        if self.over and self.winners != winners:
            raise PositionError(
                f"the game is over: its winners are {winners} by the end rule, not {self.winners}"
            )
        if not self.over and winners is not None:
            raise PositionError(
                f"the game goes on, but it ends at once when one player is left unexposed or one holds 7 "
                f"Wallets: it would have ended with winners {winners}"
            )
        if not self.over and self.winners:
            raise PositionError("winners are named only once the game is over")

    # ================================================================ the turn flow
    def _check_flow(self) -> None:
        """The flow is a turn: the clean-up at the bottom; before the action, the ACTION decision with
        the Soldier's Move or the Pilot's swap above it; after it, the rules' own steps under one
        decision; each frame of the right form, for the right seat (`_check_frame`)."""
        frames = self.flow.frames
        if self.over:
            if frames:
                raise PositionError("a finished game has no turn left to play: its flow is empty")
            return
        end = frames[0] if frames else None
        if type(end) is not Do or end.run is not type(self)._end_action or end.args != ():
            raise PositionError("the turn flow holds the turn's clean-up (Exposed._end_action) at its bottom")
        for i in range(1, len(frames)):
            self._check_frame(i, frames)
        if type(frames[-1]) is not Decide:
            raise PositionError("the top of the turn flow is a decision: the rules' own steps never wait")
        kinds = [frame.kind if type(frame) is Decide else None for frame in frames[1:]]
        if ACTION in kinds:
            if kinds[0] != ACTION or tuple(kinds[1:]) not in BEFORE_THE_ACTION:
                raise PositionError(
                    "before the action, only the Soldier's Move and the Pilot's swap wait above the ACTION "
                    f"decision, in that order: not {[k if k is None else DECISION_NAMES[k] for k in kinds]}"
                )
            soldier = MOVE1 in kinds or MOVE2 in kinds
            if soldier and not self.kept[self.turn, 1] or MOVE1 in kinds and frames[2].args[1] is not True:
                raise PositionError("a Move before the action is the Soldier's, which its keeper may pass")
        elif any(kind is not None for kind in kinds[:-1]):
            raise PositionError("after the action, only the rules' own steps wait under the one decision")
        elif kinds[-1] == PILOT or kinds[-1] == MOVE1 and frames[-1].args[1]:
            raise PositionError("the Pilot's swap and the Soldier's Move come before the action")
        discards = [
            frame for frame in frames if type(frame) is Do and frame.run is ActionRules._discard_stolen
        ]
        waiting = sorted(frame.args[0] for frame in discards)
        if waiting != sorted(self.stolen):
            raise PositionError(
                f"each stolen Mark ({_names(self.stolen)}) waits for its discard (_discard_stolen)"
            )

    def _check_frame(self, i: int, frames: list) -> None:
        """Frame i: a known step or decision, its rules matching its kind, its arguments in range, its
        decision taken by the seat the rules give it to."""
        frame, n, turn = frames[i], self.num_players, self.turn
        if type(frame) is Do:
            roles = STEPS.get(frame.run)
            if roles is None or len(frame.args) != len(roles):
                raise PositionError(
                    f"frame {i}: {frame.run.__qualname__}{frame.args} is not a step an action leaves"
                )
            for role, x in zip(roles, frame.args):
                if role == "stolen" and x not in self.stolen or role == "user" and x != turn:
                    raise PositionError(
                        f"frame {i}: {frame.run.__qualname__} for {x!r}: not the stolen card, or not the player to act"
                    )
                if role == "seat" and (not is_int(x) or not 0 <= x < n or x == turn):
                    raise PositionError(f"frame {i}: {frame.run.__qualname__}: {x!r} is not another player")
                if role == "captain" and x != ITEM_GUEST["captain"]:
                    raise PositionError(f"frame {i}: the Captain's next payment names the Captain, not {x!r}")
            return
        kind, p, args = frame.kind, frame.player, frame.args
        if kind not in DECISIONS:
            raise PositionError(f"frame {i}: {kind} is not a decision kind (0..{len(DECISIONS) - 1})")
        legal, then, roles = DECISIONS[kind]
        what = DECISION_NAMES[kind]
        if frame.legal is not legal or frame.then is not then:
            raise PositionError(
                f"frame {i}: '{what}' is decided by {legal.__qualname__} and {then.__qualname__}"
            )
        if not 0 <= p < n or len(args) != 1 + len(roles) or args[0] != p:
            raise PositionError(
                f"frame {i}: '{what}' takes its deciding seat ({p}: a player) and {list(roles)}"
            )
        if kind in (MOVE1, MOVE2):
            server = Do(ItemRules._server_take, (turn, p))  # a Server's target makes its own Move
            if p != turn and server not in frames[:i]:
                raise PositionError(
                    f"frame {i}: '{what}' is the player's to act ({turn}) or a Server's target's"
                )
        elif kind == DENTIST:
            dentist = self.item_in_use >= 0 and GUESTS[self.item_in_use].item == "dentist"
            if args[1] != turn or p == turn or self.player_exposed[p] or not dentist:
                raise PositionError(
                    f"frame {i}: a Dentist answer is an unexposed target's, to the player to act ({turn}) "
                    "using the Dentist"
                )
        elif p != turn:
            raise PositionError(f"frame {i}: '{what}' is the player's to act ({turn}), not {p}'s")
        for role, x in zip(roles, args[1:]):
            if role == "optional" and type(x) is not bool:
                raise PositionError(f"frame {i}: whether a Move may be passed is true or false, not {x!r}")
            if role == "edge":
                self._check_second_swap(i, p, x)
            if role == "stolen" and (
                x not in self.stolen or frames[i - 1] != Do(ActionRules._discard_stolen, (x,))
            ):
                raise PositionError(
                    f"frame {i}: an offer is of the Mark just stolen, right above its discard"
                )
            if role == "step":
                self._check_step(i, p, x)
            if role == "pilot" and (x != ITEM_GUEST["pilot"] or not self.kept[p, 0]):
                raise PositionError(f"frame {i}: the Pilot's swap is the Pilot's keeper's")

    def _check_second_swap(self, i: int, p: int, edge) -> None:
        """A second swap waits right after the first: p's latest Move is that one swap (`edge`), its
        two tiles still where it put them."""
        if not is_int(edge) or not 0 <= edge < self.num_edges:
            raise PositionError(f"frame {i}: {edge!r} is not a swap (0..{self.num_edges - 1})")
        a, b = self.edges[edge]
        if self.latest_move[p] != ((edge, self.guest_on[a], self.guest_on[b]),):
            raise PositionError(
                f"frame {i}: a second swap follows the first: latest_move[{p}] is that one swap"
            )

    def _check_step(self, i: int, p: int, step) -> None:
        """An item step: a kind of choice of the item in use, its arguments in range (the user p, the
        item's Guest, ...: items.STEP_ARGS), and its details those the arguments give (`_step`)."""
        if type(step) is not ItemStep or not all(
            map(is_int, (step.kind, step.line, step.tile, step.player, step.left))
        ):
            raise PositionError(f"frame {i}: an item step is an ItemStep of integers, not {step!r}")
        if not 0 <= step.kind < len(ITEM_CHOICES):
            raise PositionError(f"frame {i}: {step.kind} is not a kind of choice (data.py ITEM_CHOICES)")
        item, in_use = ITEM_CHOICES[step.kind].item, self.item_in_use
        if in_use < 0 or GUESTS[in_use].item != item:
            raise PositionError(
                f"frame {i}: a choice of the {item}'s is made while its item is in use (item_in_use)"
            )
        _pick, roles = _STEP_PLANS[step.kind]
        args = step.then_args
        if (
            type(args) is not tuple
            or len(args) != len(roles)
            or not all(map(is_int, args + step.allowed_args))
        ):
            raise PositionError(
                f"frame {i}: the {item}'s step takes {len(roles)} integers ({', '.join(roles)})"
            )
        s = self.side
        ranges = {
            "user": (p, p + 1),  # the deciding seat
            "item": (in_use, in_use + 1),  # the item's own Guest
            "tile": (0, self.num_tiles),  # a Guest
            "line": (0, 2 * s),
            "place": (0, s - 1),
            "player": (0, self.num_players),
            "left": (1, MOST_REPEATS + 1),
        }
        for role, x in zip(roles, args):
            low, high = ranges[role]
            if not low <= x < high:
                raise PositionError(
                    f"frame {i}: the {item}'s step: {x!r} is not its {role} ({low}..{high - 1})"
                )
        if step != self._step(step.kind, args):
            raise PositionError(
                f"frame {i}: the {item}'s step shows the chooser what its arguments give (line, tile, "
                f"player, choices left): {self._step(step.kind, args)}, not {step}"
            )
