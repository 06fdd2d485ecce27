"""The checks every game passes, run on every registered game and every test configuration."""

from __future__ import annotations

import warnings

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test, seed_test

from envs.core import ActionGroup, ConfigError, IllegalActionError, OrderError

from . import golden
from .helpers import env_snapshot, random_playthrough, snapshot

RANDOM_GAMES = 200


def test_pettingzoo_api(case):
    spec, face, cfg = case
    api_test(face.env(**cfg), num_cycles=300)
    api_test(face.raw_env(**cfg), num_cycles=300)


def test_pettingzoo_seed(case):
    spec, face, cfg = case
    seed_test(lambda: face.env(**cfg), num_cycles=300)


def test_random_games_keep_invariants(case):
    spec, face, cfg = case
    rng = np.random.default_rng(123)
    lengths = []
    for _ in range(RANDOM_GAMES):
        game = spec.new_game(np.random.default_rng(int(rng.integers(2**31))), **cfg)
        lengths.append(random_playthrough(game, rng, on_state=lambda g: g.check_invariants()))
        game.check_invariants()
        returns = np.asarray(game.returns())
        assert returns.shape == (game.num_players,) and np.all(np.isfinite(returns))
        assert not game.legal_action_mask().any()
        assert game.current_player() == -1
    assert min(lengths) > 0


def test_observations_match_their_layout(case):
    spec, face, cfg = case
    game = spec.new_game(np.random.default_rng(5), **cfg)
    rng = np.random.default_rng(6)

    layout = game.observation_layout
    unbounded = [piece.name for piece in layout if not piece.bounded]
    assert not unbounded, f"observation pieces without declared bounds: {unbounded}"
    low, high = layout.bounds()

    def check(g):
        for p in range(g.num_players):
            obs = g.observation(p)
            assert obs.dtype == np.float32 and obs.shape == (g.observation_layout.size,)
            assert np.all(np.isfinite(obs))
            outside = (obs < low) | (obs > high)
            if outside.any():
                bad = {piece.name for piece in layout if outside[piece.slice].any()}
                raise AssertionError(f"observation of player {p} leaves the declared bounds of {sorted(bad)}")
        state = g.state_tensor()
        assert state.dtype == np.float32 and state.shape == (g.state_layout.size,)
        assert g.legal_action_mask().shape == (g.num_actions,)

    random_playthrough(game, rng, on_state=check)


def test_action_groups_tile_the_action_space_and_name_real_grids(case):
    """The blocks lie end to end over the flat actions; a block laid over a grid's cells names an
    observation piece with row and col axes and covers each cell `depth` times; a block of seats covers
    each seat `depth` times, seats as the observation's seat axes count them."""
    spec, face, cfg = case
    game = spec.new_game(np.random.default_rng(5), **cfg)
    groups = [ActionGroup(*g) for g in game.action_groups()]
    assert [g.start for g in groups] == list(np.cumsum([0] + [g.count for g in groups[:-1]]))
    assert sum(g.count for g in groups) == game.num_actions
    seat_counts = {p.shape[p.axes.index("seat")] for p in game.observation_layout if "seat" in p.axes}
    for g in groups:
        if g.seats:
            assert g.cells is None and seat_counts == {game.num_players}, (g, seat_counts)
            assert g.depth >= 1 and g.count == game.num_players * g.depth, g
        if g.cells is None:
            continue
        piece = game.observation_layout[g.cells]
        assert "row" in piece.axes and "col" in piece.axes, f"{g.name}: {g.cells} is not a grid"
        rows, cols = piece.shape[piece.axes.index("row")], piece.shape[piece.axes.index("col")]
        assert g.depth >= 1 and g.count == rows * cols * g.depth, g


