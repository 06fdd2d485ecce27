"""Evaluation: Wilson intervals, seat rotation, ratings."""

from __future__ import annotations

import math

import numpy as np
import pytest

from training.evaluate import bootstrap_intervals, elo_ratings, fit_ratings, match, rating_table, wilson
from training.games import game_info

from .helpers import TOY


def test_wilson_interval_known_values():
    lo, hi = wilson(50, 100)
    assert lo == pytest.approx(0.4038, abs=1e-4) and hi == pytest.approx(0.5962, abs=1e-4)
    lo, hi = wilson(0, 20)
    assert lo == 0.0 and hi == pytest.approx(0.1611, abs=1e-4)
    lo, hi = wilson(1000, 1000)
    assert hi == 1.0 and lo == pytest.approx(0.99617, abs=1e-4)


def test_match_rotates_seats_and_counts_every_game():
    info = game_info(TOY, {})
    result = match(info, "scripted", "random", 101, seed=0)
    assert result["games"] == 101 == result["wins"] + result["ties"] + result["losses"]
    assert result["by_team"]["0"]["games"] == 51 and result["by_team"]["1"]["games"] == 50
    assert result["ci95"][0] < result["win_rate"] < result["ci95"][1]
    assert result["win_rate"] > 0.85  # the Nim strategy against random play
    # reproducible with a seed
    assert match(info, "scripted", "random", 101, seed=0) == result


def test_four_player_teams_rotate_between_the_two_teams():
    info = game_info(TOY, {"num_players": 4, "teams": True})
    result = match(info, "random", "random", 80, seed=1)
    assert set(result["by_team"]) == {"0", "1"}
    assert 0.35 < result["win_rate"] < 0.65


def test_fit_ratings_recovers_bradley_terry_and_plackett_luce_odds():
    # A beats B 3 times in 4 over 4000 games: s_A / s_B = 3, i.e. about 191 Elo
    s = fit_ratings(["A", "B"], [("A", "B", 3000.0, 4000)], k=2)
    assert 400 * math.log10(s["A"] / s["B"]) == pytest.approx(400 * math.log10(3), abs=2)
    # four-team game: A (one seat) wins 1/4 of games against three B's -> equal strength
    s = fit_ratings(["A", "B"], [("A", "B", 1000.0, 4000)], k=4)
    assert s["A"] / s["B"] == pytest.approx(1.0, abs=0.01)


def test_rating_table_orders_scripted_above_random():
    info = game_info(TOY, {})
    table = rating_table(info, {"random": "random", "scripted": "scripted"}, games=100, seed=0)
    assert table["ratings"]["random"] == 0.0
    assert table["ratings"]["scripted"] > 150
    coop = rating_table(
        game_info(TOY, {"num_players": 3, "cooperative": True}),
        {"random": "random", "scripted": "scripted"},
        games=50,
    )
    assert set(coop["players"]) == {"random", "scripted"}


def test_evaluations_score_games_with_eval_game_config(tmp_path):
    """Training on a dense reward, evaluating on the real outcome: with stone_reward=10 the seat with
    more stones 'wins' by returns; eval.game_config puts the win/loss rule back for evaluations."""
    from training.config import load_config
    from training.games import evaluation_info
    from training.trainer import Trainer

    from .helpers import tiny_config

    config = tiny_config(
        tmp_path / "run", "game_config.stone_reward=10", "eval.game_config.stone_reward=0", "eval.games=60"
    )
    trainer = Trainer(config, log=False)
    entry = trainer.evaluate()
    real = game_info(TOY, {"stone_reward": 0})
    dense = game_info(TOY, {"stone_reward": 10})
    seed = config.seed * 7919
    assert entry["scripted"] == match(real, trainer.backend.net, "scripted", 60, seed)
    assert entry["scripted"] != match(dense, trainer.backend.net, "scripted", 60, seed)
    assert evaluation_info(trainer.info, {}) is trainer.info
    # options that would change what the policy sees or does are refused, before training starts
    with pytest.raises(Exception, match="eval.game_config"):
        Trainer(tiny_config(tmp_path / "bad", "eval.game_config.num_players=3"), log=False)
    with pytest.raises(Exception, match="eval.game_config must be a mapping"):
        load_config(None, [f"game={TOY}", "eval.game_config=3"]).validate()


