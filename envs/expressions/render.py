"""What a seat sees of an Expressions table, as text (`to_string`) and as a picture (`render_rgb`).

`table_view(game, player)` gathers what `player` may see (own hand; every Suggestion, Harmony, Agony,
hand sizes, the timer's size and the guess history, all public) or, with player None, the whole table
(every hand and the Timer Stack's order). The text and the picture are both drawn from it, so they
hide the same things. Seats are absolute (player 0 is player 0 in every view).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from envs.core.render import Canvas, font, view_title

from .data import COLORS, NUM_CARDS, SUGGESTION_TEXT, SUGGESTIONS, TURN, card_name, color_of, number_of

# what each kind of decision (data.DECISIONS) asks of the player to move, in words
PHASE_TEXT = (
    "plays a card as a Suggestion or guesses a card in another player's hand",
    "guessed right: adds a card of their hand to Harmony",
    "guessed wrong: adds a card of their hand to Agony",
)


@dataclass
class SeatView:
    seat: int
    hand: list[int] | None  # None: face down (another player's hand in a seat's view)
    count: int
    suggestions: list[tuple[int, int]]  # (card, kind) face up in front of the seat


@dataclass
class TableView:
    player: int | None
    seats: list[SeatView]
    harmony: list[int]  # sorted by color, then number (the piles' order tells nothing the rules use)
    agony: list[int]
    past: dict[int, tuple[int, int]]  # Agony cards that were Suggestions: card -> (seat, kind)
    timer_left: int
    timer: list[int] | None  # top first, only in the whole-table view
    guesses: list[tuple[int, int, int, int | None]]  # (guesser, named seat, card, holder if wrong)
    status: str


def table_view(game, player: int | None) -> TableView:
    n = game.num_players
    public = game._source_layout.views(game._src)  # public pieces, seats absolute ("hands" unused)
    seats = []
    for q in range(n):
        shown = player is None or q == player
        hand = [c for c in range(NUM_CARDS) if (game.hands[q] >> c) & 1] if shown else None
        sugg = sorted((c, kind) for c, (owner, kind) in game.suggestions.items() if owner == q)
        seats.append(SeatView(q, hand, game.hand_counts[q], sugg))
    past = {}
    for q, kind, card in zip(*np.nonzero(public["past_suggestions"]), strict=True):
        past[int(card)] = (int(q), int(kind))
    return TableView(
        player=player,
        seats=seats,
        harmony=sorted(game.harmony),
        agony=sorted(game.agony),
        past=past,
        timer_left=len(game.timer),
        timer=list(reversed(game.timer)) if player is None else None,
        guesses=_guesses(public),
        status=_status(game),
    )


def _guesses(public: dict) -> list[tuple[int, int, int, int | None]]:
    """The public guess history: who named which card in whose hand, and who held it (the named
    seat when right; -1 when nobody did: it lies in the Timer Stack)."""
    out = []
    for a, b, card in zip(*np.nonzero(public["guesses"]), strict=True):
        holder = int(b)
        if public["guessed_wrong"][b, card]:
            holders = np.flatnonzero(public["left_hand"][:, card])
            holder = int(holders[0]) if len(holders) else -1
        out.append((int(a), int(b), int(card), holder))
    return sorted(out, key=lambda g: (g[2], g[0], g[1]))


def guess_text(b: int, holder: int, seat: str = "player ") -> str:
    if holder == b:
        return "right"
    return "wrong, nobody had it (Timer Stack)" if holder < 0 else f"wrong, {seat}{holder} had it"


def _status(game) -> str:
    if game.terminal:
        result = "the team wins" if game.team_wins() else "the team loses (it needs more in Harmony)"
        return f"Game over: Harmony {len(game.harmony)} vs Agony {len(game.agony)}, {result}."
    text = f"Now: player {game.player} {PHASE_TEXT[game.phase]}"
    if game.phase == TURN and not game.hands[game.player]:
        text = f"Now: player {game.player} has no cards and can only guess"
    elif game.phase == TURN and not game._guess_targets(game.player):
        text += " (no one else holds a card: may add a card to Harmony)"
    return text + (" (Easy mode's final round)" if game.final_round else "") + "."


def _cards_text(cards) -> str:
    return ", ".join(card_name(c) for c in cards) if cards else "none"


def _kind_text(kind: int) -> str:
    return SUGGESTION_TEXT[SUGGESTIONS[kind]]


def table_text(game, player: int | None) -> str:
    view = table_view(game, player)
    cfg = game.config
    first = game.first_player
    lines = [
        view_title(player),
        f"Expressions: {game.num_players} players, {cfg.mode} mode; the team wins with more cards in "
        "Harmony than in Agony at the end.",
        f"Timer Stack: {view.timer_left} of {game.initial_timer} cards left, {game.flips_per_round} "
        f"flipped into Agony after each round by the First Player (player {first}).",
        view.status,
        "Players ('>' marks the player to move):",
    ]
    for s in view.seats:
        mark = ">" if not game.terminal and s.seat == game.player else " "
        who = f"player {s.seat}" + (" (you)" if s.seat == player else "")
        hand = f"{s.count} cards, face down" if s.hand is None else f"({s.count}): {_cards_text(s.hand)}"
        sugg = "; ".join(f"{card_name(c)} ({_kind_text(k)})" for c, k in s.suggestions) or "none"
        lines.append(f"{mark} {who}: hand {hand}")
        lines.append(f"    Suggestions: {sugg}")
    lines.append(f"Harmony ({len(view.harmony)}): {_cards_text(view.harmony)}")
    lines.append(f"Agony ({len(view.agony)}): {_cards_text(view.agony)}")
    if view.past:
        earlier = "; ".join(
            f"{card_name(c)} (player {q}, {_kind_text(k)})" for c, (q, k) in sorted(view.past.items())
        )
        lines.append(f"  of them earlier Suggestions: {earlier}")
    if view.timer is not None:
        lines.append(f"Timer Stack, top first: {_cards_text(view.timer)}")
    lines.append("Guesses:" + (" none" if not view.guesses else ""))
    for a, b, card, holder in view.guesses:
        lines.append(f"  player {a} named {card_name(card)} in player {b}'s hand: {guess_text(b, holder)}")
    return "\n".join(lines)


# ----- the picture -----------------------------------------------------------------------------
CARD_COLORS = {
    "red": (222, 88, 80),
    "yellow": (236, 206, 72),
    "green": (96, 182, 96),
    "blue": (96, 140, 226),
    "purple": (170, 110, 200),
}
BACK = (60, 64, 92)
BLACK, WHITE, GOLD = (0, 0, 0), (245, 245, 245), (255, 215, 0)
SOFT = (200, 220, 205)  # secondary text
CARD_W, CARD_H, PITCH = 38, 48, 42
WIDTH, LABEL_W, MARGIN = 1000, 170, 12
KIND_NAMES = ("Highest of this Color", "Lowest of this Color", "Last of this Color", "More of this Number")


class _Picture:
    def __init__(self):
        self.canvas = Canvas(WIDTH, 2400)
        self.draw = self.canvas.draw
        self.fonts = {size: font(size) for size in (12, 14, 16, 18)}

    def text(self, x, y, text, size=14, fill=WHITE):
        self.draw.text((x, y), text, fill=fill, font=self.fonts[size])

    def kind_mark(self, cx: int, cy: int, kind: int) -> None:
        """The Suggestion's side: up triangle Highest, down triangle Lowest, X Last, # More."""
        d = self.draw
        d.ellipse([cx - 9, cy - 9, cx + 9, cy + 9], fill=WHITE, outline=BLACK)
        if kind == 0:
            d.polygon([(cx, cy - 6), (cx - 6, cy + 5), (cx + 6, cy + 5)], fill=BLACK)
        elif kind == 1:
            d.polygon([(cx, cy + 6), (cx - 6, cy - 5), (cx + 6, cy - 5)], fill=BLACK)
        elif kind == 2:
            d.line([cx - 5, cy - 5, cx + 5, cy + 5], fill=BLACK, width=3)
            d.line([cx - 5, cy + 5, cx + 5, cy - 5], fill=BLACK, width=3)
        else:
            d.text((cx, cy), "#", fill=BLACK, font=self.fonts[14], anchor="mm")

    def card(self, x: int, y: int, card: int, kind: int | None = None, owner: int | None = None):
        self.canvas.box(x, y, CARD_W, CARD_H, fill=CARD_COLORS[COLORS[color_of(card)]], outline=BLACK)
        self.text(x + 3, y + 1, str(number_of(card)), size=16, fill=BLACK)
        if kind is not None:
            self.kind_mark(x + CARD_W // 2, y + CARD_H - 12, kind)
        if owner is not None:
            self.text(x + CARD_W - 17, y + 3, f"P{owner}", size=12, fill=BLACK)

    def back(self, x: int, y: int) -> None:
        self.canvas.box(x, y, CARD_W, CARD_H, fill=BACK, outline=(180, 180, 200))
        self.draw.rectangle([x + 5, y + 5, x + CARD_W - 6, y + CARD_H - 6], outline=(120, 126, 170))

    def row(self, x0: int, y: int, items, x1: int = WIDTH - MARGIN) -> int:
        """Draw cards (callables at x, y) left to right, wrapping; returns the y below them."""
        per_line = max(1, (x1 - x0 + PITCH - CARD_W) // PITCH)
        for i, draw in enumerate(items):
            line, col = divmod(i, per_line)
            draw(x0 + col * PITCH, y + line * (CARD_H + 6))
        lines = max(1, -(-len(items) // per_line))
        return y + lines * (CARD_H + 6)


def table_picture(game, player: int | None) -> np.ndarray:
    view = table_view(game, player)
    pic = _Picture()
    cfg = game.config
    pic.text(MARGIN, 8, view_title(player), size=18, fill=GOLD)
    pic.text(
        MARGIN,
        34,
        f"Expressions - {game.num_players} players, {cfg.mode} mode - Timer Stack {view.timer_left} of "
        f"{game.initial_timer} left ({game.flips_per_round} flipped a round) - First Player: P{game.first_player}",
        size=14,
    )
    pic.text(MARGIN, 56, view.status, size=14, fill=GOLD)
    y = 84
    hand_w = game.hand_size * PITCH
    for s in view.seats:
        to_move = not game.terminal and s.seat == game.player
        label = f"{'> ' if to_move else ''}P{s.seat}" + (" (you)" if s.seat == player else "")
        pic.text(MARGIN, y + 4, label, size=16, fill=GOLD if to_move else WHITE)
        pic.text(MARGIN, y + 24, f"{s.count} cards in hand", size=12, fill=SOFT)
        if s.seat == game.first_player:
            pic.text(MARGIN, y + 38, "First Player", size=12, fill=SOFT)
        x0 = MARGIN + LABEL_W
        cards = (
            [lambda x, yy: pic.back(x, yy)] * s.count
            if s.hand is None
            else [lambda x, yy, c=c: pic.card(x, yy, c) for c in s.hand]
        )
        bottom = pic.row(x0, y, cards, x0 + hand_w)
        sx = x0 + hand_w + 18
        pic.text(sx, y - 14, "Suggestions", size=12, fill=SOFT)
        sugg = [lambda x, yy, c=c, k=k: pic.card(x, yy, c, kind=k) for c, k in s.suggestions]
        bottom = max(bottom, pic.row(sx, y, sugg))
        y = bottom + 16
    for name, cards in (("Harmony", view.harmony), ("Agony", view.agony)):
        pic.text(MARGIN, y + 4, f"{name} ({len(cards)})", size=16)
        drawn = [lambda x, yy, c=c: pic.card(x, yy, c, *view.past.get(c, (None, None))[::-1]) for c in cards]
        y = pic.row(MARGIN + LABEL_W, y, drawn) + 8
    pic.text(MARGIN, y + 4, f"Timer Stack ({view.timer_left})", size=16)
    pic.text(MARGIN, y + 26, "top first" if view.timer is not None else "face down", size=12, fill=SOFT)
    timer = (
        [lambda x, yy: pic.back(x, yy)] * view.timer_left
        if view.timer is None
        else [lambda x, yy, c=c: pic.card(x, yy, c) for c in view.timer]
    )
    y = pic.row(MARGIN + LABEL_W, y, timer) + 10
    y = _guess_lines(pic, view, y)
    y = _legend(pic, y + 6)
    return np.asarray(pic.canvas.image.crop((0, 0, WIDTH, y + 10)), dtype=np.uint8).copy()


def _guess_lines(pic: _Picture, view: TableView, y: int) -> int:
    pic.text(MARGIN, y, f"Guesses ({len(view.guesses)})", size=16)
    if not view.guesses:
        pic.text(MARGIN + LABEL_W, y + 2, "none yet", size=14, fill=SOFT)
        return y + 24
    col_w = (WIDTH - 2 * MARGIN - LABEL_W) // 2
    for i, (a, b, card, holder) in enumerate(view.guesses):
        line, col = divmod(i, 2)
        pic.text(
            MARGIN + LABEL_W + col * col_w,
            y + 2 + line * 18,
            f"P{a} named {card_name(card)} in P{b}'s hand: {guess_text(b, holder, 'P')}",
            size=12,
        )
    return y + 8 + 18 * (-(-len(view.guesses) // 2))


def _legend(pic: _Picture, y: int) -> int:
    pic.draw.line([MARGIN, y, WIDTH - MARGIN, y], fill=SOFT)
    y += 8
    pic.text(MARGIN, y, "Legend", size=16)
    x = MARGIN + LABEL_W
    for i, name in enumerate(COLORS):
        pic.card(x + i * 96, y, i * 10 + 6)
        pic.text(x + i * 96 + CARD_W + 6, y + 14, name, size=14)
    pic.back(x + 5 * 96, y)
    pic.text(x + 5 * 96 + CARD_W + 6, y + 6, "a hidden card", size=14)
    pic.text(x + 5 * 96 + CARD_W + 6, y + 24, "(face down)", size=12, fill=SOFT)
    y += CARD_H + 10
    for kind, text in enumerate(KIND_NAMES):
        cx = x + (kind % 2) * 300 + 10
        cy = y + (kind // 2) * 24 + 10
        pic.kind_mark(cx, cy, kind)
        pic.text(cx + 16, cy - 8, f"Suggestion: {text}", size=14)
    y += 52
    pic.text(
        x,
        y,
        "The number top left is the card's; P2 top right (in Agony): it was player 2's Suggestion.",
        size=12,
        fill=SOFT,
    )
    pic.text(x, y + 18, "'>' and gold: the player to move.", size=12, fill=SOFT)
    return y + 36
