"""Exposed: the items (a mixin of `rules.Exposed`: every method is still `Exposed._name`, and the
tables below name them by the mixin that holds them).

Rules held: using a stolen Mark's item (or a discarded card's, through the Actor); each choice inside
an item as its own decision (an item step, PICK); the item effects by marker (no marker, "3+", "5+";
the Dentist's is hidden.py's). `ITEM_EFFECTS` (item name -> effect) and `ITEM_CAN_ACT` (whether an
item has a possible first step; Reading: one that cannot act does nothing) are checked at import
against the item names of data.py, and `ITEM_CHOICE_RULES` (each kind of choice of data.py's
ITEM_CHOICES -> how it is made: what may be chosen, the rule carrying it out) against ITEM_CHOICES. An
item step (`ItemStep`) names its kind, so a saved position writes it as plain data.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from envs.core.flow import check_handlers

from .actions import ActionRules
from .choices import ChoiceRules
from .data import (
    ACCOUNTANT_MOVES,
    ASTRONAUT_LOOK,
    ASTRONAUT_OTHERS_LOOK,
    BANKER_GAIN,
    GUESTS,
    ITEM_CHOICES,
    LOCKSMITH_TAKES,
    MAYOR_LOOK,
    NURSE_SWAPS,
    REALTOR_MOVES,
    TEACHER_MOVES,
    UNDERTAKER_TILES,
)
from .decisions import B_CELL, B_GUEST, B_LINE, B_SEAT, B_STEAL, PICK
from .hidden import HiddenRules
from .table import replaced

if TYPE_CHECKING:
    from .rules import Exposed


class ItemRules:
    """Item steps, using an item, and the item effects (the Dentist's: hidden.py)."""

    # ================================================================ item steps (PICK)
    def _item_step(self, p: int, then: Callable[..., None], *args: int) -> None:
        """p makes the choice that `then` carries out (a kind of choice: ITEM_CHOICE_RULES), `args`
        being `then`'s arguments before the choice."""
        step = self._step(_ITEM_CHOICE_OF[then], args)
        self.flow.decide(PICK, p, ItemRules._item_step_mask, ItemRules._item_step_chosen, p, step)

    def _step(self, kind: int, args: tuple) -> ItemStep:
        """The item step of that kind with those arguments of its rule: what its `allowed` takes, and
        what the deciding seat knows of the choice (the line, tile, player and count its arguments
        name: `STEP_ARGS`). Made when the step is pushed, the top of the flow until it is decided."""
        pick, roles = _STEP_PLANS[kind]
        line = tile = player = -1
        left = 0
        for role, x in zip(roles, args):
            if role == "tile":
                tile = self.cell_of_guest.item(x)
            elif role == "line":
                line = x
            elif role == "place":
                tile = self.line_cells[line][x]
            elif role == "player":
                player = x
            elif role == "left":
                left = x
        return ItemStep(kind, tuple([args[i] for i in pick]), args, line, tile, player, left)

    def _item_step_mask(self, mask: np.ndarray, p: int, step: ItemStep) -> None:
        rule = ITEM_STEPS[step.kind]
        allowed = rule.allowed(self, *step.allowed_args)
        off = self._block_offset[rule.block]
        if rule.block == B_SEAT:
            allowed = np.roll(allowed, -p)  # relative seats: index k is seat p + k
        mask[off : off + len(allowed)] = allowed
        mask[self.A_PASS] = rule.optional

    def _item_step_chosen(self, action: int, p: int, step: ItemStep) -> None:
        rule = ITEM_STEPS[step.kind]
        choice = None
        if action != self.A_PASS:
            choice = action - self._block_offset[rule.block]
            if rule.block == B_SEAT:
                choice = (p + choice) % self.num_players
        rule.then(self, *step.then_args, choice)

    # ================================================================ items
    def _use_item(self, p: int, g: int) -> None:
        """Use the item of Guest g (a stolen Mark's, or a discarded card's through the Actor)."""
        self.item_in_use = g
        self.item_cells = ()
        self.item_seats = ()
        self.last_items[self.turn, g] = True
        self.items_any = True
        item = GUESTS[g].item
        can_act = ITEM_CAN_ACT.get(item)
        # Reading: an item with no possible first step does nothing. Every can-act check reads only
        # the public table, so whether an item acts never tells anything about its user's Guest
        if can_act is None or can_act(self, p, g):
            ITEM_EFFECTS[item](self, p, g)

    # --- no marker ---
    def _item_accountant(self, p: int, g: int) -> None:
        self._item_step(p, ItemRules._accountant_dest, p)

    def _accountant_dest(self, p: int, cell: int) -> None:
        self._ctx_cell(cell)
        if not self.player_exposed[p]:  # a public deduction: the destination is not the user's own Guest
            self.public_candidates[p, self.guest_on[cell]] = False
        self._accountant_more(p, int(self.guest_on[cell]), ACCOUNTANT_MOVES)

    def _accountant_more(self, p: int, dest: int, left: int) -> None:
        if left:
            self._item_step(p, ItemRules._accountant_take, p, dest, left)

    def _accountant_take(self, p: int, dest: int, left: int, cell: int | None) -> None:
        if cell is None:
            return
        self._touch(cell)
        self.wallets_on[cell] -= 1
        self.wallets_on[self.cell_of_guest[dest]] += 1
        self._accountant_more(p, dest, left - 1)

    def _item_architect(self, p: int, g: int) -> None:
        for c in self.corners:
            self.wallets_on[c] += self._from_lost_found(1)

    def _look(self, p: int, k: int) -> None:
        """Look at the top k Identity cards and put them at the bottom (in the same order)."""
        k = min(k, len(self.deck))
        for _ in range(k):
            self.deck.append(self.deck.pop(0))
            self.deck_seen.append(self.deck_seen.pop(0) | (1 << p))

    def _item_astronaut(self, p: int, g: int) -> None:
        self._look(p, ASTRONAUT_LOOK)
        for k in range(1, self.num_players):
            self._look((p + k) % self.num_players, ASTRONAUT_OTHERS_LOOK)

    def _item_mayor(self, p: int, g: int) -> None:
        self._look(p, MAYOR_LOOK)

    def _item_engineer(self, p: int, g: int) -> None:
        self._item_step(p, ItemRules._engineer_flip, p)

    def _engineer_flip(self, p: int, cell: int) -> None:
        self._touch(cell)
        self._flip(cell, p)

    def _item_firefighter(self, p: int, g: int) -> None:
        self._item_step(p, ItemRules._firefighter_line, p)

    def _firefighter_line(self, p: int, line: int, i: int = 0) -> None:
        if i < self.side - 1:
            self._item_step(p, ItemRules._firefighter_place, p, line, i)

    def _firefighter_place(self, p: int, line: int, i: int, cell: int) -> None:
        target = self.line_cells[line][i]
        self._swap_cells(target, cell)
        self._touch(target)
        self._firefighter_line(p, line, i + 1)

    def _item_lawyer(self, p: int, g: int) -> None:
        for c in np.flatnonzero(self.tile_exposed):
            self.wallets_on[c] += self._from_lost_found(1)

    def _can_locksmith(self, p: int, g: int) -> bool:
        return bool(self._wallet_cells_except(g).any())

    def _item_locksmith(self, p: int, g: int, left: int = LOCKSMITH_TAKES) -> None:
        if left:
            self._item_step(p, ItemRules._locksmith_take, p, g, left)

    def _locksmith_take(self, p: int, g: int, left: int, cell: int | None) -> None:
        if cell is None:  # no Wallet left anywhere else
            return
        self._touch(cell)
        self.wallets_on[cell] -= 1
        self.wallets_on[self.cell_of_guest[g]] += 1
        self._item_locksmith(p, g, left - 1)

    def _item_magician(self, p: int, g: int) -> None:
        self._decide_move(p, optional=False)

    def _item_mechanic(self, p: int, g: int) -> None:
        # Reading: the extra Steal may be passed, so a thief with nothing to steal from (where the
        # tiles around their secret Guest are empty) looks exactly like one who chooses not to steal
        self._item_step(p, ItemRules._mechanic_steal, p)

    def _mechanic_steal(self, p: int, cell: int | None) -> None:
        if cell is not None:
            self._steal(p, cell)

    def _item_paramedic(self, p: int, g: int) -> None:
        self._item_step(p, ItemRules._paramedic_line, p)

    def _paramedic_line(self, p: int, line: int) -> None:
        for c in self.line_cells[line]:
            self.wallets_on[c] += self._from_lost_found(1)
            self._touch(c)

    def _item_physicist(self, p: int, g: int) -> None:
        self._item_step(p, ItemRules._physicist_first, p)

    def _physicist_first(self, p: int, cell: int) -> None:
        self._ctx_cell(cell)
        first = int(self.guest_on[cell])
        self._item_step(p, ItemRules._physicist_second, p, first)

    def _physicist_second(self, p: int, first: int, cell: int) -> None:
        self._touch(cell)
        self._swap_cells(int(self.cell_of_guest[first]), cell)

    def _item_surgeon(self, p: int, g: int) -> None:
        self._give(p, self._from_lost_found(1))

    def _item_teacher(self, p: int, g: int) -> None:
        self._item_step(p, ItemRules._teacher_source, p)

    def _teacher_source(self, p: int, cell: int) -> None:
        self._ctx_cell(cell)
        self._teacher_more(p, int(self.guest_on[cell]), TEACHER_MOVES)

    def _teacher_more(self, p: int, src: int, left: int) -> None:
        if left and self.wallets_on[self.cell_of_guest[src]] > 0:
            self._item_step(p, ItemRules._teacher_give, p, src, left)

    def _teacher_give(self, p: int, src: int, left: int, cell: int | None) -> None:
        if cell is None:
            return
        self._ctx_cell(cell)
        self.wallets_on[self.cell_of_guest[src]] -= 1
        self.wallets_on[cell] += 1
        self._teacher_more(p, src, left - 1)

    def _item_undertaker(self, p: int, g: int, left: int = UNDERTAKER_TILES) -> None:
        if left:
            self._item_step(p, ItemRules._undertaker_give, p, g, left)

    def _undertaker_give(self, p: int, g: int, left: int, cell: int | None) -> None:
        if cell is None:
            return
        self._ctx_cell(cell)
        self.wallets_on[cell] += self._from_lost_found(1)
        self._item_undertaker(p, g, left - 1)

    # --- "3+" ---
    def _can_actor(self, p: int, g: int) -> bool:
        return bool(self._actor_cards().any())

    def _item_actor(self, p: int, g: int) -> None:
        self._item_step(p, ItemRules._use_item, p)

    def _item_farmer(self, p: int, g: int) -> None:
        c = int(self.cell_of_guest[g])
        for x in [c, *np.flatnonzero(self.surround[c])]:
            self.wallets_on[x] += self._from_lost_found(1)

    def _can_janitor(self, p: int, g: int) -> bool:
        return bool(self._exposed_wallet_cells_except(g).any())

    def _item_janitor(self, p: int, g: int) -> None:
        self._item_step(p, ItemRules._janitor_take, p, g)

    def _janitor_take(self, p: int, g: int, cell: int | None) -> None:
        if cell is None:
            return
        self._ctx_cell(cell)
        self.wallets_on[cell] -= 1
        self.wallets_on[self.cell_of_guest[g]] += 1
        self._item_janitor(p, g)

    def _item_nanny(self, p: int, g: int) -> None:
        self._item_step(p, ItemRules._nanny_take, p)

    def _nanny_take(self, p: int, cell: int) -> None:
        self._touch(cell)
        w = int(self.wallets_on[cell])
        self.wallets_on[cell] = 0
        self.lost_found += w - 1
        self._give(p, 1)

    def _item_nurse(self, p: int, g: int, left: int = NURSE_SWAPS) -> None:
        if left:
            self._item_step(p, ItemRules._nurse_first, p, g, left)

    def _nurse_first(self, p: int, g: int, left: int, cell: int | None) -> None:
        if cell is None:
            return
        self._touch(cell)
        first = int(self.guest_on[cell])
        self._item_step(p, ItemRules._nurse_second, p, g, left, first)

    def _nurse_second(self, p: int, g: int, left: int, first: int, cell: int) -> None:
        self._touch(cell)
        self._swap_cells(int(self.cell_of_guest[first]), cell)
        self._item_nurse(p, g, left - 1)

    def _item_pilot(self, p: int, g: int) -> None:
        self._keep(p, 0, 1)

    def _item_senator(self, p: int, g: int) -> None:
        near = self.surround[int(self.cell_of_guest[g])]
        guests = self._guests_where(near)
        for q in range(self.num_players):
            if near[self._guest_cell(q)]:
                self._give(q, self._from_lost_found(1))
                self._constrain(q, guests)
            else:
                self._constrain(q, ~guests)

    def _item_server(self, p: int, g: int) -> None:
        self._item_step(p, ItemRules._server_target, p)

    def _server_target(self, p: int, q: int) -> None:
        self._ctx_seat(q)
        self.flow.do(ItemRules._server_take, p, q)
        self._decide_move(q, optional=False)  # the target's own Move (its swaps are the target's steps)

    def _server_take(self, p: int, q: int) -> None:
        self._give(p, self._take_from_player(q, 1))

    def _item_veterinarian(self, p: int, g: int) -> None:
        self._item_step(p, ItemRules._veterinarian_take, p)

    def _veterinarian_take(self, p: int, q: int) -> None:
        self._ctx_seat(q)
        self._give(p, self._take_from_player(q, 1))

    # --- "5+" ---
    def _can_artist(self, p: int, g: int) -> bool:
        return bool(self._wallet_cells_except(g).any())

    def _item_artist(self, p: int, g: int) -> None:
        self._item_step(p, ItemRules._artist_take, p, g)

    def _artist_take(self, p: int, g: int, cell: int) -> None:
        self._touch(cell)
        self.wallets_on[self.cell_of_guest[g]] += self.wallets_on[cell]
        self.wallets_on[cell] = 0

    def _item_banker(self, p: int, g: int) -> None:
        self.wallets_on[self.cell_of_guest[g]] += self._from_lost_found(BANKER_GAIN)
        self._item_step(p, ItemRules._banker_swap, p, g)

    def _banker_swap(self, p: int, g: int, cell: int) -> None:
        self._touch(cell)
        self._swap_cells(int(self.cell_of_guest[g]), cell)

    def _can_captain(self, p: int, g: int) -> bool:
        return any(self.player_exposed) and bool(self._has_wallet().any())

    def _captain_targets(self, p: int) -> np.ndarray:
        """Exposed players not yet paid by this Captain (none once no tile holds a Wallet)."""
        seats = np.array(self.player_exposed, dtype=bool)
        seats[list(self.item_seats)] = False
        if not self._has_wallet().any():
            seats[:] = False
        return seats

    def _item_captain(self, p: int, g: int) -> None:
        self._item_step(p, ItemRules._captain_player, p, g)

    def _captain_player(self, p: int, g: int, q: int | None) -> None:
        if q is None:
            return
        self._ctx_seat(q)
        self.flow.do(ItemRules._item_captain, p, g)  # then the next player, until the user stops
        self._item_step(p, ItemRules._captain_give, q)

    def _captain_give(self, q: int, cell: int) -> None:
        self._touch(cell)
        self.wallets_on[cell] -= 1
        self._give(q, 1)

    def _can_clown(self, p: int, g: int) -> bool:
        return sum(self.player_exposed) >= 2

    def _item_clown(self, p: int, g: int) -> None:
        self._item_step(p, ItemRules._clown_first, p)

    def _clown_first(self, p: int, a: int) -> None:
        self._ctx_seat(a)
        self._item_step(p, ItemRules._clown_second, p, a)

    def _clown_second(self, p: int, a: int, b: int) -> None:
        self._ctx_seat(b)
        ga, gb = self.ident[a], self.ident[b]
        self.ident[a], self.ident[b] = gb, ga
        self.holder_of = replaced(replaced(self.holder_of, ga, b), gb, a)
        for q in (a, b):
            self._new_identity(q)

    def _new_identity(self, q: int) -> None:
        """q holds another card: what was known about the old one no longer applies."""
        self.epoch = replaced(self.epoch, q, self.epoch[q] + 1)
        self.public_candidates[q] = True
        self.dentist_records = tuple(r for r in self.dentist_records if r[1] != q)
        self._dentist_allowed()

    def _item_cop(self, p: int, g: int) -> None:
        self._item_step(p, ItemRules._cop_place, p)

    def _cop_place(self, p: int, q: int) -> None:
        self._ctx_seat(q)
        self._keep(q, 2, self.cop[q] + 1)

    def _can_judge(self, p: int, g: int) -> bool:
        return bool(self._marks_except(g).any())

    def _item_judge(self, p: int, g: int) -> None:
        self._item_step(p, ItemRules._judge_discard, p, g)

    def _judge_discard(self, p: int, g: int, mark: int | None) -> None:
        if mark is None:
            return
        self._touch(int(self.cell_of_guest[mark]))
        self._discard_mark(mark)
        self._item_judge(p, g)

    def _item_panhandler(self, p: int, g: int) -> None:
        for k in range(1, self.num_players):
            q = (p + k) % self.num_players
            self.wallets_on[self.cell_of_guest[g]] += self._take_from_player(q, 1)

    def _item_puppeteer(self, p: int, g: int) -> None:
        self._item_step(p, ItemRules._puppeteer_take, p)

    def _puppeteer_take(self, p: int, cell: int) -> None:
        self._touch(cell)
        self.wallets_on[cell] -= 1
        self._give(p, 1)

    def _realtor_sources(self, p: int) -> np.ndarray:
        """Players with Wallets to move (with 2 players only the user: the destination must differ
        from the source and from the user)."""
        n = self.num_players
        seats = np.array([self._player_wallets(q) > 0 for q in range(n)], dtype=bool)
        if n == 2:
            seats[1 - p] = False
        return seats

    def _realtor_destinations(self, p: int, source: int) -> np.ndarray:
        seats = np.ones(self.num_players, dtype=bool)
        seats[p] = seats[source] = False
        return seats

    def _can_realtor(self, p: int, g: int) -> bool:
        return bool(self._realtor_sources(p).any())

    def _item_realtor(self, p: int, g: int) -> None:
        self._item_step(p, ItemRules._realtor_source, p)

    def _realtor_source(self, p: int, a: int) -> None:
        self._ctx_seat(a)
        self._item_step(p, ItemRules._realtor_dest, p, a)

    def _realtor_dest(self, p: int, a: int, b: int) -> None:
        self._ctx_seat(b)
        self._give(b, self._take_from_player(a, REALTOR_MOVES))

    def _item_soldier(self, p: int, g: int) -> None:
        self._keep(p, 1, 1)

    def _can_wrestler(self, p: int, g: int) -> bool:
        return len(self.deck) > 0

    def _item_wrestler(self, p: int, g: int) -> None:
        """Discard your card (its tile is exposed) and draw until you hold an unexposed Guest.
        Reading: if the deck runs out first, you keep the last card drawn (exposed: you are exposed)."""
        old = self.ident[p]
        self.holder_of = replaced(self.holder_of, old, -1)
        was_exposed = self.player_exposed[p]
        self._discard_card(old, p)
        while True:
            g2 = self.deck.pop(0)
            seen = self.deck_seen.pop(0)
            cell = int(self.cell_of_guest[g2])
            if not self.tile_exposed[cell] or not self.deck:
                break
            self._discard_card(g2, p)
        self.ident[p] = g2
        self.holder_of = replaced(self.holder_of, g2, p)
        self._new_identity(p)
        self.known_by = replaced(
            self.known_by, p, seen & ~(1 << p)
        )  # whoever saw that card knows who holds it now
        self.knows[:, p] = [bool(self.known_by[p] >> r & 1) for r in range(self.num_players)]
        if was_exposed:
            self.n_unexposed += 1
        self.player_exposed = replaced(self.player_exposed, p, False)
        if self.tile_exposed[cell]:
            self._exposed(p, p)
        # else: an exposed player who wrestles is unexposed again (their Stash is empty)


# ================================================================ items, by name (data.py `Guest.item`)
# item -> its effect, effect(game, user, Guest): RULES.md's item table names these
ITEM_EFFECTS: dict[str, Callable[[Exposed, int, int], None]] = {
    # no marker
    "accountant": ItemRules._item_accountant,
    "architect": ItemRules._item_architect,
    "astronaut": ItemRules._item_astronaut,
    "dentist": HiddenRules._item_dentist,
    "engineer": ItemRules._item_engineer,
    "firefighter": ItemRules._item_firefighter,
    "lawyer": ItemRules._item_lawyer,
    "locksmith": ItemRules._item_locksmith,
    "magician": ItemRules._item_magician,
    "mayor": ItemRules._item_mayor,
    "mechanic": ItemRules._item_mechanic,
    "paramedic": ItemRules._item_paramedic,
    "physicist": ItemRules._item_physicist,
    "surgeon": ItemRules._item_surgeon,
    "teacher": ItemRules._item_teacher,
    "undertaker": ItemRules._item_undertaker,
    # 3+
    "actor": ItemRules._item_actor,
    "farmer": ItemRules._item_farmer,
    "janitor": ItemRules._item_janitor,
    "nanny": ItemRules._item_nanny,
    "nurse": ItemRules._item_nurse,
    "pilot": ItemRules._item_pilot,
    "senator": ItemRules._item_senator,
    "server": ItemRules._item_server,
    "veterinarian": ItemRules._item_veterinarian,
    # 5+
    "artist": ItemRules._item_artist,
    "banker": ItemRules._item_banker,
    "captain": ItemRules._item_captain,
    "clown": ItemRules._item_clown,
    "cop": ItemRules._item_cop,
    "judge": ItemRules._item_judge,
    "panhandler": ItemRules._item_panhandler,
    "puppeteer": ItemRules._item_puppeteer,
    "realtor": ItemRules._item_realtor,
    "soldier": ItemRules._item_soldier,
    "wrestler": ItemRules._item_wrestler,
}
check_handlers(ITEM_EFFECTS, [guest.item for guest in GUESTS], "Exposed items")

# items that can lack a possible first step -> whether they have one, can_act(game, user, Guest); the
# others always act. Reading: an item that cannot act does nothing
ITEM_CAN_ACT: dict[str, Callable[[Exposed, int, int], bool]] = {
    "actor": ItemRules._can_actor,
    "artist": ItemRules._can_artist,
    "captain": ItemRules._can_captain,
    "clown": ItemRules._can_clown,
    "janitor": ItemRules._can_janitor,
    "judge": ItemRules._can_judge,
    "locksmith": ItemRules._can_locksmith,
    "nanny": ChoiceRules._any_wallet,
    "puppeteer": ChoiceRules._any_wallet,
    "realtor": ItemRules._can_realtor,
    "teacher": ChoiceRules._any_wallet,
    "wrestler": ItemRules._can_wrestler,
}
if ITEM_CAN_ACT.keys() - ITEM_EFFECTS.keys() or not all(map(callable, ITEM_CAN_ACT.values())):
    raise ValueError(f"Exposed item checks: unknown items or not functions in {ITEM_CAN_ACT}")


# ================================================================ the kinds of choice inside items
class StepRule(NamedTuple):
    """How one kind of choice inside an item is made: the `block` of the action space it chooses in,
    `allowed` marking what may be chosen (booleans over cells, lines, absolute seats or Guests), given
    the arguments of `then` named in `allowed_args`, and `then` carrying the choice out, `then(game,
    *args, choice)` (choice None on a pass, or when an earlier step took every choice away); whether
    the step may be passed (`optional`). The names of `then`'s parameters before the choice say what
    each argument is (`STEP_ARGS`)."""

    block: int
    allowed: Callable[..., np.ndarray]
    allowed_args: str
    then: Callable[..., None]
    optional: bool = False


# the kinds of choice inside items (data.py ITEM_CHOICES, by (item, name)) -> how each is made: an item
# step finds its kind (the observation's `item_choice`) by its rule
ITEM_CHOICE_RULES: dict[tuple[str, str], StepRule] = {
    ("accountant", "destination"): StepRule(B_CELL, ChoiceRules._cells_but_own, "p", ItemRules._accountant_dest),
    ("accountant", "source"): StepRule(B_CELL, ChoiceRules._wallet_cells_except, "dest", ItemRules._accountant_take, True),
    ("dentist", "player"): StepRule(B_SEAT, ChoiceRules._other_seats, "p", HiddenRules._dentist_target),
    ("engineer", "tile"): StepRule(B_CELL, ChoiceRules._unexposed_cells, "", ItemRules._engineer_flip),
    ("firefighter", "line"): StepRule(B_LINE, ChoiceRules._any_line, "", ItemRules._firefighter_line),
    ("firefighter", "place"): StepRule(B_CELL, ChoiceRules._line_from, "line i", ItemRules._firefighter_place),
    ("locksmith", "source"): StepRule(B_CELL, ChoiceRules._wallet_cells_except, "g", ItemRules._locksmith_take),
    ("mechanic", "steal"): StepRule(B_STEAL, ActionRules._steal_targets, "p", ItemRules._mechanic_steal, True),
    ("paramedic", "line"): StepRule(B_LINE, ChoiceRules._any_line, "", ItemRules._paramedic_line),
    ("physicist", "first"): StepRule(B_CELL, ChoiceRules._any_cell_except, "", ItemRules._physicist_first),
    ("physicist", "second"): StepRule(B_CELL, ChoiceRules._any_cell_except, "first", ItemRules._physicist_second),
    ("teacher", "source"): StepRule(B_CELL, ChoiceRules._wallet_cells_except, "", ItemRules._teacher_source),
    ("teacher", "destination"): StepRule(B_CELL, ChoiceRules._cells_not_chosen, "", ItemRules._teacher_give, True),
    ("undertaker", "tile"): StepRule(B_CELL, ChoiceRules._cells_not_chosen, "", ItemRules._undertaker_give, True),
    ("actor", "card"): StepRule(B_GUEST, ChoiceRules._actor_cards, "", ItemRules._use_item),
    ("janitor", "tile"): StepRule(B_CELL, ChoiceRules._exposed_wallet_cells_not_chosen, "g", ItemRules._janitor_take, True),
    ("nanny", "tile"): StepRule(B_CELL, ChoiceRules._wallet_cells_except, "", ItemRules._nanny_take),
    ("nurse", "first"): StepRule(B_CELL, ChoiceRules._cells_surrounding, "g", ItemRules._nurse_first, True),
    ("nurse", "second"): StepRule(B_CELL, ChoiceRules._any_cell_except, "first", ItemRules._nurse_second),
    ("server", "player"): StepRule(B_SEAT, ChoiceRules._other_seats, "p", ItemRules._server_target),
    ("veterinarian", "player"): StepRule(B_SEAT, ChoiceRules._neighbour_seats, "p", ItemRules._veterinarian_take),
    ("artist", "tile"): StepRule(B_CELL, ChoiceRules._wallet_cells_except, "g", ItemRules._artist_take),
    ("banker", "tile"): StepRule(B_CELL, ChoiceRules._any_cell_except, "g", ItemRules._banker_swap),
    ("captain", "player"): StepRule(B_SEAT, ItemRules._captain_targets, "p", ItemRules._captain_player, True),
    ("captain", "source"): StepRule(B_CELL, ChoiceRules._wallet_cells_except, "", ItemRules._captain_give),
    ("clown", "first"): StepRule(B_SEAT, ChoiceRules._exposed_seats_except, "", ItemRules._clown_first),
    ("clown", "second"): StepRule(B_SEAT, ChoiceRules._exposed_seats_except, "a", ItemRules._clown_second),
    ("cop", "player"): StepRule(B_SEAT, ChoiceRules._other_seats, "p", ItemRules._cop_place),
    ("judge", "mark"): StepRule(B_GUEST, ChoiceRules._marks_except, "g", ItemRules._judge_discard, True),
    ("puppeteer", "tile"): StepRule(B_CELL, ChoiceRules._wallet_cells_except, "", ItemRules._puppeteer_take),
    ("realtor", "source"): StepRule(B_SEAT, ItemRules._realtor_sources, "p", ItemRules._realtor_source),
    ("realtor", "destination"): StepRule(B_SEAT, ItemRules._realtor_destinations, "p a", ItemRules._realtor_dest),
}  # fmt: skip
check_handlers(
    {key: rule.then for key, rule in ITEM_CHOICE_RULES.items()},
    [(c.item, c.name) for c in ITEM_CHOICES],
    "Exposed item choices",
)
ITEM_STEPS: tuple[StepRule, ...] = tuple(ITEM_CHOICE_RULES[(c.item, c.name)] for c in ITEM_CHOICES)  # by kind
_ITEM_CHOICE_OF = {rule.then: kind for kind, rule in enumerate(ITEM_STEPS)}
if len(_ITEM_CHOICE_OF) != len(ITEM_CHOICES) or {c.item for c in ITEM_CHOICES} - ITEM_EFFECTS.keys():
    raise ValueError("Exposed item choices: two kinds of choice share one rule, or an item is unknown")

# what an argument of an item step's rule is, by its name (a parameter of `then`): the user (the
# deciding seat, but for the Captain's source, chosen for the player `q`), the item's own Guest, a
# Guest whose tile the choice goes with, the line the item works on, the place of that line being
# filled (its tile), the player the choice goes with, how many choices of this kind are left
STEP_ARGS = {
    "p": "user",
    "g": "item",
    "dest": "tile",
    "src": "tile",
    "first": "tile",
    "line": "line",
    "i": "place",
    "a": "player",
    "q": "player",
    "left": "left",
}


def _step_plan(rule: StepRule) -> tuple[tuple[int, ...], tuple[str, ...]]:
    """Where `allowed`'s arguments are among `then`'s, and what each of `then`'s is (checked at import:
    every name is known, and `allowed` takes only names `then` has)."""
    params = [q for q in inspect.signature(rule.then).parameters.values() if q.default is q.empty]
    names = [q.name for q in params[1:-1]]  # after self, before the choice
    unknown = [name for name in names if name not in STEP_ARGS]
    picked = rule.allowed_args.split()
    if unknown or not set(picked) <= set(names):
        raise ValueError(f"Exposed item step {rule.then.__qualname__}: unknown arguments {unknown or picked}")
    return tuple(names.index(name) for name in picked), tuple(STEP_ARGS[name] for name in names)


_STEP_PLANS = tuple(_step_plan(rule) for rule in ITEM_STEPS)


class ItemStep(NamedTuple):
    """One choice inside an item (a PICK decision; a plain value, which a saved position writes as
    data): its `kind` (its row of data.py's ITEM_CHOICES, whose rule `ITEM_STEPS[kind]` says what may
    be chosen and what follows), the arguments of that rule's `allowed` and `then`, and what the
    deciding seat knows of the choice, for the observation's `item_choice` pieces: the `line` it works
    on, the `tile` (a cell) and the `player` (absolute seat) it goes with, and how many choices of
    this kind are `left`, this one included (-1 / 0: none). `ItemRules._step` makes it."""

    kind: int
    allowed_args: tuple
    then_args: tuple
    line: int = -1
    tile: int = -1
    player: int = -1
    left: int = 0

    @property
    def block(self) -> int:
        return ITEM_STEPS[self.kind].block

    @property
    def allowed(self) -> Callable[..., np.ndarray]:
        return ITEM_STEPS[self.kind].allowed

    @property
    def then(self) -> Callable[..., None]:
        return ITEM_STEPS[self.kind].then

    @property
    def optional(self) -> bool:
        return ITEM_STEPS[self.kind].optional

    def __repr__(self) -> str:
        chosen = f"{self.allowed.__qualname__}{self.allowed_args} in block {self.block}"
        then = f"{self.then.__qualname__}{self.then_args}"
        return f"ItemStep({chosen}{', or pass' if self.optional else ''}, then {then})"
