"""The rgb_array picture of an Artifacts table: Storage, Sold, Discard, the draw pile, this round's
card, Delayed events, and every player with Revealed role and status (dead, silenced, cleared)."""

from __future__ import annotations

import numpy as np

from envs.core.render import Canvas

from .data import ARTIFACTS, EVENTS, NUM_ARTIFACT_CARDS, NUM_ARTIFACTS, ROLE_NAMES, ROLE_SIDE, SIDE_NAMES

ART_COLOURS = ((60, 170, 90), (220, 180, 40), (200, 200, 230), (180, 110, 50), (170, 170, 180))
SIDE_COLOURS = ((70, 110, 200), (190, 60, 60))
HIDDEN = (90, 90, 90)


def render(game) -> np.ndarray:
    n = game.num_players
    width, height = 640, 300 + 26 * ((n + 1) // 2)
    c = Canvas(width, height)
    c.text(10, 8, f"Artifacts  round {game.round}  site {game.config.site}  draw pile {len(game.pile)}")
    if game.card >= 0:
        name = (
            ARTIFACTS[game.card // 5]
            if game.card < NUM_ARTIFACT_CARDS
            else EVENTS[game.card - NUM_ARTIFACT_CARDS].name
        )
        c.text(10, 24, f"card of the round: {name}   drawer: player {game.drawer}")
    piles = (
        ("Storage", game.storage, f"{sum(game.storage)}/{game.capacity}"),
        ("Sold", game.sold, str(sum(game.sold))),
        ("Discard", game.discard, str(sum(game.discard))),
    )
    for row, (label, counts, total) in enumerate(piles):
        y = 48 + row * 58
        c.text(10, y + 18, f"{label} {total}")
        for a in range(NUM_ARTIFACTS):
            x = 110 + a * 104
            c.box(x, y, 96, 48, fill=(40, 60, 50))
            for k in range(counts[a]):
                c.box(x + 4 + k * 18, y + 22, 14, 22, fill=ART_COLOURS[a])
            c.text(x + 4, y + 4, ARTIFACTS[a][:14], fill=ART_COLOURS[a])
    y = 230
    if game.delayed:
        c.text(10, y, "Delayed: " + ", ".join(f"{EVENTS[d[0]].name} (round {d[1]})" for d in game.delayed))
    y += 18
    for s in range(n):
        x, yy = 10 + (s % 2) * 315, y + (s // 2) * 26
        role = int(game.roles[s])
        fill = SIDE_COLOURS[ROLE_SIDE[role]] if game.revealed[s] else HIDDEN
        c.box(
            x, yy, 300, 22, fill=fill, outline=(255, 255, 255) if game.current_player() == s else (20, 20, 20)
        )
        label = ROLE_NAMES[role] if game.revealed[s] else "hidden role"
        status = []
        if not game.alive[s]:
            status.append("DEAD")
        if game.is_silenced(s):
            status.append("silenced")
        if game.cleared[s]:
            status.append("cleared")
        c.text(x + 6, yy + 5, f"player {s}: {label} {' '.join(status)}")
    if game.winner >= 0:
        c.text(10, height - 16, f"{SIDE_NAMES[game.winner]} win: {game.end_reason}", fill=(255, 240, 120))
    return c.to_array()
