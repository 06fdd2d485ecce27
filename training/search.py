"""Search agents by name: "search" (ISMCTS with random rollouts) and "search:<run or checkpoint>"
(the same search guided by a trained policy: its probabilities as the prior, its critic at the leaves).

The search itself is `envs.core.search.Search`; it reads a game only through the engine contract and
decides from its seat's information alone. A cooperative game's guided searcher assumes its teammates
play the trained policy (`others`): it searches its own choices and samples theirs from the
policy, as a team that shares a known convention would."""

from __future__ import annotations

from dataclasses import dataclass

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


def policy_guides(policy: Policy, reward_scale: float = 1.0, returns=None):
    """(prior, value, leaves) functions from a feed-forward policy (`PolicyGuide`)."""
    guide = PolicyGuide(policy, reward_scale, returns)
    return guide.prior, guide.value, guide.leaves


class PolicyGuide:
    """A search's guides from a feed-forward policy: the masked softmax of its logits for the player to
    move (`prior`), its critic's estimate of every seat's return (`value`; the critic learnt returns
    times `reward_scale`, and `returns` maps them onto the searched game's, `PlayedReturns`), and both
    for many leaves in two network calls (`leaves`, for `Search(batch=...)`). A class, not closures, so
    that a guided search travels to evaluation workers by value."""

    def __init__(self, policy: Policy, reward_scale: float = 1.0, returns=None):
        if policy.net.recurrent:
            raise ConfigError(
                "guided search needs a feed-forward policy (net.kind=mlp): a recurrent one's memory of the "
                "game so far is not part of a searched state"
            )
        self.net, self.reward_scale, self.returns = policy.net, reward_scale, returns

    @torch.no_grad()
    def priors(self, games: list, players: list[int]) -> np.ndarray:
        obs = torch.from_numpy(
            np.stack([g.observation(p) for g, p in zip(games, players)]).astype(np.float32)
        )
        mask = torch.from_numpy(np.stack([g.legal_action_mask() for g in games]))
        logits, _, _ = self.net.step(obs, mask, None, None, need_value=False)
        return torch.softmax(logits, -1).numpy().astype(float)

    @torch.no_grad()
    def critic(self, asked: list[tuple]) -> np.ndarray:
        """The critic's value for each (game, seat), in one call."""
        obs = torch.from_numpy(np.stack([g.observation(p) for g, p in asked]).astype(np.float32))
        state = None
        if self.net.uses_state:
            state = torch.from_numpy(np.stack([g.state_tensor() for g, _ in asked]).astype(np.float32))
        estimates = self.net.values(obs, state).numpy().astype(float) / self.reward_scale  # the critic alone
        return estimates if self.returns is None else self.returns(estimates)

    def prior(self, game, player: int) -> np.ndarray:
        return self.priors([game], [player])[0]

    def value(self, game, viewer: int) -> np.ndarray:
        return self.values([game], viewer)[0]

    def values(self, games: list, viewer: int) -> list[np.ndarray]:
        """Every seat's return in each game: the critic asked once per team (`team_seats`)."""
        asked = [team_seats(g, viewer) for g in games]
        estimates = iter(self.critic([(g, p) for g, (seats, _, _) in zip(games, asked) for p in seats]))
        return [
            spread(g, [next(estimates) for _ in seats], ids, teams)
            for g, (seats, ids, teams) in zip(games, asked)
        ]

    def leaves(self, games: list, players: list[int], viewer: int):
        wanted = [i for i, p in enumerate(players) if p >= 0]
        out = [None] * len(games)
        if wanted:
            for i, row in zip(wanted, self.priors([games[i] for i in wanted], [players[i] for i in wanted])):
                out[i] = row
        return out, self.values(games, viewer)


def team_seats(game, viewer: int) -> tuple[list[int], list[int], np.ndarray]:
    """Whom the critic is asked, for which teams, and every seat's team. Teammates are paid alike, so once per team: from
    `viewer`'s own observation for the viewer's team (the searcher's information, not another seat's
    view of a resampled hand) and the first seat's for every other; with two teams and a known total
    (zero- or constant-sum) once in all, from the viewer, the other team's share following from the
    total."""
    teams = np.asarray(game.teams())
    ids = list(dict.fromkeys([int(teams[viewer])] + teams.tolist()))  # the viewer's team first
    first = [viewer] + [int(np.flatnonzero(teams == t)[0]) for t in ids[1:]]
    if game.game_type().utility_sum is not None and len(ids) == 2:
        return first[:1], ids, teams
    return first, ids, teams


