"""Search agents by name everywhere agents are named: match(), evaluate, rate, play, the Gymnasium
face's opponents=; guided search from a run; errors and the time per decision reported."""

from __future__ import annotations

import json
import pickle

import pytest

from envs.core.errors import ConfigError
from envs.core.gym_env import SingleSeatEnv
from envs.core.search import Search, SearchBudget
from training.cli import main
from training.evaluate import match
from training.games import game_info
from training.search import search_agent
from training.trainer import Trainer

from .helpers import TOY, tiny_config
from .toy_game import SPEC


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    root = tmp_path_factory.mktemp("search_runs")
    Trainer(tiny_config(root / "mlp", "total_steps=600"), log=False).train()
    Trainer(tiny_config(root / "gru", "total_steps=300", "net.kind=gru"), log=False).train()
    return {"mlp": root / "mlp", "gru": root / "gru"}


def test_search_by_name_beats_random_at_nim():
    """Unguided search plays two-player Nim (nearly) perfectly, so it beats random play clearly."""
    info = game_info(TOY, {})
    result = match(info, "search", "random", games=20, seed=1)
    assert result["win_rate"] >= 0.8


def test_guided_search_by_name_plays_and_checks_its_game(runs):
    info = game_info(TOY, {})
    guided = search_agent(f"search:{runs['mlp']}", info, SearchBudget(simulations=20))
    assert guided.prior is not None and guided.value is not None
    result = match(info, guided, "random", games=6, seed=0)
    assert result["games"] == 6
    assert guided.decisions > 0 and guided.seconds_per_decision() > 0
    with pytest.raises(Exception, match="does not match"):
        search_agent(f"search:{runs['mlp']}", game_info(TOY, {"num_players": 3}))
    with pytest.raises(ConfigError, match="feed-forward"):
        search_agent(f"search:{runs['gru']}", info)


def test_evaluate_search_with_a_game_named_on_the_command_line(tmp_path, capsys):
    out = tmp_path / "out.json"
    code = main(
        [
            "evaluate",
            "search",
            "--game",
            TOY,
            "pile=7",
            "--opponents",
            "random,scripted",
            "--games",
            "4",
            "--simulations",
            "30",
            "--output",
            str(out),
        ]
    )
    assert code == 0
    report = json.loads(out.read_text())
    assert report["game"] == TOY and report["game_config"]["pile"] == 7
    assert set(report["results"]) == {"vs_random", "vs_scripted"}
    assert report["seconds_per_decision"]["search"] > 0
    assert "s per decision" in capsys.readouterr().err


def test_rate_and_evaluate_guided_search_read_the_game_from_the_run(runs, capsys):
    assert main(["rate", f"search:{runs['mlp']}", "random", "--games", "2", "--simulations", "5"]) == 0
    table = json.loads(capsys.readouterr().out)
    assert f"search:{runs['mlp']}" in table["seconds_per_decision"]
    assert (
        main(["evaluate", str(runs["mlp"]), "--opponents", "search", "--games", "2", "--simulations", "5"])
        == 0
    )


@pytest.mark.parametrize(
    "argv, message",
    [
        (["evaluate", "search", "--opponents", "random", "--games", "2"], "give --game"),
        (["rate", "search", "random", "--games", "2"], "give --game"),
        (
            ["evaluate", "search", "--game", TOY, "--simulations", "0", "--games", "2"],
            "--simulations must be at least 1",
        ),
        (["evaluate", "search", "--game", TOY, "--seconds", "-1", "--games", "2"], "--seconds must be > 0"),
        (["evaluate", "search", "pile=7", "--games", "2"], "need --game"),
        (["evaluate", "search", "--game", TOY, "piles=7", "--games", "2"], "piles"),
        (["evaluate", "search", "--game", TOY, "pile", "--games", "2"], "unrecognized"),
    ],
)
def test_search_command_line_errors_are_clear(argv, message, capsys):
    with pytest.raises(SystemExit) if message == "unrecognized" else _no_raise():
        code = main(argv)
        assert code == 2
    assert message in capsys.readouterr().err