def test_rating_intervals_cover_the_ratings_and_narrow_with_more_games():
    names = ["random", "a"]
    widths = []
    for score, games in ((3.0, 10), (300.0, 1000)):
        pairs = [("random", "a", score, games)]
        elo = elo_ratings(names, pairs, 2, "random")["a"]
        low, high = bootstrap_intervals(names, pairs, 2, "random", np.random.default_rng(0))["a"]
        assert low <= elo <= high and elo > 100  # a won 70%: about +150 on the Elo scale
        widths.append(high - low)
    assert widths[1] < widths[0] / 4


@pytest.mark.parametrize(
    "flag, greedy",
    [
        ([], True),
        (["--no-greedy"], False),
        (["--greedy"], True),
        (["--greedy", "--no-opponents-greedy"], False),
        (["--no-greedy", "--opponents-greedy"], True),
    ],
)
def test_evaluate_plays_a_trained_opponent_as_its_run_evaluates(tmp_path, capsys, flag, greedy):
    """The agent here is random play; the opponent, a run whose evaluations are greedy, plays greedy
    unless --greedy / --no-greedy says otherwise, and --opponents-greedy / --no-opponents-greedy
    chooses for the opponents alone (the agent as --greedy says)."""
    import json

    from training.cli import main
    from training.policy import load_policy
    from training.trainer import Trainer

    from .helpers import tiny_config

    Trainer(tiny_config(tmp_path / "r", "total_steps=300", "eval.greedy=true"), log=False).train()
    run = str(tmp_path / "r")
    args = ["evaluate", "random", "--game", TOY, "--opponents", run, "--games", "60", "--seed", "4"]
    assert main([*args, *flag, "--output", str(tmp_path / "out.json")]) == 0
    out = json.loads((tmp_path / "out.json").read_text())
    (played,) = out["results"].values()
    info = game_info(TOY, {})
    agent_greedy = "--greedy" in flag
    expected = match(info, "random", load_policy(run, greedy=greedy), 60, 4, greedy=agent_greedy)
    assert played == expected
    assert out["greedy"] is agent_greedy and list(out["opponents_greedy"].values()) == [greedy]


def test_a_player_at_one_seat_plays_for_its_seats_side_and_is_scored_by_the_role_dealt_there():
    from envs.artifacts.data import ROLE_NAMES, role_chart
    from envs.artifacts_v0 import seat_roles
    from training.evaluate import one_seat, play_games, summarize

    info = game_info("artifacts", {"num_players": 5})
    dealt = {}

    def seen(j, game, keys):
        dealt[j] = (keys, info.teams_of(game), seat_roles(game))

    games = 30
    results = play_games(
        info,
        "scripted",
        "random",
        range(games),
        np.random.default_rng(4),
        8,
        on_game_start=seen,
        mixed=one_seat,
    )
    for j, (outcome, side_return, team, _, _, role) in enumerate(results):
        keys, teams, roles = dealt[j]
        assert [s for s, k in enumerate(keys) if k == "A"] == [j % 5]  # every seat in turn
        assert team == teams[j % 5] and role == roles[j % 5]  # its side and role, as dealt
        assert (outcome, side_return) in {(1.0, 1.0), (0.0, -1.0), (0.5, 0.0)}  # scored as its side
    summary = summarize(results, info)
    by_role = summary["by_role"]
    assert sum(v["games"] for v in by_role.values()) == games
    assert set(by_role) <= {ROLE_NAMES[r] for r in role_chart(5, "standard")}  # the roles dealt at 5
    for role, v in by_role.items():
        wins = [r[0] for r in results if r[5] == role]
        assert (
            v["win_rate"] == round(float(np.mean(wins)), 4) and v["ci95"][0] <= v["win_rate"] <= v["ci95"][1]
        )
    assert "by_role" not in match(info, "scripted", "random", 4, seed=0)  # whole sides: no one role


def test_a_player_is_not_seated_on_two_sides():
    from training.evaluate import a_team

    assert a_team([0, 1, 1, 0], {1, 2}) == 1
    with pytest.raises(ValueError, match=r"seats \[0, 1\] are on teams \[0, 1\]"):
        a_team([0, 1, 1, 0], {0, 1})
