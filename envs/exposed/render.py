"""What a seat sees of an Exposed table, as text (`to_string`) and as a picture (`render_rgb`).

`table_view(game, player)` gathers what `player` may see: the whole public table (tiles, sides,
Wallets, Marks, discard pile, Stashes, kept items, who was shown whose card, the latest turns, the
decision being taken) and privately their own Guest and total, Guests shown to them, their Dentist
answers and the deck cards they have seen; the other Guests stay unknown (with the number of tiles
that can still hold each, read from the player's own observation). With player None: the whole table
(every Guest, the deck in order, every Dentist answer). The text and the picture are both drawn from
it, so they hide the same things. Seats are absolute (player 0 is player 0 in every view).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from envs.core.render import Canvas, font, view_title

from .data import GUESTS, ITEM_CHOICES, WIN_WALLETS

if TYPE_CHECKING:
    from .rules import Exposed

# the decision kinds of decisions.py (`Decide.kind`; tests/exposed/test_render.py checks they agree)
ACTION, MOVE1, MOVE2, SNITCH_FLIP, OFFER, PICK, DENTIST, PILOT = range(8)
KIND_TEXT = ("moved", "stole", "exposed", "snitched", "")  # an item is named by its Guest


@dataclass
class PlayerView:
    seat: int
    guest: int | None  # None: unknown to this view
    exposed: bool
    stash: int
    total: int | None  # Stash + Guest tile: only the viewer's own (and every one in the whole table)
    possible: list[int]  # Guests that can still be this player's, from what this view knows
    kept: list[str]
    latest: str  # what the player did on their latest turn (public)


@dataclass
class TableView:
    player: int | None
    side: int
    cells: list[dict]  # per cell: guest, exposed, wallets, mark, discarded, stolen, owner, chosen
    players: list[PlayerView]
    marks: list[int]
    discard: list[int]
    deck_size: int
    deck: list[tuple[int, list[int]]] | None  # whole table only: (Guest, seats who saw it), top first
    seen: list[int]  # deck cards this player has seen (not their order)
    lost_found: int
    shown: list[tuple[int, int]]  # (a, b): a has been shown b's Identity card
    dentist: list[str]  # Dentist answers this view knows
    no_undo: list[str]  # swaps that would undo a player's latest Move (forbidden to the others)
    decision: str


def _knows(game, player: int | None, q: int) -> bool:
    """Whether `player` knows q's Guest: their own, exposed, shown to them, the game over."""
    if player is None or game.over or q == player or game.player_exposed[q]:
        return True
    return bool(game.knows[player, q])


def table_view(game: Exposed, player: int | None) -> TableView:
    n, s, t = game.num_players, game.side, game.num_tiles
    known = [_knows(game, player, q) for q in range(n)]
    owner_of = {game.ident[q]: q for q in range(n) if known[q]}
    chosen = set(game.item_cells) if game.decision_kind == PICK else set()
    cells = []
    for c in range(t):
        g = int(game.guest_on[c])
        cells.append(
            {
                "guest": g,
                "exposed": bool(game.tile_exposed[c]),
                "wallets": int(game.wallets_on[c]),
                "mark": bool(game.is_mark[g]),
                "discarded": bool(game.is_discarded[g]),
                "stolen": g in game.stolen,
                "owner": owner_of.get(g),
                "chosen": g in chosen,
            }
        )
    possible = _possible_tiles(game, player)
    players = []
    for q in range(n):
        players.append(
            PlayerView(
                seat=q,
                guest=game.ident[q] if known[q] else None,
                exposed=bool(game.player_exposed[q]),
                stash=game.stash[q],
                total=game._total(q) if player is None or q == player else None,
                possible=possible[q],
                kept=_kept(game, q),
                latest=_latest(game, q),
            )
        )
    if player is None:
        deck = [
            (g, [q for q in range(n) if f >> q & 1]) for g, f in zip(game.deck, game.deck_seen, strict=True)
        ]
        seen: list[int] = []
    else:
        deck = None
        seen = sorted(g for g, f in zip(game.deck, game.deck_seen, strict=True) if f >> player & 1)
    return TableView(
        player=player,
        side=s,
        cells=cells,
        players=players,
        marks=list(game.marks),
        discard=list(game.discard),
        deck_size=len(game.deck),
        deck=deck,
        seen=seen,
        lost_found=game.lost_found,
        shown=[(a, b) for a in range(n) for b in range(n) if game.knows[a, b]],
        dentist=_dentist(game, player),
        no_undo=_no_undo(game),
        decision=decision_text(game),
    )


