"""Artifacts (Academics vs Looters) as a PettingZoo AEC environment (hidden roles, 5–10 players).

`env(num_players=7, preference="standard", site="none", sold_start=True, talk=True)`; `raw_env(...)`
without the safety layer. Secret votes are AEC steps whose choices become public when the vote closes.
The players, actions, observation pieces and rewards below are generated from the code; the rules as
implemented are in envs/artifacts/RULES.md.
"""

from __future__ import annotations

from envs.artifacts.baseline import scripted_policy
from envs.artifacts.data import ROLE_NAMES, SIDE_NAMES
from envs.artifacts.rules import Artifacts
from envs.core import GameSpec
from envs.core.docs import game_section
from envs.core.face import make_faces
from envs.core.registry import SearchDefaults

raw_env, env = make_faces(Artifacts)


def seat_roles(game: Artifacts) -> list[str]:
    """Each seat's secret role, by name: the referee's view, read by evaluations (a benchmark card's
    results per role) once a game is over, never by a player."""
    return [ROLE_NAMES[int(r)] for r in game.roles]


SPEC = GameSpec(
    name="artifacts",
    title="Artifacts",
    game_class=Artifacts,
    test_configs=(
        {"num_players": 5},
        {"num_players": 7},
        {"num_players": 10},
        {"num_players": 5, "preference": "basic", "sold_start": False, "talk": False},
        {"num_players": 7, "site": "china"},
        {"num_players": 7, "site": "spain"},
        {"num_players": 10, "preference": "full", "site": "greece"},
    ),
    benchmark_config={"num_players": 10},
    extra={
        "benchmark_configs": [{"num_players": 10}, {"num_players": 7}, {"num_players": 5}],
        "team_names": SIDE_NAMES,  # team id 0 / 1 as evaluations name them
        "seat_roles": seat_roles,  # results per role (a player at one seat, the role it was dealt)
    },
    scripted_policy=scripted_policy,
    # a scripted simulated game of 7 players costs about 20 ms
    search=SearchDefaults(rollout="scripted", simulations=30),
    players_doc="5–10 in two secret sides, Academics and Looters (2 Looters at 5–6, 3 at 7–9, 4 at 10). "
    "Options: `preference` (role chart: `basic`, `standard`, `full`), `site` (`none`, `china`, `spain`, "
    "`greece`), `sold_start` (2 pieces in Sold at set-up), `talk` (cheap-talk steps before elections). "
    "The first drawer is random.",
    reward_doc="team rewards at the end: every member of the winning side +1, every member of the other "
    "side −1; zero before the end.",
    invariant_doc="25 artifact pieces and 25 events always in exactly one place; Storage within capacity; "
    "the dealt roles are the chart's; the dead are Revealed",
)

__doc__ = (__doc__ or "") + "\n" + game_section(SPEC)
