"""Exposaurus data: the designed 64-tile table, fossils, colours, gems and set-up numbers.

The published tile distribution is not public; this table is OUR design (see RULES.md): 60 fossil
tiles (cheap fossils common, expensive ones rare; expensive fossils carry more semicircles) and the
4 gem tiles; the six numbered starting tiles are the six skulls with two semicircles. Each colour
(red, green, blue, yellow) appears on 30 or 31 tile edges. Edges are listed clockwise from the top
(north, east, south, west) for the tile as printed (rotation 0); "-" is an edge without a semicircle.
The table was drawn once from a seeded generator and is stored here as plain data.
"""

from __future__ import annotations

# fossil kinds: the six fossils, then the two kinds of gem tile (no fossil)
KINDS = ("egg", "skull", "skeleton", "bone", "claw", "footprint", "gem", "gem_yellow")
NUM_KINDS = len(KINDS)
NUM_FOSSILS = 6  # kinds 0..5 are fossils and form groups in the museum; gem tiles do not
GEM_TILE, YELLOW_GEM_TILE = 6, 7
# scientists needed without / with the paleontologist (rulebook's fossil table); None: not allowed
FOSSIL_COST = {"egg": 1, "skull": 2, "skeleton": 3, "bone": 4, "claw": 5, "footprint": 6}
PALEONTOLOGIST_COST = {"bone": 2, "claw": 3, "footprint": 4}
PALEONTOLOGIST_DISCOUNT = 2
SCIENTIST_ON_TILE_DISCOUNT = 1

# semicircle colours on tile edges; code 0 is "no semicircle"
EDGE_COLOURS = ("-", "R", "G", "B", "Y")
EDGE_NAMES = ("none", "red", "green", "blue", "yellow")
YELLOW = 4
# gem colours (index = edge colour code - 1 for red, green, blue)
GEM_COLOURS = ("red", "green", "blue")
NUM_GEM_COLOURS = 3
GEMS_PER_COLOUR = {2: 6, 3: 9, 4: 12}  # 18 / 27 / 36 gems in play

SCIENTISTS = 10
MUSEUM_LIMIT = 4  # the museum's dino tiles fit in a 4x4 box
END_TILES = 16  # the 16th tile in a museum ends the game
CLAIM_DISC_POINTS = 2
PALEONTOLOGIST_POINTS = 3
SCIENTIST_POINTS = 1
DIE_SIDES = 6
MIN_PLAYERS, MAX_PLAYERS = 2, 4
REWARDS = ("rank", "margin")

# (id, kind, cost in scientists, edges N E S W, starting-tile number or 0)
TILES = (
    (0, "egg", 1, "B---", 0),
    (1, "egg", 1, "R---", 0),
    (2, "egg", 1, "Y---", 0),
    (3, "egg", 1, "Y---", 0),
    (4, "egg", 1, "B---", 0),
    (5, "egg", 1, "G---", 0),
    (6, "egg", 1, "Y---", 0),
    (7, "egg", 1, "B---", 0),
    (8, "egg", 1, "Y---", 0),
    (9, "egg", 1, "R---", 0),
    (10, "egg", 1, "R---", 0),
    (11, "egg", 1, "G---", 0),
    (12, "egg", 1, "B---", 0),
    (13, "egg", 1, "Y---", 0),
    (14, "skull", 2, "BY--", 1),
    (15, "skull", 2, "BG--", 2),
    (16, "skull", 2, "G-B-", 3),
    (17, "skull", 2, "RR--", 4),
    (18, "skull", 2, "YR--", 5),
    (19, "skull", 2, "BG--", 6),
    (20, "skull", 2, "R---", 0),
    (21, "skull", 2, "R---", 0),
    (22, "skull", 2, "B---", 0),
    (23, "skull", 2, "Y---", 0),
    (24, "skull", 2, "B---", 0),
    (25, "skull", 2, "B---", 0),
    (26, "skull", 2, "Y---", 0),
    (27, "skeleton", 3, "Y-G-", 0),
    (28, "skeleton", 3, "GR--", 0),
    (29, "skeleton", 3, "R-B-", 0),
    (30, "skeleton", 3, "Y-G-", 0),
    (31, "skeleton", 3, "G-Y-", 0),
    (32, "skeleton", 3, "G-G-", 0),
    (33, "skeleton", 3, "RB--", 0),
    (34, "skeleton", 3, "B-R-", 0),
    (35, "skeleton", 3, "R-G-", 0),
    (36, "skeleton", 3, "G-Y-", 0),
    (37, "skeleton", 3, "R-G-", 0),
    (38, "bone", 4, "G-B-", 0),
    (39, "bone", 4, "B-Y-", 0),
    (40, "bone", 4, "GG--", 0),
    (41, "bone", 4, "Y-R-", 0),
    (42, "bone", 4, "RYG-", 0),
    (43, "bone", 4, "BYB-", 0),
    (44, "bone", 4, "BBG-", 0),
    (45, "bone", 4, "RBR-", 0),
    (46, "bone", 4, "RBB-", 0),
    (47, "claw", 5, "GGG-", 0),
    (48, "claw", 5, "YBY-", 0),
    (49, "claw", 5, "RGY-", 0),
    (50, "claw", 5, "YYB-", 0),
    (51, "claw", 5, "RRR-", 0),
    (52, "claw", 5, "RGR-", 0),
    (53, "claw", 5, "BBY-", 0),
    (54, "footprint", 6, "YRG-", 0),
    (55, "footprint", 6, "YYR-", 0),
    (56, "footprint", 6, "YYY-", 0),
    (57, "footprint", 6, "RGGR", 0),
    (58, "footprint", 6, "RBBY", 0),
    (59, "footprint", 6, "BGGG", 0),
    (60, "gem", 2, "R---", 0),
    (61, "gem", 2, "G---", 0),
    (62, "gem", 2, "B---", 0),
    (63, "gem_yellow", 3, "----", 0),
)
NUM_TILES = len(TILES)