def _possible_tiles(game, player: int | None) -> list[list[int]]:
    """Per seat: the Guests that can still be its own, read from `player`'s own observation."""
    n = game.num_players
    if player is None:
        return [[g] for g in game.ident]
    obs = game.observation_layout.views(game.observation(player))
    cells = obs["candidates"].reshape(n, -1)  # relative seats
    return [sorted(int(game.guest_on[c]) for c in np.flatnonzero(cells[(q - player) % n])) for q in range(n)]


def _kept(game, q: int) -> list[str]:
    out = []
    if game.pilot[q]:
        out.append("Pilot")
    if game.soldier[q]:
        out.append("Soldier")
    if game.cop[q]:
        out.append(f"{game.cop[q]} Cop{'s' if game.cop[q] > 1 else ''} under the card")
    return out


def _latest(game, q: int) -> str:
    """A player's latest turn as every observation holds it: what they did, the items used, the
    tiles touched and the players targeted."""
    parts = [KIND_TEXT[k] for k in np.flatnonzero(game.last_kind[q]) if KIND_TEXT[k]]
    parts += [f"used the {GUESTS[g].name}" for g in np.flatnonzero(game.last_items[q])]
    if not parts:
        return ""
    text = ", ".join(parts)
    tiles = [GUESTS[g].name for g in np.flatnonzero(game.last_guests[q])]
    if tiles:
        text += "; tiles: " + ", ".join(tiles)
    seats = [f"P{r}" for r in np.flatnonzero(game.last_seats[q])]
    if seats:
        text += "; targeted " + ", ".join(seats)
    return text


def _dentist(game, player: int | None) -> list[str]:
    """Dentist answers still about the target's current card: the ones `player` asked or gave."""
    out = []
    for asker, target, epoch, line, snap in game.dentist_records:
        if epoch != game.epoch[target] or player not in (None, asker, target):
            continue
        where = f"row {line}" if line < game.side else f"column {line - game.side}"
        guests = ", ".join(GUESTS[g].name for g in snap[game.line_mask[line]])
        out.append(f"P{target} told P{asker} (Dentist): {where} then, one of {guests}")
    return out


def _no_undo(game) -> list[str]:
    """Swaps the other players may not make: they would exactly undo a player's latest Move."""
    out = []
    cg = game.guest_on
    for q, e in game._undoable_swaps():
        a, b = game.edges[e]
        out.append(f"{GUESTS[cg[a]].name} <-> {GUESTS[cg[b]].name} (P{q}'s Move)")
    return out


def decision_text(game: Exposed) -> str:
    """The decision being taken, in words (public: the decision piece of every observation)."""
    if game.over:
        if len(game.winners) == 1:
            return f"Game over: player {game.winners[0]} wins."
        return "Game over: players " + ", ".join(map(str, game.winners)) + " share the win."
    decision = game.decision
    kind, p = decision.kind, decision.player
    _decider, *details = decision.args  # each kind's details: see the decision kinds in decisions.py
    who = f"player {p}"
    if kind == ACTION:
        options = "Move, Steal, Expose" + (" or Snitch" if not game.player_exposed[p] else "")
        return f"{who} chooses an action: {options}."
    if kind == MOVE1:
        (optional,) = details
        if optional:
            return f"{who} may take the Soldier's free Move: first swap, or pass."
        return f"{who} makes the first swap of a Move{_for_item(game)} (two swaps of adjacent tiles)."
    if kind == MOVE2:
        return f"{who} makes the second swap of the Move{_for_item(game)} (not undoing the first)."
    if kind == SNITCH_FLIP:
        return f"{who} snitched and now flips any unexposed tile but their own."
    if kind == OFFER:
        guest = GUESTS[details[0]]
        return f"{who} stole from the {guest.name} Mark: use its item now, or pass? ({guest.effect})"
    if kind == PICK:
        (step,) = details
        guest = GUESTS[game.item_in_use]
        text = f"{who} uses the {guest.name} ({guest.effect.rstrip('.')}): choose {ITEM_CHOICES[step.kind].chooses}"
        text += _item_choice_context(game, step) + (", or stop." if step.optional else ".")
        chosen = [GUESTS[g].name for g in game.item_cells] + [f"P{q}" for q in game.item_seats]
        return text + (" Chosen so far: " + ", ".join(chosen) + "." if chosen else "")
    if kind == DENTIST:
        return f"{who} answers player {details[0]}'s Dentist: privately tells a row or a column holding their Guest."
    return f"{who} may swap the Pilot tile with any tile, or pass."