class _no_raise:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def test_play_against_search(monkeypatch, capsys):
    moves = iter(["0"] * 20)
    monkeypatch.setattr("builtins.input", lambda prompt="": next(moves))
    assert main(["play", "search", "--game", TOY, "--seat", "0", "--seed", "3", "--simulations", "20"]) == 0
    out = capsys.readouterr().out
    assert "seat 1 plays" in out and "returns:" in out


@pytest.mark.parametrize("opponents", ["search", Search(SearchBudget(simulations=30), seed=1)])
def test_gymnasium_opponents_may_be_search(opponents):
    """The learner always takes one stone; a searching opponent then wins most games."""
    env = SingleSeatEnv(SPEC, opponents=opponents)
    wins = 0
    for episode in range(8):
        obs, info = env.reset(seed=episode)
        done, reward = False, 0.0
        while not done:
            obs, reward, terminated, truncated, info = env.step(0)
            done = terminated or truncated
        wins += reward > 0
    assert wins <= 3


def test_gymnasium_opponents_guided_search_and_scripted_by_name(runs):
    env = SingleSeatEnv(SPEC, opponents=f"search:{runs['mlp']}")
    obs, info = env.reset(seed=0)
    assert isinstance(env.opponents[1], Search) and env.opponents[1].prior is not None
    env = SingleSeatEnv(SPEC, opponents=["random", "scripted"])
    assert env.opponents[0] is None and callable(env.opponents[1])
    env.reset(seed=1)
    with pytest.raises(ValueError, match="unknown opponent"):
        SingleSeatEnv(SPEC, opponents="searchy")


def test_guided_value_is_the_critic_per_team_and_keeps_the_known_total(runs):
    """Two-player zero-sum Nim: the critic is asked once, from the viewer's own observation (the
    searching seat's information), and the other seat gets minus that."""
    import torch

    from training import load_policy

    info = game_info(TOY, {})
    guided = search_agent(f"search:{runs['mlp']}", info)
    game = info.new_game(5)
    net = load_policy(runs["mlp"]).net
    for viewer in (0, 1):
        values = guided.value(game, viewer)
        obs = torch.from_numpy(game.observation(viewer)[None])
        with torch.no_grad():
            mask = torch.ones((1, net.num_actions), dtype=torch.bool)
            _, direct, _ = net.step(obs, mask, None, None, True)
        assert values[viewer] == pytest.approx(float(direct[0]), abs=1e-5)
        assert values.sum() == pytest.approx(0.0, abs=1e-9)


def test_batched_guides_give_each_leaf_the_prior_and_values_asked_alone(runs):
    """policy_guides' `leaves`: the priors and values of many positions in two network calls are those
    the single-position guides give (rows of a prior not asked for stay empty)."""
    import numpy as np

    from training import load_policy
    from training.search import policy_guides

    info = game_info(TOY, {})
    prior, value, leaves = policy_guides(load_policy(runs["mlp"]))
    games = []
    for seed in range(5):
        game = info.new_game(seed)
        for _ in range(seed % 3):
            game.apply_action(int(np.flatnonzero(game.legal_action_mask())[0]))
        games.append(game)
    players = [g.current_player() if i % 2 == 0 else -1 for i, g in enumerate(games)]
    for viewer in (0, 1):
        priors, values = leaves(games, players, viewer)
        for g, p, row, v in zip(games, players, priors, values):
            assert (row is None) == (p < 0)
            if p >= 0:
                assert row == pytest.approx(prior(g, p), abs=1e-6)
            assert v == pytest.approx(value(g, viewer), abs=1e-6)


