"""The flat action space and the observation and state layouts of an n-player game: no rule of the
rulebook, the table as the players and the referee see it (definition.ArtifactsDefinition builds them
once per configuration)."""

from __future__ import annotations

import numpy as np

from envs.core import Layout, PieceSpec

from .data import (
    MAX_ARTIFACT_DRAWS,
    MAX_DELAY,
    MAX_ELECTIONS,
    MAX_PURCHASES,
    MAX_ROUNDS,
    MAX_SILENCE,
    NUM_ARTIFACTS,
    NUM_CARDS,
    NUM_EVENTS,
    NUM_PHASES,
    NUM_RESOURCES,
    NUM_ROLES,
    NUM_VOTE_KINDS,
    SITES,
    VOTES_PER_SEAT,
)

# the blocks whose actions are the relative seats, one each (ActionGroup.seats)
SEAT_BLOCKS = ("seat", "accuse", "vouch")


def action_blocks(n: int) -> dict[str, tuple[int, int]]:
    """The flat action space for n players: block name -> (first index, count)."""
    blocks = {}
    start = 0
    for name, count in (
        ("pass", 1),
        ("yes", 1),
        ("no", 1),
        ("seat", n),
        ("artifact", NUM_ARTIFACTS),
        ("role", NUM_ROLES),
        ("use", 1),
        ("resource", NUM_RESOURCES),
        ("call", 1),
        ("accuse", n),
        ("vouch", n),
    ):
        blocks[name] = (start, count)
        start += count
    return blocks


