"""OpenSpiel's Python ISMCTS as the README sets it up, made reproducible."""

from __future__ import annotations

import numpy as np
import pyspiel
from open_spiel.python.algorithms import ismcts, mcts


def ismcts_bot(game, simulations: int, seed: int) -> ismcts.ISMCTSBot:
    """The README's bot (random rollouts, uct_c=2.0) with `simulations` per decision; its
    determinizations drawn by a seeded sampler (the bot's default sampler is not seeded)."""
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=np.random.RandomState(seed))
    bot = ismcts.ISMCTSBot(
        game, evaluator, uct_c=2.0, max_simulations=simulations, random_state=np.random.RandomState(seed)
    )
    sampler = pyspiel.UniformProbabilitySampler(seed, 0.0, 1.0)
    bot.set_resampler(lambda state, player: state.resample_from_infostate(player, sampler))
    return bot
