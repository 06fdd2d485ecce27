"""Self-play with frozen snapshots on RLlib: who plays each seat, snapshot modules, PFSP statistics.

Module ids: "main" (the one trained policy, shared by all of its seats), "random", "scripted", and
"snap_<slot>" (frozen past copies of main). As in the native trainer (`training/pool.py`), each new game
draws its opponent kind by the `opponents` weights (self / snapshot / scripted / random) and a snapshot
by PFSP from main's win rate against it; main takes a random team and the opponent every other seat;
in cooperative games main plays every seat.

- `SelfPlayMapping` is the agent-to-module mapping function the EnvRunners call; it draws once per
  episode (seeded by the episode id, so every agent of an episode sees the same draw) and seats main
  on one team of THAT episode's game (`game.teams()`: Artifacts' sides as dealt, not the role chart).
- `SelfPlayCallback` hands each episode its game's teams (`EpisodeTeams`) and logs main's outcome
  (1 win, 1/k shared first place, 0 loss; a game truncated at its length limit is a draw) per
  opponent module.
- `SnapshotLeague` (driver side) owns the native `OpponentPool`: it adds snapshot modules over time with
  weights copied from the *learner group* (the EnvRunners' inference-only copies have no critic), keeps
  at most `pool_size` snapshot modules (slots are reused for newer snapshots), feeds PFSP with the
  outcomes, and pushes the new mapping to every EnvRunner.
"""

from __future__ import annotations

import hashlib
from typing import Any

import numpy as np
from ray.rllib.callbacks.callbacks import RLlibCallback
from ray.rllib.core.rl_module.rl_module import RLModuleSpec

from ..games import team_outcomes
from ..nets import PolicyNet
from ..pool import OpponentPool
from .module import MaskedPolicyModule, policy_weights

MAIN = "main"
RANDOM = "random"
SCRIPTED = "scripted"
# metrics under result["env_runners"]["selfplay"][module]["games" | "score" | "return" | "truncated"]
STATS_KEY = "selfplay"
TEAMS_KEY = "tabletop_teams"  # episode.custom_data[TEAMS_KEY]: the EpisodeTeams of the episode's game


def seat_of(agent_id: Any) -> int:
    """Seat index of a PettingZoo agent id 'player_<i>'."""
    return int(str(agent_id).rsplit("_", 1)[-1])


class EpisodeTeams:
    """The teams of one episode's game (`game.teams()`, secret sides as dealt), for the referee only.

    RLlib maps the first agent to a module inside the reset that deals the game, before any callback
    that follows the reset: so `SelfPlayCallback.on_episode_created` (just before the reset) leaves
    this handle on the episode, and its first reading, at the first mapping, takes the teams from the
    sub-env's game (dealt by then) and keeps them. RLlib deep-copies custom data into each continuing
    chunk of an episode: the copy is this same handle. Pickled (episodes sent to a learner), it keeps
    only the teams, never the env.
    """

    def __init__(self, vector_env=None, index: int = 0, teams: list[int] | None = None):
        self._env = (vector_env, index) if vector_env is not None else None
        self.teams = [int(t) for t in teams] if teams is not None else None

    def get(self) -> list[int] | None:
        if self.teams is None and self._env is not None:
            env, index = self._env
            self.teams = [int(t) for t in sub_env(env, index).game.teams()]
            self._env = None
        return self.teams

    def __deepcopy__(self, memo):
        return self

    def __reduce__(self):
        return (EpisodeTeams, (None, 0, self.teams))


def sub_env(env, index: int):
    """The TabletopRLlibEnv at `index` of an EnvRunner's vector env (or `env` itself)."""
    envs = getattr(env, "envs", None)
    return (envs[index] if envs is not None else env).unwrapped


def episode_teams(episode) -> list[int] | None:
    """The teams of an episode's game, or None where the episode has none (yet)."""
    data = getattr(episode, "custom_data", None)
    handle = data.get(TEAMS_KEY) if data is not None else None
    return handle.get() if handle is not None else None