def observation_layout(n: int) -> Layout:
    """Every piece bounded: 0/1 flags and one-hots, counts divided by a bound the rules prove (data.py),
    discussion tokens in [-1, 1]. Axes: seat (relative, 0 = the observer), card (role, artifact or
    event card ids), item (artifacts, resources), feature."""
    V = 2 + n + NUM_ARTIFACTS + 1
    S, C, I, F = "seat", "card", "item", "feature"
    return Layout(
        [
            PieceSpec("my_role", (NUM_ROLES,), "own role, one-hot", 0, 1, (C,)),
            PieceSpec(
                "known_roles",
                (n, NUM_ROLES),
                "roles I know (own, Revealed, awareness), by relative seat",
                0,
                1,
                (S, C),
            ),
            PieceSpec(
                "known_sides",
                (n, 2),
                "sides I know [Academic, Looter] (roles known, private checks, public clears)",
                0,
                1,
                (S, F),
            ),
            PieceSpec("alive", (n,), "1 if the seat is alive", 0, 1, (S,)),
            PieceSpec("revealed", (n,), "1 if the seat's role is Revealed", 0, 1, (S,)),
            PieceSpec("silenced", (n,), "1 if the seat is Silenced now", 0, 1, (S,)),
            PieceSpec(
                "silence_left", (n,), f"rounds of silence left after this one, /{MAX_SILENCE}", 0, 1, (S,)
            ),
            PieceSpec("ability_used", (n,), "1 if the seat has used its Active ability", 0, 1, (S,)),
            PieceSpec(
                "cleared", (n,), "1 if publicly known to be an Academic (Shaman's wrong guess)", 0, 1, (S,)
            ),
            PieceSpec("drawer", (n,), "the drawer of this round", 0, 1, (S,)),
            PieceSpec("to_act", (n,), "the player choosing now", 0, 1, (S,)),
            PieceSpec("phase", (NUM_PHASES,), "the current decision, one-hot", 0, 1, (F,)),
            PieceSpec(
                "card",
                (NUM_ARTIFACTS + NUM_EVENTS,),
                "this round's card: artifact or event, one-hot",
                0,
                1,
                (C,),
            ),
            PieceSpec(
                "card_status",
                (5,),
                "[artifact still to place, Ballot Box, Skipped, Red Tape, nulled]",
                0,
                1,
                (F,),
            ),
            PieceSpec("storage", (NUM_ARTIFACTS,), "pieces in Storage per artifact, /5", 0, 1, (I,)),
            PieceSpec(
                "sold", (NUM_ARTIFACTS,), "pieces in Sold per artifact, /5 (zero under Spain)", 0, 1, (I,)
            ),
            PieceSpec(
                "discard",
                (NUM_ARTIFACTS,),
                "pieces in Discard per artifact, /5 (zero under Spain)",
                0,
                1,
                (I,),
            ),
            PieceSpec(
                "pile_sizes",
                (4,),
                "[Storage capacity /6, Sold size /25, Discard size /25, draw pile /50]",
                0,
                1,
                (F,),
            ),
            PieceSpec(
                "vault",
                (NUM_ARTIFACTS, 4),
                "Spain: per artifact [fewest, most] pieces in Sold, [fewest, most] in Discard that the "
                "public history allows, /5 (zero elsewhere)",
                0,
                1,
                (I, F),
            ),
            PieceSpec("events_gone", (NUM_EVENTS,), "1 for each event already drawn", 0, 1, (C,)),
            PieceSpec(
                "delayed",
                (NUM_EVENTS,),
                f"events waiting to resolve (Delayed or Red-Taped): rounds until they resolve, /{MAX_DELAY + 1}",
                0,
                1,
                (C,),
            ),
            PieceSpec(
                "flags",
                (4,),
                "[extra slot open, Shaman's curse pending, a resource suggested now, Spain call made]",
                0,
                1,
                (F,),
            ),
            PieceSpec("resource", (NUM_RESOURCES,), "the resource now put to the vote, one-hot", 0, 1, (I,)),
            PieceSpec(
                "resources_bought",
                (NUM_RESOURCES,),
                f"times each resource was bought, /{MAX_PURCHASES}",
                0,
                1,
                (I,),
            ),
            PieceSpec("round", (1,), f"round number /{MAX_ROUNDS}", 0, 1, (F,)),
            PieceSpec("site", (len(SITES),), "the site, one-hot", 0, 1, (F,)),
            PieceSpec("chart", (NUM_ROLES,), "how many of each role are in play, /4", 0, 1, (C,)),
            PieceSpec(
                "last_vote_kind", (NUM_VOTE_KINDS,), "kind of the last closed vote, one-hot", 0, 1, (F,)
            ),
            PieceSpec(
                "last_vote",
                (n, V),
                "each seat's choice in it: [yes, no, seat (relative) x n, artifact x5, none]",
                0,
                1,
                (S, F),
            ),
            PieceSpec(
                "keep_sell_record",
                (n, 2),
                f"artifact votes so far per seat: [keep, sell], /{MAX_ARTIFACT_DRAWS}",
                0,
                1,
                (S, F),
            ),
            PieceSpec(
                "majority_record",
                (n, 2),
                f"closed votes so far per seat: [voted with the result, against], /{VOTES_PER_SEAT}",
                0,
                1,
                (S, F),
            ),
            PieceSpec(
                "election_record",
                (n, n),
                f"election votes so far from seat i for seat j, /{MAX_ELECTIONS}",
                0,
                1,
                (S, S),
            ),
            PieceSpec(
                "talk_last", (n, n), "last discussion: +1 seat i vouched for j, -1 accused", -1, 1, (S, S)
            ),
            PieceSpec(
                "talk_record",
                (n, n),
                f"all discussions: vouches minus accusations from i about j, /{MAX_ELECTIONS}",
                -1,
                1,
                (S, S),
            ),
        ]
    )


def state_layout(n: int, obs: Layout) -> Layout:
    return Layout(
        [
            PieceSpec("roles", (n, NUM_ROLES), "every seat's role (absolute seats)", axes=("seat", "card")),
            ("draw_pile", (NUM_CARDS,), "the draw pile from the top: (card id + 1) / 50, 0 past its end"),
            ("sold", (NUM_ARTIFACTS,), "Sold per artifact /5"),
            ("discard", (NUM_ARTIFACTS,), "Discard per artifact /5"),
            PieceSpec(
                "ballots",
                (n,),
                "secret ballots of the open vote: (action + 1) / 64, 0 if none",
                axes=("seat",),
            ),
            PieceSpec(
                "private_sides",
                (n, n),
                "1 if seat i has privately learnt seat j's side",
                axes=("seat", "seat"),
            ),
            ("seat0_view", (obs.size,), "observation of seat 0 (public information)"),
        ]
    )


def vote_target_seats(block: np.ndarray, perm: np.ndarray) -> np.ndarray:
    """last_vote's columns [yes, no, seat x n, artifact x5, none]: the seat columns are relative too."""
    n = len(perm)
    cols = np.arange(block.shape[1])
    cols[2 : 2 + n] = 2 + perm
    return block[:, cols]
