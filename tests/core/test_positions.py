"""A game's state as a value, on every game and configuration: a clone shares only the definition, a
saved position (to_dict) loads back (from_dict) to the same game with the same future, and a position
that breaks the rules is refused with a PositionError, never half-loaded."""

from __future__ import annotations

import copy
import json

import gymnasium
import numpy as np
import pytest

from envs.core import PositionError
from envs.core.position import IMMUTABLE, Definition, is_immutable

from .helpers import random_playthrough, snapshot

GAMES = 12  # random games per configuration
POSITIONS = 40  # positions kept along them
MUTATIONS = 60  # edited positions per configuration


def positions(spec, cfg, games=GAMES, keep=POSITIONS, seed=0) -> list:
    """Positions along seeded random games (their start and their end included)."""
    rng = np.random.default_rng(seed)
    kept = []
    for _ in range(games):
        game = spec.new_game(np.random.default_rng(int(rng.integers(2**31))), **cfg)
        kept.append(game.clone())
        random_playthrough(
            game, rng, on_state=lambda g: kept.append(g.clone()) if rng.random() < 0.05 else None
        )
        kept.append(game)
    picks = rng.choice(len(kept), size=min(keep, len(kept)), replace=False)
    return [kept[i] for i in sorted(picks)]


def play_on(game, seed: int) -> list:
    """Everything observable along a random continuation (chance drawn by the game's own generator)."""
    rng, seen = np.random.default_rng(seed), []
    random_playthrough(game, rng, on_state=lambda g: seen.append(snapshot(g)))
    return [*seen, snapshot(game)]


def through_json(data: dict) -> dict:
    return json.loads(json.dumps(data))


def test_a_position_loads_back_to_the_same_game_with_the_same_future(case):
    spec, face, cfg = case
    for i, game in enumerate(positions(spec, cfg)):
        data = through_json(game.to_dict())
        loaded = type(game).from_dict(data)
        assert snapshot(loaded) == snapshot(game)
        assert [loaded.observation(p).tobytes() for p in range(game.num_players)] == [
            game.observation(p).tobytes() for p in range(game.num_players)
        ], "a loaded position shows a seat something else"
        assert through_json(loaded.to_dict()) == data
        assert loaded.num_decisions == game.num_decisions
        assert play_on(loaded, i) == play_on(game.clone(), i), "the loaded game goes on differently"


def test_a_position_names_no_code_and_leaves_out_the_definition(case):
    spec, face, cfg = case
    game = positions(spec, cfg, games=2, keep=5)[-2]
    data = game.to_dict()
    assert data["game"] == spec.name and data["version"] == 1
    text = json.dumps(data)
    assert "envs." not in text and "<" not in text, "a position must name no module or object"
    fixed = set(game._fixed)
    assert not fixed & set(data["state"]), "the configuration's definition is not part of a position"


def test_a_clone_shares_the_definition_and_nothing_that_changes(case):
    spec, face, cfg = case
    for game in positions(spec, cfg, games=3, keep=12):
        copy_ = game.clone()
        # its own generator, in the same state (a shared one: a copy's chance draws would move the
        # original's, as Exposed's hand-written clone once did)
        if game.rng is not None:  # (a game that has no chance left may drop its generator)
            assert copy_.rng is not game.rng
            assert copy_.rng.bit_generator.state == game.rng.bit_generator.state
        for name, value in vars(game).items():
            other = vars(copy_).get(name)
            if name in game._fixed:
                assert other is value, f"{name} belongs to the definition: a clone shares it"
            elif isinstance(value, (list, dict, set, np.ndarray)) and not (
                isinstance(value, np.ndarray) and not value.flags.writeable
            ):
                assert other is not value, f"a clone shares the state value {name!r}"
            if isinstance(value, list) and value:  # clone reads a list's first item for its kind
                kinds = {is_immutable(type(item)) for item in value}
                assert len(kinds) == 1, f"state list {name!r} mixes mutable and immutable items"


def test_a_clone_copies_a_value_by_its_kind_now_not_when_the_copy_was_planned(case):
    """clone() plans once which values it shares (the immutable ones) and hands the plan on; a value
    that has changed kind since (None, then a list) is copied all the same, and the reverse shared."""
    spec, face, cfg = case
    game = spec.new_game(np.random.default_rng(0), **cfg)
    game.clone()  # the plan, made from the state as it is now
    state = vars(game)
    planned = [name for name in state if name not in game._not_copied and name != "rng"]
    shared = next(name for name in planned if type(state[name]) in IMMUTABLE)
    copied = next(name for name in planned if type(state[name]) is list)
    state[shared], state[copied] = [1, 2], None  # (the same number of attributes: the plan stays)
    copy_ = game.clone()
    assert vars(copy_)[shared] == [1, 2] and vars(copy_)[shared] is not state[shared]
    assert vars(copy_)[copied] is None
    state[shared].append(3)
    assert vars(copy_)[shared] == [1, 2], "the copy shares a list the original changes"


