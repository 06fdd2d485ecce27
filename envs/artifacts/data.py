"""Artifacts (Academics vs Looters): every card, role, resource and site as data.

The rule text gives the game's structure but not its cards; this is our reference edition
("ours" in RULES.md). The tables in RULES.md are generated from this module:
`python -m envs.artifacts.data` rewrites the block between the `<!-- tables -->` markers, and
tests/artifacts/test_design.py fails if RULES.md is out of date.
"""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

MIN_PLAYERS, MAX_PLAYERS = 5, 10

# ----- sides ------------------------------------------------------------------------------------
ACADEMICS, LOOTERS = 0, 1
SIDE_NAMES = ("Academics", "Looters")

# ----- artifacts: 5 artifacts x 5 pieces ----------------------------------------------------------
ARTIFACTS = ("Jade Dragon", "Golden Mask", "Crystal Skull", "Bronze Helm", "Silver Chalice")
NUM_ARTIFACTS = 5
PIECES_PER_ARTIFACT = 5
STORAGE_START = 3  # random pieces placed in Storage at set-up
SOLD_START = 2  # optional: pieces placed in Sold at set-up
STORAGE_LIMIT = 5  # a 6th kept piece forces a sale
EXTRA_SLOT = 1  # the Extra Storage Slot opened by Storage events
ACADEMIC_COLLECTION = 4  # pieces of one artifact in Storage: the Academics win
LOOTER_EACH = 2  # pieces of EACH artifact in Sold + Discard: the Looters win


# ----- roles ---------------------------------------------------------------------------------------
class Role(NamedTuple):
    name: str
    side: int
    ability: str  # "active", "passive" or "none"
    aware_of: tuple[str, ...]  # roles whose players this role learns at set-up (Passive: Aware of)
    text: str
    active: str = ""  # the Active ability's name (ACTIVE_ABILITIES; the handler: abilities.ABILITIES)


ROLES: tuple[Role, ...] = (
    Role("Academic", ACADEMICS, "none", (), "No ability. Wins with the Academics."),
    Role(
        "Possessed",
        ACADEMICS,
        "passive",
        ("Tomb Raider",),
        "Aware of the Tomb Raiders. If the Possessed dies, the Looters win: stay hidden.",
    ),
    Role(
        "Shaman",
        ACADEMICS,
        "active",
        (),
        "Active, Seance: name another living unrevealed player as a Looter. Right: that player is "
        "Revealed. Wrong: that player is publicly cleared (known Academic) and one random piece of "
        "Discard is shuffled back into the draw pile; with an empty Discard the NEXT discarded piece "
        "is shuffled back in instead.",
        "Seance",
    ),
    Role(
        "Curator",
        ACADEMICS,
        "active",
        (),
        "Active, Restore: move one piece of an artifact of your choice from Sold to Storage "
        "(it replaces a piece, chosen by vote, if Storage is full). Under Spain the piece is random.",
        "Restore",
    ),
    Role(
        "Detective",
        ACADEMICS,
        "active",
        (),
        "Active, Investigate: privately learn the side of another living player (the Forger "
        "appears as an Academic).",
        "Investigate",
    ),
    Role(
        "Tomb Raider",
        LOOTERS,
        "passive",
        ("Tomb Raider", "Mafia Boss"),
        "Aware of the other Tomb Raiders and of the Mafia Boss.",
    ),
    Role(
        "Mafia Boss",
        LOOTERS,
        "active",
        ("Tomb Raider",),
        "Active, Hit: kill another living player. If it is the Possessed, the Looters win. "
        "Aware of the Tomb Raiders.",
        "Hit",
    ),
    Role(
        "Smuggler",
        LOOTERS,
        "active",
        (),
        "Active, Smuggle: move one piece of an artifact of your choice from Storage to Discard. "
        "Nobody is aware of the Smuggler, and the Smuggler is aware of nobody.",
        "Smuggle",
    ),
    Role(
        "Forger",
        LOOTERS,
        "passive",
        ("Mafia Boss",),
        "Passive: Aware of the Mafia Boss; appears as an Academic to every ability or event that "
        "tells a player someone's side (the Shaman's Seance sees the truth).",
    ),
)
ROLE_NAMES = tuple(r.name for r in ROLES)
ROLE_ID = {r.name: i for i, r in enumerate(ROLES)}
NUM_ROLES = len(ROLES)
ACADEMIC, POSSESSED, SHAMAN, CURATOR, DETECTIVE, TOMB_RAIDER, MAFIA_BOSS, SMUGGLER, FORGER = range(NUM_ROLES)
ROLE_SIDE = tuple(r.side for r in ROLES)
ROLE_ACTIVE = tuple(r.ability == "active" for r in ROLES)
ACTIVE_ABILITIES = tuple(r.active for r in ROLES if r.active)
# the side a player appears to have when an ability or event tells it (the Forger's passive)
APPARENT_SIDE = tuple(ACADEMICS if i == FORGER else r.side for i, r in enumerate(ROLES))
AWARE_OF = tuple(frozenset(ROLE_ID[x] for x in r.aware_of) for r in ROLES)

