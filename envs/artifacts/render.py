"""What an Artifacts table looks like to a person: the `ansi` text and the rgb_array picture.

Both are drawn from the same facts (`table_facts`), taken from one seat's point of view or from the
whole table. A seat's view holds only what the rules tell that player: their own role, the roles the
rules revealed to them (Revealed, awareness), the sides they learnt (public clears, their own private
checks), their own ballot in an open vote, and the public table. Hidden roles, other players'
ballots, the draw pile's order and, under Spain, the face-down Sold and Discard (shown only as what
the whole table can deduce: per artifact the fewest and most pieces possible) are left out.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass, field

import numpy as np

from envs.core.render import Canvas, font, view_title

from .data import (
    ACADEMICS,
    APPARENT_SIDE,
    ARTIFACTS,
    EVENTS,
    IS_VOTE,
    LOOTERS,
    NO_WINNER,
    NUM_ARTIFACT_CARDS,
    NUM_ARTIFACTS,
    PH_AGREE,
    PH_ELECT,
    PH_KEEP,
    PHASE_NAMES,
    PIECES_PER_ARTIFACT,
    RESOURCES,
    ROLE_NAMES,
    ROLE_SIDE,
    SIDE_NAMES,
    SITE_TEXT,
    STORAGE_LIMIT,
    TYPE_NAMES,
    VOTE_PHASES,
)

ART_COLOURS = ((60, 170, 90), (220, 180, 40), (200, 200, 230), (180, 110, 50), (170, 170, 180))
SIDE_COLOURS = ((70, 110, 200), (190, 60, 60))
UNKNOWN = (95, 95, 95)
TO_ACT = (255, 230, 90)
WHITE = (245, 245, 245)
DIM = (185, 200, 190)
PANEL = (36, 70, 52)
MODS = (
    "Ballot Box bought: the targets are elected",
    "Lawyer bought: the event is skipped",
    "Red Tape bought: the event resolves next round",
    "nulled: another Storage event is in play",
)


# ===== the facts both views show ====================================================================
@dataclass
class SeatFacts:
    seat: int
    name: str  # "player 3 (you)"
    role: str  # the role name, or "unknown role"
    side: int  # the side this view knows (-1: unknown)
    side_text: str  # "Looters", "Academics (cleared)", "looks Academics (your check)", "?"
    tags: list[str] = field(default_factory=list)  # dead, Revealed, silenced..., voted...
    dead: bool = False
    to_act: bool = False
    drawer: bool = False


@dataclass
class TableFacts:
    title: str
    header: str
    card: list[str]  # the card of the round: name line, then detail lines
    piles: list[tuple[str, list[str], list[int] | None]]  # label, per-artifact cells, counts to draw
    pile_note: str
    lines: list[str]  # delayed events, resources, discussion, last vote, checks
    seats: list[SeatFacts]
    footer: str  # who acts now, or the winner


def _ballot_text(game, phase: int, ballot: int) -> str:
    if phase == PH_KEEP:
        return "keep" if ballot == game.A_YES else "sell"
    if phase == PH_AGREE:
        return "agree" if ballot == game.A_YES else "disagree"
    if phase == PH_ELECT:
        return f"player {ballot}"
    return "none" if ballot == game.A_PASS else ARTIFACTS[ballot - game.A_ART]


def _vote_column_text(game, phase: int, col: int) -> str:
    """A column of the published last vote: yes / no, a seat, an artifact or none."""
    n = game.num_players
    if col < 2:
        return _ballot_text(game, phase, game.A_YES if col == 0 else game.A_NO)
    if col < 2 + n:
        return f"player {col - 2}"
    return ARTIFACTS[col - 2 - n] if col - 2 - n < NUM_ARTIFACTS else "none"


def _card_name(card: int) -> str:
    if card < NUM_ARTIFACT_CARDS:
        return ARTIFACTS[card // PIECES_PER_ARTIFACT]
    return EVENTS[card - NUM_ARTIFACT_CARDS].name


def _card_lines(game) -> list[str]:
    if game.card < 0:
        return ["no card drawn yet"]
    lines = [f"{_card_name(game.card)} (drawn by player {game.drawer})"]
    if game.card < NUM_ARTIFACT_CARDS:
        lines.append("artifact: " + ("to keep or sell by vote" if game.card_in_hand else "kept or sold"))
    else:
        e = EVENTS[game.card - NUM_ARTIFACT_CARDS]
        lines.append(f"event, {TYPE_NAMES[e.type]}" + (f", Delayed {e.delay}" if e.delay else ""))
        lines.append(e.text)
    status = (game.ballot_box, game.skipped, game.red_tape, game.nulled)
    lines += [text for on, text in zip(status, MODS) if on]
    return lines


def _seat_facts(game, player: int | None, s: int) -> SeatFacts:
    n_role = int(game.roles[s])
    knows = player is None or game.knows_role(player, s)
    name = f"player {s}" + (" (you)" if s == player else "")
    if knows:
        side = ROLE_SIDE[n_role]
        role = ROLE_NAMES[n_role]
        side_text = SIDE_NAMES[side]
        if player is not None and s != player and not game.revealed[s]:
            side_text += " (you are aware)"
    else:
        role = "unknown role"
        side = game.known_side(player, s)
        if side < 0:
            side_text = "side unknown"
        elif game.cleared[s]:
            side_text = f"{SIDE_NAMES[side]} (cleared)"
        else:
            side_text = f"looks {SIDE_NAMES[side]} (your check)"
    tags = []
    if not game.alive[s]:
        tags.append("dead")
    if game.revealed[s]:
        tags.append("Revealed")
    elif player is None:
        tags.append("role hidden")
    if game.is_silenced(s):
        tags.append(f"silenced through round {game.silenced_until[s]}")
    if game.cleared[s] and knows:
        tags.append("cleared")
    if game.ability_used[s]:
        tags.append("ability used")
    tags += _vote_tags(game, player, s)
    return SeatFacts(
        seat=s,
        name=name,
        role=role,
        side=side,
        side_text=side_text,
        tags=tags,
        dead=not game.alive[s],
        to_act=game.current_player() == s,
        drawer=game.drawer == s,
    )


def _vote_tags(game, player: int | None, s: int) -> list[str]:
    """Who has voted in the open vote is public; what they voted only to themselves (and the table)."""
    if game.phase < 0 or not IS_VOTE[game.phase] or s not in game.voting:
        return []
    if game.ballots[s] < 0:
        return ["to vote"]
    if player is None or player == s:
        return [f"voted {_ballot_text(game, game.phase, game.ballots[s])}"]
    return ["voted (secret)"]


def _piles(game, player: int | None) -> tuple[list, str]:
    def counts_row(label, counts):
        return (label, [str(k) for k in counts], list(counts))

    extra = " (Extra Slot open)" if game.capacity > STORAGE_LIMIT else ""
    rows = [counts_row(f"Storage {game.storage_total()}/{game.capacity}{extra}", game.storage)]
    face_down = game.spain and player is not None
    if face_down:  # only what the public history tells: fewest-most pieces per artifact
        ranges = game.vault.ranges().astype(int)
        for label, size, lo in (("Sold", game.sold_total(), 0), ("Discard", sum(game.discard), 2)):
            cells = [_range_text(ranges[a, lo], ranges[a, lo + 1]) for a in range(NUM_ARTIFACTS)]
            rows.append((f"{label} {size} (face down)", cells, None))
        note = "Spain: Sold and Discard lie face down; each cell gives the fewest-most pieces possible."
    else:
        down = " (face down)" if game.spain else ""
        rows.append(counts_row(f"Sold {game.sold_total()}{down}", game.sold))
        rows.append(counts_row(f"Discard {sum(game.discard)}{down}", game.discard))
        note = ""
    pile = f"Draw pile: {len(game.pile)} cards, face down"
    if player is None and game.pile:
        pile += "; next (top first): " + ", ".join(_card_name(c) for c in game.pile[::-1][:3])
    return rows, (pile + ("\n" + note if note else ""))


def _range_text(lo: int, hi: int) -> str:
    return str(lo) if lo == hi else f"{lo}-{hi}"


def _table_lines(game, player: int | None) -> list[str]:
    lines = []
    if game.delayed:
        lines.append(
            "Delayed events: "
            + ", ".join(f"{EVENTS[d[0]].name} (resolves end of round {d[1]})" for d in game.delayed)
        )
    if game.suggested >= 0:
        r = RESOURCES[game.suggested]
        lines.append(f"Suggested resource: {r.name} (costs {r.cost} from Sold): {r.text}")
    bought = [f"{r.name} x{k}" for r, k in zip(RESOURCES, game.resources_bought) if k]
    if bought:
        lines.append("Resources bought so far: " + ", ".join(bought))
    talk = [
        f"player {s} {'vouches for' if v > 0 else 'accuses'} player {t}"
        for s in range(game.num_players)
        for t in range(game.num_players)
        if (v := game.talk_last[s, t])
    ]
    if talk:
        lines.append("Discussion: " + "; ".join(talk))
    if game.last_vote_kind >= 0:
        phase = VOTE_PHASES[game.last_vote_kind]
        votes = [
            f"player {s}: {_vote_column_text(game, phase, int(np.argmax(row)))}"
            for s, row in enumerate(game.last_vote)
            if row.any()
        ]
        lines.append(f"Last vote ({PHASE_NAMES[phase]}): " + ", ".join(votes))
    checks = [(who, whom) for who, whom in game.peeks if player is None or who == player]
    if checks:
        lines.append(
            "Private side checks: "
            + "; ".join(
                f"{'you' if who == player else f'player {who}'} saw player {whom} as "
                f"{SIDE_NAMES[APPARENT_SIDE[int(game.roles[whom])]]}"
                for who, whom in checks
            )
        )
    return lines


def table_facts(game, player: int | None) -> TableFacts:
    looters = game.num_looters
    site = game.config.site
    header = (
        f"Artifacts: round {game.round}, site {site}"
        + (f" ({SITE_TEXT[site].split(':')[0]})" if site != "none" else "")
        + f", {game.num_players} players ({game.num_players - looters} Academics, {looters} Looters)"
    )
    piles, pile_note = _piles(game, player)
    if game.winner != NO_WINNER:
        footer = f"Game over: the {SIDE_NAMES[game.winner]} win ({game.end_reason})"
    elif game.phase >= 0:
        actor = game.current_player()
        who = "you" if actor == player else f"player {actor}"
        footer = f"To act: {who} ({PHASE_NAMES[game.phase]})"
    else:
        footer = ""
    return TableFacts(
        title=view_title(player),
        header=header,
        card=_card_lines(game),
        piles=piles,
        pile_note=pile_note,
        lines=_table_lines(game, player),
        seats=[_seat_facts(game, player, s) for s in range(game.num_players)],
        footer=footer,
    )


# ===== the ansi text ================================================================================
def text(game, player: int | None) -> str:
    f = table_facts(game, player)
    out = [f.title, f.header, "Card of the round: " + f.card[0]]
    out += ["  " + line for line in f.card[1:]]
    width = max(len(label) for label, _, _ in f.piles)
    out.append(" " * (width + 2) + " | ".join(f"{a:>14}" for a in ARTIFACTS))
    for label, cells, _ in f.piles:
        out.append(f"{label:<{width}}  " + " | ".join(f"{c:>14}" for c in cells))
    out += f.pile_note.splitlines()
    out += f.lines
    out.append("Players:")
    for s in f.seats:
        marks = ("> " if s.to_act else "  ") + ("D " if s.drawer else "  ")
        tags = ", ".join(s.tags)
        out.append(f"{marks}{s.name:<16} {s.role:<13} {s.side_text:<30} {tags}".rstrip())
    out.append("Legend: > the player to act, D the drawer of this round; sides as known in this view.")
    if f.footer:
        out.append(f.footer)
    return "\n".join(out)


# ===== the picture ==================================================================================


class _Pen:
    """Text in a few sizes on a Canvas."""

    def __init__(self, canvas: Canvas, record: bool = False):
        self.c = canvas
        self.record = record
        self.fonts = {k: font(k) for k in (12, 14, 17)}
        self.texts: list[tuple[tuple[int, int, int, int], str]] = []  # every text's box (layout tests)

    def text(self, x: int, y: int, s: str, fill=WHITE, size: int = 14) -> None:
        font = self.fonts[size]
        self.c.draw.text((x, y), s, fill=fill, font=font)
        if self.record:
            self.texts.append((self.c.draw.textbbox((x, y), s, font=font), s))

    def width(self, s: str, size: int = 14) -> int:
        return int(self.fonts[size].getlength(s))

    def wrap(self, s: str, max_width: int, size: int = 12) -> list[str]:
        chars = max(20, int(max_width / (self.width("abcdefghij", size) / 10)))
        return textwrap.wrap(s, chars) or [""]


WIDTH = 1080
COL_W = 128  # one artifact column
ROW_H = 26  # one player row


def render(game, player: int | None = None) -> np.ndarray:
    return render_with_layout(game, player, record=False)[0]


def render_with_layout(game, player: int | None = None, record: bool = True) -> tuple[np.ndarray, _Pen]:
    """The picture and the pen that drew it (every text's box)."""
    f = table_facts(game, player)
    probe = _Pen(Canvas(1, 1))
    card_text = [line for raw in f.card[1:] for line in probe.wrap(raw, 300)]
    extra = [line for raw in f.lines + f.pile_note.splitlines() for line in probe.wrap(raw, WIDTH - 30)]
    # room kept for the usual card text and notes, so the size rarely changes during a game
    top_h = max(40 + 17 * len(card_text), 176)
    height = 64 + top_h + 16 * max(len(extra), 9) + 40 + ROW_H * len(f.seats) + 80
    canvas = Canvas(WIDTH, height)
    pen = _Pen(canvas, record)
    pen.text(12, 8, f.title, fill=TO_ACT, size=17)
    pen.text(12, 32, f.header, size=14)
    y = 60
    _card_panel(canvas, pen, f, card_text, y, top_h)
    _piles_panel(canvas, pen, f, y)
    y += top_h + 10
    for line in extra:
        pen.text(14, y, line, fill=DIM, size=12)
        y += 16
    y += 8
    y = _players(canvas, pen, f, y)
    if f.footer:
        pen.text(12, y + 6, f.footer, fill=TO_ACT, size=14)
    _legend(canvas, pen, height - 34)
    return canvas.to_array(), pen


def _card_panel(canvas, pen, f: TableFacts, lines: list[str], y: int, h: int) -> None:
    canvas.box(10, y, 320, h, fill=PANEL, outline=(15, 40, 28))
    pen.text(18, y + 4, "Card of the round", fill=DIM, size=12)
    pen.text(18, y + 20, f.card[0], size=14)
    for i, line in enumerate(lines):
        pen.text(18, y + 42 + 17 * i, line, fill=WHITE, size=12)


def _piles_panel(canvas, pen, f: TableFacts, y: int) -> None:
    x0 = 344 + 92
    for a, name in enumerate(ARTIFACTS):
        x = x0 + a * COL_W
        canvas.box(x, y + 2, 10, 12, fill=ART_COLOURS[a])
        pen.text(x + 14, y, name, size=12)
    for row, (label, cells, counts) in enumerate(f.piles):
        yy = y + 20 + row * 40
        words = label.split(" (")
        pen.text(344, yy + 4, words[0], size=14)
        if len(words) > 1:
            pen.text(344, yy + 21, "(" + words[1], fill=DIM, size=12)
        for a in range(NUM_ARTIFACTS):
            x = x0 + a * COL_W
            canvas.box(x, yy, COL_W - 8, 36, fill=PANEL, outline=(15, 40, 28))
            if counts is None:  # face down: the deduced range
                canvas.box(x + 4, yy + 6, 18, 24, fill=UNKNOWN, outline=(60, 60, 60))
                pen.text(x + 28, yy + 10, cells[a] + " pieces", size=12)
                continue
            for k in range(counts[a]):
                canvas.box(x + 4 + k * 16, yy + 8, 12, 20, fill=ART_COLOURS[a])
            pen.text(x + COL_W - 22, yy + 10, cells[a], size=14)


def _players(canvas, pen, f: TableFacts, y: int) -> int:
    cols = (40, 190, 330, 590)
    for x, head in zip(cols, ("player", "role", "side", "status")):
        pen.text(x, y, head, fill=DIM, size=12)
    y += 18
    for s in f.seats:
        fill = SIDE_COLOURS[s.side] if s.side >= 0 else UNKNOWN
        if s.dead:
            fill = tuple(v // 2 for v in fill)
        outline = TO_ACT if s.to_act else (15, 40, 28)
        canvas.box(10, y, WIDTH - 20, ROW_H - 3, fill=fill, outline=outline, width=3 if s.to_act else 1)
        if s.drawer:
            canvas.circle(24, y + ROW_H // 2 - 1, 7, fill=WHITE, outline=(20, 20, 20))
            pen.text(20, y + 4, "D", fill=(20, 20, 20), size=12)
        pen.text(cols[0], y + 4, s.name, size=14)
        pen.text(cols[1], y + 4, s.role, size=14)
        pen.text(cols[2], y + 4, s.side_text, size=14)
        pen.text(cols[3], y + 4, ", ".join(s.tags), size=14)
        y += ROW_H
    return y


def _legend(canvas, pen, y: int) -> None:
    canvas.box(0, y - 6, WIDTH, 40, fill=(20, 60, 40), outline=None)
    x = 12
    items = (
        (SIDE_COLOURS[ACADEMICS], "Academics"),
        (SIDE_COLOURS[LOOTERS], "Looters"),
        (UNKNOWN, "side unknown to this view"),
        (tuple(v // 2 for v in SIDE_COLOURS[ACADEMICS]), "dark: dead"),
    )
    for colour, label in items:
        canvas.box(x, y, 16, 14, fill=colour)
        pen.text(x + 22, y, label, size=12)
        x += 34 + pen.width(label, 12)
    canvas.box(x, y, 16, 14, fill=UNKNOWN, outline=TO_ACT, width=3)
    pen.text(x + 22, y, "to act", size=12)
    x += 34 + pen.width("to act", 12)
    canvas.circle(x + 7, y + 7, 7, fill=WHITE, outline=(20, 20, 20))
    pen.text(x + 3, y, "D", fill=(20, 20, 20), size=12)
    pen.text(x + 22, y, "drawer of the round", size=12)
    pen.text(
        12,
        y + 17,
        "Coloured bars: artifact pieces (colour = artifact); a grey card: face down (Spain).",
        fill=DIM,
        size=12,
    )