def test_guided_search_by_name_with_a_batch_plays_and_is_reproducible(runs, capsys):
    info = game_info(TOY, {})
    first, second = (
        search_agent(f"search:{runs['mlp']}", info, SearchBudget(simulations=24), seed=3, batch=8)
        for _ in "ab"
    )
    assert first.batch == 8
    assert match(info, first, "random", games=4, seed=0) == match(info, second, "random", games=4, seed=0)
    code = main(
        ["evaluate", f"search:{runs['mlp']}", "--opponents", "random", "--games", "2", "--simulations", "8"]
        + ["--search-batch", "4"]
    )
    assert code == 0
    assert main(["evaluate", f"search:{runs['mlp']}", "--opponents", "random", "--search-batch", "0"]) != 0
    assert "--search-batch" in capsys.readouterr().err


def test_guided_search_by_name_with_a_gumbel_root(runs, capsys):
    """--search-root gumbel: the guided search plays by sequential halving, without the Gumbel noise (its
    settings say so); the unguided search and a seconds budget are refused with the reason."""
    info = game_info(TOY, {})
    search = search_agent(f"search:{runs['mlp']}", info, SearchBudget(simulations=8), seed=3, root="gumbel")
    assert search.settings()["root"] == "gumbel"
    assert search.settings()["gumbel_scale"] == 0.0  # an agent plays the best action it found
    assert match(info, search, "random", games=4, seed=0)["games"] == 4
    with pytest.raises(ConfigError, match="needs a guided search"):
        search_agent("search", info, root="gumbel")
    with pytest.raises(ConfigError, match="simulations only"):
        search_agent(
            f"search:{runs['mlp']}", info, SearchBudget(simulations=None, seconds=0.1), root="gumbel"
        )
    args = [
        "evaluate",
        f"search:{runs['mlp']}",
        "--opponents",
        "random",
        "--games",
        "2",
        "--simulations",
        "8",
    ]
    assert main([*args, "--search-root", "gumbel"]) == 0
    unguided = ["evaluate", "search", "--game", TOY, "--opponents", "random", "--games", "2"]
    assert main([*unguided, "--search-root", "gumbel"]) != 0
    assert "--search-root gumbel needs a guided search (search:RUN), not 'search'" in capsys.readouterr().err
    with pytest.raises(SystemExit):  # argparse's own refusal of a choice it does not list
        main([*args, "--search-root", "ucb"])
    assert "--search-root: invalid choice: 'ucb'" in capsys.readouterr().err


@pytest.mark.parametrize("cooperative", [False, True])
def test_a_guided_search_travels_by_value_and_plays_as_the_original(runs, cooperative):
    """Evaluation workers receive their players pickled: a guided search (its guides, the teammates'
    sampled model, the returns' map) must survive that and choose as it would have."""
    from training.policy import load_policy
    from training.search import PlayedReturns, guided_search

    returns = PlayedReturns(-1.0, 1.0, 0.0, 1.0)
    made = [
        guided_search(
            load_policy(runs["mlp"]),
            SearchBudget(simulations=12),
            seed=5,
            cooperative=cooperative,
            returns=returns,
        )
        for _ in "ab"
    ]
    copy = pickle.loads(pickle.dumps(made[1]))
    game = game_info(TOY, {}).new_game(seed=2)
    while not game.is_terminal():
        seat = game.current_player()
        move = made[0].act(game, seat)
        assert copy.act(game, seat) == move
        game.apply_action(move)


def test_evaluate_a_guided_search_over_workers(runs, capsys):
    argv = [
        "evaluate",
        f"search:{runs['mlp']}",
        "--opponents",
        "random",
        "--games",
        "4",
        "--simulations",
        "5",
    ]
    assert main([*argv, "--workers", "2"]) == 0
    out, err = capsys.readouterr()
    report = json.loads(out)
    assert report["results"]["vs_random"]["games"] == 4
    # the search's time is spent in the workers, and still reported
    assert report["seconds_per_decision"][f"search:{runs['mlp']}"] > 0 and "s per decision" in err