# ----- the role chart: Looters by player count, then roles by "preference" -------------------------
LOOTER_COUNT = {5: 2, 6: 2, 7: 3, 8: 3, 9: 3, 10: 4}
PREFERENCES = ("basic", "standard", "full")
PREFERENCE_TEXT = {
    "basic": "only the four named roles and plain Academics / Tomb Raiders",
    "standard": "adds the Curator, the Detective (7+) and the Smuggler (7+)",
    "full": "every role: Curator, Detective (6+), Smuggler (7+), Forger (10)",
}


def role_chart(num_players: int, preference: str) -> tuple[int, ...]:
    """The roles dealt for `num_players` and `preference` (a multiset, as role ids, sorted)."""
    looters = LOOTER_COUNT[num_players]
    academics = num_players - looters
    special_l: list[int] = [MAFIA_BOSS]
    special_a: list[int] = [POSSESSED, SHAMAN]
    if preference == "standard":
        special_a.append(CURATOR)
        if num_players >= 7:
            special_a.append(DETECTIVE)
            special_l.append(SMUGGLER)
    elif preference == "full":
        special_a.append(CURATOR)
        if num_players >= 6:
            special_a.append(DETECTIVE)
        if num_players >= 7:
            special_l.append(SMUGGLER)
        if num_players >= 10:
            special_l.append(FORGER)
    # at least one Tomb Raider always: the text's awareness example needs one
    roles = special_l + [TOMB_RAIDER] * (looters - len(special_l))
    roles += special_a + [ACADEMIC] * (academics - len(special_a))
    return tuple(sorted(roles))


# ----- events -----------------------------------------------------------------------------------
# event types (the icons); a card has one main type and may carry Delayed
ACTION, STORAGE, RANDOM, ELECTION = range(4)
TYPE_NAMES = ("Action", "Storage", "Random", "Election")

# whom an event targets: each row's `target` (T_*) names its target rule; events.EVENT_TARGETS holds the
# function of each name (checked at import)
TARGETS = ("none", "drawer", "random", "elected")
T_NONE, T_DRAWER, T_RANDOM, T_ELECT = range(len(TARGETS))
TARGET_NAMES = ("-", "the drawer", "random living", "elected living")

# effect primitives: each event row names its effect; events.EVENT_EFFECTS holds the handler of each
# name (checked at import), so a misspelt name fails when the rules are imported
EFFECTS = (
    "open_extra_slot",
    "borrow_exhibit",
    "foxfire",
    "reveal",
    "check_side",
    "silence",
    "kill",
    "restore",
    "donation",
    "theft",
    "black_market",
    "cancel_every_delayed",
    "unsilence",
    "nothing",
)

# ----- resources --------------------------------------------------------------------------------
BALLOT_BOX, LAWYER, RED_TAPE, INSURANCE = range(4)


class Resource(NamedTuple):
    name: str
    cost: int  # pieces discarded from Sold
    text: str
    listed: bool = True  # offered only by the current card listing it (Insurance: by a Delayed card in play)


