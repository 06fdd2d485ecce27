"""Exposaurus (2-4 players): excavate fossil tiles, build a 4x4 museum, close coloured circles for gems.

The game as implemented, every reading marked, and the 64-tile table: envs/exposaurus/RULES.md.
Hidden information: only the stock's order and future die rolls; everything on the table is public.

    from envs import exposaurus_v0
    env = exposaurus_v0.env(num_players=4)          # die variant: on for 2 players by default
    env = exposaurus_v0.env(num_players=3, die=True, reward="margin")

{section}
"""

from __future__ import annotations

from envs.core.docs import game_section
from envs.core.face import make_faces
from envs.core.registry import GameSpec, SearchDefaults
from envs.exposaurus.baseline import make_policy
from envs.exposaurus.rules import Exposaurus

raw_env, env = make_faces(Exposaurus)

SPEC = GameSpec(
    name="exposaurus",
    title="Exposaurus",
    game_class=Exposaurus,
    test_configs=tuple({"num_players": n, "die": die} for n in (2, 3, 4) for die in (True, False)),
    benchmark_config={"num_players": 4},
    extra={"benchmark_configs": [{"num_players": 4}, {"num_players": 2}]},
    scripted_policy=make_policy,
    # the scripted player weighs every placement (about 3 ms a decision, 150 decisions a game): too slow
    # to finish simulated games with (it still opens each node); random play finishes them in about 1 ms
    search=SearchDefaults(rollout="random", simulations=100),
    invariant_doc=(
        "each player's 10 scientists are in the camp, on the museum tile, on displayed tiles or in the "
        "national museum; gems in supply plus gems held stay 6/9/12 per colour; every one of the 64 tiles "
        "is in exactly one place; museums stay within 4x4; the public vector equals a rebuild from scratch"
    ),
    reward_doc=(
        'reward="rank" (default): paid at the end; the winner +1, every other player -1; k players tied '
        "after both tie-breaks (most tiles, then most scientists in camp) each get 2/k - 1 (our reading of "
        '"shared win split": the value of a random tie-break among them). reward="margin": own final '
        "score minus the mean of the other players' scores (zero-sum)."
    ),
    players_doc=(
        "2-4 (`num_players`, default 4); `die` (True/False, default None = on for 2 players only) is the "
        'die variant; `reward` is "rank" or "margin".'
    ),
)

__doc__ = __doc__.format(section=game_section(SPEC))