def test_no_observation_leaks_hidden_information(case):
    """resample_hidden(p) keeps p's observation (and mask on p's turn) while the hidden part changes."""
    spec, face, cfg = case
    rng = np.random.default_rng(7)
    min_changed = spec.extra.get("leak_min_changed_share", 0.25)
    samples = changed = 0
    for g_index in range(12):
        game = spec.new_game(np.random.default_rng(100 + g_index), **cfg)
        states: list = []
        random_playthrough(
            game, rng, on_state=lambda g, kept=states: kept.append(g.clone()) if rng.random() < 0.15 else None
        )
        states.append(game.clone())
        for state in states:
            before = snapshot(state)
            for p in range(state.num_players):
                sample = state.resample_hidden(p, rng)
                assert np.array_equal(sample.observation(p), state.observation(p)), (
                    f"observation of player {p} changed under resample_hidden({p}): it leaks hidden information"
                )
                if not state.is_terminal() and state.current_player() == p:
                    assert np.array_equal(sample.legal_action_mask(), state.legal_action_mask()), (
                        f"legal mask of player {p} changed under resample_hidden({p})"
                    )
                assert sample.current_player() == state.current_player()
                assert sample.teams()[p] == state.teams()[p], "a player always knows their own team"
                if state.game_type().teams != "secret":
                    assert sample.teams() == state.teams()
                if rng.random() < 0.05:  # what a seat is shown (text, picture) hides the same things
                    assert sample.to_string(p) == state.to_string(p), (
                        f"to_string({p}) leaks hidden information"
                    )
                    assert np.array_equal(sample.render_rgb(p), state.render_rgb(p)), (
                        f"render_rgb({p}) leaks hidden information"
                    )
                sample.check_invariants()
                samples += 1
                changed += not np.array_equal(sample.state_tensor(), state.state_tensor())
                if rng.random() < 0.1:  # a resampled state must be a playable game
                    random_playthrough(sample.clone(), rng)
            assert snapshot(state) == before, "resample_hidden must not change the original game"
    assert changed / samples >= min_changed, f"hidden state changed in only {changed}/{samples} samples"


def test_illegal_actions_raise_and_change_nothing(case):
    spec, face, cfg = case
    game = spec.new_game(np.random.default_rng(11), **cfg)
    rng = np.random.default_rng(12)

    def try_illegal(g):
        before = snapshot(g)
        mask = g.legal_action_mask()
        illegal = np.flatnonzero(~mask)
        bad = [-1, g.num_actions, g.num_actions + 7, 1.5, "1", None, np.bool_(True), np.array([0])]
        if len(illegal):
            bad.append(int(illegal[rng.integers(len(illegal))]))
        for action in bad:
            with pytest.raises(IllegalActionError):
                g.apply_action(action)
            assert snapshot(g) == before
        legal = int(np.flatnonzero(mask)[0])
        wrong = (g.current_player() + 1) % g.num_players
        if g.num_players > 1:
            with pytest.raises(IllegalActionError, match="turn"):
                g.apply_action(legal, player=wrong)
            assert snapshot(g) == before

    random_playthrough(game, rng, on_state=lambda g: try_illegal(g) if rng.random() < 0.3 else None)
    before = snapshot(game)
    with pytest.raises(IllegalActionError, match="over"):
        game.apply_action(0)
    assert snapshot(game) == before


def test_env_rejects_illegal_and_out_of_order_calls(case):
    spec, face, cfg = case
    env = face.env(**cfg)
    with pytest.raises(OrderError):
        env.step(0)
    with pytest.raises(OrderError):
        env.observe("player_0")
    env.reset(seed=3)
    mask = env.observe(env.agent_selection)["action_mask"]
    illegal = np.flatnonzero(mask == 0)
    if len(illegal):
        before = snapshot(env.unwrapped.game)
        with pytest.raises(IllegalActionError):
            env.step(int(illegal[0]))
        assert snapshot(env.unwrapped.game) == before
    penalized = face.env(illegal_action="penalize", **cfg)
    penalized.reset(seed=3)
    offender = penalized.agent_selection
    if len(illegal):
        penalized.step(int(illegal[0]))
        assert penalized.terminations[offender] and penalized.rewards[offender] == -1.0
        assert all(penalized.rewards[a] == 0 for a in penalized.agents if a != offender)
        # every agent is then done, and is stepped with None (PettingZoo's way), nothing else
        while penalized.agents:
            agent = penalized.agent_selection
            assert penalized.terminations[agent]
            with pytest.raises(OrderError, match="None"):
                penalized.step(0)
            penalized.step(None)
        with pytest.raises(OrderError, match="reset"):
            penalized.step(None)