RESOURCES: tuple[Resource, ...] = (
    Resource(
        "Ballot Box", 2, "The targets of this Random event are elected instead (the card stays Random)."
    ),
    Resource("Lawyer", 2, "Skip this Election event (its effect is negated this round)."),
    Resource("Red Tape", 1, "Delay this Election event: it resolves at the end of the next round."),
    Resource(
        "Insurance",
        3,
        "Cancel Status of the oldest Delayed event in play drawn in an earlier round (a card with the "
        "Delayed icon; not an Election delayed by Red Tape).",
        listed=False,
    ),
)
NUM_RESOURCES = len(RESOURCES)


class Event(NamedTuple):
    name: str
    type: int
    delay: int  # 0, or the number of rounds until it resolves (the Delayed icon)
    target: int  # T_*: whom it targets (the rule: events.EVENT_TARGETS[TARGETS[target]])
    count: int  # number of target players
    effect: str  # the name of its effect (EFFECTS; the handler: events.EVENT_EFFECTS)
    param: int  # rounds of silence
    resources: tuple[int, ...]  # the resources printed in bold on the card
    text: str


E = Event
EVENTS: tuple[Event, ...] = (
    E(
        "Storage Expansion",
        STORAGE,
        0,
        T_NONE,
        0,
        "open_extra_slot",
        0,
        (),
        "The Extra Storage Slot opens: Storage holds 6 pieces for the rest of the game. Nulled if "
        "Borrow Exhibit is active.",
    ),
    E(
        "Borrow Exhibit",
        STORAGE,
        1,
        T_NONE,
        0,
        "borrow_exhibit",
        0,
        (INSURANCE,),
        "Delayed 1: search the draw pile for a piece of the artifact with most pieces in Storage "
        "(ties random) and put it in the Extra Storage Slot, which stays open. Active from the draw "
        "on; nulled if Storage Expansion is active.",
    ),
    E(
        "Foxfire",
        ACTION,
        0,
        T_DRAWER,
        1,
        "foxfire",
        0,
        (),
        "The drawer names a role in play (Revealed and Dead roles may be named); one holder of it, "
        "at random, is Revealed (nothing if that holder already is).",
    ),
    E(
        "Scapegoat",
        RANDOM,
        0,
        T_RANDOM,
        1,
        "reveal",
        0,
        (BALLOT_BOX,),
        "A random living player is Revealed.",
    ),
    E(
        "Chosen One",
        RANDOM,
        0,
        T_RANDOM,
        1,
        "check_side",
        0,
        (BALLOT_BOX,),
        "A random living player privately learns the side of another living player of their choice.",
    ),
    E(
        "Interrogation",
        ELECTION,
        0,
        T_ELECT,
        1,
        "reveal",
        0,
        (LAWYER, RED_TAPE),
        "Elect a player: they are Revealed.",
    ),
    E(
        "Gag Order",
        ELECTION,
        0,
        T_ELECT,
        1,
        "silence",
        3,
        (LAWYER, RED_TAPE),
        "Elect a player: they are Silenced for 3 rounds.",
    ),
    E(
        "Night Watch",
        ELECTION,
        0,
        T_ELECT,
        1,
        "check_side",
        0,
        (LAWYER, RED_TAPE),
        "Elect a player: they privately learn the side of another living player of their choice.",
    ),
    E(
        "Double Gag",
        ELECTION,
        0,
        T_ELECT,
        2,
        "silence",
        2,
        (LAWYER, RED_TAPE),
        "Elect two players (the two most voted): both are Silenced for 2 rounds.",
    ),
    E(
        "Trial by Ordeal",
        ELECTION,
        0,
        T_ELECT,
        1,
        "kill",
        0,
        (LAWYER, RED_TAPE),
        "Elect a player: they die.",
    ),
    E(
        "Curse of the Pharaoh",
        RANDOM,
        2,
        T_RANDOM,
        1,
        "kill",
        0,
        (BALLOT_BOX, INSURANCE),
        "Delayed 2: a random living player dies.",
    ),
    E(
        "Pickpocket",
        RANDOM,
        0,
        T_RANDOM,
        1,
        "silence",
        2,
        (BALLOT_BOX,),
        "A random living player is Silenced for 2 rounds.",
    ),
    E(
        "Stage Fright",
        RANDOM,
        0,
        T_RANDOM,
        2,
        "silence",
        1,
        (BALLOT_BOX,),
        "Two random living players are Silenced for 1 round.",
    ),
    E(
        "Restoration Grant",
        ACTION,
        0,
        T_NONE,
        0,
        "restore",
        0,
        (),
        "Vote for an artifact in Sold: one piece of it returns to Storage (replacing if full).",
    ),
    E(
        "Private Donation",
        ACTION,
        0,
        T_NONE,
        0,
        "donation",
        0,
        (),
        "Vote for an artifact: search the draw pile for a piece of it and Keep it (replacing if full).",
    ),
    E(
        "Museum Theft",
        ACTION,
        0,
        T_NONE,
        0,
        "theft",
        0,
        (),
        "Vote for an artifact in Storage: one piece of it is Discarded.",
    ),
    E(
        "Black Market",
        ACTION,
        0,
        T_NONE,
        0,
        "black_market",
        0,
        (),
        "Search the draw pile for a piece of the artifact with fewest pieces in Sold + Discard "
        "(ties random) and Sell it.",
    ),
    E(
        "Police Raid",
        ACTION,
        0,
        T_NONE,
        0,
        "cancel_every_delayed",
        0,
        (),
        "Cancel Status of every Delayed event in play (cards with the Delayed icon; an Election delayed "
        "by Red Tape is not one and still resolves).",
    ),
    E("Amnesty", ACTION, 0, T_NONE, 0, "unsilence", 0, (), "Every Silenced player is no longer Silenced."),
    E("Quiet Day", ACTION, 0, T_NONE, 0, "nothing", 0, (), "Nothing happens."),
    E(
        "Rumour Mill",
        RANDOM,
        1,
        T_RANDOM,
        1,
        "reveal",
        0,
        (BALLOT_BOX, INSURANCE),
        "Delayed 1: a random living player is Revealed.",
    ),
    E(
        "Tribunal",
        ELECTION,
        1,
        T_ELECT,
        1,
        "reveal",
        0,
        (INSURANCE,),
        "Delayed 1: elect a player: they are Revealed.",
    ),
    E(
        "Sealed Crate",
        ACTION,
        2,
        T_NONE,
        0,
        "donation",
        0,
        (INSURANCE,),
        "Delayed 2: vote for an artifact: search the draw pile for a piece of it and Keep it.",
    ),
    E(
        "Smuggling Ring",
        ACTION,
        1,
        T_NONE,
        0,
        "black_market",
        0,
        (INSURANCE,),
        "Delayed 1: as Black Market.",
    ),
    E(
        "Lost Map",
        ACTION,
        0,
        T_DRAWER,
        1,
        "check_side",
        0,
        (),
        "The drawer privately learns the side of another living player of their choice.",
    ),
)
del E
NUM_EVENTS = len(EVENTS)
EVENT_ID = {e.name: i for i, e in enumerate(EVENTS)}
NAMED_EVENTS = ("Storage Expansion", "Borrow Exhibit", "Foxfire", "Scapegoat", "Chosen One")
STORAGE_EVENTS = frozenset(i for i, e in enumerate(EVENTS) if e.type == STORAGE)

