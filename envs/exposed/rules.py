"""Exposed, the hidden-identity game of Guests on a grid, as a pure engine.

The rule text's order: set-up (grid, Wallets, Identity cards, Marks); on your turn one of four actions
(Move, Steal, Expose, Snitch), a stolen Mark offering its item; being exposed; clean-up (empty Marks
discarded, new Marks drawn); the game ends at once when one player is left unexposed or a player holds
7 Wallets. Readings of what the text leaves open are marked "Reading" and listed in RULES.md.

Every choice inside an action (the second swap of a Move, the Snitch's tile, a Mark's item offer, each
step of an item, the Dentist target's answer, the Pilot/Soldier turn-start options) is its own decision
of the player who must choose, on one flat action space per configuration (see `action_groups`).

The turn runs on one `envs.core.flow.TurnFlow` (`self.flow`), a stack of frames naming methods of
`Exposed`: a turn pushes `Do(_end_action)` (the clean-up) under `Decide(ACTION)`, and each choice
pushes what follows it. The decision kinds (what the observation's `decision` piece shows) are
ACTION, MOVE1, MOVE2, SNITCH_FLIP, OFFER, PICK (an item step, described by an `ItemStep`), DENTIST and
PILOT; their first argument is always the deciding seat. `_advance` plays the `Do` steps, checks the
end of the game between steps, and ends an item step whose choices an earlier step took away.
Items are items.py's `ITEM_EFFECTS` (item name -> effect) and `ITEM_CAN_ACT` (whether an item has a
possible first step), both checked at import against the item names of data.py.

What a player count fixes is one `ExposedDefinition` (definition.py: geometry, the set-up's Wallets,
action offsets, layouts, the common frames, the observation's index tables), shared by every game and
copy; everything else is the state, which `clone` copies by the type of each value and a saved
position writes as data (positions.py: what is derived, what a loaded position must satisfy).
Bookkeeping apart from the rules: `_stamp` counts the steps that may change what a player knows
(every step but a swap, a pass or a clean-up that changed nothing; `touch` after editing a state by
hand), so an observation writes a seat's knowledge again only when the stamp moved since it last
wrote that seat's (each seat's is kept), and `_undoable_swaps` is computed once per position for the
masks and the observation.

The rules are written by family, each a mixin class of `Exposed` in its own module (every method
is still `Exposed._name`, as frames and tables name them): table.py (Wallets, tiles, exposure, Marks),
movement.py (Move, no reversal, the Pilot's swap), actions.py (Steal, Expose, Snitch), choices.py and
items.py (the items), hidden.py (the Dentist; what `resample_hidden` redraws), ending.py (the end),
observe.py (the observation's writing), describe.py (words, invariants), positions.py (the state as
a value: derived caches, the checks of a loaded position); decisions.py holds the decision kinds.
Here: the set-up, the turn (`_start_turn`, `_advance`, `_end_action`), the contract.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from envs.core import Game, GameType
from envs.core.config import require_choice, require_range
from envs.core.flow import Decide, Do, TurnFlow

from .actions import ActionRules
from .choices import ChoiceRules
from .data import EMPTY_MARK_RULES, EXPOSURE_REWARDS, ITEM_GUEST, MAX_DECISIONS, MAX_PLAYERS, MIN_PLAYERS

# the names importers take from here that live in the family modules now (re-exported)
from .decisions import ACTION as ACTION
from .decisions import B_GUEST as B_GUEST
from .decisions import B_STEAL as B_STEAL
from .decisions import DENTIST as DENTIST
from .decisions import MOVE1 as MOVE1
from .decisions import MOVE2 as MOVE2
from .decisions import NUM_DECISIONS as NUM_DECISIONS
from .decisions import OFFER as OFFER
from .decisions import PICK, PILOT
from .decisions import SNITCH_FLIP as SNITCH_FLIP
from .definition import ExposedDefinition
from .definition import definition as definition
from .describe import DescribeRules
from .ending import EndRules
from .hidden import HiddenRules, _draw_distinct
from .items import ITEM_CAN_ACT as ITEM_CAN_ACT
from .items import ITEM_EFFECTS as ITEM_EFFECTS
from .items import ITEM_STEPS, ItemRules
from .items import ItemStep as ItemStep
from .movement import MovementRules
from .observe import _KEPT_SCALE, ObservationRules, _ObsSource, _scale_table
from .observe import wallet_scale as wallet_scale
from .positions import PositionRules
from .table import TableRules


@dataclass(frozen=True)
class ExposedConfig:
    num_players: int = 4
    # reward for exposing a player: 1 (rule text) or 2 (printed rulebook)
    exposure_reward: int = 1
    # a newly drawn Mark whose tile has no Wallet: "discard" it, expose its tile and draw again (rule
    # text) or put 1 "wallet" from the Lost & Found on it (printed rulebook)
    empty_new_mark: str = "discard"
    # the faces truncate a game still going after this many decisions (RULES.md, "Maximum length")
    max_decisions: int = MAX_DECISIONS

    def validate(self) -> None:
        require_range("num_players", self.num_players, MIN_PLAYERS, MAX_PLAYERS)
        require_choice("exposure_reward", self.exposure_reward, EXPOSURE_REWARDS)
        require_choice("empty_new_mark", self.empty_new_mark, EMPTY_MARK_RULES)
        require_range("max_decisions", self.max_decisions, 1, 10**9)


class Exposed(
    TableRules,
    MovementRules,
    ActionRules,
    ChoiceRules,
    ItemRules,
    HiddenRules,
    EndRules,
    ObservationRules,
    DescribeRules,
    PositionRules,
    Game,
):
    """One game of Exposed; seats 0..n-1, play proceeds clockwise (seat + 1)."""

    name = "exposed"
    config_class = ExposedConfig

    def __init__(
        self, config: ExposedConfig | None = None, rng: np.random.Generator | None = None, **options
    ):
        super().__init__(config, rng, **options)
        self._setup()

    @classmethod
    def definition(cls, config: ExposedConfig) -> ExposedDefinition:
        """What the player count fixes (definition.py), built once per count."""
        return definition(config.num_players)

    # ================================================================ set-up
    def _setup(self) -> None:
        n, t, rng = self.num_players, self.num_tiles, self.rng
        # the boolean tables live in one array (tile_exposed, knows, last_*, is_mark, is_discarded are views of it),
        # so an observation copies them all at once
        self._flags = np.zeros(self._flag_layout[-1][2], dtype=bool)
        self._bind_flags()
        # 1. tiles: the first t Guests (the marker filter keeps exactly those), in a random grid
        order = rng.permutation(t)
        self.guest_on = order.astype(np.int64)  # guest on each cell
        self.cell_of_guest = np.empty(t, dtype=np.int64)
        self.cell_of_guest[self.guest_on] = np.arange(t)
        # 2. Wallets: 1 on each tile, a second on corners (the definition's `start_wallets`)
        self.wallets_on = self.start_wallets.copy()
        self.lost_found = (
            0  # Reading: the box's spare Wallets start in the Lost & Found as 0; more are made as needed
        )
        self.created = 0  # Wallets taken from an empty Lost & Found (FAQ: unlimited)
        self.stash = [0] * n
        # 3. Identity cards: shuffle, deal one each (top of the deck = index 0)
        deck = [int(g) for g in rng.permutation(t)]
        self.ident = deck[:n]
        self.deck = deck[n:]
        self.deck_seen = [0] * len(self.deck)  # bitmask of players who have seen each slot's card
        # (tuples: bookkeeping that changes rarely, replaced whole, so a copy shares it)
        holder = [-1] * t
        for p, g in enumerate(self.ident):
            holder[g] = p
        self.holder_of = tuple(holder)  # the seat holding each Guest's card, -1 if none
        self.player_exposed = (False,) * n
        self.known_by = (0,) * n  # bitmask of players shown p's identity (Snitch)
        self.epoch = (0,) * n  # bumps when a player's identity card changes (Wrestler, Clown)
        # what public actions imply about each player's Guest (bool per Guest)
        self.public_candidates = np.ones((n, t), dtype=bool)
        self.dentist_records = ()  # (asker, target, epoch, line, cell_guest snapshot)
        self.dentist_candidates = self.no_answers  # [asker, target]: what the answers allow (read-only)
        self.flow = TurnFlow()  # what happens next (empty until the first turn starts)
        # 4. Marks
        self.marks: list[int] = []
        self.stolen: tuple[
            int, ...
        ] = ()  # Marks stolen this action: no longer Marks, discarded after the item
        self.discard: list[int] = []
        for _ in range(self.num_marks):
            self._draw_mark()
        # kept items and move records
        self.kept = self.no_kept  # Pilot, Soldier, Cops under the card (read-only, replaced whole: `_keep`)
        self.latest_move = [()] * n  # (edge, guest now at a, guest now at b) of each swap of the latest Move
        self.n_unexposed = n
        # fast-path flags for observations: pieces that stay all zero until first used
        self.kept_any = self.items_any = False
        self.item_cells: tuple[int, ...] = ()
        self.item_seats: tuple[int, ...] = ()
        self.item_in_use = -1
        self.winners: tuple[int, ...] = ()
        self.over = False
        # bumped by every step that may change what a player knows (see `touch`)
        self._stamp = 0
        self._end_unchecked = False  # a hand edit (`touch`) makes the next clean-up check the end
        self._undoable: tuple = (None, [])  # (position, `_undoable_swaps` there)
        self.turn = int(rng.integers(n))  # Reading: the first player is random
        # every chance of the game is drawn: the grid, the deck order, the first player. The engine
        # keeps no generator, so a clone has none to copy and a resampled world no hidden chance left
        # but the deck order, which `resample_hidden` redraws
        self.rng = None
        self._start_turn(self.turn)

    # ================================================================ turn structure
    def _start_turn(self, p: int) -> None:
        """A turn: the Pilot's and the Soldier's options (kept items, before the action), the action,
        then the clean-up (`_end_action`)."""
        self.turn = p
        self.latest_move[p] = ()  # the no-reversal restriction on p's last Move ends with p's new turn
        self.last_kind[p].fill(False)
        self.last_guests[p].fill(False)
        if self.items_any:  # (all zero until a Snitch or an item)
            self.last_seats[p].fill(False)
            self.last_items[p].fill(False)
        frames = self.flow.frames  # (`flow.do`, `flow.decide` of shared frames: once per turn)
        frames.append(_END_ACTION)
        frames.append(self._action_frames[p])
        if self.kept_any:
            if self.kept[p, 1]:
                self._decide_move(p, optional=True)  # the Soldier's free Move: optional (Reading)
            if self.kept[p, 0]:
                self.flow.decide(PILOT, p, Exposed._pilot_mask, Exposed._pilot_swap, p, ITEM_GUEST["pilot"])

    def _end_action(self) -> None:
        """Clean-up: empty Marks discarded, new Marks drawn; then the next player clockwise.

        The end of the game is checked again only if the clean-up changed the table (or the state
        was edited by hand: `touch`): every other step is checked right after it (`_advance`) but
        a swap or a pass, which changes nothing the check reads, so otherwise the last check still
        stands (as after a turn of two swaps). The set-up (2 Wallets a tile at most, empty Stashes)
        needs none."""
        changed = False
        for g in list(self.marks):
            if self.wallets_on[self.cell_of_guest[g]] == 0:
                self._discard_mark(g)
                changed = True
        while len(self.marks) < self.num_marks and self.deck:
            self._draw_mark()
            changed = True
        if changed or self._end_unchecked:
            self._stamp += 1  # what players know may have changed (starting a turn changes none of it)
            if self._check_end():
                return
        self._start_turn((self.turn + 1) % self.num_players)

    # ================================================================ the engine contract
    def current_player(self) -> int:
        return -1 if self.over else self.flow.frames[-1].player

    @property
    def decision(self) -> Decide | None:
        """The decision waiting for its player (None once the game is over)."""
        return self.flow.decision

    @property
    def decision_kind(self) -> int:
        """ACTION, MOVE1, ... of the waiting decision (-1 once the game is over)."""
        return -1 if self.over else self.flow.frames[-1].kind

    def is_terminal(self) -> bool:
        return self.over

    def game_type(self) -> GameType:
        """Every seat for itself; +1 to each winner, -1 to the others (0 to all if truncated). Tied
        winners share the win (+1 each), so the sum of the returns varies: general-sum, at every
        player count (a 2-player game can end in a shared win too)."""
        return GameType("general_sum", "none", -1.0, 1.0, self.config.max_decisions)

    def returns(self) -> np.ndarray:
        out = np.zeros(self.num_players)
        if self.over:
            out[:] = -1.0
            out[list(self.winners)] = 1.0
        return out

    # `flow.fill_mask` and `flow.choose`, inlined (a decision always waits while the game goes on)
    def _legal_mask(self) -> np.ndarray:
        mask = np.zeros(self.num_actions, dtype=bool)
        decision = self.flow.frames[-1]
        decision.legal(self, mask, *decision.args)
        return mask

    def _apply(self, action: int) -> None:
        decision = self.flow.frames.pop()
        decision.then(self, action, *decision.args)
        # a swap (or a pass) cannot end the game: a tile moves with its Wallets, so no Stash + Guest
        # total, no tile's count and no 7-Wallet deduction changes; the check before it stands. Nor
        # does it change what anyone knows (all of it is by Guest or by player, never by cell)
        quiet = decision.then in _SWAPS_ONLY and action < self.OFF_STEAL or action == self.A_PASS
        if not quiet:
            self._stamp += 1
        self._advance(not quiet)

    def _advance(self, check: bool = True) -> None:
        """Play the rules' own steps (`Do` frames) until someone must decide, checking the end of
        the game before each step and before a decision waits (`check` False: the state is still
        as the last check saw it)."""
        frames = self.flow.frames
        while True:
            if check and self._check_end():
                return
            top = frames[-1]
            if type(top) is Decide:
                if top.kind != PICK:
                    return
                step: ItemStep = top.args[1]
                rule = ITEM_STEPS[step.kind]
                # an item step whose choices vanished (an earlier step of the same item took them)
                # ends it, as a pass would
                if rule.optional or rule.allowed(self, *step.allowed_args).any():
                    return
                frames.pop()
                rule.then(self, *step.then_args, None)
                check = True
                continue
            frames.pop()
            end_of_turn = top == _END_ACTION  # (equal after unpickling too)
            if not end_of_turn:  # (the clean-up says itself whether it changed anything)
                self._stamp += 1
            top.run(self, *top.args)
            # the clean-up ends by checking the end itself, and starting the next turn changes
            # nothing that check reads: no second check
            check = not end_of_turn or self.over

    # ================================================================ observations
    def observation(self, player: int) -> np.ndarray:
        """Written into a source vector in absolute seats (see `_ObsPlan`), then one gather. Pieces
        that are all zero most of the time are cleared by position (those written last call), and the
        numbers only when they changed. The few ones of the one-hot pieces are written one scalar at a
        time: cheaper than one fancy-index write from a list, whose conversion alone costs more."""
        src = self.__dict__.get("_obs_src")
        if src is None:
            src = self._obs_src = _ObsSource(self)
        S, at = src.buf, src.at
        cg = self.guest_on
        over = self.over
        # (`fill` and `[...] =` below: a little cheaper than slice assignments, on every call)
        src.blocked_zero.fill(0.0)  # blocked swaps and the one-hot decision pieces
        if src.dcells_set:  # (in the per-Guest block: cleared only when written)
            src.dcells.fill(0.0)
            src.dcells_set = False
        # ----- the table (public) -----
        # tile_exposed, knows, last_kind, last_seats, last_items, is_mark, is_discarded, last_guests in one copy
        src.flags[...] = self._flags
        scale = _scale_table(self.initial_wallets + self.created)  # no tile holds more
        scale.take(self.wallets_on, 0, src.cwal, "clip")  # wallet_scale, by table
        self._write_numbers(src, player)
        if self.kept_any:
            src.kept[:] = self.kept * _KEPT_SCALE
        blocked, e = at["blocked"], self.num_edges
        for q, i in self._undoable_swaps():
            S[blocked + q * e + i] = 1.0
        if not over:
            self._write_decision(src)
        # ----- what the observer knows (unchanged since the last call for the same observer
        # and the same knowledge stamp: no need to write it again) -----
        if src.known != (player, self._stamp):
            src.known = (player, self._stamp)
            self._recall_knowledge(src, player)
        # ----- per-Guest pieces to cells, the grid, and the gather -----
        # (every index is in range, so mode "wrap" wraps nothing: numpy's fastest take loop, and
        # unlike the default it never buffers an `out`)
        src.guest_block.take(cg, 1, src.cells, "wrap")
        src.plan.eye.take(cg, 0, src.grid, "wrap")
        return S.take(src.plan.index[player], 0, None, "wrap")

    def state_tensor(self) -> np.ndarray:
        buf, v = self._scratch("state")
        buf[:] = 0.0
        self._fill_public(v)
        n = self.num_players
        for q in range(n):
            v["identity"][q, self.cell_of_guest[self.ident[q]]] = 1.0
            for r in range(n):
                if self.known_by[q] >> r & 1:
                    v["knows"][r, q] = 1.0
        for i, (g, flags) in enumerate(zip(self.deck, self.deck_seen)):
            v["deck"][i, g] = 1.0
            v["deck_seen"][i] = [(flags >> q) & 1 for q in range(n)]
        v["public_candidates"][:] = self.public_candidates
        v["dentist_candidates"][:] = self.dentist_candidates
        v["counts"][:] = (len(self.deck), self.lost_found, self.created, self.over, len(self.winners))
        if not self.over:
            decision = self.flow.frames[-1]
            v["decider"][decision.player] = 1.0
            _decider, *details = decision.args
            if decision.kind == PICK:
                details = [details[0].block, details[0].optional]
            fields = [len(self.flow), decision.kind, *details]
            v["frames"][: min(8, len(fields))] = fields[:8]
        return buf.copy()

    # ================================================================ resampling hidden information
    def resample_hidden(self, player: int, rng: np.random.Generator) -> Exposed:
        """A copy where what `player` cannot know is redrawn: the Guests of unexposed players whose
        card `player` has not been shown, the order of the deck cards `player` has not seen, and the
        lines told in Dentist answers `player` is not part of. A function of `player`'s information
        and `rng` alone: the redrawn cards are drawn from their sorted pool, never from where they
        truly are. Constraints kept: a player's Guest is unexposed, inside every public deduction
        (steal/expose neighbourhoods, Senator, Accountant, the 7-Wallet threshold) and every Dentist
        answer given to `player`. Reading: sequential random choice that keeps a consistent
        assignment possible for the players still to draw, not an exact posterior."""
        g = self.clone()
        g._mask_cache = None  # the current decider may be one whose card is redrawn
        g.touch()  # (a clone writes its observations afresh anyway)
        bit = 1 << player
        unknown = [] if self.over else self._unknown_players(player)
        free_slots = [i for i, seen in enumerate(self.deck_seen) if not seen & bit]
        pool = sorted([self.ident[q] for q in unknown] + [self.deck[i] for i in free_slots])
        options = {q: [x for x in pool if ok[x]] for q, ok in self._could_hold(player, unknown).items()}
        choice = _draw_distinct(rng.permutation(unknown).tolist(), options, rng)
        taken = set(choice.values())
        rest = [x for x in pool if x not in taken]
        for i, j in zip(free_slots, rng.permutation(len(rest)).tolist()):
            g.deck[i] = rest[j]
        for q, x in choice.items():
            g.ident[q] = x
        holder = [-1] * self.num_tiles
        for q, x in enumerate(g.ident):
            holder[x] = q
        g.holder_of = tuple(holder)
        g._redraw_dentist_answers(player, rng)
        return g


_END_ACTION = Do(Exposed._end_action)  # the clean-up closing every turn (one shared frame)
# decisions whose actions below OFF_STEAL are swaps (and whose other actions are passes or not swaps)
_SWAPS_ONLY = frozenset((Exposed._action, Exposed._first_swap, Exposed._second_swap))