def _for_item(game: Exposed) -> str:
    """' for the Magician' while an item (the Magician's, the Server's) asks for the Move."""
    return f" for the {GUESTS[game.item_in_use].name}" if game.item_in_use >= 0 else ""


def _item_choice_context(game: Exposed, step) -> str:
    """What the deciding seat knows of an item step (the observation's `item_choice` pieces)."""
    s, parts = game.side, []
    if step.line >= 0:
        parts.append(f"row {step.line}" if step.line < s else f"column {step.line - s}")
    if step.tile >= 0:
        parts.append(f"tile r{step.tile // s}c{step.tile % s}, the {GUESTS[game.guest_on[step.tile]].name}")
    if step.player >= 0:
        parts.append(f"player {step.player}")
    if step.left:
        parts.append(f"{step.left} left")
    return f" ({'; '.join(parts)})" if parts else ""


def _names(guests) -> str:
    return ", ".join(GUESTS[g].name for g in guests) if len(guests) else "none"


def _unknown(possible: list[int]) -> str:
    if len(possible) == 1:
        return f"unknown, but only {GUESTS[possible[0]].name} fits"
    if len(possible) <= 4:
        return f"unknown, one of {_names(possible)}"
    return f"unknown, {len(possible)} Guests possible"


def _player_line(pv: PlayerView, player: int | None) -> str:
    who = f"player {pv.seat}" + (" (you)" if pv.seat == player else "")
    guest = GUESTS[pv.guest].name if pv.guest is not None else _unknown(pv.possible)
    parts = [f"Guest {guest}"]
    if pv.exposed:
        parts.append("exposed (their Wallets lie on their Guest tile)")
    else:
        parts.append(f"unexposed, Stash {pv.stash}")
    if pv.total is not None:
        parts.append(f"total {pv.total} of {WIN_WALLETS}")
    if pv.kept:
        parts.append("keeps " + ", ".join(pv.kept))
    return f"{who}: " + "; ".join(parts)


def table_text(game, player: int | None) -> str:
    view = table_view(game, player)
    s = view.side
    width = max(len(GUESTS[c["guest"]].name) for c in view.cells) + 3
    lines = [
        view_title(player),
        f"Exposed: {game.num_players} players, {s}x{s} grid. A player wins alone unexposed or with "
        f"{WIN_WALLETS} Wallets (Stash + own Guest tile).",
        "Now: " + view.decision,
        "Tiles: name, then X = exposed side up, M = Mark, D = card in the discard pile, "
        "S = stolen Mark (item in use), c = chosen in the current item, 2w = 2 Wallets, Pn = player n's Guest.",
        "       " + "".join(f"{'col ' + str(col):{width}s}" for col in range(s)),
    ]
    for r in range(s):
        row = view.cells[r * s : r * s + s]
        lines.append(f"row {r}  " + "".join(f"{GUESTS[c['guest']].name:{width}s}" for c in row).rstrip())
        lines.append("       " + "".join(f"{_tags(c):{width}s}" for c in row).rstrip())
    lines.append("Players ('>' marks whose turn it is):")
    for pv in view.players:
        mark = ">" if not game.over and pv.seat == game.turn else " "
        lines.append(f"{mark} {_player_line(pv, player)}")
        if pv.latest:
            lines.append(f"    latest turn: {pv.latest}")
    lines.append(f"Marks: {_names(view.marks)}. Discard pile: {_names(view.discard)}.")
    if view.deck is None:
        deck = f"Identity deck: {view.deck_size} cards, face down"
        lines.append(deck + (f"; you have seen in it: {_names(view.seen)}." if view.seen else "."))
    else:
        cards = [
            GUESTS[g].name + (f" (seen by {', '.join(f'P{q}' for q in who)})" if who else "")
            for g, who in view.deck
        ]
        lines.append(f"Identity deck, top first ({view.deck_size}): " + (", ".join(cards) or "empty"))
    lines.append(f"Lost & Found: {view.lost_found} Wallets.")
    if view.shown:
        lines.append("Shown by Snitch: " + "; ".join(f"P{a} has seen P{b}'s card" for a, b in view.shown))
    for answer in view.dentist:
        lines.append(answer)
    if view.no_undo:
        lines.append("No undo (others may not swap back): " + "; ".join(view.no_undo))
    return "\n".join(lines)