# cards: 0..24 artifact pieces (card c is artifact c // 5), 25..49 events
NUM_ARTIFACT_CARDS = NUM_ARTIFACTS * PIECES_PER_ARTIFACT
NUM_CARDS = NUM_ARTIFACT_CARDS + NUM_EVENTS

# ----- sites ------------------------------------------------------------------------------------
SITES = ("none", "china", "spain", "greece")
SITE_TEXT = {
    "none": "No site card.",
    "china": "Zombie Troop: after every vote, the players in the minority are Silenced for the next "
    "round. If a vote has more than one result, voting for any winner counts as the majority.",
    "spain": "Hidden vault: Sold and Discard lie face down (only their sizes are public); resources "
    "are paid with random pieces of Sold. The Looters' pile condition is not announced: in the "
    "round window any living player may Call a check; if the condition holds the Looters win, "
    "otherwise one random discarded piece returns to Sold.",
    "greece": "Oracle: at set-up each player privately learns the side of the player on their left "
    "(the next seat); the Forger appears as an Academic.",
}

# Active abilities may be used from this round on (text: "at any time during the round")
ABILITY_FROM_ROUND = 1

# ----- the empty draw pile (the text has no rule; ours) -------------------------------------------
EMPTY_PILE_TEXT = (
    "If the draw pile is empty when a card must be drawn, the exhibition opens as it is: the "
    "Academics win if Storage holds at least 3 pieces of one artifact, otherwise the Looters win."
)
EMPTY_PILE_COLLECTION = 3


