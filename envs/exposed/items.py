"""Exposed: the items (a mixin of `rules.Exposed`: every method is still `Exposed._name`, and the
tables below name them by the mixin that holds them).

Rules held: using a stolen Mark's item (or a discarded card's, through the Actor); each choice inside
an item as its own decision (an item step, PICK); the item effects by marker (no marker, "3+", "5+";
the Dentist's is hidden.py's). `ITEM_EFFECTS` (item name -> effect) and `ITEM_CAN_ACT` (whether an
item has a possible first step; Reading: one that cannot act does nothing) are checked at import
against the item names of data.py, and `ITEM_CHOICE_RULES` (each kind of choice of data.py's
ITEM_CHOICES -> the rule carrying it out) against ITEM_CHOICES.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

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
from .decisions import B_CELL, B_GUEST, B_LINE, B_SEAT, B_STEAL, PICK, ItemStep
from .hidden import HiddenRules

if TYPE_CHECKING:
    from .rules import Exposed


class ItemRules:
    """Item steps, using an item, and the item effects (the Dentist's: hidden.py)."""

    # ================================================================ item steps (PICK)
    def _item_step(
        self,
        p: int,
        block: int,
        allowed: Callable[..., np.ndarray],
        allowed_args: tuple,
        then: Callable[..., None],
        then_args: tuple,
        optional: bool = False,
        *,
        line: int = -1,
        tile: int = -1,
        player: int = -1,
        left: int = 0,
    ) -> None:
        """p chooses in `block` one of what `allowed` marks; `line`, `tile`, `player`, `left`: what p
        knows of the choice (see `ItemStep`)."""
        kind = _ITEM_CHOICE_OF[then]
        step = ItemStep(
            block, allowed, allowed_args, then, then_args, optional, kind, line, tile, player, left
        )
        self.flow.decide(PICK, p, ItemRules._item_step_mask, ItemRules._item_step_chosen, p, step)

    def _item_step_mask(self, mask: np.ndarray, p: int, step: ItemStep) -> None:
        allowed = step.allowed(self, *step.allowed_args)
        off = self._block_offset[step.block]
        if step.block == B_SEAT:
            allowed = np.roll(allowed, -p)  # relative seats: index k is seat p + k
        mask[off : off + len(allowed)] = allowed
        mask[self.A_PASS] = step.optional

    def _item_step_chosen(self, action: int, p: int, step: ItemStep) -> None:
        choice = None
        if action != self.A_PASS:
            choice = action - self._block_offset[step.block]
            if step.block == B_SEAT:
                choice = (p + choice) % self.num_players
        step.then(self, *step.then_args, choice)

    # ================================================================ items
    def _use_item(self, p: int, g: int) -> None:
        """Use the item of Guest g (a stolen Mark's, or a discarded card's through the Actor)."""
        self.item_in_use = g
        self.item_cells = []
        self.item_seats = []
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
        self._item_step(p, B_CELL, ChoiceRules._cells_but_own, (p,), ItemRules._accountant_dest, (p,))

    def _accountant_dest(self, p: int, cell: int) -> None:
        self._ctx_cell(cell)
        if not self.player_exposed[p]:  # a public deduction: the destination is not the user's own Guest
            self.public_candidates[p, self.guest_on[cell]] = False
        self._accountant_more(p, int(self.guest_on[cell]), ACCOUNTANT_MOVES)

    def _accountant_more(self, p: int, dest: int, left: int) -> None:
        if left:
            self._item_step(
                p,
                B_CELL,
                ChoiceRules._wallet_cells_except,
                (dest,),
                ItemRules._accountant_take,
                (p, dest, left),
                optional=True,
                tile=int(self.cell_of_guest[dest]),
                left=left,
            )

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
        self._item_step(p, B_CELL, ChoiceRules._unexposed_cells, (), ItemRules._engineer_flip, (p,))

    def _engineer_flip(self, p: int, cell: int) -> None:
        self._touch(cell)
        self._flip(cell, p)

    def _item_firefighter(self, p: int, g: int) -> None:
        self._item_step(p, B_LINE, ChoiceRules._any_line, (), ItemRules._firefighter_line, (p,))

    def _firefighter_line(self, p: int, line: int, i: int = 0) -> None:
        if i < self.side - 1:
            place = self.line_cells[line][i]
            self._item_step(
                p,
                B_CELL,
                ChoiceRules._line_from,
                (line, i),
                ItemRules._firefighter_place,
                (p, line, i),
                line=line,
                tile=place,
            )

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
            self._item_step(
                p,
                B_CELL,
                ChoiceRules._wallet_cells_except,
                (g,),
                ItemRules._locksmith_take,
                (p, g, left),
                left=left,
            )

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
        self._item_step(
            p, B_STEAL, ActionRules._steal_targets, (p,), ItemRules._mechanic_steal, (p,), optional=True
        )

    def _mechanic_steal(self, p: int, cell: int | None) -> None:
        if cell is not None:
            self._steal(p, cell)

    def _item_paramedic(self, p: int, g: int) -> None:
        self._item_step(p, B_LINE, ChoiceRules._any_line, (), ItemRules._paramedic_line, (p,))

    def _paramedic_line(self, p: int, line: int) -> None:
        for c in self.line_cells[line]:
            self.wallets_on[c] += self._from_lost_found(1)
            self._touch(c)

    def _item_physicist(self, p: int, g: int) -> None:
        self._item_step(p, B_CELL, ChoiceRules._any_cell_except, (), ItemRules._physicist_first, (p,))

    def _physicist_first(self, p: int, cell: int) -> None:
        self._ctx_cell(cell)
        first = int(self.guest_on[cell])
        self._item_step(
            p,
            B_CELL,
            ChoiceRules._any_cell_except,
            (first,),
            ItemRules._physicist_second,
            (p, first),
            tile=cell,
        )

    def _physicist_second(self, p: int, first: int, cell: int) -> None:
        self._touch(cell)
        self._swap_cells(int(self.cell_of_guest[first]), cell)

    def _item_surgeon(self, p: int, g: int) -> None:
        self._give(p, self._from_lost_found(1))

    def _item_teacher(self, p: int, g: int) -> None:
        self._item_step(p, B_CELL, ChoiceRules._wallet_cells_except, (), ItemRules._teacher_source, (p,))

    def _teacher_source(self, p: int, cell: int) -> None:
        self._ctx_cell(cell)
        self._teacher_more(p, int(self.guest_on[cell]), TEACHER_MOVES)

    def _teacher_more(self, p: int, src: int, left: int) -> None:
        source = int(self.cell_of_guest[src])
        if left and self.wallets_on[source] > 0:
            self._item_step(
                p,
                B_CELL,
                ChoiceRules._cells_not_chosen,
                (),
                ItemRules._teacher_give,
                (p, src, left),
                optional=True,
                tile=source,
                left=left,
            )

    def _teacher_give(self, p: int, src: int, left: int, cell: int | None) -> None:
        if cell is None:
            return
        self._ctx_cell(cell)
        self.wallets_on[self.cell_of_guest[src]] -= 1
        self.wallets_on[cell] += 1
        self._teacher_more(p, src, left - 1)

    def _item_undertaker(self, p: int, g: int, left: int = UNDERTAKER_TILES) -> None:
        if left:
            self._item_step(
                p,
                B_CELL,
                ChoiceRules._cells_not_chosen,
                (),
                ItemRules._undertaker_give,
                (p, g, left),
                optional=True,
                left=left,
            )

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
        self._item_step(p, B_GUEST, ChoiceRules._actor_cards, (), ItemRules._use_item, (p,))

    def _item_farmer(self, p: int, g: int) -> None:
        c = int(self.cell_of_guest[g])
        for x in [c, *np.flatnonzero(self.surround[c])]:
            self.wallets_on[x] += self._from_lost_found(1)

    def _can_janitor(self, p: int, g: int) -> bool:
        return bool(self._exposed_wallet_cells_except(g).any())

    def _item_janitor(self, p: int, g: int) -> None:
        self._item_step(
            p,
            B_CELL,
            ChoiceRules._exposed_wallet_cells_not_chosen,
            (g,),
            ItemRules._janitor_take,
            (p, g),
            optional=True,
        )

    def _janitor_take(self, p: int, g: int, cell: int | None) -> None:
        if cell is None:
            return
        self._ctx_cell(cell)
        self.wallets_on[cell] -= 1
        self.wallets_on[self.cell_of_guest[g]] += 1
        self._item_janitor(p, g)

    def _item_nanny(self, p: int, g: int) -> None:
        self._item_step(p, B_CELL, ChoiceRules._wallet_cells_except, (), ItemRules._nanny_take, (p,))

    def _nanny_take(self, p: int, cell: int) -> None:
        self._touch(cell)
        w = int(self.wallets_on[cell])
        self.wallets_on[cell] = 0
        self.lost_found += w - 1
        self._give(p, 1)

    def _item_nurse(self, p: int, g: int, left: int = NURSE_SWAPS) -> None:
        if left:
            self._item_step(
                p,
                B_CELL,
                ChoiceRules._cells_surrounding,
                (g,),
                ItemRules._nurse_first,
                (p, g, left),
                optional=True,
                left=left,
            )

    def _nurse_first(self, p: int, g: int, left: int, cell: int | None) -> None:
        if cell is None:
            return
        self._touch(cell)
        first = int(self.guest_on[cell])
        self._item_step(
            p,
            B_CELL,
            ChoiceRules._any_cell_except,
            (first,),
            ItemRules._nurse_second,
            (p, g, left, first),
            tile=cell,
            left=left,
        )

    def _nurse_second(self, p: int, g: int, left: int, first: int, cell: int) -> None:
        self._touch(cell)
        self._swap_cells(int(self.cell_of_guest[first]), cell)
        self._item_nurse(p, g, left - 1)

    def _item_pilot(self, p: int, g: int) -> None:
        self.pilot[p] = 1
        self.kept_any = True

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
        self._item_step(p, B_SEAT, ChoiceRules._other_seats, (p,), ItemRules._server_target, (p,))

    def _server_target(self, p: int, q: int) -> None:
        self._ctx_seat(q)
        self.flow.do(ItemRules._server_take, p, q)
        self._decide_move(q, optional=False)  # the target's own Move (its swaps are the target's steps)

    def _server_take(self, p: int, q: int) -> None:
        self._give(p, self._take_from_player(q, 1))

    def _item_veterinarian(self, p: int, g: int) -> None:
        self._item_step(p, B_SEAT, ChoiceRules._neighbour_seats, (p,), ItemRules._veterinarian_take, (p,))

    def _veterinarian_take(self, p: int, q: int) -> None:
        self._ctx_seat(q)
        self._give(p, self._take_from_player(q, 1))

    # --- "5+" ---
    def _can_artist(self, p: int, g: int) -> bool:
        return bool(self._wallet_cells_except(g).any())

    def _item_artist(self, p: int, g: int) -> None:
        self._item_step(p, B_CELL, ChoiceRules._wallet_cells_except, (g,), ItemRules._artist_take, (p, g))

    def _artist_take(self, p: int, g: int, cell: int) -> None:
        self._touch(cell)
        self.wallets_on[self.cell_of_guest[g]] += self.wallets_on[cell]
        self.wallets_on[cell] = 0

    def _item_banker(self, p: int, g: int) -> None:
        self.wallets_on[self.cell_of_guest[g]] += self._from_lost_found(BANKER_GAIN)
        self._item_step(p, B_CELL, ChoiceRules._any_cell_except, (g,), ItemRules._banker_swap, (p, g))

    def _banker_swap(self, p: int, g: int, cell: int) -> None:
        self._touch(cell)
        self._swap_cells(int(self.cell_of_guest[g]), cell)

    def _can_captain(self, p: int, g: int) -> bool:
        return any(self.player_exposed) and bool(self._has_wallet().any())

    def _captain_targets(self, p: int) -> np.ndarray:
        """Exposed players not yet paid by this Captain (none once no tile holds a Wallet)."""
        seats = np.array(self.player_exposed, dtype=bool)
        seats[self.item_seats] = False
        if not self._has_wallet().any():
            seats[:] = False
        return seats

    def _item_captain(self, p: int, g: int) -> None:
        self._item_step(
            p, B_SEAT, ItemRules._captain_targets, (p,), ItemRules._captain_player, (p, g), optional=True
        )

    def _captain_player(self, p: int, g: int, q: int | None) -> None:
        if q is None:
            return
        self._ctx_seat(q)
        self.flow.do(ItemRules._item_captain, p, g)  # then the next player, until the user stops
        self._item_step(
            p, B_CELL, ChoiceRules._wallet_cells_except, (), ItemRules._captain_give, (q,), player=q
        )

    def _captain_give(self, q: int, cell: int) -> None:
        self._touch(cell)
        self.wallets_on[cell] -= 1
        self._give(q, 1)

    def _can_clown(self, p: int, g: int) -> bool:
        return sum(self.player_exposed) >= 2

    def _item_clown(self, p: int, g: int) -> None:
        self._item_step(p, B_SEAT, ChoiceRules._exposed_seats_except, (), ItemRules._clown_first, (p,))

    def _clown_first(self, p: int, a: int) -> None:
        self._ctx_seat(a)
        self._item_step(
            p, B_SEAT, ChoiceRules._exposed_seats_except, (a,), ItemRules._clown_second, (p, a), player=a
        )

    def _clown_second(self, p: int, a: int, b: int) -> None:
        self._ctx_seat(b)
        ga, gb = self.ident[a], self.ident[b]
        self.ident[a], self.ident[b] = gb, ga
        self.holder_of[ga], self.holder_of[gb] = b, a
        for q in (a, b):
            self._new_identity(q)

    def _new_identity(self, q: int) -> None:
        """q holds another card: what was known about the old one no longer applies."""
        self.epoch[q] += 1
        self.public_candidates[q] = True
        self.dentist_candidates[:, q] = True
        self.dentist_records = [r for r in self.dentist_records if r[1] != q]

    def _item_cop(self, p: int, g: int) -> None:
        self._item_step(p, B_SEAT, ChoiceRules._other_seats, (p,), ItemRules._cop_place, (p,))

    def _cop_place(self, p: int, q: int) -> None:
        self._ctx_seat(q)
        self.cop[q] += 1
        self.kept_any = True

    def _can_judge(self, p: int, g: int) -> bool:
        return bool(self._marks_except(g).any())

    def _item_judge(self, p: int, g: int) -> None:
        self._item_step(
            p, B_GUEST, ChoiceRules._marks_except, (g,), ItemRules._judge_discard, (p, g), optional=True
        )

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
        self._item_step(p, B_CELL, ChoiceRules._wallet_cells_except, (), ItemRules._puppeteer_take, (p,))

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
        self._item_step(p, B_SEAT, ItemRules._realtor_sources, (p,), ItemRules._realtor_source, (p,))

    def _realtor_source(self, p: int, a: int) -> None:
        self._ctx_seat(a)
        self._item_step(
            p, B_SEAT, ItemRules._realtor_destinations, (p, a), ItemRules._realtor_dest, (p, a), player=a
        )

    def _realtor_dest(self, p: int, a: int, b: int) -> None:
        self._ctx_seat(b)
        self._give(b, self._take_from_player(a, REALTOR_MOVES))

    def _item_soldier(self, p: int, g: int) -> None:
        self.soldier[p] = 1
        self.kept_any = True

    def _can_wrestler(self, p: int, g: int) -> bool:
        return len(self.deck) > 0

    def _item_wrestler(self, p: int, g: int) -> None:
        """Discard your card (its tile is exposed) and draw until you hold an unexposed Guest.
        Reading: if the deck runs out first, you keep the last card drawn (exposed: you are exposed)."""
        old = self.ident[p]
        self.holder_of[old] = -1
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
        self.holder_of[g2] = p
        self._new_identity(p)
        self.known_by[p] = seen & ~(1 << p)  # whoever saw that card knows who holds it now
        self.knows[:, p] = [bool(self.known_by[p] >> r & 1) for r in range(self.num_players)]
        if was_exposed:
            self.n_unexposed += 1
        self.player_exposed[p] = False
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

# the kinds of choice inside items (data.py ITEM_CHOICES, by (item, name)) -> the rule carrying each out
# (`ItemStep.then`): an item step finds its kind (the observation's `item_choice`) by its rule
ITEM_CHOICE_RULES: dict[tuple[str, str], Callable[..., None]] = {
    ("accountant", "destination"): ItemRules._accountant_dest,
    ("accountant", "source"): ItemRules._accountant_take,
    ("dentist", "player"): HiddenRules._dentist_target,
    ("engineer", "tile"): ItemRules._engineer_flip,
    ("firefighter", "line"): ItemRules._firefighter_line,
    ("firefighter", "place"): ItemRules._firefighter_place,
    ("locksmith", "source"): ItemRules._locksmith_take,
    ("mechanic", "steal"): ItemRules._mechanic_steal,
    ("paramedic", "line"): ItemRules._paramedic_line,
    ("physicist", "first"): ItemRules._physicist_first,
    ("physicist", "second"): ItemRules._physicist_second,
    ("teacher", "source"): ItemRules._teacher_source,
    ("teacher", "destination"): ItemRules._teacher_give,
    ("undertaker", "tile"): ItemRules._undertaker_give,
    ("actor", "card"): ItemRules._use_item,
    ("janitor", "tile"): ItemRules._janitor_take,
    ("nanny", "tile"): ItemRules._nanny_take,
    ("nurse", "first"): ItemRules._nurse_first,
    ("nurse", "second"): ItemRules._nurse_second,
    ("server", "player"): ItemRules._server_target,
    ("veterinarian", "player"): ItemRules._veterinarian_take,
    ("artist", "tile"): ItemRules._artist_take,
    ("banker", "tile"): ItemRules._banker_swap,
    ("captain", "player"): ItemRules._captain_player,
    ("captain", "source"): ItemRules._captain_give,
    ("clown", "first"): ItemRules._clown_first,
    ("clown", "second"): ItemRules._clown_second,
    ("cop", "player"): ItemRules._cop_place,
    ("judge", "mark"): ItemRules._judge_discard,
    ("puppeteer", "tile"): ItemRules._puppeteer_take,
    ("realtor", "source"): ItemRules._realtor_source,
    ("realtor", "destination"): ItemRules._realtor_dest,
}
check_handlers(ITEM_CHOICE_RULES, [(c.item, c.name) for c in ITEM_CHOICES], "Exposed item choices")
_ITEM_CHOICE_OF = {ITEM_CHOICE_RULES[(c.item, c.name)]: i for i, c in enumerate(ITEM_CHOICES)}
if len(_ITEM_CHOICE_OF) != len(ITEM_CHOICES) or {c.item for c in ITEM_CHOICES} - ITEM_EFFECTS.keys():
    raise ValueError("Exposed item choices: two kinds of choice share one rule, or an item is unknown")