def _tags(cell: dict) -> str:
    flags = "".join(
        flag
        for flag, on in (
            ("X", cell["exposed"]),
            ("M", cell["mark"]),
            ("D", cell["discarded"]),
            ("S", cell["stolen"]),
            ("c", cell["chosen"]),
        )
        if on
    )
    owner = f" P{cell['owner']}" if cell["owner"] is not None else ""
    return f"{flags or '.'} {cell['wallets']}w{owner}"


# ----- the picture -----------------------------------------------------------------------------
CELL, PAD = 108, 4
UNEXPOSED = (52, 96, 170)
EXPOSED = (176, 64, 56)
WALLET = (235, 200, 70)
GOLD = (255, 215, 0)
YOU = (80, 230, 240)
WHITE, BLACK = (245, 245, 245), (0, 0, 0)
SOFT = (200, 220, 205)
PANEL_W, MARGIN, LABEL = 470, 12, 46


class _Picture:
    def __init__(self, width: int):
        self.width = width
        self.canvas = Canvas(width, 2000)
        self.draw = self.canvas.draw
        self.fonts = {size: font(size) for size in (11, 12, 13, 14, 16, 18)}

    def text(self, x, y, text, size=13, fill=WHITE, anchor=None):
        self.draw.text((x, y), text, fill=fill, font=self.fonts[size], anchor=anchor)

    def wrapped(self, x: int, y: int, text: str, width: int, size=13, fill=WHITE, step=17) -> int:
        """Text wrapped at word boundaries to `width` pixels; returns the y below it."""
        font = self.fonts[size]
        line = ""
        for word in text.split(" "):
            trial = f"{line} {word}".strip()
            if line and font.getlength(trial) > width:
                self.text(x, y, line, size, fill)
                y += step
                line = word
            else:
                line = trial
        if line:
            self.text(x, y, line, size, fill)
            y += step
        return y

    def coin(self, cx: int, cy: int, count: int) -> None:
        self.draw.ellipse([cx - 11, cy - 11, cx + 11, cy + 11], fill=WALLET, outline=BLACK)
        self.text(cx, cy, str(count), 13, BLACK, anchor="mm")

    def tile(self, x: int, y: int, cell: dict, player: int | None) -> None:
        w = CELL - PAD
        you = cell["owner"] is not None and cell["owner"] == player
        outline, width = (GOLD, 5) if cell["mark"] else (YOU, 4) if you else ((20, 20, 20), 1)
        self.canvas.box(x, y, w, w, EXPOSED if cell["exposed"] else UNEXPOSED, outline=outline, width=width)
        if cell["chosen"]:
            inset = 6 if cell["mark"] else 4
            self.draw.rectangle(
                [x + inset, y + inset, x + w - 1 - inset, y + w - 1 - inset], outline=WHITE, width=3
            )
        self.text(x + 10, y + 9, GUESTS[cell["guest"]].name, 13)
        if cell["owner"] is not None:
            label = f"P{cell['owner']}" + (" (you)" if you else "")
            self.text(x + 10, y + 29, label, 16, YOU if you else WHITE)
        tag = (
            "MARK"
            if cell["mark"]
            else "stolen"
            if cell["stolen"]
            else "discarded"
            if cell["discarded"]
            else ""
        )
        if tag:
            self.text(x + w - 7, y + w - 8, tag, 11, GOLD if tag != "discarded" else SOFT, anchor="rs")
        if cell["wallets"]:
            self.coin(x + 19, y + w - 19, cell["wallets"])


