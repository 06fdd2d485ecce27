"""A game's state as a saved position: what a loaded position must satisfy (rulebook: the conservation
of the 25 artifact pieces and the 25 event cards, Storage's capacity, the dealt roles, deaths and
Reveals, the win conditions; and what the rules' own steps leave on the turn flow at a decision).

`check_invariants` states the conservation laws (the tests check them along games); `check_position`
adds, when a position is loaded (`Artifacts.from_dict`), every other rule a state keeps: each value's
kind, length and range, the table's consistency (abilities, clears, the card and its status, Delayed
events, private checks, the round window's order, Spain's vault), the public records, and the turn
flow frame by frame (only the steps and decisions the rules push, where they push them, each for the
right seat with the right arguments; an open vote's voters, cast ballots and close). Each refusal is a
PositionError naming the rule broken."""

from __future__ import annotations

import numpy as np

from envs.core import PositionError
from envs.core.flow import Decide, Do
from envs.core.position import ints_within

from . import data as D
from .vault import Vault
from .votes import PIECE_VOTES, VOTES

A = D.NUM_ARTIFACTS


def _law(ok: bool, message: str) -> None:
    """A conservation law (check_invariants: AssertionError, as the engine contract says)."""
    if not ok:
        raise AssertionError(message)


def _rule(ok: bool, message: str) -> None:
    """A rule a loaded position breaks (check_position)."""
    if not ok:
        raise PositionError(f"artifacts position breaks the rules: {message}")


def _flags(value, length: int) -> bool:
    return len(value) == length and all(type(x) is bool for x in value)