class SelfPlayMapping:
    """Agent id -> module id, one draw per episode from `table` [(module, probability), ...].

    `MAIN` in the table means shared-parameter self-play (main in every seat); any other module plays
    every seat outside main's team, the team drawn uniformly among the teams of the episode's game
    (`episode_teams`: a game with secret sides seats main on one dealt side).
    """

    def __init__(self, table: list[tuple[str, float]]):
        self.modules = [m for m, _ in table]
        probs = np.array([p for _, p in table], float)
        if not len(probs) or probs.sum() <= 0:
            self.modules, probs = [MAIN], np.ones(1)
        self.probs = probs / probs.sum()
        self._cache: dict[str, tuple[str, float]] = {}

    def draw(self, episode_id: str) -> tuple[str, float]:
        """(opponent module, a uniform number in [0, 1) that picks main's team) for one episode."""
        hit = self._cache.get(episode_id)
        if hit is None:
            seed = int.from_bytes(hashlib.blake2b(str(episode_id).encode(), digest_size=8).digest(), "little")
            rng = np.random.default_rng(seed)
            module = self.modules[int(rng.choice(len(self.modules), p=self.probs))]
            hit = (module, float(rng.random()))
            if len(self._cache) > 4096:
                self._cache.clear()
            self._cache[episode_id] = hit
        return hit

    def main_team(self, episode, teams: list[int]) -> tuple[str, int]:
        """(opponent module, main's team id) of an episode whose game has these teams."""
        module, u = self.draw(episode.id_)
        ids = sorted(set(teams))
        return module, ids[int(u * len(ids))]

    def __call__(self, agent_id, episode=None, **kwargs) -> str:
        teams = episode_teams(episode)
        if teams is None:
            # RLlib's cut() asks once more for every agent of a continuing chunk before it copies the
            # episode's custom data; it keeps the module the agent already has
            return MAIN
        if len(set(teams)) == 1:
            return MAIN
        module, team = self.main_team(episode, teams)
        if module == MAIN or teams[seat_of(agent_id)] == team:
            return MAIN
        return module


class SelfPlayCallback(RLlibCallback):
    """Gives every episode its game's teams, logs main's results per opponent from them, and keeps a
    truncated game truncated (see `keep_truncated`)."""

    def on_episode_created(self, *, episode, env=None, env_index: int = 0, **kwargs) -> None:
        if env is not None:  # before the reset that deals the game: read at the first mapping
            episode.custom_data[TEAMS_KEY] = EpisodeTeams(env, env_index)

    def on_episode_end(self, *, episode, metrics_logger=None, **kwargs) -> None:
        infos = episode.get_infos(-1)
        end = next((i for i in infos.values() if isinstance(i, dict) and "returns" in i), None)
        if end is None:
            return
        truncated = bool(end.get("truncated", False))
        if truncated:
            keep_truncated(episode)
        teams = episode_teams(episode)
        if metrics_logger is None or teams is None:
            return
        returns = np.asarray(end["returns"], float)
        drawn = main_and_opponent(episode, teams)
        if drawn is None:
            return
        opponent, team = drawn
        cooperative = len(set(teams)) == 1
        if opponent == MAIN and not cooperative:
            return  # self-play games give no win rate (main wins whatever happens)
        # a game cut at its length limit has no result: a draw among the teams, not a loss
        outcome = float(team_outcomes(np.zeros(len(teams)) if truncated else returns, teams)[team])
        mean_return = float(np.mean([returns[s] for s in range(len(returns)) if teams[s] == team]))
        name = "team" if cooperative else opponent
        metrics_logger.log_value((STATS_KEY, name, "games"), 1, reduce="lifetime_sum")
        metrics_logger.log_value((STATS_KEY, name, "score"), outcome, reduce="lifetime_sum")
        metrics_logger.log_value((STATS_KEY, name, "return"), mean_return, reduce="lifetime_sum")
        metrics_logger.log_value((STATS_KEY, name, "truncated"), int(truncated), reduce="lifetime_sum")


def main_and_opponent(episode, teams: list[int]) -> tuple[str, int] | None:
    """(opponent module, main's team) of an episode: the draw of its SelfPlayMapping, which holds even
    where a side ended the game before deciding (a seat that never decided has no agent episode);
    else read from the seats present. MAIN as the opponent means self-play."""
    mapping = getattr(episode, "agent_to_module_mapping_fn", None)
    if len(set(teams)) == 1:
        return MAIN, teams[0]
    if isinstance(mapping, SelfPlayMapping):
        return mapping.main_team(episode, teams)
    modules = {seat_of(a): episode.module_for(a) for a in episode.agent_ids}
    main_seats = [s for s, m in modules.items() if m == MAIN]
    if not main_seats:
        return None
    others = sorted({m for m in modules.values() if m != MAIN})
    return (others[0] if others else MAIN), teams[main_seats[0]]