def table_picture(game, player: int | None) -> np.ndarray:
    view = table_view(game, player)
    s = view.side
    grid_x, grid_y = MARGIN + LABEL, 112
    panel_x = grid_x + s * CELL + 20
    pic = _Picture(panel_x + PANEL_W)
    pic.text(MARGIN, 8, view_title(player), 18, GOLD)
    pic.text(
        MARGIN,
        34,
        f"Exposed - {game.num_players} players - a player wins alone unexposed or with {WIN_WALLETS} "
        "Wallets (Stash + own Guest tile)",
        14,
    )
    pic.wrapped(MARGIN, 56, "Now: " + view.decision, pic.width - 2 * MARGIN, 14, GOLD)
    for i in range(s):
        pic.text(grid_x + i * CELL + (CELL - PAD) // 2, grid_y - 6, f"col {i}", 12, SOFT, anchor="ms")
        pic.text(MARGIN, grid_y + i * CELL + (CELL - PAD) // 2, f"row {i}", 12, SOFT, anchor="lm")
    for c, cell in enumerate(view.cells):
        pic.tile(grid_x + (c % s) * CELL, grid_y + (c // s) * CELL, cell, player)
    y = _panel(pic, game, view, panel_x, grid_y - 4)
    y = max(y, grid_y + s * CELL) + 8
    y = _legend(pic, y, player)
    return np.asarray(pic.canvas.image.crop((0, 0, pic.width, y + 8)), dtype=np.uint8).copy()


def _panel(pic: _Picture, game, view: TableView, x: int, y: int) -> int:
    w = PANEL_W - MARGIN
    pic.text(x, y, "Players", 16)
    y += 22
    for pv in view.players:
        turn = not game.over and pv.seat == game.turn
        color = GOLD if turn else YOU if pv.seat == view.player else WHITE
        y = pic.wrapped(x, y, ("> " if turn else "") + _player_line(pv, view.player), w, 13, color)
        if pv.latest:
            y = pic.wrapped(x + 14, y, "latest turn: " + pv.latest, w - 14, 12, SOFT, step=15)
        y += 3
    y += 6
    facts = [
        f"Marks: {_names(view.marks)}",
        f"Discard pile: {_names(view.discard)}",
        (
            f"Identity deck: {view.deck_size} cards, face down"
            + (f"; you have seen: {_names(view.seen)}" if view.seen else "")
            if view.deck is None
            else f"Identity deck, top first: {_names([g for g, _ in view.deck])}"
        ),
        f"Lost & Found: {view.lost_found} Wallets",
    ]
    facts += [f"P{a} has been shown P{b}'s card (Snitch)" for a, b in view.shown]
    facts += view.dentist
    if view.no_undo:
        facts.append("No undo: " + "; ".join(view.no_undo))
    for fact in facts:
        y = pic.wrapped(x, y, fact, w, 13) + 2
    return y


def _legend(pic: _Picture, y: int, player: int | None) -> int:
    """One entry per mark the grid uses: (what it looks like, what it means)."""
    pic.draw.line([MARGIN, y, pic.width - MARGIN, y], fill=SOFT)
    y += 8
    pic.text(MARGIN, y, "Legend", 16)
    y += 24

    def tile(outline=(20, 20, 20), width=1, fill=UNEXPOSED, chosen=False):
        def icon(x, yy):
            pic.canvas.box(x, yy, 26, 26, fill, outline=outline, width=width)
            if chosen:
                pic.draw.rectangle([x + 3, yy + 3, x + 22, yy + 22], outline=WHITE, width=3)

        return icon

    entries = [
        (tile(), "unexposed side up"),
        (tile(fill=EXPOSED), "exposed side up"),
        (tile(GOLD, 4), "gold frame, MARK: a Mark"),
        (lambda x, yy: pic.coin(x + 13, yy + 13, 2), "Wallets on the tile (2)"),
        (lambda x, yy: pic.text(x, yy + 4, "P2", 16), "player 2's Guest (known here)"),
        *([(tile(YOU, 4), "your Guest")] if player is not None else []),
        (lambda x, yy: pic.text(x, yy + 8, "discarded", 11, SOFT), "card in the discard pile"),
        (lambda x, yy: pic.text(x, yy + 8, "stolen", 11, GOLD), "Mark stolen, item in use"),
        (tile(chosen=True), "chosen in the current item"),
    ]
    col_w = (pic.width - 2 * MARGIN) // 3
    for i, (icon, text) in enumerate(entries):
        x, yy = MARGIN + (i % 3) * col_w, y + (i // 3) * 34
        icon(x, yy)
        pic.text(x + 70, yy + 6, text, 13)
    return y + 34 * (-(-len(entries) // 3))