def spread(game, estimates: list[float], ids: list[int], teams: np.ndarray) -> np.ndarray:
    """Every seat's return from the critic's estimates for the teams asked (`team_seats`, which read
    `teams` once for both)."""
    if len(estimates) < len(ids):  # two teams and a known total: the other team's share follows
        total, a = game.game_type().utility_sum, estimates[0]
        size_a, size_b = int((teams == ids[0]).sum()), int((teams == ids[1]).sum())
        team_value = {ids[0]: a, ids[1]: (total - size_a * a) / size_b}
    else:
        team_value = dict(zip(ids, estimates))
    return np.array([team_value[t] for t in teams.tolist()])


def guided_search(
    policy: Policy,
    budget: SearchBudget | None = None,
    seed: int | None = 0,
    reward_scale: float = 1.0,
    cooperative: bool = False,
    name: str = "search",
    batch: int = 1,
    returns=None,
    root: str = "puct",
    gumbel_scale: float = 1.0,
) -> Search:
    """PUCT guided by the policy (`policy_guides`); `batch` leaves evaluated together, `root` "puct" or
    "gumbel" with its noise's `gumbel_scale` (`Search`)."""
    prior, value, leaves = policy_guides(policy, reward_scale, returns)
    others = SampledPlayer(prior) if cooperative else None
    try:
        return Search(
            budget, prior=prior, value=value, others=others, seed=seed, name=name, batch=batch,
            leaves=leaves, root=root, gumbel_scale=gumbel_scale,
        )  # fmt: skip
    except ValueError as exc:
        raise ConfigError(str(exc)) from None


class SampledPlayer:
    """A player that samples its action from the prior's probabilities (legal actions only)."""

    def __init__(self, prior):
        self.prior = prior

    def __call__(self, game, player: int, rng: np.random.Generator) -> int:
        probs = np.where(game.legal_action_mask(), self.prior(game, player), 0.0)
        return int(rng.choice(len(probs), p=probs / probs.sum()))


def search_agent(
    text: str,
    info=None,
    budget: SearchBudget | None = None,
    seed: int | None = 0,
    rollout: str | None = None,
    batch: int = 1,
    root: str = "puct",
    gumbel_scale: float = 0.0,
) -> Search:
    """ "search" or "search:<run directory or checkpoint>" -> a Search agent. `info` (the game being
    played) checks a checkpoint was trained on that game; unguided search finishes its simulated games
    with the game's scripted players or uniformly at random (rollout; default: the game's
    `GameSpec.search`). budget None: the game's default simulations (unguided), 100 (guided). batch:
    the guided search's leaves evaluated together (`Search`; the unguided search plays rollouts). root:
    how the guided search chooses at its root, "puct" or "gumbel" (sequential halving; `Search`), a
    Gumbel root playing its best action unless told otherwise (gumbel_scale 0: an agent plays to win)."""
    if not is_search_name(text):
        raise ConfigError(f"not a search agent name: {text!r} (use 'search' or 'search:<run or checkpoint>')")
    source = text[len(PREFIX) + 1 :]
    if not source:
        if root != "puct":
            raise ConfigError(f"root={root!r} needs a guided search (search:<run or checkpoint>)")
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
    returns = None
    if info is not None:  # the critic learnt the training game's returns; the search scores the played game's
        trained = game_info(data["game"], data["game_config"]).new_game(0).game_type()
        returns = played_returns(trained, info.new_game(0).game_type())
    return guided_search(
        policy,
        budget,
        seed,
        reward_scale,
        cooperative,
        f"search:{source}",
        batch,
        returns,
        root,
        gumbel_scale,
    )


def played_returns(trained, played):
    """Returns in the trained game's bounds mapped linearly onto the played game's (e.g. a run trained
    on Expressions' score reward searching a game scored by wins); None where they are the same or a
    bound is unknown."""
    if (trained.min_return, trained.max_return) == (played.min_return, played.max_return):
        return None
    bounds = (trained.min_return, trained.max_return, played.min_return, played.max_return)
    if not all(np.isfinite(bounds)) or trained.max_return <= trained.min_return:
        return None
    return PlayedReturns(*bounds)


@dataclass(frozen=True)
class PlayedReturns:
    """The linear map of `played_returns`: [low, high] of the trained game onto [to_low, to_high]."""

    low: float
    high: float
    to_low: float
    to_high: float

    def __call__(self, estimates: np.ndarray) -> np.ndarray:
        share = (estimates - self.low) / (self.high - self.low)
        return self.to_low + share * (self.to_high - self.to_low)


class SearchActor:
    """A Search playing seats in the batched runner (it moves at once, reading its game)."""

    kind = "search"
    recurrent = False

    def __init__(self, search: Search):
        self.search = search
        self.name = search.name

    def act(self, game, seat: int) -> int:
        return self.search.act(game, seat)
