"""VectorGames: N games stepped together, checked against the same games stepped one at a time (the
engines in self-play, SingleSeatEnv in opponents mode), in process and over two worker processes."""

from __future__ import annotations

import copy
import os
import signal
import subprocess
import sys
import textwrap
from multiprocessing import shared_memory

import numpy as np
import pytest

import envs
from envs.core import GameSpec, IllegalActionError, OrderError, Step, VectorGames
from envs.core.gym_env import SingleSeatEnv
from envs.core.workers import WorkerError

from .helpers import random_playthrough
from .test_reward_models import TallyGame

GAMES = list(envs.GAMES)
SEED = 7


def random_actions(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One uniformly random legal action per row."""
    return np.where(mask, rng.random(mask.shape), -1.0).argmax(axis=1)


def short_config(name: str) -> dict:
    """The game's first test configuration, cut at about its median length under random play, so a
    short run sees games that end and games that are truncated."""
    spec = envs.spec(name)
    config = dict(spec.test_configs[0])
    rng = np.random.default_rng(0)
    lengths = [random_playthrough(spec.new_game(np.random.default_rng(k), **config), rng) for k in range(9)]
    return {**config, "max_decisions": int(np.median(lengths))}


class EngineGames:
    """The documented self-play stream on the bare engines: slot i deals each game from a seed drawn
    from np.random.default_rng(SeedSequence(seed).spawn(n)[i])."""

    def __init__(self, spec, config: dict, seed: int, n: int):
        self.spec, self.config = spec, config
        self.rngs = [np.random.default_rng(s) for s in np.random.SeedSequence(seed).spawn(n)]
        self.games = [self.deal(i) for i in range(n)]

    def deal(self, i: int):
        return self.spec.new_game(np.random.default_rng(int(self.rngs[i].integers(2**63))), **self.config)

    def seen(self, i: int) -> tuple:
        game = self.games[i]
        player = game.current_player()
        return player, game.observation(player), game.legal_action_mask()

    def step(self, i: int, action: int) -> tuple:
        """(returns if the game ended or was cut, else None; terminated; truncated); `final_obs` keeps
        every seat's observation of the last position that ended or was cut."""
        game = self.games[i]
        game.apply_action(action)
        terminated, truncated = game.is_terminal(), game.is_truncated()
        if not (terminated or truncated):
            return None, False, False
        returns = np.asarray(game.returns(), dtype=np.float64)
        self.final_obs = np.stack([game.observation(p) for p in range(game.num_players)])
        self.games[i] = self.deal(i)
        return returns, terminated, truncated


def check_row(step: Step, i: int, player: int, obs: np.ndarray, mask: np.ndarray) -> None:
    assert step.player[i] == player
    np.testing.assert_array_equal(step.obs[i], obs)
    np.testing.assert_array_equal(step.mask[i], mask)


@pytest.mark.parametrize("name", GAMES)
def test_self_play_stream_equals_the_engines(name):
    spec, config, n = envs.spec(name), short_config(name), 3
    engines = EngineGames(spec, config, SEED, n)
    rng = np.random.default_rng(1)
    paid = np.zeros((n, spec.new_game(None, **config).num_players))
    ends = {"terminated": 0, "truncated": 0}
    with VectorGames(name, n, seed=SEED, final_obs=True, **config) as games:
        step = games.reset()
        assert step.player.dtype == np.int64 and step.obs.dtype == np.float32 and step.mask.dtype == bool
        assert step.obs.shape == (n, games.obs_dim) and step.mask.shape == (n, games.num_actions)
        assert step.final_obs.shape == (n, paid.shape[1], games.obs_dim) and not step.final_obs.any()
        for k in range(400):
            for i in range(n):
                check_row(step, i, *engines.seen(i))
            actions = random_actions(step.mask, rng)
            step = games.step(actions)
            paid += step.rewards
            for i in range(n):
                returns, terminated, truncated = engines.step(i, int(actions[i]))
                assert (step.terminated[i], step.truncated[i]) == (terminated, truncated)
                if returns is None:  # every registered game pays at the end only
                    assert not step.rewards[i].any() and not step.final_returns[i].any()
                    assert not step.final_obs[i].any()
                    continue
                ends["terminated" if terminated else "truncated"] += 1
                np.testing.assert_array_equal(step.final_obs[i], engines.final_obs)
                np.testing.assert_allclose(step.final_returns[i], returns, rtol=1e-6)
                np.testing.assert_allclose(paid[i], returns, rtol=1e-5, atol=1e-5)  # rewards add up to it
                paid[i] = 0
            if min(ends.values()) >= 2 and k >= 60:
                break
    assert min(ends.values()) >= 2, ends  # auto-reset after games that ended and after games cut


def single_seat_env(spec, opponents, config: dict, slot_seed) -> tuple:
    env = SingleSeatEnv(spec, opponents=copy.deepcopy(opponents), **config)
    env.np_random = np.random.default_rng(slot_seed)  # the slot's generator, as documented
    obs, info = env.reset()
    return env, obs, info


class CountingPolicy:
    """Plays its n-th legal action on its n-th call of a game: its state is per game (reset() hook), so
    two games sharing one copy would play differently from two separate games."""

    def __init__(self):
        self.calls = 0

    def reset(self):
        self.calls = 0

    def __call__(self, observation, mask):
        legal = np.flatnonzero(mask)
        self.calls += 1
        return int(legal[self.calls % len(legal)])


class PerSeatCountingPolicy:
    """Gives each seat its own CountingPolicy (the for_seat() hook)."""

    def __call__(self, observation, mask):
        raise AssertionError("for_seat() gives the players")

    def for_seat(self, seat):
        return CountingPolicy()


# each game is checked with one kind of opponent (the kinds cycle over the registered games)
OPPONENT_KINDS = ["scripted", CountingPolicy(), "random", PerSeatCountingPolicy()]


@pytest.mark.parametrize("name", GAMES)
def test_opponents_stream_equals_single_seat_envs(name):
    spec, config, n = envs.spec(name), short_config(name), 3
    opponents = OPPONENT_KINDS[GAMES.index(name) % len(OPPONENT_KINDS)]
    seeds = np.random.SeedSequence(SEED).spawn(n)
    references = [single_seat_env(spec, opponents, config, s) for s in seeds]
    envs_, seen = [r[0] for r in references], [(r[1], r[2]) for r in references]
    rng = np.random.default_rng(2)
    paid = np.zeros((n, envs_[0].num_players))
    ends = 0
    with VectorGames(spec, n, seed=SEED, opponents=opponents, final_obs=True, **config) as games:
        step = games.reset()
        for k in range(300):
            for i, env in enumerate(envs_):
                check_row(step, i, env.seat, seen[i][0], seen[i][1]["action_mask"])
            seats = step.player
            actions = random_actions(step.mask, rng)
            step = games.step(actions)
            paid += step.rewards
            for i, env in enumerate(envs_):
                obs, reward, terminated, truncated, info = env.step(int(actions[i]))
                assert step.rewards[i, seats[i]] == pytest.approx(reward, rel=1e-6, abs=1e-6)
                assert (step.terminated[i], step.truncated[i]) == (terminated, truncated)
                seen[i] = (obs, info)
                if terminated or truncated:
                    ends += 1
                    # the learning seat's final observation is the one the Gymnasium face returns
                    np.testing.assert_array_equal(step.final_obs[i, seats[i]], obs)
                    np.testing.assert_allclose(step.final_returns[i], env.game.returns(), rtol=1e-6)
                    np.testing.assert_allclose(paid[i], env.game.returns(), rtol=1e-5, atol=1e-5)
                    paid[i] = 0
                    seen[i] = env.reset()
            if ends >= 2 * n and k >= 60:
                break
    assert ends >= 2 * n


def stream(games: VectorGames, steps: int, seed: int = 3, reset_seed: int | None = None) -> list[Step]:
    rng = np.random.default_rng(seed)
    out = [games.reset(seed=reset_seed)]
    for _ in range(steps):
        out.append(games.step(random_actions(out[-1].mask, rng)))
    return out


def assert_same_stream(a: list[Step], b: list[Step]) -> None:
    assert len(a) == len(b)
    for x, y in zip(a, b):
        for field in (
            "player",
            "obs",
            "mask",
            "rewards",
            "terminated",
            "truncated",
            "final_returns",
            "final_obs",
        ):
            np.testing.assert_array_equal(getattr(x, field), getattr(y, field), err_msg=field)


@pytest.mark.parametrize("name, versus", [(name, k % 2 == 1) for k, name in enumerate(GAMES)])
def test_two_workers_play_the_same_stream_as_one(name, versus):
    """The seeding makes W irrelevant to the stream (each slot has its own generator and opponents), so
    the in-process games, checked against the engines above, are the reference for two processes. (Each
    game in one mode, the modes alternating: a worker process costs seconds to start.)"""
    kwargs = {"opponents": "scripted"} if versus else {}
    kwargs["final_obs"] = True  # the largest batch, through the shared block too
    config, n = short_config(name), 5
    with VectorGames(name, n, workers=1, seed=SEED, **kwargs, **config) as one:
        expected = stream(one, 60)
    with VectorGames(name, n, workers=2, seed=SEED, **kwargs, **config) as two:
        assert_same_stream(stream(two, 60), expected)
        assert_same_stream(stream(two, 10, reset_seed=SEED), expected[:11])  # reset(seed) starts over


def test_the_same_seed_gives_the_same_stream_and_another_seed_another():
    config = short_config("exposed")
    with VectorGames("exposed", 4, seed=1, opponents="scripted", **config) as games:
        first = stream(games, 40)
        again = stream(games, 40, reset_seed=1)  # named opponents are rebuilt too
        other = stream(games, 40, reset_seed=2)
    assert_same_stream(first, again)
    assert not np.array_equal(first[0].obs, other[0].obs)


def tally_spec() -> GameSpec:
    return GameSpec("tally", "Tally", TallyGame, test_configs=({},), benchmark_config={})


def test_a_rewards_game_pays_along_and_a_game_that_ends_is_replaced_in_the_same_step():
    """Tally: seats alternate four moves, action 1 scores a point for the mover."""
    with VectorGames(tally_spec(), 2, seed=0, reward_model="rewards") as games:
        step = games.reset()
        assert step.player.tolist() == [0, 0]
        rewards = []
        for move in range(4):
            step = games.step(np.array([1, 0]))
            rewards.append(step.rewards.tolist())
            assert step.terminated.tolist() == [move == 3] * 2
        assert rewards == [[[1, 0], [0, 0]], [[0, 1], [0, 0]], [[1, 0], [0, 0]], [[0, 1], [0, 0]]]
        assert step.final_returns.tolist() == [[2, 2], [0, 0]]
        assert step.player.tolist() == [0, 0] and step.obs[:, 0].tolist() == [0, 0]  # new games


@pytest.mark.parametrize("model", ["rewards", "terminal"])
def test_a_game_cut_at_max_decisions_is_truncated_and_paid_what_it_returns_then(model):
    with VectorGames(tally_spec(), 1, seed=0, reward_model=model, max_decisions=3) as games:
        games.reset()
        steps = [games.step(np.array([1])) for _ in range(3)]
    assert [(s.terminated[0], s.truncated[0]) for s in steps] == [(False, False)] * 2 + [(False, True)]
    paid = [s.rewards[0].tolist() for s in steps]
    assert paid == ([[1, 0], [0, 1], [1, 0]] if model == "rewards" else [[0, 0], [0, 0], [0, 0]])
    # a terminal-model game returns zeros until its end: a cut game pays what returns() says then
    assert steps[-1].final_returns[0].tolist() == ([2, 1] if model == "rewards" else [0, 0])
    assert steps[-1].obs[0, 0] == 0  # the slot holds a new game


def test_final_observations_show_where_a_game_was_cut_and_are_off_by_default():
    cut = TallyGame(reward_model="rewards", max_decisions=3)
    for _ in range(3):
        cut.apply_action(1)
    with VectorGames(tally_spec(), 2, seed=0, max_decisions=3, final_obs=True) as games:
        steps = [games.reset()] + [games.step(np.array([1, 1])) for _ in range(4)]
    for k, step in enumerate(steps):
        if k == 3:  # both games were cut with this step: each seat's view of the position they stopped in
            assert step.truncated.all()
            for p in range(2):
                np.testing.assert_array_equal(step.final_obs[:, p], np.stack([cut.observation(p)] * 2))
        else:  # zero elsewhere, the step after a cut included
            assert not step.final_obs.any()
    with VectorGames(tally_spec(), 1, seed=0) as games:
        assert games.reset().final_obs is None and games.step(np.array([1])).final_obs is None


def test_opponents_mode_always_shows_the_learning_seat():
    config = short_config("expressions")
    with VectorGames("expressions", 6, seed=0, seat=1, **config) as games:
        rng = np.random.default_rng(0)
        step = games.reset()
        for _ in range(50):
            assert (step.player == 1).all() and step.mask.any(axis=1).all()
            step = games.step(random_actions(step.mask, rng))
    with VectorGames("expressions", 16, seed=0, opponents="random", **config) as games:
        assert len(set(games.reset().player.tolist())) > 1  # seat=None: a random seat each game


def refused_batches(games: VectorGames, step: Step) -> list:
    """Action batches the vector refuses, each with the error expected."""
    legal = random_actions(step.mask, np.random.default_rng(0))
    illegal = legal.copy()
    i = int(np.flatnonzero(~step.mask.all(axis=1))[-1])  # a game with a forbidden action
    illegal[i] = int(np.flatnonzero(~step.mask[i])[0])
    out_of_range = legal.copy()
    out_of_range[0] = games.num_actions
    return [
        (illegal, IllegalActionError, rf"game {i}: action {illegal[i]} is illegal"),
        (out_of_range, IllegalActionError, rf"game 0: action {games.num_actions} is out of range"),
        (legal[:-1], ValueError, r"actions must have shape"),
        (legal.astype(np.float64), TypeError, r"actions must be integers"),
        (legal > 0, TypeError, r"actions must be integers"),
    ]


@pytest.mark.parametrize("workers", [1, 2])
def test_a_refused_batch_changes_no_game(workers):
    config, n = short_config("exposed"), 4
    with VectorGames("exposed", n, workers=1, seed=SEED, **config) as twin:
        expected = stream(twin, 20)
    with VectorGames("exposed", n, workers=workers, seed=SEED, **config) as games:
        rng = np.random.default_rng(3)
        step = games.reset()
        for k in range(20):
            if k in (0, 7):
                for actions, error, message in refused_batches(games, step):
                    with pytest.raises(error, match=message):
                        games.step(actions)
            step = games.step(random_actions(step.mask, rng))
            assert_same_stream([step], [expected[k + 1]])


def test_use_out_of_order_is_refused_clearly():
    games = VectorGames("expressions", 2, seed=0)
    with pytest.raises(OrderError, match="reset"):
        games.step(np.zeros(2, dtype=np.int64))
    games.reset()
    games.close()
    games.close()  # twice is fine
    with pytest.raises(OrderError, match="closed"):
        games.reset()
    with pytest.raises(OrderError, match="closed"):
        games.step(np.zeros(2, dtype=np.int64))


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"num_games": 0}, "num_games must be a positive integer"),
        ({"workers": 3}, r"workers \(3\) must not exceed num_games \(2\)"),
        ({"seat": 4}, "seat must be None"),
        ({"opponents": "nobody"}, "unknown opponent 'nobody'"),
        ({"opponents": ["random"] * 3}, r"one opponent policy per seat \(2\)"),
    ],
)
def test_bad_arguments_are_refused_before_any_worker_starts(kwargs, message):
    with pytest.raises(ValueError, match=message):
        VectorGames("expressions", **{"num_games": 2, "num_players": 2, **kwargs})


