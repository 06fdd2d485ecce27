"""Expressions as a PettingZoo AEC environment (cooperative, 2–5 players).

`env(num_players=4, mode="normal", reward="win_loss", knowledge=False)`; `raw_env(...)` without the safety layer.
The players, actions, observation pieces and rewards below are generated from the code.
"""

from __future__ import annotations

from envs.core import GameSpec
from envs.core.docs import game_section
from envs.core.face import make_faces
from envs.core.registry import SearchDefaults
from envs.expressions.baseline import ScriptedExpressionsPolicy
from envs.expressions.rules import Expressions

raw_env, env = make_faces(Expressions)


def harmony_minus_agony(game: Expressions) -> dict[str, float]:
    """The score the rulebook keeps, per finished game: cards in Harmony minus cards in Agony (evaluate,
    crossplay and benchmark cards report its mean beside the team's win rate)."""
    return {"harmony_minus_agony": float(len(game.harmony) - len(game.agony))}


SPEC = GameSpec(
    name="expressions",
    title="Expressions",
    game_class=Expressions,
    test_configs=tuple(
        [{"num_players": n} for n in (2, 3, 4, 5)]
        + [{"num_players": 4, "mode": "hard"}, {"num_players": 4, "mode": "easy"}]
        + [{"num_players": 2, "mode": "hard"}, {"num_players": 3, "mode": "easy", "reward": "score"}]
        + [{"num_players": 4, "knowledge": True}]
    ),
    benchmark_config={"num_players": 4},
    # the largest table, and two players beside OpenSpiel's two-player hanabi
    extra={
        "benchmark_configs": [{"num_players": 5}, {"num_players": 4}, {"num_players": 2}],
        "metrics": harmony_minus_agony,
    },
    scripted_policy=lambda config, seat=0: ScriptedExpressionsPolicy(config),
    # a simulated game finished by the scripted team costs about 5 ms
    search=SearchDefaults(rollout="scripted", simulations=60),
    players_doc="2–5, all on one team (cooperative). Modes `normal`, `hard` (2 timer cards a round), "
    "`easy` (one more round after the last flip). The first player is random. `knowledge=True` adds "
    "the public card knowledge (`may_hold`, `must_hold`, as Hanabi's standard observation does).",
    reward_doc="the same for every player at the end: +1 if Harmony holds more cards than Agony, else −1 "
    '(`reward="score"`: Harmony − Agony). Zero before the end.',
    invariant_doc="all 50 cards always in exactly one place",
)

__doc__ = (__doc__ or "") + "\n" + game_section(SPEC)