def test_rewards_add_up_to_the_returns(case):
    """What `last()` hands each agent over an episode (its final dead step included) sums to the game's
    returns, and no agent is handed a reward that no return change caused."""
    spec, face, cfg = case
    env = face.env(**cfg)
    rng = np.random.default_rng(11)
    for seed in range(3):
        env.reset(seed=seed)
        received = dict.fromkeys(env.possible_agents, 0.0)
        for agent in env.agent_iter():
            obs, reward, term, trunc, _info = env.last()
            received[agent] += reward
            legal = np.flatnonzero(obs["action_mask"])
            env.step(None if term or trunc else int(legal[rng.integers(len(legal))]))
        returns = env.unwrapped.game.returns()
        assert [received[a] for a in env.possible_agents] == pytest.approx(list(returns))


def test_bad_config_is_a_clear_error(case):
    spec, face, cfg = case
    with pytest.raises(ConfigError, match="unknown option"):
        face.env(no_such_option=1, **cfg)
    with pytest.raises(ConfigError, match="num_players"):
        face.env(**{**cfg, "num_players": 99})


def test_golden_playthroughs_replay_exactly(case):
    spec, face, cfg = case
    path = golden.golden_path(spec, cfg, 0)
    assert path.exists(), f"missing {path}; run scripts/regenerate_golden.py {spec.name}"
    golden.replay(spec, path)
    other = golden.golden_path(spec, cfg, 1)
    if other.exists():
        golden.replay(spec, other)


def test_gymnasium_face_passes_the_checker(case):
    """Gymnasium's checker passes with the env's defaults and warns of nothing (bounds included)."""
    spec, face, cfg = case
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(gymnasium.make(spec.gym_id, **cfg).unwrapped, skip_render_check=True)
    assert not [str(w.message) for w in caught]
    env = gymnasium.make(spec.gym_id, **cfg)
    obs, info = env.reset(seed=1)
    illegal = np.flatnonzero(~env.unwrapped.action_masks())
    obs2, reward, terminated, truncated, info2 = env.step(int(illegal[0]))  # default: penalize
    assert terminated and not truncated and reward == -1.0 and info2["illegal_action"]
    with pytest.raises(IllegalActionError, match="over"):
        env.step(int(illegal[0]))
    with pytest.raises(IllegalActionError, match="out of range"):
        env.reset(seed=1)
        env.step(env.action_space.n)
    strict = gymnasium.make(spec.gym_id, illegal_action="raise", **cfg)
    obs, info = strict.reset(seed=1)
    with pytest.raises(IllegalActionError):
        strict.step(int(illegal[0]))
    assert strict.observation_space.contains(obs)
    assert info["action_mask"].any()
    terminated = False
    while not terminated:
        legal = np.flatnonzero(env.unwrapped.action_masks())
        obs, reward, terminated, truncated, info = env.step(int(legal[0]))


def test_render_modes(case):
    spec, face, cfg = case
    for mode in ("ansi", "rgb_array"):
        env = face.env(render_mode=mode, **cfg)
        env.reset(seed=2)
        out = env.render()
        if mode == "ansi":
            assert isinstance(out, str) and out
        else:
            assert out.dtype == np.uint8 and out.ndim == 3 and out.shape[2] == 3
            assert out.shape[0] > 50 and out.shape[1] > 50
            assert len(np.unique(out.reshape(-1, 3), axis=0)) > 3  # a real picture, not a blank


def test_same_seed_same_game(case):
    spec, face, cfg = case

    def play(seed):
        env = face.env(**cfg)
        env.reset(seed=seed)
        rng = np.random.default_rng(0)
        trace = []
        for agent in env.agent_iter():
            obs, reward, term, trunc, info = env.last()
            if term or trunc:
                action = None
            else:
                action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
            trace.append((agent, action, obs["observation"].tobytes(), reward))
            env.step(action)
        return trace

    assert play(9) == play(9)
    first_seats = set()
    for seed in range(40):
        env = face.env(**cfg)
        env.reset(seed=seed)
        first_seats.add(env.agent_selection)
    assert len(first_seats) > 1, "the starting seat must be random"


def nothing_paid_before_the_end(game) -> None:
    """A terminal reward model: the faces and trainers read no return before the end, so none may exist."""
    assert not np.any(game.returns()), f"returns {game.returns()} before the end of a terminal-reward game"