def keep_truncated(episode) -> None:
    """Mark a game cut at its length limit truncated, not terminated, for every agent.

    RLlib (2.60) declares a multi-agent episode terminated once every agent is done, even when every
    agent was truncated ("Case 2" in `MultiAgentEpisode.add_env_step`), and passes that to each agent's
    episode: PPO would then treat the cut as a terminal state worth 0. Set back, each agent's last
    observation is bootstrapped by its value estimate, as for any truncation."""
    episode.is_terminated = False
    episode.is_truncated = True
    for agent_episode in episode.agent_episodes.values():
        agent_episode.is_terminated = False
        agent_episode.is_truncated = True


def main_module_spec(
    net_config: dict, shape: dict, observation_space=None, action_space=None, *, max_seq_len: int = 64
) -> RLModuleSpec:
    """main's module (and a snapshot's): the native PolicyNet of `net_config` on the game's `shape`
    (NetShape.to_dict(): sizes, pieces, action blocks) and, for a GRU, the length of its training
    sequences."""
    return RLModuleSpec(
        module_class=MaskedPolicyModule,
        model_config={"net": dict(net_config), "shape": dict(shape), "max_seq_len": int(max_seq_len)},
        observation_space=observation_space,
        action_space=action_space,
    )


def set_module_weights(algo, module_id: str, weights: dict) -> None:
    """Full weights into the learner group's module, its inference-only part into every EnvRunner.

    Straight into the EnvRunners: RLlib's own weight sync skips EnvRunners whose weights sequence number
    is current, so the new weights would otherwise wait for the next update (one iteration of sampling).
    """
    algo.learner_group.set_weights({module_id: weights})
    runner_state = algo.learner_group.get_state(
        components=[f"learner/rl_module/{module_id}"], inference_only=True
    )["learner"]["rl_module"][module_id]

    def _set(env_runner, _mid=module_id, _state=runner_state):
        if env_runner.module is not None and _mid in env_runner.module:
            env_runner.module[_mid].set_state(_state)

    algo.env_runner_group.foreach_env_runner(_set)


def game_spaces(game: str, game_config: dict):
    """(observation space, action space) of one seat of the game's AEC env."""
    from .env import make_aec

    env = make_aec(game, game_config)
    agent = env.possible_agents[0]
    return env.observation_space(agent), env.action_space(agent)