def test_the_definition_is_shared_by_every_game_of_a_configuration_and_frozen(case):
    spec, face, cfg = case
    a = spec.new_game(np.random.default_rng(1), **cfg)
    b = spec.new_game(np.random.default_rng(2), **cfg)
    definition = type(a).definition(a.config)
    assert isinstance(definition, Definition)
    assert type(a).definition(b.config) is definition, "the definition is built once per configuration"
    for name in vars(definition):
        assert getattr(a, name) is getattr(b, name)
    with pytest.raises(AttributeError, match="frozen"):
        definition.num_players = 99


def edits(data: dict, rng: np.random.Generator):
    """One random edit of a position's state: a number moved, a list item changed, removed or
    duplicated, two items swapped, a flag flipped (some keep to the rules, most do not)."""
    state = data["state"]
    name = sorted(state)[rng.integers(len(state))]

    def leaves(value, path):
        if isinstance(value, list):
            yield path, value
            for i, item in enumerate(value):
                yield from leaves(item, (*path, i))
        elif isinstance(value, dict):
            for key, item in value.items():
                yield from leaves(item, (*path, key))
        else:
            yield path, value

    spots = list(leaves(state[name], ()))
    path, value = spots[rng.integers(len(spots))]

    def put(new):
        if not path:
            state[name] = new
            return
        holder = state[name]
        for key in path[:-1]:
            holder = holder[key]
        holder[path[-1]] = new

    if isinstance(value, bool):
        put(not value)
    elif isinstance(value, int):
        put(value + int(rng.choice([-2, -1, 1, 2, 7])))
    elif isinstance(value, float):
        put(value + float(rng.choice([-1.0, 0.5, 3.0])))
    elif isinstance(value, list) and value:
        i, j = rng.integers(len(value), size=2)
        choice = rng.integers(3)
        if choice == 0:
            value[i], value[j] = value[j], value[i]
        elif choice == 1:
            del value[i]
        else:
            value.append(copy.deepcopy(value[i]))
    return name


def test_an_edited_position_is_refused_or_loads_consistently(case):
    """A position that breaks the rules raises PositionError; one that loads is a game that keeps its
    invariants, saves back to itself and plays to the end."""
    spec, face, cfg = case
    rng = np.random.default_rng(7)
    games = positions(spec, cfg, games=4, keep=20, seed=3)
    refused = loaded = 0
    for i in range(MUTATIONS):
        original = games[i % len(games)].to_dict()
        data = through_json(original)
        name = edits(data, rng)
        try:
            game = spec.game_class.from_dict(data)
        except PositionError as error:
            assert str(error), "a refusal says why"
            refused += 1
            continue
        loaded += 1
        game.check_invariants()
        assert through_json(game.to_dict()) == data, f"an edit of {name!r} did not load as written"
        random_playthrough(game, np.random.default_rng(i))
    assert refused + loaded == MUTATIONS


@pytest.mark.parametrize(
    "damage, message",
    [
        (lambda d: d.update(format="replay"), "not a position"),
        (lambda d: d.update(version=99), "version"),
        (lambda d: d.update(game="chess"), "chess"),
        (lambda d: d["config"].update(num_players=1), "configuration"),
        (lambda d: d["config"].update(colour="red"), "configuration"),
        (lambda d: d["state"].pop(sorted(d["state"])[0]), "missing"),
        (lambda d: d["state"].update(extra=1), "unknown"),
        (lambda d: d["state"].update({"num_decisions": "three"}), "num_decisions"),
        (
            lambda d: d["state"].update({"flow": {"flow": [{"do": "os.system", "args": ["echo"]}]}}),
            "os.system",
        ),
    ],
)
def test_a_damaged_position_is_refused_with_a_reason(case, damage, message):
    spec, face, cfg = case
    data = through_json(spec.new_game(np.random.default_rng(0), **cfg).to_dict())
    damage(data)
    with pytest.raises(PositionError, match=message):
        spec.game_class.from_dict(data)


def test_both_faces_start_from_a_saved_position_and_refuse_a_bad_one(case):
    spec, face, cfg = case
    game = next(g for g in positions(spec, cfg, games=2, keep=10, seed=5)[1:] if not g.is_terminal())
    data = through_json(game.to_dict())
    env = face.env(**cfg)
    env.reset(seed=1)
    env.reset(options={"state": data})
    assert snapshot(env.unwrapped.game) == snapshot(game)
    assert env.agent_selection == env.possible_agents[game.current_player()]
    before = snapshot(env.unwrapped.game)
    broken = through_json(data)
    broken["state"].pop("num_decisions")
    with pytest.raises(PositionError):
        env.reset(options={"state": broken})
    assert snapshot(env.unwrapped.game) == before, "a refused position changed the env"

    learner = game.current_player()
    gym_env = gymnasium.make(spec.gym_id, disable_env_checker=True, seat=learner, **cfg)
    obs, info = gym_env.reset(seed=0, options={"state": data})
    assert snapshot(gym_env.unwrapped.game) == snapshot(game), "the learner acts first: nobody moved"
    assert np.array_equal(obs, game.observation(learner))
    with pytest.raises(PositionError):
        gym_env.reset(options={"state": broken})
    assert snapshot(gym_env.unwrapped.game) == snapshot(game), "a refused position changed the env"