# ----- bounds derived from the rules (observation scales and the maximum game length) -----------
# A card re-enters the draw pile only by the Shaman's wrong guess (one Shaman, one use), so at most
# one card more than the pile holds after set-up is ever drawn: one card a round.
MAX_ROUNDS = NUM_CARDS - STORAGE_START + 1  # 48
MAX_ARTIFACT_DRAWS = NUM_ARTIFACT_CARDS - STORAGE_START + 1  # 23: keep / sell votes of one seat
# every event is drawn once (events never return to the pile)
MAX_ELECTIONS = sum(1 for e in EVENTS if e.type == ELECTION or BALLOT_BOX in e.resources)  # 12
DELAYABLE_EVENTS = sum(1 for e in EVENTS if e.delay or RED_TAPE in e.resources)  # 11
# a resource is bought at most once for the card listing it (Insurance: once per Delayed card cancelled)
MAX_PURCHASES = max(
    max(sum(1 for e in EVENTS if r in e.resources) for r in range(NUM_RESOURCES)),
    sum(1 for e in EVENTS if e.delay),
)  # 6
MAX_SILENCE = max(e.param for e in EVENTS if e.effect == "silence")  # 3 rounds
MAX_DELAY = max(max(e.delay for e in EVENTS), 1)  # 2 rounds (Red Tape: 1)
# closed votes one seat takes part in: per round at most one purchase vote per window step (n) and
# three card votes (keep, overflow, extra sale; an event card has at most two); per game at most two
# for each event resolved later (a Delayed card or a Red-Taped Election) and one for the Curator
VOTES_PER_SEAT = MAX_ROUNDS * (MAX_PLAYERS + 3) + 2 * DELAYABLE_EVENTS + 1  # 647


def decision_bound(n: int) -> int:
    """Most decisions a game of n players can take, from the rules: per round n window steps, n
    purchase votes of n ballots, 3 card votes of n ballots or an Election (n discussion steps, n
    ballots) and a side check or Foxfire step; per game an ability target and a dying player's step
    per seat, and for each event resolved later a discussion, an Election and a side check."""
    per_round = n + n * n + 3 * n + 2
    return MAX_ROUNDS * per_round + 2 * n + DELAYABLE_EVENTS * (2 * n + 2)


MAX_DECISIONS = 10_000  # one default for every configuration: decision_bound(10) = 7,078


# ----- phases: who must choose what (rules.py runs them, render.py names them) ----------------------
(
    PH_WINDOW,
    PH_TARGET,
    PH_DEATH,
    PH_TALK,
    PH_FOXFIRE,
    PH_PEEK,
    PH_KEEP,
    PH_AGREE,
    PH_ELECT,
    PH_OVERFLOW,
    PH_REPLACE,
    PH_EXTRA,
    PH_RESTORE,
    PH_DONATION,
    PH_THEFT,
) = range(15)
NUM_PHASES = 15
PHASE_NAMES = (
    "round window",
    "ability target",
    "dying player's ability",
    "discussion",
    "Foxfire: name a role",
    "choose whose side to learn",
    "vote: keep the artifact?",
    "vote: buy the resource?",
    "election",
    "vote: which other piece is sold (Storage full)",
    "vote: which piece is replaced (Storage full)",
    "vote: sell one more piece?",
    "vote: which artifact returns from Sold",
    "vote: which artifact is searched for",
    "vote: which artifact is stolen",
)
VOTE_PHASES = (
    PH_KEEP,
    PH_AGREE,
    PH_ELECT,
    PH_OVERFLOW,
    PH_REPLACE,
    PH_EXTRA,
    PH_RESTORE,
    PH_DONATION,
    PH_THEFT,
)
TYPE_VOTES = (PH_OVERFLOW, PH_REPLACE, PH_EXTRA, PH_RESTORE, PH_DONATION, PH_THEFT)
NUM_VOTE_KINDS = len(VOTE_PHASES)
VOTE_KIND = {ph: i for i, ph in enumerate(VOTE_PHASES)}
IS_VOTE = tuple(ph in VOTE_PHASES for ph in range(NUM_PHASES))

