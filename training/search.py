"""Search agents by name: "search" (ISMCTS with random rollouts) and "search:<run or checkpoint>"
(the same search guided by a trained policy: its probabilities as the prior, its critic at the leaves).

The search itself is `envs.core.search.Search`; it reads a game only through the engine contract and
decides from its seat's information alone. A cooperative game's guided searcher assumes its teammates
play the trained policy (`others`): it searches its own choices and samples theirs from the
policy, as a team that shares a known convention would."""

from __future__ import annotations

import numpy as np
import torch

from envs.core.errors import ConfigError
from envs.core.search import Search, SearchBudget, unguided_search

from . import checkpoint as ckpt
from .games import game_info
from .policy import Policy

PREFIX = "search"


def is_search_name(text) -> bool:
    return isinstance(text, str) and (text == PREFIX or text.startswith(PREFIX + ":"))


def budget_from(simulations: int | None = None, seconds: float | None = None) -> SearchBudget | None:
    """A budget from CLI flags; None (the game's own default) when neither is given."""
    try:
        if simulations is None and seconds is None:
            return None
        return SearchBudget(simulations=simulations, seconds=seconds)
    except ValueError as exc:
        raise ConfigError(str(exc)) from None


def policy_guides(policy: Policy, reward_scale: float = 1.0):
    """(prior, value) functions from a feed-forward policy: the masked softmax of its logits for the
    player to move, and its critic's estimate of every seat's return (the critic learnt returns times
    `reward_scale`)."""
    net = policy.net
    if net.recurrent:
        raise ConfigError(
            "guided search needs a feed-forward policy (net.kind=mlp): a recurrent one's memory of the "
            "game so far is not part of a searched state"
        )

    @torch.no_grad()
    def prior(game, player: int) -> np.ndarray:
        obs = torch.from_numpy(np.asarray(game.observation(player), np.float32)[None])
        mask = torch.from_numpy(game.legal_action_mask()[None].copy())
        logits, _, _ = net.step(obs, mask, None, None, need_value=False)
        return torch.softmax(logits[0], -1).numpy().astype(float)

    @torch.no_grad()
    def critic(game, seats: list[int]) -> np.ndarray:
        obs = torch.from_numpy(np.stack([game.observation(p) for p in seats]).astype(np.float32))
        state = None
        if net.uses_state:
            state = torch.from_numpy(np.repeat(game.state_tensor()[None].astype(np.float32), len(seats), 0))
        return net.values(obs, state).numpy().astype(float) / reward_scale  # (the critic alone)

    def value(game, viewer: int) -> np.ndarray:
        """Teammates are paid alike, so the critic is asked once per team, from `viewer`'s own
        observation for the viewer's team (the searcher's information, not another seat's view of a
        resampled hand) and the first seat's for every other; with two teams and a known total (zero-
        or constant-sum) once in all, from the viewer, the other team's share following from the total."""
        teams = np.asarray(game.teams())
        ids = list(dict.fromkeys([int(teams[viewer])] + teams.tolist()))  # the viewer's team first
        first = [viewer] + [int(np.flatnonzero(teams == t)[0]) for t in ids[1:]]
        total = game.game_type().utility_sum
        if total is not None and len(ids) == 2:
            a = critic(game, first[:1])[0]
            size_a, size_b = int((teams == ids[0]).sum()), int((teams == ids[1]).sum())
            team_value = {ids[0]: a, ids[1]: (total - size_a * a) / size_b}
        else:
            team_value = dict(zip(ids, critic(game, first)))
        return np.array([team_value[t] for t in teams.tolist()])

    return prior, value


def guided_search(
    policy: Policy,
    budget: SearchBudget | None = None,
    seed: int | None = 0,
    reward_scale: float = 1.0,
    cooperative: bool = False,
    name: str = "search",
) -> Search:
    prior, value = policy_guides(policy, reward_scale)
    others = sampled(prior) if cooperative else None
    return Search(budget, prior=prior, value=value, others=others, seed=seed, name=name)


def sampled(prior):
    """A player that samples its action from the prior's probabilities (legal actions only)."""

    def play(game, player: int, rng: np.random.Generator) -> int:
        probs = np.where(game.legal_action_mask(), prior(game, player), 0.0)
        return int(rng.choice(len(probs), p=probs / probs.sum()))

    return play


def search_agent(
    text: str, info=None, budget: SearchBudget | None = None, seed: int | None = 0, rollout: str | None = None
) -> Search:
    """ "search" or "search:<run directory or checkpoint>" -> a Search agent. `info` (the game being
    played) checks a checkpoint was trained on that game; unguided search finishes its simulated games
    with the game's scripted players or uniformly at random (rollout; default: the game's
    `GameSpec.search`). budget None: the game's default simulations (unguided), 100 (guided)."""
    if not is_search_name(text):
        raise ConfigError(f"not a search agent name: {text!r} (use 'search' or 'search:<run or checkpoint>')")
    source = text[len(PREFIX) + 1 :]
    if not source:
        if info is None:
            return Search(budget, seed=seed, name="search")
        try:
            return unguided_search(info.spec, info.config, rollout, budget, seed)
        except ValueError as exc:
            raise ConfigError(str(exc)) from None
    data = ckpt.read_checkpoint(source, info)
    if info is not None:
        ckpt.check_played(data, info, "the game searched")
    policy = Policy(ckpt.build_net(data), meta={"game": data["game"], "path": data["path"]})
    reward_scale = float(data["train_config"].get("ppo", {}).get("reward_scale", 1.0))
    cooperative = info.cooperative if info is not None else False
    search = guided_search(policy, budget, seed, reward_scale, cooperative, name=f"search:{source}")
    if info is not None:  # the critic learnt the training game's returns; the search scores the played game's
        trained = game_info(data["game"], data["game_config"]).new_game(0).game_type()
        search.value = rescaled(search.value, trained, info.new_game(0).game_type())
    return search


def rescaled(value, trained, played):
    """A critic of returns in the trained game's bounds, mapped linearly onto the played game's (e.g. a
    run trained on Expressions' score reward searching a game scored by wins)."""
    if (trained.min_return, trained.max_return) == (played.min_return, played.max_return):
        return value
    bounds = (trained.min_return, trained.max_return, played.min_return, played.max_return)
    if not all(np.isfinite(bounds)) or trained.max_return <= trained.min_return:
        return value

    def mapped(game, viewer: int) -> np.ndarray:
        share = (value(game, viewer) - trained.min_return) / (trained.max_return - trained.min_return)
        return played.min_return + share * (played.max_return - played.min_return)

    return mapped


class SearchActor:
    """A Search playing seats in the batched runner (it moves at once, reading its game)."""

    kind = "search"
    recurrent = False

    def __init__(self, search: Search):
        self.search = search
        self.name = search.name

    def act(self, game, seat: int) -> int:
        return self.search.act(game, seat)