TILE_KIND = tuple(KINDS.index(row[1]) for row in TILES)
TILE_COST = tuple(row[2] for row in TILES)
TILE_EDGES = tuple(tuple(EDGE_COLOURS.index(ch) for ch in row[3]) for row in TILES)
TILE_START = tuple(row[4] for row in TILES)
STARTING_TILES = tuple(row[0] for row in TILES if row[4])


# ----- bounds derived from the rules (scores, observation scales, the maximum game length) ---------
MAX_GEM_CHOICES = 4  # gems of choice from one placement: four yellow circles (the yellow gem tile: 1)
MAX_DISCOVERIES = SCIENTISTS + 1  # in one move: one per scientist in camp, and the claim disc


def max_score(n: int) -> int:
    """Most points a player can have: every gem colour at most GEMS_PER_COLOUR[n] gems on groups
    holding at most the 16 museum tiles, plus 10 scientists in camp, the unused disc and
    paleontologist. The lowest score is 0."""
    return (
        GEMS_PER_COLOUR[n] * END_TILES
        + SCIENTISTS * SCIENTIST_POINTS
        + CLAIM_DISC_POINTS
        + PALEONTOLOGIST_POINTS
    )


MAX_SCORE = max_score(MAX_PLAYERS)  # 207: the observation's score scale for every player count


def decision_bound(n: int) -> int:
    """Most decisions a game of n players can take, from the rules. Discoveries D <= the stock after
    set-up (64 - 2n); excavations E <= the tiles that fit the museums (15 each) and exist (64 - n);
    acting moves A <= D + E; a run of moves without acting is at most n - 1 long unless it ends the
    game, so moves M <= A + (A + 1)(n - 1) + 1. Each move: a die step, a recruitment step and its
    final action (excavate or quit); each discovery one step; each excavation a placement and at most
    4 gem choices: decisions <= 3M + D + 5E."""
    discoveries = NUM_TILES - 2 * n
    excavations = min((END_TILES - 1) * n, NUM_TILES - n)
    acting = discoveries + excavations
    moves = acting + (acting + 1) * (n - 1) + 1
    return 3 * moves + discoveries + (1 + MAX_GEM_CHOICES) * excavations


MAX_DECISIONS = 2_000  # one default for every configuration: decision_bound(4) = 1,760


def paleontologist_allowed(tile: int) -> bool:
    return KINDS[TILE_KIND[tile]] in PALEONTOLOGIST_COST


def rotated_edges(tile: int, rotation: int) -> tuple[int, int, int, int]:
    """The edge colours (N, E, S, W) of `tile` turned clockwise by `rotation` quarter turns."""
    e = TILE_EDGES[tile]
    r = rotation % 4
    return (e[-r % 4], e[(1 - r) % 4], e[(2 - r) % 4], e[(3 - r) % 4])


def tile_name(tile: int) -> str:
    kind = KINDS[TILE_KIND[tile]]
    start = f" #{TILE_START[tile]}" if TILE_START[tile] else ""
    return f"t{tile}:{kind}{start}[{TILES[tile][3]}]"


def tile_table_markdown() -> str:
    """The tile table for RULES.md, generated from TILES (python -m envs.exposaurus.rules_doc)."""
    lines = [
        "| id | fossil | cost | with paleontologist | edges N E S W | starting tile |",
        "|---|---|---|---|---|---|",
    ]
    for tid, kind, cost, edges, start in TILES:
        paleo = PALEONTOLOGIST_COST.get(kind, "-")
        lines.append(f"| {tid} | {kind} | {cost} | {paleo} | `{edges}` | {start or ''} |")
    return "\n".join(lines)


def _check_table() -> None:
    assert NUM_TILES == 64 and [row[0] for row in TILES] == list(range(64))
    for _, kind, cost, edges, _start in TILES:
        assert len(edges) == 4 and set(edges) <= set(EDGE_COLOURS)
        if kind in FOSSIL_COST:
            assert cost == FOSSIL_COST[kind] and 1 <= sum(ch != "-" for ch in edges) <= 4
    assert sorted(TILE_START[t] for t in STARTING_TILES) == [1, 2, 3, 4, 5, 6]


_check_table()


# ----- phases of a decision ------------------------------------------------------------------
DIE, RECRUIT, EXPEDITION, PLACE, GEM, OVER = range(6)
PHASE_NAMES = ("die", "recruitment", "expedition", "placement", "gem choice", "over")
NUM_PHASES = 5

# where a tile is
W_STOCK, W_DISPLAY, W_HAND, W_BOX, W_MUSEUM = range(5)
WHERE_NAMES = ("stock", "display", "being placed", "box", "museum")
# what lies on a displayed tile
M_NONE, M_SCIENTIST, M_DISC = 0, 1, 2
# claim disc status
DISC_UNUSED, DISC_ON_TILE, DISC_SPENT = 0, 1, 2

# ----- the museum grid: 7x7 cells, the starting tile in the centre; any 4x4 box around it fits ----
SIDE = 2 * MUSEUM_LIMIT - 1
CELLS = SIDE * SIDE
CENTRE = (SIDE // 2) * SIDE + SIDE // 2
