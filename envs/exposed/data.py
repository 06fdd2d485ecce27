"""Exposed as data: the 36 Guests (name, set-up marker, item, effect), grid sizes and constants.

One row per Guest. `marker` is the set-up corner number ("", "3+" or "5+"); `item` names the effect
in items.py's table `ITEM_EFFECTS` (checked at import: every item has one); `kind` is "instant" (used at once or lost) or "kept" (the
user keeps it for later turns); `choices` says which decisions the user (or another player) takes as
separate AEC steps. RULES.md's item table is generated from this table: `python -m envs.exposed.rules_doc` rewrites it.
"""

from __future__ import annotations

from typing import NamedTuple


class Guest(NamedTuple):
    name: str
    marker: str  # "" (any count), "3+" (3+ players), "5+" (5+ players)
    item: str
    kind: str  # "instant" | "kept"
    effect: str
    choices: str


GUESTS: tuple[Guest, ...] = (
    # ----- no marker: the 16 Guests of every game -----
    Guest(
        "Accountant",
        "",
        "accountant",
        "instant",
        "Move up to 3 Wallets from any tiles onto one tile that is not your own Guest.",
        "a destination tile (not your own), then up to 3 source tiles one Wallet at a time, or stop",
    ),
    Guest(
        "Architect",
        "",
        "architect",
        "instant",
        "1 Wallet from the Lost & Found onto each corner tile.",
        "none",
    ),
    Guest(
        "Astronaut",
        "",
        "astronaut",
        "instant",
        "Look at the top 4 Identity cards and put them at the bottom; each other player (clockwise) "
        "privately looks at the top card the same way.",
        "none",
    ),
    Guest(
        "Dentist",
        "",
        "dentist",
        "instant",
        "Choose a player; if unexposed, that player privately tells you one row or one column that "
        "holds their Guest (the target chooses which).",
        "a player; then the target chooses a line",
    ),
    Guest("Engineer", "", "engineer", "instant", "Expose any tile anywhere.", "an unexposed tile"),
    Guest(
        "Firefighter",
        "",
        "firefighter",
        "instant",
        "Rearrange the tiles of one row or column in any order.",
        "a line; then, for each position but the last, which of the remaining tiles goes there",
    ),
    Guest(
        "Lawyer", "", "lawyer", "instant", "1 Wallet from the Lost & Found onto each exposed tile.", "none"
    ),
    Guest(
        "Locksmith",
        "",
        "locksmith",
        "instant",
        "Take any 2 Wallets from any tiles and put them on the Locksmith tile.",
        "two source tiles, one Wallet each (fewer only if no Wallet is left elsewhere)",
    ),
    Guest("Magician", "", "magician", "instant", "Take a Move action at once.", "two swaps"),
    Guest(
        "Mayor",
        "",
        "mayor",
        "instant",
        "Look at the top 3 Identity cards and put them at the bottom.",
        "none",
    ),
    Guest(
        "Mechanic",
        "",
        "mechanic",
        "instant",
        "Take one more Steal action at once.",
        "a tile to steal from (a Mark there offers its item), or pass",
    ),
    Guest(
        "Paramedic",
        "",
        "paramedic",
        "instant",
        "Choose a row or column; 1 Wallet from the Lost & Found onto each tile in it.",
        "a line",
    ),
    Guest("Physicist", "", "physicist", "instant", "Swap the places of any two tiles.", "two tiles"),
    Guest("Surgeon", "", "surgeon", "instant", "1 Wallet from the Lost & Found into your Stash.", "none"),
    Guest(
        "Teacher",
        "",
        "teacher",
        "instant",
        "Move up to 2 Wallets from one tile to two different other tiles.",
        "a source tile; then up to two different destination tiles, or stop",
    ),
    Guest(
        "Undertaker",
        "",
        "undertaker",
        "instant",
        "Up to 3 tiles each get 1 Wallet from the Lost & Found.",
        "up to 3 different tiles, or stop",
    ),
    # ----- "3+": 3 or more players -----
    Guest(
        "Actor",
        "3+",
        "actor",
        "instant",
        "Use the item of any card in the discard pile (not an Actor).",
        "a discarded card, then its item",
    ),
    Guest(
        "Farmer",
        "3+",
        "farmer",
        "instant",
        "1 Wallet from the Lost & Found onto the Farmer and onto each tile surrounding it.",
        "none",
    ),
    Guest(
        "Janitor",
        "3+",
        "janitor",
        "instant",
        "From any number of exposed tiles, move 1 Wallet each onto the Janitor.",
        "exposed tiles one at a time, or stop",
    ),
    Guest(
        "Nanny",
        "3+",
        "nanny",
        "instant",
        "Take 1 Wallet from a tile into your Stash and send the rest of that tile's Wallets to the "
        "Lost & Found.",
        "a tile with Wallets",
    ),
    Guest(
        "Nurse",
        "3+",
        "nurse",
        "instant",
        "Up to 4 times, swap a tile surrounding the Nurse with any other tile.",
        "a tile surrounding the Nurse (or stop), then the tile to swap it with; up to 4 times",
    ),
    Guest(
        "Pilot",
        "3+",
        "pilot",
        "kept",
        "Keep this item: before each of your turns you may swap the Pilot tile with any tile.",
        "at the start of each of your turns: a tile, or pass",
    ),
    Guest(
        "Senator",
        "3+",
        "senator",
        "instant",
        "Each player whose Guest surrounds the Senator takes 1 Wallet from the Lost & Found into "
        "their Stash.",
        "none",
    ),
    Guest(
        "Server",
        "3+",
        "server",
        "instant",
        "Choose a player: that player must take a Move action, then you take 1 Wallet from their "
        "Stash into yours.",
        "a player; then that player's two swaps",
    ),
    Guest(
        "Veterinarian",
        "3+",
        "veterinarian",
        "instant",
        "Take 1 Wallet from the Stash of the player on your left or right into yours.",
        "a neighbour",
    ),
    # ----- "5+": 5 or more players -----
    Guest(
        "Artist",
        "5+",
        "artist",
        "instant",
        "Move all Wallets of one chosen tile onto the Artist.",
        "a tile with Wallets",
    ),
    Guest(
        "Banker",
        "5+",
        "banker",
        "instant",
        "2 Wallets from the Lost & Found onto the Banker, then swap the Banker with any tile.",
        "a tile",
    ),
    Guest(
        "Captain",
        "5+",
        "captain",
        "instant",
        "For any number of exposed players, move 1 Wallet from any tile into each one's Stash.",
        "an exposed player (or stop), then a source tile; repeated",
    ),
    Guest(
        "Clown", "5+", "clown", "instant", "Two exposed players swap Identity cards.", "two exposed players"
    ),
    Guest(
        "Cop",
        "5+",
        "cop",
        "kept",
        "Keep this under a chosen player's Identity card: that player loses 1 Wallet from their "
        "Stash each time they Expose.",
        "another player",
    ),
    Guest("Judge", "5+", "judge", "instant", "Discard any number of Marks.", "Marks one at a time, or stop"),
    Guest(
        "Panhandler",
        "5+",
        "panhandler",
        "instant",
        "Each other player moves 1 Wallet from their Stash onto the Panhandler.",
        "none",
    ),
    Guest(
        "Puppeteer",
        "5+",
        "puppeteer",
        "instant",
        "Take 1 Wallet from any tile into your Stash.",
        "a tile with Wallets",
    ),
    Guest(
        "Realtor",
        "5+",
        "realtor",
        "instant",
        "Move 2 Wallets from any player's Stash into another player's Stash (not your own).",
        "a source player, then a destination player",
    ),
    Guest(
        "Soldier",
        "5+",
        "soldier",
        "kept",
        "Keep this: before each of your turns take a free Move action.",
        "at the start of each of your turns: two swaps, or pass",
    ),
    Guest(
        "Wrestler",
        "5+",
        "wrestler",
        "instant",
        "Discard your Identity card and draw new ones until you hold an unexposed Guest (each "
        "discarded Guest's tile is exposed).",
        "none",
    ),
)