class FailingPolicy:
    """Raises on its 20th call (picklable: it travels to the workers)."""

    def __init__(self):
        self.calls = 0

    def __call__(self, observation, mask):
        self.calls += 1
        if self.calls == 20:
            raise RuntimeError("the policy broke")
        return int(np.flatnonzero(mask)[0])


def test_a_worker_error_surfaces_and_a_dead_worker_is_an_error_not_a_hang():
    config = short_config("expressions")
    with VectorGames("expressions", 2, workers=2, seed=0, opponents=FailingPolicy(), **config) as games:
        step, rng = games.reset(), np.random.default_rng(0)
        with pytest.raises(WorkerError, match="the policy broke"):
            for _ in range(100):
                step = games.step(random_actions(step.mask, rng))
        with pytest.raises(OrderError, match="reset"):  # a failed step leaves the games to be dealt again
            games.step(random_actions(step.mask, rng))
        step = games.reset()
        os.kill(games._workers.processes[1].pid, signal.SIGKILL)
        with pytest.raises(WorkerError, match="worker 1 died"):
            games.step(random_actions(step.mask, rng))


def test_in_process_games_read_policies_in_process_and_hide_no_error():
    with VectorGames("expressions", 2, seed=0, opponents=FailingPolicy(), num_players=2) as games:
        step, rng = games.reset(), np.random.default_rng(0)
        with pytest.raises(RuntimeError, match="the policy broke"):
            for _ in range(100):
                step = games.step(random_actions(step.mask, rng))