class PositionRules:
    """The conservation laws and what a loaded position must satisfy (a mixin of rules.Artifacts)."""

    # ===== the conservation laws (checked along games by the tests) ================================
    def check_invariants(self) -> None:
        pieces = [self.storage[a] + self.sold[a] + self.discard[a] for a in range(A)]
        for c in self.pile:
            if c < D.NUM_ARTIFACT_CARDS:
                pieces[c // D.PIECES_PER_ARTIFACT] += 1
        if self.card_in_hand:
            pieces[self.card // D.PIECES_PER_ARTIFACT] += 1
        _law(pieces == [D.PIECES_PER_ARTIFACT] * A, f"artifact pieces not conserved: {pieces} per artifact")
        _law(len(set(self.pile)) == len(self.pile), "a card is twice in the draw pile")
        _law(not self.card_in_hand or self.card not in self.pile, "the card in hand is also in the draw pile")
        events_in_pile = [c - D.NUM_ARTIFACT_CARDS for c in self.pile if c >= D.NUM_ARTIFACT_CARDS]
        _law(
            len(events_in_pile) + sum(self.events_gone) == D.NUM_EVENTS
            and not any(self.events_gone[e] for e in events_in_pile),
            "event cards not conserved: each is in the draw pile or gone, once",
        )
        _law(
            min(self.storage + self.sold + self.discard) >= 0, "a negative count in Storage, Sold or Discard"
        )
        over = self.phase in (D.PH_OVERFLOW, D.PH_REPLACE) or self.winner != D.NO_WINNER
        _law(self.storage_total() <= self.capacity + (1 if over else 0), "Storage over capacity")
        _law(
            sorted(int(r) for r in self.roles) == list(self.chart),
            "the roles dealt differ from the role chart",
        )
        if self.vault is not None:
            _law(tuple(self.sold + self.discard) in self.vault, "Spain: the piles left the public knowledge")
        for s in range(self.num_players):
            _law(self.alive[s] or self.revealed[s], f"player {s} is dead but not Revealed")
        if self.winner == D.NO_WINNER:
            _law(not self.possessed_dead(), "the Possessed is dead but the Looters have not won")
            # a Looter who announced an Active ability counts as Revealed only after its effect
            _law(
                not self.all_looters_revealed() or self.phase == D.PH_TARGET,
                "every Looter is Revealed but the Academics have not won",
            )
            _law(
                max(self.storage) < D.ACADEMIC_COLLECTION, "4 pieces of one artifact in Storage but no winner"
            )
            _law(
                self.spain or not self.looters_pile_condition(),
                "2 pieces of each artifact in Sold + Discard but the Looters have not won",
            )
            _law(self.current_player() >= 0, "the game goes on but nobody is to act")

    # ===== a loaded position =======================================================================
    def check_position(self) -> None:
        """Refuse (PositionError, naming the rule) a state the rules cannot reach: the values' kinds
        and ranges first (so that nothing below reads out of range), then the table, the public
        records, the conservation laws, the turn flow, and a decision waiting with a legal action."""
        self._check_values()
        self._check_table()
        self._check_records()
        self._check_flow()
        super().check_position()  # check_invariants, and a seat to act with a legal action

    def _check_values(self) -> None:
        n, R = self.num_players, D.NUM_RESOURCES
        for name in ("alive", "revealed", "cleared", "ability_used"):
            _rule(_flags(getattr(self, name), n), f"{name} must hold {n} true/false flags, one per seat")
        _rule(
            _flags(self.events_gone, D.NUM_EVENTS), f"events_gone must hold {D.NUM_EVENTS} true/false flags"
        )
        _rule(
            ints_within(self.roles.tolist(), 0, D.NUM_ROLES - 1, n)
            and sorted(self.roles.tolist()) == list(self.chart),
            "the roles dealt differ from the role chart",
        )
        _rule(1 <= self.round <= D.MAX_ROUNDS, f"round {self.round} is not within 1..{D.MAX_ROUNDS}")
        _rule(
            ints_within(self.silenced_until, 0, self.round + D.MAX_SILENCE, n),
            f"silenced_until must give each of the {n} seats a round within 0..round + {D.MAX_SILENCE}",
        )
        _rule(
            ints_within(self.ballots, -1, self.num_actions - 1, n),
            f"ballots must give each of the {n} seats -1 or an action",
        )
        for name in ("storage", "sold", "discard"):
            _rule(
                ints_within(getattr(self, name), 0, D.PIECES_PER_ARTIFACT, A),
                f"{name} must count 0..5 pieces of each of the {A} artifacts",
            )
        _rule(
            ints_within(self.resources_bought, 0, D.MAX_PURCHASES, R),
            f"resources_bought must count each of the {R} resources within 0..{D.MAX_PURCHASES}",
        )
        _rule(
            ints_within(self.pile, 0, D.NUM_CARDS - 1, None),
            f"the draw pile holds card ids 0..{D.NUM_CARDS - 1}",
        )
        for name in ("first_seat", "drawer"):
            _rule(0 <= getattr(self, name) < n, f"{name} {getattr(self, name)} is not a seat")
        _rule(0 <= self.card < D.NUM_CARDS, f"the card {self.card} is not a card id")
        for name in ("order", "voting"):  # (seat order from the drawer: order's first is checked below)
            seats = getattr(self, name)
            _rule(
                ints_within(seats, 0, n - 1, None) and len(set(seats)) == len(seats),
                f"{name} must list distinct seats",
            )
            _rule(
                sum(b < a for a, b in zip(seats, seats[1:])) + (len(seats) > 1 and seats[-1] > seats[0]) <= 1,
                f"{name} must list seats in seat order from one of them",
            )
        _rule(
            self.capacity in (D.STORAGE_LIMIT, D.STORAGE_LIMIT + D.EXTRA_SLOT),
            f"Storage capacity {self.capacity} is neither 5 nor 6",
        )
        _rule(
            self.storage_event == -1 or self.storage_event in D.STORAGE_EVENTS,
            "storage_event is not a Storage event",
        )
        _rule(-1 <= self.suggested < R, f"suggested {self.suggested} is not a resource")
        _rule(0 <= self.bought_now < 1 << R, f"bought_now {self.bought_now} is not a set of resources")
        _rule(self.winner in (D.NO_WINNER, D.ACADEMICS, D.LOOTERS), f"winner {self.winner} is not a side")
        _rule(
            -1 <= self.last_vote_kind < D.NUM_VOTE_KINDS,
            f"last_vote_kind {self.last_vote_kind} is not a vote kind",
        )
        _rule(self.num_decisions >= 0, "num_decisions is negative")
        _rule(all(type(line) is str for line in self.log), "the log holds text lines")
        _rule(
            all(type(p) is tuple and ints_within(p, 0, n - 1, 2) and p[0] != p[1] for p in self.peeks),
            "peeks must list (checker, checked) pairs of two different seats",
        )
        _rule(
            all(
                type(d) is tuple and ints_within(d, 0, D.NUM_EVENTS + D.MAX_ROUNDS + D.MAX_DELAY, 4)
                for d in self.delayed
            ),
            "delayed must list (event, resolve round, drawn round, Ballot Box) entries",
        )
        _rule(np.isfinite(self.records).all(), "the records hold a value that is not a number")

    def _check_table(self) -> None:
        n = self.num_players
        for s in range(n):
            role = int(self.roles[s])
            if self.ability_used[s]:
                _rule(
                    D.ROLE_ACTIVE[role] and self.revealed[s],
                    f"player {s} used an Active ability it has not, unrevealed",
                )
            if self.cleared[s]:
                _rule(D.ROLE_SIDE[role] == D.ACADEMICS, f"player {s} is publicly cleared but is a Looter")
        shaman_used = any(self.ability_used[s] and self.roles[s] == D.SHAMAN for s in range(n))
        _rule(
            not self.shaman_curse or (sum(self.discard) == 0 and shaman_used),
            "the Shaman's curse waits while Discard holds pieces, or no Shaman used the Seance",
        )
        _rule(
            self.config.talk or not (self.talk_last.any() or self.talk_record.any()),
            "a discussion took place with talk off",
        )
        _rule(self.spain or not self.called_now, "a check was Called off the Spain site")
        self._check_card()
        self._check_delayed()
        self._check_peeks()
        order = self.order
        living = [s for s in range(n) if self.alive[s]]
        _rule(
            order[:1] == (self.drawer,)
            and all((a - self.drawer) % n < (b - self.drawer) % n for a, b in zip(order, order[1:]))
            and set(living) <= set(order),
            "the round window's order must be the living seats from the drawer, in seat order",
        )
        if self.winner == D.NO_WINNER:
            _rule(self.end_reason == "", "the game goes on but has an end reason")
        else:
            _rule(self.end_reason != "", "the game is won without a reason")
            _rule(self.winner in self._winning_sides(), "the winner's side meets none of its win conditions")
        self._check_vault()

    def _check_card(self) -> None:
        card = self.card
        ev = card - D.NUM_ARTIFACT_CARDS
        if self.card_in_hand:
            _rule(ev < 0, "the card in hand is not an artifact")
        else:
            _rule(ev < 0 or self.events_gone[ev], "the current event card is not gone from the draw pile")
        e = D.EVENTS[ev] if ev >= 0 else None
        bits = self.bought_now
        for flag, r in (("ballot_box", D.BALLOT_BOX), ("skipped", D.LAWYER), ("red_tape", D.RED_TAPE)):
            _rule(getattr(self, flag) == bool(bits >> r & 1), f"{flag} and this round's purchases disagree")
        _rule(
            not self.ballot_box or (e is not None and e.type == D.RANDOM),
            "a Ballot Box bought for no Random event",
        )
        _rule(
            not (self.skipped or self.red_tape) or (e is not None and e.type == D.ELECTION),
            "a Lawyer or Red Tape bought for no Election",
        )
        _rule(
            not self.nulled or (ev in D.STORAGE_EVENTS and self.storage_event != ev),
            "a card nulled that is not a Storage event drawn while the other was active",
        )
        _rule(
            self.storage_event < 0 or self.events_gone[self.storage_event],
            "the active Storage event was never drawn",
        )
        _rule(
            all(self.resources_bought[r] > 0 for r in range(D.NUM_RESOURCES) if bits >> r & 1),
            "a resource bought this round is not counted",
        )
        _rule(
            self.capacity == D.STORAGE_LIMIT or any(self.events_gone[e] for e in D.STORAGE_EVENTS),
            "the Extra Storage Slot is open but no Storage event was drawn",
        )

    def _check_delayed(self) -> None:
        seen = set()
        for ev, due, drawn, ballot_box in self.delayed:
            _rule(
                ev < D.NUM_EVENTS and ev not in seen and self.events_gone[ev],
                f"delayed event {ev} is not a drawn event, once",
            )
            seen.add(ev)
            e = D.EVENTS[ev]
            _rule(
                e.delay > 0 or e.type == D.ELECTION, f"delayed event {ev} is neither Delayed nor an Election"
            )
            _rule(
                1 <= drawn <= self.round <= due and due == drawn + (e.delay or 1),
                f"delayed event {ev}: drawn in round {drawn}, resolving in round {due}, now round {self.round}",
            )
            _rule(
                ballot_box in (0, 1) and (not ballot_box or e.type == D.RANDOM),
                f"delayed event {ev}: a Ballot Box for no Random event",
            )

    def _check_peeks(self) -> None:
        n, greece = self.num_players, self.site == "greece"
        fixed = n if greece else 0  # Greece: each seat knows the next seat's side from the start
        _rule(
            self.peeks[:fixed] == tuple((p, (p + 1) % n) for p in range(fixed)),
            "Greece: each seat's check of the next seat comes first",
        )
        _rule(
            len(self.peek_options) == len(self.peeks) and all(type(o) is tuple for o in self.peek_options),
            "peek_options gives each check the seats its checker could name",
        )
        for i, (options, (who, whom)) in enumerate(zip(self.peek_options, self.peeks)):
            if i < fixed:
                _rule(options == (), f"check {i} is fixed by the seating: its checker chose no seat")
                continue
            _rule(
                ints_within(options, 0, n - 1, None)
                and list(options) == sorted(set(options))
                and who not in options
                and whom in options,
                f"check {i}: the seats it could name must be other seats, the one named among them",
            )

    def _check_vault(self) -> None:
        if not self.spain:
            _rule(self.vault is None, "a vault off the Spain site")
            return
        vault = self.vault
        _rule(
            type(vault) is Vault and type(vault.configs) is tuple and vault.configs,
            "Spain needs a non-empty vault",
        )
        configs = vault.configs
        _rule(
            all(type(c) is tuple and ints_within(c, 0, D.PIECES_PER_ARTIFACT, 2 * A) for c in configs),
            "the vault lists (Sold, Discard) vectors of piece counts",
        )
        _rule(
            all(a < b for a, b in zip(configs, configs[1:])), "the vault's vectors must be sorted, each once"
        )
        hidden = self.hidden_pieces()
        sizes = (sum(self.sold), sum(self.discard))
        _rule(
            all((sum(c[:A]), sum(c[A:])) == sizes and min(Vault.pile(c, hidden)) >= 0 for c in configs),
            "a vector in the vault disagrees with the sizes of Sold and Discard or the pieces hidden",
        )

    def _winning_sides(self) -> set[int]:
        """The sides whose win condition holds on this table (a finished game's winner is one)."""
        best = max(self.storage)
        won = set()
        if (
            best >= D.ACADEMIC_COLLECTION
            or self.all_looters_revealed()
            or (not self.pile and best >= D.EMPTY_PILE_COLLECTION)
        ):
            won.add(D.ACADEMICS)
        if (
            self.possessed_dead()
            or self.looters_pile_condition()
            or (not self.pile and best < D.EMPTY_PILE_COLLECTION)
        ):
            won.add(D.LOOTERS)
        return won

    # ===== the public records =====================================================================
    def _check_records(self) -> None:
        rec = self.records
        _rule(np.array_equal(rec, np.round(rec)), "the records count whole votes and talk tokens")
        last = self.last_vote
        _rule(
            np.isin(last, (0, 1)).all() and (last.sum(axis=1) <= 1).all(),
            "last_vote gives each seat at most one choice",
        )
        if self.last_vote_kind < 0:
            _rule(not last.any(), "last_vote holds choices but no vote has closed")
        else:
            kind = D.VOTE_PHASES[self.last_vote_kind]
            cols = self._vote_columns(kind)
            _rule(
                not np.delete(last, cols, axis=1).any(),
                "last_vote holds a choice its vote kind does not offer",
            )
        keep_sell, majority = self.keep_sell, self.majority_record
        _rule(
            (keep_sell >= 0).all() and (keep_sell.sum(axis=1) <= D.MAX_ARTIFACT_DRAWS).all(),
            f"keep_sell counts 0..{D.MAX_ARTIFACT_DRAWS} artifact votes per seat",
        )
        _rule(
            (majority >= 0).all()
            and (majority.sum(axis=1) <= D.VOTES_PER_SEAT).all()
            and (majority.sum(axis=1) >= keep_sell.sum(axis=1)).all(),
            "majority_record counts every closed vote of a seat, its artifact votes among them",
        )
        elect = self.election_record
        _rule(
            (elect >= 0).all() and (elect.sum(axis=1) <= D.MAX_ELECTIONS).all(),
            f"election_record counts 0..{D.MAX_ELECTIONS} election votes per seat",
        )
        talk, total = self.talk_last, self.talk_record
        _rule(
            np.isin(talk, (-1, 0, 1)).all() and (np.abs(talk).sum(axis=1) <= 1).all() and not talk.trace(),
            "talk_last gives each seat at most one token, about another seat",
        )
        _rule(
            (np.abs(total).sum(axis=1) <= D.MAX_ELECTIONS).all() and not np.diag(total).any(),
            f"talk_record counts at most {D.MAX_ELECTIONS} tokens per seat, none about itself",
        )

    def _vote_columns(self, kind: int) -> list[int]:
        """last_vote's columns a vote of this kind may fill: [yes, no, seat x n, artifact x5, none]."""
        n = self.num_players
        if kind in (D.PH_KEEP, D.PH_AGREE):
            return [0, 1]
        if kind == D.PH_ELECT:
            return list(range(2, 2 + n))
        return list(range(2 + n, 2 + n + A + (1 if PIECE_VOTES[kind].may_choose_none else 0)))

    def _published_ballot(self, kind: int, ballot: int) -> int:
        """last_vote's column for a ballot as votes.py stores it (-1: no ballot of that vote kind)."""
        n = self.num_players
        if kind in (D.PH_KEEP, D.PH_AGREE):
            return {self.A_YES: 0, self.A_NO: 1}.get(ballot, -1)
        if kind == D.PH_ELECT:
            return 2 + ballot if 0 <= ballot < n else -1
        if ballot == self.A_PASS:
            return 2 + n + A
        return 2 + n + ballot - self.A_ART if 0 <= ballot - self.A_ART < A else -1

    # ===== the turn flow ==========================================================================
    def _check_flow(self) -> None:
        frames = self.flow.frames
        if self.winner != D.NO_WINNER:
            _rule(not frames, "the game is won but the turn flow goes on")
            return
        _rule(bool(frames), "the game goes on but the turn flow is empty")
        cls = type(self)
        bottom = frames[0]
        _rule(
            type(bottom) is Do and bottom.run in (cls._end_round, cls._round) and bottom.args == (),
            "the turn flow starts from the round's end (_end_round) or the next round (_round)",
        )
        first = next((i for i, f in enumerate(frames) if type(f) is Decide), len(frames))
        _rule(
            first > 0 and all(type(f) is Decide for f in frames[first:]),
            "a decision waits under a step of the rules",
        )
        for i in range(1, first):
            self._check_step(frames, i, first)
        block = frames[first:]
        if block:
            self._check_decisions(frames, first)
        # the card in hand waits for the window and the keep vote of its round
        keep_open = block and block[-1].kind == D.PH_KEEP
        started = bottom.run is cls._end_round and self.card < D.NUM_ARTIFACT_CARDS
        in_play = started and (frame_run(frames, 1) is cls._card or keep_open)
        _rule(self.card_in_hand == bool(in_play), "card_in_hand disagrees with the round's steps")
        ev = self.card - D.NUM_ARTIFACT_CARDS
        if frame_run(frames, 1) is cls._card and ev >= 0:  # the round's event, still to be followed
            _rule(
                all(d[0] != ev for d in self.delayed),
                "the round's event is still to be followed but already delayed",
            )
            _rule(
                ev not in D.STORAGE_EVENTS or self.nulled or self.storage_event == ev,
                "the round's Storage event is neither active nor nulled",
            )
        agree = block[-1].args[1] if block and block[-1].kind == D.PH_AGREE else -1
        _rule(
            self.suggested == agree,
            "suggested names a resource but no vote to buy it is open (or the other way)",
        )
        if not (block and block[-1].kind in D.VOTE_KIND):  # no vote open: the last vote's ballots, published
            self._check_closed_vote()

    def _check_step(self, frames: list, i: int, first: int) -> None:
        """A step (Do frame) below the decisions: one the rules push there, with its arguments."""
        cls, n = type(self), self.num_players
        frame = frames[i]
        run, args = frame.run, frame.args
        end_round = frames[0].run is cls._end_round
        ints = all(type(x) is int for x in args)
        if run is cls._card:
            _rule(i == 1 and end_round and not args, "the card's step (_card) comes right after the draw")
            window = frames[2] if len(frames) > 2 else None
            _rule(
                window is not None
                and (
                    frame_run(frames, 2) is cls._window
                    or (type(window) is Decide and window.kind == D.PH_WINDOW)
                ),
                "the round window comes before the card's step",
            )
        elif run is cls._window:
            _rule(
                i == 2 and frame_run(frames, 1) is cls._card,
                "the round window's step sits on the card's step",
            )
            _rule(
                ints and len(args) == 1 and 0 <= args[0] <= len(self.order),
                "the round window's step names a place in its order",
            )
        elif run is cls._resolve:
            _rule(
                all(frame_run(frames, j) is cls._resolve for j in range(1, i)),
                "an event resolves only from the round's steps",
            )
            _rule(
                ints and len(args) == 2 and 0 <= args[0] < D.NUM_EVENTS and args[1] in (0, 1),
                "an event's step names an event and its Ballot Box",
            )
            ev, ballot_box = args
            _rule(self.events_gone[ev], f"event {ev} resolves but was never drawn")
            _rule(
                not ballot_box or D.EVENTS[ev].type == D.RANDOM,
                f"event {ev} resolves with a Ballot Box but is not Random",
            )
            if end_round:  # the round's own card, followed now (_card): neither nulled, skipped nor delayed
                _rule(
                    i == 1
                    and ev == self.card - D.NUM_ARTIFACT_CARDS
                    and ballot_box == int(self.ballot_box)
                    and not (self.nulled or self.skipped or self.red_tape or D.EVENTS[ev].delay)
                    and all(d[0] != ev for d in self.delayed),
                    "only the round's own card resolves during the round, as it was bought for",
                )
            else:
                _rule(all(d[0] != ev for d in self.delayed), f"event {ev} resolves but is still delayed")
        elif run is cls._extra_sale:
            _rule(
                i == 1 and end_round and not args,
                "the extra sale follows the keep vote of the round's artifact",
            )
        elif run is cls._offer_check:
            _rule(ints and len(args) == 1 and 0 <= args[0] < n, "a side check is offered to a seat")
        elif run is cls._offer_death_ability:
            _rule(
                ints and len(args) == 1 and 0 <= args[0] < n, "a dying player's ability is offered to a seat"
            )
            s = args[0]
            _rule(
                not self.alive[s] and D.ROLE_ACTIVE[int(self.roles[s])] and not self.ability_used[s],
                f"player {s} is offered a dying player's ability but is alive, or has none left",
            )
        else:  # a vote's close or an Election's vote, right under its decisions (checked with them)
            _rule(
                run in self._vote_steps() and i == first - 1 and first < len(frames),
                f"the step {getattr(run, '__qualname__', run)} is not one the rules leave waiting here",
            )

    def _vote_steps(self) -> set:
        """The steps that wait only under a vote's or a discussion's decisions."""
        return {vote.close for vote in VOTES.values()} | {type(self)._elect_vote}

    def _check_decisions(self, frames: list, first: int) -> None:
        """The decisions waiting (the top of the flow): one seat's decision, the discussion before an
        Election (one per talker, over the Election's vote), or an open vote (one per voter yet to
        vote, over its close)."""
        cls, n = type(self), self.num_players
        block = frames[first:]
        top = block[-1]
        kind = top.kind
        for frame in block:
            _rule(
                frame.kind == kind
                and all(type(x) is int for x in frame.args)
                and frame.args[:1] == (frame.player,),
                "the decisions waiting together are of one kind, each naming its own seat",
            )
            _rule(0 <= frame.player < n, f"seat {frame.player} is not a seat")
        below = frames[first - 1]
        if kind in D.VOTE_KIND:
            self._check_open_vote(block, first)
            return
        if kind == D.PH_TALK:
            _rule(self.config.talk, "a discussion with talk off")
            self._check_voters(block, self.voters(), "talkers")
            _rule(
                all(
                    frame.legal is cls._talk_options and frame.then is cls._talk and len(frame.args) == 1
                    for frame in block
                ),
                "a discussion step runs the discussion's rules",
            )
            _rule(
                not any(self.talk_last[f.player].any() for f in block),
                "a seat yet to talk has spoken already",
            )
            _rule(
                type(below) is Do and below.run is cls._elect_vote,
                "a discussion comes before an Election's vote",
            )
            self._check_election(below.args)
            return
        rules = {
            D.PH_WINDOW: (cls._window_options, cls._window_choice, 2),
            D.PH_TARGET: (cls._target_options, cls._target_choice, 1),
            D.PH_DEATH: (cls._death_options, cls._death_choice, 1),
            D.PH_FOXFIRE: (cls._foxfire_options, cls._foxfire_choice, 1),
            D.PH_PEEK: (cls._other_living_options, cls._check_choice, 1),
        }
        _rule(kind in rules, f"no decision of kind {kind}")
        _rule(
            below.run not in self._vote_steps(),
            "a vote's close or an Election waits under another decision",
        )
        _rule(len(block) == 1, "only votes and discussions leave several decisions waiting")
        legal, then, arity = rules[kind]
        _rule(
            top.legal is legal and top.then is then and len(top.args) == arity,
            f"decision {kind} runs another decision's rules",
        )
        s = top.player
        role = int(self.roles[s])
        if kind == D.PH_WINDOW:
            i = top.args[1]
            _rule(
                first == 2 and frame_run(frames, 1) is cls._card,
                "the round window comes before the card's step",
            )
            _rule(
                0 <= i < len(self.order) and self.order[i] == s and self.alive[s],
                "the round window's turn is not that seat's",
            )
        elif kind == D.PH_TARGET:
            _rule(
                self.revealed[s] and D.ROLE_ACTIVE[role] and not self.ability_used[s],
                f"player {s} chooses a target for an ability it cannot use",
            )
        elif kind == D.PH_DEATH:
            _rule(
                not self.alive[s] and D.ROLE_ACTIVE[role] and not self.ability_used[s],
                f"player {s} is offered a dying player's ability but is alive, or has none left",
            )
        elif kind == D.PH_PEEK:
            _rule(self.alive[s], f"player {s} checks a side but is dead")

    def _check_voters(self, block: list, voters: list[int] | tuple[int, ...], what: str) -> None:
        """The decisions waiting are those of the last voters, the first of them on top."""
        waiting = [frame.player for frame in reversed(block)]
        _rule(
            list(voters[len(voters) - len(waiting) :]) == waiting and len(waiting) <= len(voters),
            f"the {what} waiting are not the last {what} in seat order from the drawer",
        )

    def _check_open_vote(self, block: list, first: int) -> None:
        frames = self.flow.frames
        below = frames[first - 1]
        kind = block[-1].kind
        vote = VOTES[kind]
        context = block[-1].args[1:]
        _rule(
            all(f.legal is vote.legal and f.then is vote.cast and f.args[1:] == context for f in block),
            "the ballots waiting are of one vote, each with its rules",
        )
        _rule(
            type(below) is Do and below.run is vote.close and below.args == context,
            "an open vote sits on its close",
        )
        voters = self.voters()
        _rule(
            self.voting == tuple(voters), "the voters of the open vote are not the living, unsilenced seats"
        )
        self._check_voters(block, voters, "voters")
        cast = voters[: len(voters) - len(block)]
        for s in range(self.num_players):
            if s not in cast:
                _rule(self.ballots[s] == -1, f"player {s} has a ballot but has not voted")
        cls = type(self)
        if kind == D.PH_KEEP:
            _rule(
                not context and first == 2 and frame_run(frames, 0) is cls._end_round and self.card_in_hand,
                "the keep vote follows the round's card, an artifact in hand",
            )
        elif kind == D.PH_AGREE:
            r, suggester = context if len(context) == 2 else (-1, -1)
            _rule(
                0 <= r < D.NUM_RESOURCES and 0 <= suggester < self.num_players,
                "a vote to buy names a resource and who suggested it",
            )
            window = frames[first - 2]
            _rule(
                type(window) is Do
                and window.run is cls._window
                and 1 <= window.args[0] <= len(self.order)
                and self.order[window.args[0] - 1] == suggester,
                "a vote to buy follows its suggestion in the round window",
            )
        elif kind == D.PH_ELECT:
            self._check_election(context)
        else:
            _rule(len(context) == 2 and context[0] == kind, "a vote over artifacts names its kind")
            new = context[1]
            if kind in (D.PH_OVERFLOW, D.PH_REPLACE):
                _rule(
                    0 <= new < A and self.storage[new] > 0 and self.storage_total() == self.capacity + 1,
                    "a vote for a full Storage follows a piece added over its capacity",
                )
            else:
                _rule(new == -1, "only a full Storage's vote names the piece just added")
        for s in cast:
            ballot = self.ballots[s]
            if kind == D.PH_ELECT:
                ok = 0 <= ballot < self.num_players and self.alive[ballot]
            else:
                mask = np.zeros(self.num_actions, dtype=bool)
                vote.legal(self, mask, s, *context)
                ok = 0 <= ballot < self.num_actions and bool(mask[ballot])
            _rule(ok, f"player {s}'s ballot {ballot} is not one the vote allows")

    def _check_election(self, args: tuple) -> None:
        _rule(
            len(args) == 2 and all(type(x) is int for x in args) and 0 <= args[0] < D.NUM_EVENTS,
            "an Election names its event",
        )
        ev, count = args
        e = D.EVENTS[ev]
        _rule(
            self.events_gone[ev] and e.target in (D.T_ELECT, D.T_RANDOM) and count == e.count,
            f"event {ev} holds no Election of {count}",
        )

    def _check_closed_vote(self) -> None:
        """No vote open: `voting` and `ballots` are the last closed vote's, as last_vote publishes them."""
        last, n = self.last_vote, self.num_players
        if self.last_vote_kind < 0:
            _rule(self.voting == () and self.ballots == [-1] * n, "ballots or voters but no vote has closed")
            return
        kind = D.VOTE_PHASES[self.last_vote_kind]
        for s in range(n):
            if s in self.voting:
                column = self._published_ballot(kind, self.ballots[s])
                _rule(column >= 0 and last[s, column] == 1, f"player {s}'s ballot disagrees with last_vote")
            else:
                _rule(
                    self.ballots[s] == -1 and not last[s].any(),
                    f"player {s} did not vote but has a ballot or a published choice",
                )


def frame_run(frames: list, i: int):
    """The function of the step at frames[i] (None for a decision or past the end)."""
    frame = frames[i] if 0 <= i < len(frames) else None
    return frame.run if type(frame) is Do else None