class SnapshotLeague:
    """The driver's side of self-play: pool, snapshot modules, PFSP statistics, the mapping."""

    def __init__(self, config, info):
        self.config = config
        self.info = info
        self.pool = OpponentPool(config.opponents, info)
        self.slots: dict[str, int] = {}  # snapshot module id -> pool snapshot id it holds
        self._seen: dict[str, dict[str, float]] = {}  # lifetime sums already counted, per module

    # ----- modules present from the start -----------------------------------------------------
    def fixed_modules(self) -> list[str]:
        """Opponent modules the run needs from the start (besides main)."""
        if self.info.cooperative:
            return []
        out = []
        if self.pool.weights["random"] > 0:
            out.append(RANDOM)
        if self.pool.weights["scripted"] > 0:
            out.append(SCRIPTED)
        return out

    def table(self) -> list[tuple[str, float]]:
        """(module, probability) of the opponent drawn for a new game (MAIN = self-play)."""
        if self.info.cooperative:
            return [(MAIN, 1.0)]
        w = self.pool.weights
        table = [(MAIN, w["self"]), (RANDOM, w["random"]), (SCRIPTED, w["scripted"])]
        if self.slots and w["snapshot"] > 0:
            keys, probs = self.pool._snapshot_probs()
            by_sid = {sid: module for module, sid in self.slots.items()}
            for key, p in zip(keys, probs):
                if key[1] in by_sid:
                    table.append((by_sid[key[1]], w["snapshot"] * float(p)))
        return [(m, p) for m, p in table if p > 0] or [(MAIN, 1.0)]

    def mapping(self) -> SelfPlayMapping:
        return SelfPlayMapping(self.table())

    # ----- snapshots ---------------------------------------------------------------------------
    def wants_snapshots(self) -> bool:
        return not self.info.cooperative and self.pool.weights["snapshot"] > 0

    def add_snapshot(self, algo) -> str:
        """Copy main's full weights from the learner group into a (new or reused) snapshot module."""
        weights = algo.learner_group.get_weights(module_ids=[MAIN])[MAIN]
        net = self.policy_net(weights)
        key = self.pool.add_snapshot(net)  # evicts the oldest beyond pool_size
        free = [m for m, sid in self.slots.items() if sid not in self.pool.snapshots]
        if free:
            module_id = sorted(free)[0]
        else:
            module_id = f"snap_{len(self.slots)}"
            spec = self.module_spec(*game_spaces(self.config.game, self.info.game_config))
            spec.inference_only = True  # the EnvRunners' copies (learners force a full copy for themselves)
            algo.add_module(module_id=module_id, module_spec=spec, new_should_module_be_updated=[MAIN])
        self.slots[module_id] = key[
            1
        ]  # RLlib's lifetime sums go on per module id: record() takes differences
        set_module_weights(algo, module_id, weights)
        self.push_mapping(algo)
        return module_id

    def module_spec(self, observation_space=None, action_space=None) -> RLModuleSpec:
        """main's module spec for this run (snapshots are copies of it)."""
        return main_module_spec(
            self.config.net.__dict__,
            self.info.net_shape.to_dict(),
            observation_space,
            action_space,
            max_seq_len=self.config.ppo.rollout_steps,
        )

    def policy_net(self, weights: dict, into: PolicyNet | None = None) -> PolicyNet:
        """A native PolicyNet holding (full, learner-side) module weights: `into`, loaded in place (its
        parameters stay the same objects, so an optimizer over them keeps its state), or a new one."""
        import torch

        net = into if into is not None else PolicyNet(self.info.net_shape, self.config.net)
        net.load_state_dict({k: torch.as_tensor(np.asarray(v)) for k, v in policy_weights(weights).items()})
        return net

    def push_mapping(self, algo) -> None:
        mapping = self.mapping()

        def _set(env_runner, _mapping=mapping):
            env_runner.config.multi_agent(policy_mapping_fn=_mapping)

        algo.config._is_frozen = False
        algo.config.multi_agent(policy_mapping_fn=mapping)
        algo.config.freeze()
        algo.env_runner_group.foreach_env_runner(_set)

    # ----- statistics --------------------------------------------------------------------------
    def record(self, env_runner_results: dict) -> dict[str, tuple[int, float, float]]:
        """Feed this iteration's outcomes into the pool; returns {kind: (games, score, return)}."""
        stats = env_runner_results.get(STATS_KEY, {}) if isinstance(env_runner_results, dict) else {}
        out: dict[str, list] = {}
        for module, values in stats.items():
            totals = {k: float(_scalar(v)) for k, v in values.items()}
            seen = self._seen.get(module, {})
            games = int(round(totals.get("games", 0.0) - seen.get("games", 0.0)))
            score = totals.get("score", 0.0) - seen.get("score", 0.0)
            ret = totals.get("return", 0.0) - seen.get("return", 0.0)
            self._seen[module] = totals
            if games <= 0:
                continue
            if module in self.slots:
                key = ("snap", self.slots[module])
                if key[1] in self.pool.snapshots:
                    for _ in range(games):
                        self.pool.record(key, score / games)
                kind = "snapshot"
            else:
                if module in (RANDOM, SCRIPTED):
                    for _ in range(games):
                        self.pool.record(module, score / games)
                kind = module
            acc = out.setdefault(kind, [0, 0.0, 0.0])
            acc[0] += games
            acc[1] += score
            acc[2] += ret
        return {k: (g, s, r) for k, (g, s, r) in out.items()}

    def state(self) -> dict:
        return {"slots": dict(self.slots), "pool": self.pool.table()}


def _scalar(value) -> float:
    if isinstance(value, dict):  # some RLlib versions nest reduced values
        value = next(iter(value.values()))
    try:
        return float(value)
    except (TypeError, ValueError):
        return float(np.asarray(value).sum())