class ItemChoice(NamedTuple):
    """One kind of choice inside an item (an item step): the observation's `item_choice` one-hot says
    which one the deciding seat is making, in the order of ITEM_CHOICES; items.py's ITEM_CHOICE_RULES
    names the rule that carries each out."""

    item: str
    name: str  # unique within the item
    chooses: str


ITEM_CHOICES: tuple[ItemChoice, ...] = (
    ItemChoice("accountant", "destination", "the tile the Wallets go to (not your own Guest)"),
    ItemChoice("accountant", "source", "a tile to take a Wallet from"),
    ItemChoice("dentist", "player", "the player to ask"),
    ItemChoice("engineer", "tile", "the tile to expose"),
    ItemChoice("firefighter", "line", "the row or column to rearrange"),
    ItemChoice("firefighter", "place", "the tile for the line's next place"),
    ItemChoice("locksmith", "source", "a tile to take a Wallet from"),
    ItemChoice("mechanic", "steal", "a tile to steal from"),
    ItemChoice("paramedic", "line", "the row or column whose tiles get a Wallet each"),
    ItemChoice("physicist", "first", "the first tile of the swap"),
    ItemChoice("physicist", "second", "the tile to swap it with"),
    ItemChoice("teacher", "source", "the tile the Wallets come from"),
    ItemChoice("teacher", "destination", "another tile to get a Wallet"),
    ItemChoice("undertaker", "tile", "a tile to get a Wallet"),
    ItemChoice("actor", "card", "the discarded card whose item to use"),
    ItemChoice("janitor", "tile", "an exposed tile to take a Wallet from"),
    ItemChoice("nanny", "tile", "the tile to empty"),
    ItemChoice("nurse", "first", "a tile surrounding the Nurse"),
    ItemChoice("nurse", "second", "the tile to swap it with"),
    ItemChoice("server", "player", "the player who must take a Move action"),
    ItemChoice("veterinarian", "player", "the neighbour to take a Wallet from"),
    ItemChoice("artist", "tile", "the tile whose Wallets move onto the Artist"),
    ItemChoice("banker", "tile", "the tile to swap the Banker with"),
    ItemChoice("captain", "player", "an exposed player to pay"),
    ItemChoice("captain", "source", "the tile their Wallet comes from"),
    ItemChoice("clown", "first", "the first exposed player"),
    ItemChoice("clown", "second", "the exposed player to swap cards with"),
    ItemChoice("cop", "player", "the player to put the Cop under"),
    ItemChoice("judge", "mark", "a Mark to discard"),
    ItemChoice("puppeteer", "tile", "the tile to take a Wallet from"),
    ItemChoice("realtor", "source", "the player the Wallets come from"),
    ItemChoice("realtor", "destination", "the player they go to"),
)

