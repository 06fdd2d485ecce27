"""Exposed as a PettingZoo AEC environment (2–6 players, hidden identities on a grid of Guests).

`env(num_players=4, exposure_reward=1, empty_new_mark="discard", max_decisions=5000)`; `raw_env(...)`
without the safety layer; past `max_decisions` decisions the faces truncate the game. The players,
actions, observation pieces and rewards below are generated from the code; the rules as implemented,
with every reading, are in envs/exposed/RULES.md.
"""

from __future__ import annotations

from envs.core import GameSpec
from envs.core.docs import game_section
from envs.core.face import make_faces
from envs.exposed.baseline import ScriptedExposedPolicy
from envs.exposed.rules import Exposed

raw_env, env = make_faces(Exposed)

SPEC = GameSpec(
    name="exposed",
    title="Exposed",
    game_class=Exposed,
    test_configs=tuple(
        [{"num_players": n} for n in (2, 3, 4, 5, 6)]
        + [
            {"num_players": 4, "exposure_reward": 2, "empty_new_mark": "wallet"},
            {"num_players": 2, "exposure_reward": 2},
            {"num_players": 6, "empty_new_mark": "wallet"},
        ]
    ),
    benchmark_config={"num_players": 6},
    scripted_policy=lambda config, seat=0: ScriptedExposedPolicy(config, seed=seat),
    players_doc='2–6. 2 players: 4x4 grid of the 16 unmarked Guests, 2 Marks; 3–4: 5x5 (no "5+" '
    "Guests), 3 Marks; 5–6: 6x6, all 36 Guests, 4 Marks. The first player is random. Options: "
    '`exposure_reward` 1 (rule text) or 2 (printed rulebook); `empty_new_mark` "discard" (rule text: '
    'discard, expose, redraw) or "wallet" (printed: 1 Wallet from the Lost & Found on it); '
    "`max_decisions` (default 5000, about 4x the longest measured random game) truncates a game.",
    reward_doc="at the end only: +1 to each winner, −1 to every other player (a shared win pays +1 to "
    "each tied winner). Zero before the end.",
    invariant_doc="Wallets on tiles + Stashes + Lost & Found = set-up Wallets + Wallets created when the "
    "Lost & Found was empty; every Identity card in exactly one place",
    extra={"benchmark_configs": [{"num_players": 2}, {"num_players": 4}, {"num_players": 6}]},
)

__doc__ = (__doc__ or "") + "\n" + game_section(SPEC)