def test_game_type_is_declared_and_honest(case):
    """The declared GameType holds in play: return bounds, the utility kind, the kind of teams, the
    reward model."""
    spec, face, cfg = case
    rng = np.random.default_rng(21)
    kind = spec.new_game(np.random.default_rng(0), **cfg).game_type()
    deals, totals = set(), set()
    for index in range(40):
        game = spec.new_game(np.random.default_rng(300 + index), **cfg)
        assert game.game_type() == kind, "the game type depends on the configuration only"
        teams = game.teams()
        assert len(teams) == game.num_players and all(isinstance(t, int) for t in teams)
        deals.add(tuple(teams))
        random_playthrough(
            game, rng, on_state=nothing_paid_before_the_end if kind.reward_model == "terminal" else None
        )
        returns = np.asarray(game.returns())
        assert np.all(returns >= kind.min_return - 1e-9) and np.all(returns <= kind.max_return + 1e-9), (
            f"returns {returns} outside the declared [{kind.min_return}, {kind.max_return}]"
        )
        for team in set(teams):  # team games pay every member of a team the same
            if kind.teams != "none":
                assert len({float(r) for r, t in zip(returns, teams) if t == team}) == 1
        totals.add(round(float(returns.sum()), 9))
        if kind.utility == "zero_sum":
            assert abs(returns.sum()) < 1e-9, f"zero-sum returns {returns} add up to {returns.sum()}"
        if kind.utility == "identical":
            assert np.all(returns == returns[0])
    if kind.utility == "constant_sum":
        assert totals == {round(kind.utility_sum, 9)}, (
            f"constant-sum returns added up to {sorted(totals)}, declared {kind.utility_sum}"
        )
    if kind.teams == "none":
        assert deals == {tuple(range(spec.new_game(np.random.default_rng(0), **cfg).num_players))}
    if kind.teams == "fixed":
        assert len(deals) == 1, "fixed teams cannot change between deals"
    if kind.teams == "secret":
        assert len(deals) > 1, "secret teams are dealt: 40 deals gave the same sides"


@pytest.mark.parametrize("pick", ["first", "last"])
def test_degenerate_policies_still_end(case, pick):
    """Every episode ends: "always the first (last) legal action" plays to an end or to the limit."""
    spec, face, cfg = case
    env = face.env(**cfg)
    env.reset(seed=4)
    limit = env.unwrapped.game.game_type().max_decisions
    decisions = 0
    for _agent in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        if term or trunc:
            env.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        env.step(int(legal[0] if pick == "first" else legal[-1]))
        decisions += 1
        assert decisions <= limit
    game = env.unwrapped.game
    assert game.is_terminal() or (game.is_truncated() and decisions == limit)


def test_truncation_at_the_declared_limit(case):
    """Past max_decisions the AEC env truncates every agent and the Gymnasium env says truncated."""
    spec, face, cfg = case
    limit = 9
    env = face.env(max_decisions=limit, **cfg)
    rng = np.random.default_rng(5)
    for seed in range(20):  # a rare deal ends sooner (an early kill): take the next one
        env.reset(seed=seed)
        decisions, done = 0, []
        for _agent in env.agent_iter():
            obs, reward, term, trunc, info = env.last()
            if term or trunc:
                done.append((term, trunc))
                env.step(None)
                continue
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
            decisions += 1
        assert not env.agents and decisions <= limit
        if not env.unwrapped.game.is_terminal():
            break
    assert decisions == limit and done == [(False, True)] * len(env.possible_agents)
    gym_env = gymnasium.make(spec.gym_id, max_decisions=limit, **cfg)
    for seed in range(20):
        obs, info = gym_env.reset(seed=seed)
        terminated = truncated = False
        while not (terminated or truncated):
            action = int(np.flatnonzero(info["action_mask"])[0])
            obs, reward, terminated, truncated, info = gym_env.step(action)
        if truncated:
            break
    assert truncated and not terminated and gym_env.unwrapped.game.num_decisions == limit
    assert not gym_env.unwrapped.action_masks().any()