NUM_GUESTS = len(GUESTS)
GUEST_INDEX = {g.name: i for i, g in enumerate(GUESTS)}
ITEM_GUEST = {g.item: i for i, g in enumerate(GUESTS)}

MIN_PLAYERS, MAX_PLAYERS = 2, 6


def grid_side(num_players: int) -> int:
    """4x4 for 2 players, 5x5 for 3-4, 6x6 for 5-6 (the set-up's three grids)."""
    return 4 if num_players == 2 else 5 if num_players <= 4 else 6


def marks_in_play(num_players: int) -> int:
    """2 Marks (2 players), 3 (3-4), 4 (5-6; the design page's fact the rule text omits)."""
    return 2 if num_players == 2 else 3 if num_players <= 4 else 4


def guests_for(num_players: int) -> tuple[int, ...]:
    """The Guests used (tiles and Identity deck alike) after the marker filter of the set-up."""
    allowed = {"": True, "3+": num_players >= 3, "5+": num_players >= 5}
    return tuple(i for i, g in enumerate(GUESTS) if allowed[g.marker])


WIN_WALLETS = 7  # a player with this many (Stash + Guest tile) wins
# the default `max_decisions`: about 4x the longest of 16,000 random-play games over the test
# configurations (1210 decisions, 6 players); "always the first legal action" never ends (RULES.md)
MAX_DECISIONS = 5000
# observations show a count of w Wallets as w / (w + WALLET_SCALE): exact, in [0, 1), 0.5 at the 7 that
# win (Wallets are unlimited, so no maximum count exists to divide by)
WALLET_SCALE = WIN_WALLETS
# Cops under one player's card: the Cop card is a Mark at most once and the Actor (itself a Mark at
# most once) can use it once more from the discard pile
COPS_MAX = 2
START_WALLETS = 1  # on every tile at set-up
CORNER_EXTRA = 1  # corners get a second Wallet
EXPOSURE_REWARDS = (1, 2)  # rule text / printed rulebook
EMPTY_MARK_RULES = ("discard", "wallet")  # rule text: discard, expose, redraw / printed: 1 Wallet on it
ASTRONAUT_LOOK, ASTRONAUT_OTHERS_LOOK, MAYOR_LOOK = 4, 1, 3
ACCOUNTANT_MOVES, LOCKSMITH_TAKES, TEACHER_MOVES, UNDERTAKER_TILES, NURSE_SWAPS = 3, 2, 2, 3, 4
BANKER_GAIN, REALTOR_MOVES = 2, 2
# the most choices of one kind an item allows (the observation's `item_choice_left` is divided by it)
MOST_REPEATS = max(ACCOUNTANT_MOVES, LOCKSMITH_TAKES, TEACHER_MOVES, UNDERTAKER_TILES, NURSE_SWAPS)
