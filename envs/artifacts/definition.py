"""What a configuration fixes, built once and shared by every game of it and by every copy: the flat
action space's offsets, the observation and state layouts, the role chart, the round window's options
by action, the observation's source layout and gather index, and where each public record lies in
the game's `records` vector. No rule of the rulebook: the table's geometry (rules.Artifacts installs
these attributes through `Artifacts.definition(config)`; a saved position leaves them out)."""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING

import numpy as np

from envs.core import Definition
from envs.core.observer import seat_gathers

from .data import (
    LOOTERS,
    MAX_ARTIFACT_DRAWS,
    MAX_ELECTIONS,
    NUM_ARTIFACTS,
    NUM_ROLES,
    ROLE_SIDE,
    SITES,
    VOTES_PER_SEAT,
    role_chart,
)
from .layouts import action_blocks, observation_layout, state_layout, vote_target_seats
from .window import WINDOW_OPTIONS

if TYPE_CHECKING:
    from .rules import ArtifactsConfig

# The public records of closed votes and discussions, in the observation's order: (observation
# piece, the game's name for it, what each count is divided by in the observation). The game keeps
# them in one float32 vector, `records`, piece after piece as the observation lays them out.
RECORDS = (
    ("last_vote", "last_vote", 1),
    ("keep_sell_record", "keep_sell", MAX_ARTIFACT_DRAWS),
    ("majority_record", "majority_record", VOTES_PER_SEAT),
    ("election_record", "election_record", MAX_ELECTIONS),
    ("talk_last", "talk_last", 1),
    ("talk_record", "talk_record", MAX_ELECTIONS),
)


class ArtifactsDefinition(Definition):
    """The fixed part of one configuration (frozen once built: every game of it shares it)."""

    def __init__(self, cfg: ArtifactsConfig):
        n = self.num_players = cfg.num_players
        self.spain = cfg.site == "spain"
        self.china = cfg.site == "china"
        self.blocks = action_blocks(n)
        self.A_PASS = 0
        self.A_YES = 1
        self.A_NO = 2
        self.A_SEAT = self.blocks["seat"][0]
        self.A_ART = self.blocks["artifact"][0]
        self.A_ROLE = self.blocks["role"][0]
        self.A_USE = self.blocks["use"][0]
        self.A_RES = self.blocks["resource"][0]
        self.A_CALL = self.blocks["call"][0]
        self.A_ACCUSE = self.blocks["accuse"][0]
        self.A_VOUCH = self.blocks["vouch"][0]
        self.num_actions = self.A_VOUCH + n
        self.observation_layout = observation_layout(n)
        self.state_layout = state_layout(n, self.observation_layout)
        self.site = cfg.site
        self.chart = role_chart(n, cfg.preference)
        self.num_looters = sum(ROLE_SIDE[r] == LOOTERS for r in self.chart)
        # the round window's options by action (WINDOW_OPTIONS): action -> (option, index in its block)
        self._window_option = {
            self.blocks[name][0] + k: (option, k)
            for name, option in WINDOW_OPTIONS.items()
            for k in range(self.blocks[name][1])
        }
        self._window_action = tuple(self._window_option.items())
        self._observe_at(n)
        self.freeze()

    def _observe_at(self, n: int) -> None:
        """The observation's source vector, one per game, in absolute seats: every seat's role one-hot
        [n, roles] (the observer's row is my_role), what each observer knows of every seat by relative
        seat ([n, n, roles] and [n, n, 2]: its row is known_roles / known_sides), then the public
        pieces in layout order. observation(p) is one gather from it, derived from the layout's seat
        axes (envs.core.observer.seat_gathers)."""
        lay = self.observation_layout
        R = NUM_ROLES
        self._roles_at = slice(0, n * R)
        self._known_roles_at = slice(n * R, n * R + n * n * R)
        self._known_sides_at = slice(self._known_roles_at.stop, self._known_roles_at.stop + n * n * 2)
        first_public = lay["known_sides"].offset + lay["known_sides"].size
        shift = self._known_sides_at.stop - first_public
        # where each public piece lies in the source, and the part the configuration fixes
        self._at = {
            piece.name: slice(piece.offset + shift, piece.offset + shift + piece.size)
            for piece in lay.pieces
            if piece.offset >= first_public
        }
        self._public_at = slice(first_public + shift, lay.size + shift)
        pub_fixed = np.zeros(lay.size - first_public, dtype=np.float32)
        pub_fixed[self._at["site"].start - shift - first_public + SITES.index(self.site)] = 1
        for r in self.chart:
            pub_fixed[self._at["chart"].start - shift - first_public + r] += 0.25
        self._pub_fixed = pub_fixed
        self._source_size = lay.size + shift
        self._observers = np.arange(n)[:, None]
        self._relative_seats = (self._observers + np.arange(n)[None, :]) % n  # [observer, k] -> seat
        # pieces written together (contiguous in the layout)
        self._seat_flags_at = slice(self._at["alive"].start, self._at["cleared"].stop)
        self._piles_at = slice(self._at["storage"].start, self._at["discard"].stop)
        self._no_piles = [0] * (2 * NUM_ARTIFACTS)
        names = [piece.name for piece in lay.pieces]
        for run in (
            ("alive", "revealed", "silenced", "silence_left", "ability_used", "cleared"),
            ("storage", "sold", "discard"),
            tuple(piece for piece, _, _ in RECORDS),
        ):
            i = names.index(run[0])
            assert tuple(names[i : i + len(run)]) == run, f"{run} must stay contiguous in the layout"
        # the records: where each lies in the game's `records` vector and its shape; the source takes
        # them all at once, each divided by its bound
        self._records_at = {}
        start, scale = 0, []
        for piece, name, bound in RECORDS:
            shape = lay[piece].shape
            self._records_at[name] = (slice(start, start + lay[piece].size), shape)
            start += lay[piece].size
            scale += [bound] * lay[piece].size
        self._records_size = start
        self._records_scale = np.array(scale, dtype=np.float32)
        self._records_source_at = slice(self._at[RECORDS[0][0]].start, self._at[RECORDS[-1][0]].stop)
        self._observer_index = seat_gathers(
            lay,
            n,
            starts={name: at.start for name, at in self._at.items()},
            own={
                "my_role": self._roles_at.start,
                "known_roles": self._known_roles_at.start,
                "known_sides": self._known_sides_at.start,
            },
            rotate={"last_vote": vote_target_seats},
        )


@cache
def definition(cfg: ArtifactsConfig) -> ArtifactsDefinition:
    """The shared definition of a configuration (built once: configs are frozen, so hashable)."""
    return ArtifactsDefinition(cfg)