@pytest.mark.parametrize("illegal_action", ["raise", "penalize"])
def test_every_action_the_space_contains_is_accepted(case, illegal_action):
    """Whatever action_space.contains() accepts, step() accepts (numpy integers, 0-d arrays);
    anything else is a clear IllegalActionError that changes nothing, in either illegal-action mode
    (a penalty is for a move the rules forbid, not for something that is no move at all)."""
    spec, face, cfg = case
    env = face.env(illegal_action=illegal_action, **cfg)
    env.reset(seed=8)
    agent = env.agent_selection
    space = env.action_space(agent)
    action = int(np.flatnonzero(env.observe(agent)["action_mask"])[0])
    forms = [
        action,
        np.int64(action),
        np.int32(action),
        np.uint8(action) if action < 256 else np.uint16(action),
    ]
    forms += [np.array(action), np.array(action, dtype=np.int16), 1.0 * action, str(action), None, "pass"]
    forms += [np.array([action]), np.array([action, action]), np.float32(action), np.bool_(action == 1)]
    forms += [-1, space.n, np.int64(space.n), np.array(-1), float("nan"), [action], (action,)]
    if action in (0, 1):
        forms.append(bool(action))
    reference = None
    for form in forms:
        env.reset(seed=8)
        before = env_snapshot(env)
        if space.contains(form):
            env.step(form)
            after = snapshot(env.unwrapped.game)
            reference = after if reference is None else reference
            assert after == reference, f"step({form!r}) did not play action {action}"
        else:
            with pytest.raises(IllegalActionError):
                env.step(form)
            assert env_snapshot(env) == before, f"step({form!r}) changed the env"
    gym_env = gymnasium.make(spec.gym_id, illegal_action=illegal_action, **cfg)
    obs, info = gym_env.reset(seed=8)
    before = snapshot(gym_env.unwrapped.game)
    for form in forms:
        if not space.contains(form):
            with pytest.raises(IllegalActionError):
                gym_env.step(form)
    assert snapshot(gym_env.unwrapped.game) == before
    legal = int(np.flatnonzero(info["action_mask"])[0])
    gym_env.step(np.array(legal))  # what sb3's model.predict returns; the episode still runs
    assert gym_env.unwrapped.game.num_decisions >= 1


def same_future(a, b, rng, steps: int = 60) -> None:
    """Play the same random actions on a and b; every seat's observation and the state stay equal."""
    for _ in range(steps):
        assert np.array_equal(a.state_tensor(), b.state_tensor())
        for p in range(a.num_players):
            assert np.array_equal(a.observation(p), b.observation(p))
        if a.is_terminal():
            assert b.is_terminal()
            return
        legal = np.flatnonzero(a.legal_action_mask())
        assert np.array_equal(legal, np.flatnonzero(b.legal_action_mask()))
        action = int(legal[rng.integers(len(legal))])
        a.apply_action(action)
        b.apply_action(action)


def test_resample_depends_only_on_the_seats_information(case):
    """resample_hidden(p, rng) is a function of p's information and rng: two games p cannot tell apart
    give the same sample, future chance included. A search that starts from it decides from p's
    information alone (a same-seed search then picks the same action in both)."""
    spec, face, cfg = case
    rng = np.random.default_rng(11)
    for g_index in range(6):
        game = spec.new_game(np.random.default_rng(300 + g_index), **cfg)
        states: list = []
        random_playthrough(
            game, rng, on_state=lambda g, kept=states: kept.append(g.clone()) if rng.random() < 0.08 else None
        )
        for state in states[:6]:
            for p in range(state.num_players):
                twin = state.resample_hidden(p, np.random.default_rng(int(rng.integers(2**31))))
                seed = int(rng.integers(2**31))
                a = state.resample_hidden(p, np.random.default_rng(seed))
                b = twin.resample_hidden(p, np.random.default_rng(seed))
                same_future(a, b, np.random.default_rng(seed))


def test_clones_are_independent(case):
    """Play on a clone to the end: the original is unchanged; play the original on: the clone is
    unchanged (every mutable field copied, the shared definition never written)."""
    spec, face, cfg = case
    rng = np.random.default_rng(17)
    game = spec.new_game(np.random.default_rng(41), **cfg)
    while not game.is_terminal():
        if rng.random() < 0.1:
            copy, before = game.clone(), snapshot(game)
            random_playthrough(copy, np.random.default_rng(int(rng.integers(2**31))))
            assert snapshot(game) == before, "acting on a clone changed the original"
            copy = game.clone()
            kept = snapshot(copy)
            random_playthrough(game.clone(), np.random.default_rng(1))
            legal = np.flatnonzero(game.legal_action_mask())
            game.apply_action(int(legal[0]))
            assert snapshot(copy) == kept, "acting on the original changed its clone"
            continue
        legal = np.flatnonzero(game.legal_action_mask())
        game.apply_action(int(legal[rng.integers(len(legal))]))