def test_views_without_copies_are_read_only_and_follow_the_games():
    with VectorGames("expressions", 2, seed=0, copy=False, num_players=2) as games:
        step = games.reset()
        before = step.obs.copy()
        with pytest.raises(ValueError, match="read-only"):
            step.obs[0, 0] = 1
        after = games.step(random_actions(step.mask, np.random.default_rng(0)))
        assert after is step and not np.array_equal(after.obs, before)


def test_shared_memory_is_freed_on_close():
    games = VectorGames("expressions", 2, workers=2, seed=0, num_players=2)
    name = games._memory.name
    games.reset()
    games.close()
    with pytest.raises(FileNotFoundError):
        shared_memory.SharedMemory(name=name)


def test_no_shared_memory_leaks_or_warnings_closed_or_not():
    """A program that closes one vector and forgets another exits cleanly: both blocks are unlinked and
    the resource tracker has nothing to warn about."""
    script = textwrap.dedent(
        """
        import numpy as np, envs
        closed = envs.vector("expressions", 2, workers=2, seed=0, num_players=2)
        step = closed.reset()
        closed.step(np.where(step.mask, 1.0, -1.0).argmax(1))
        closed.close()
        forgotten = envs.vector("expressions", 2, workers=2, seed=0, num_players=2, copy=False)
        kept = forgotten.reset()  # a view still held at exit
        print(closed._memory.name, forgotten._memory.name)
        """
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120, env=env
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    for name in done.stdout.split():
        with pytest.raises(FileNotFoundError):
            shared_memory.SharedMemory(name=name)