NO_WINNER = -1  # the winning side before the game is decided


# ----- generated documentation --------------------------------------------------------------------
def _row(cells) -> str:
    return "| " + " | ".join(str(c) for c in cells) + " |"


def markdown_tables() -> str:
    """The RULES.md tables (roles, chart, events, resources, sites), generated from the data above."""
    out = ["### Roles", "", _row(("role", "side", "ability", "aware of", "text")), _row(["---"] * 5)]
    for r in ROLES:
        ability = f"active: `{r.active}`" if r.active else r.ability
        out.append(_row((r.name, SIDE_NAMES[r.side], ability, ", ".join(r.aware_of) or "-", r.text)))
    out += ["", "### Role chart (Looters in brackets)", ""]
    out.append(_row(["players", "Looters"] + [f"preference `{p}`" for p in PREFERENCES]))
    out.append(_row(["---"] * (2 + len(PREFERENCES))))
    for n in range(MIN_PLAYERS, MAX_PLAYERS + 1):
        cells = [n, LOOTER_COUNT[n]]
        for pref in PREFERENCES:
            roles = role_chart(n, pref)
            parts = []
            for rid in sorted(set(roles), key=lambda x: (ROLE_SIDE[x], x)):
                k = roles.count(rid)
                name = ROLE_NAMES[rid] + (f" x{k}" if k > 1 else "")
                parts.append(f"[{name}]" if ROLE_SIDE[rid] == LOOTERS else name)
            cells.append(", ".join(parts))
        out.append(_row(cells))
    out += ["", "Preferences: " + "; ".join(f"`{k}`: {v}" for k, v in PREFERENCE_TEXT.items()) + ".", ""]
    out += ["### Events (25)", "", _row(("#", "event", "type", "targets", "resources", "effect", "text"))]
    out.append(_row(["---"] * 7))
    for i, e in enumerate(EVENTS):
        kind = TYPE_NAMES[e.type] + (f" + Delayed {e.delay}" if e.delay else "")
        targets = "-" if e.target == T_NONE else f"{e.count} {TARGET_NAMES[e.target]}"
        res = ", ".join(f"**{RESOURCES[r].name}**" for r in e.resources) or "-"
        out.append(_row((i + 1, e.name, kind, targets, res, f"`{e.effect}`", e.text)))
    out += [
        "",
        "### Resources",
        "",
        _row(("resource", "cost (pieces from Sold)", "effect")),
        _row(["---"] * 3),
    ]
    for r in RESOURCES:
        out.append(_row((r.name, r.cost, r.text)))
    out += ["", "### Sites (option `site`)", "", _row(("site", "effect")), _row(["---"] * 2)]
    for s in SITES:
        out.append(_row((s, SITE_TEXT[s])))
    out += ["", "### Artifacts", "", ", ".join(ARTIFACTS) + f": {PIECES_PER_ARTIFACT} pieces each.", ""]
    return "\n".join(out)


RULES_PATH = Path(__file__).with_name("RULES.md")
START, END = "<!-- tables:start -->", "<!-- tables:end -->"


def rules_with_tables(text: str) -> str:
    head, rest = text.split(START, 1)
    _, tail = rest.split(END, 1)
    return f"{head}{START}\n{markdown_tables()}\n{END}{tail}"


if __name__ == "__main__":
    RULES_PATH.write_text(rules_with_tables(RULES_PATH.read_text()))
    print("wrote", RULES_PATH)


def replaced(values: tuple, i: int, value) -> tuple:
    """`values` with item i replaced: the per-seat flags and counts are tuples (they change a few times
    a game; every copy of the game shares them)."""
    return (*values[:i], value, *values[i + 1 :])
