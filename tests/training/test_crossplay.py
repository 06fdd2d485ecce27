"""Cross-play for cooperative games (`python -m training crossplay`): teams mixed from different agents.
On a toy signalling game with two conventions that each win every game, self-play cannot tell them
apart and cross-play collapses to zero."""

from __future__ import annotations

import json

import numpy as np
import pytest

from envs.core.workers import Workers, split, stream
from training import cli
from training.cli import main
from training.evaluate import alternate_seats, crossplay, one_seat, play_games, summarize
from training.games import game_info
from training.trainer import Trainer
from training.workers import GameWorker

from . import toy_signal
from .helpers import TOY, tiny_config

SIGNAL = "tests.training.toy_signal:SPEC"


def test_two_conventions_win_alone_and_lose_together():
    info = game_info(SIGNAL, {})
    players = {"same": toy_signal.convention(False), "flip": toy_signal.convention(True)}
    table = crossplay(info, players, games=60, partners="scripted")  # the scripted player shows the bit
    assert {k: r["win_rate"] for k, r in table["self_play"].items()} == {"same": 1.0, "flip": 1.0}
    assert table["pairs"]["same + flip"]["win_rate"] == 0.0
    assert table["with_partners"]["same + scripted"]["win_rate"] == 1.0
    assert table["with_partners"]["flip + scripted"]["win_rate"] == 0.0
    assert (table["mean_self_play"], table["mean_cross_play"]) == (1.0, 0.0)


def test_a_mixed_team_seats_each_player_at_both_roles():
    """Alternating seats, the starting seat rotated: each player signals in half the games. A player who
    signals well but always guesses 0 wins every game it signals and half of those it guesses: 0.75
    (1.0 if it only signalled, 0.5 if it only guessed)."""
    info = game_info(SIGNAL, {})

    def signals_only(observation, mask):
        return int(observation[:2].argmax()) if not observation[2:].any() else 0

    table = crossplay(
        info, {"same": toy_signal.convention(False), "half": signals_only}, games=200, partners=None
    )
    assert table["with_partners"] == {}
    assert 0.65 < table["pairs"]["same + half"]["win_rate"] < 0.85


def test_the_command_line_prints_the_table_and_refuses_a_game_with_sides(capsys):
    assert (
        main(["crossplay", "scripted", "random", "--game", SIGNAL, "--games", "40", "--partners", "none"])
        == 0
    )
    table = json.loads(capsys.readouterr().out)
    assert table["self_play"]["scripted"]["win_rate"] == 1.0 and table["players"] == ["scripted", "random"]
    with pytest.raises(ValueError, match="cooperative games"):
        crossplay(game_info(TOY, {}), {"a": "random", "b": "random"}, games=4)


def test_the_command_line_plays_each_run_as_its_run_evaluates(tmp_path, monkeypatch, capsys):
    runs = {}
    for greedy in (True, False):
        run_dir = tmp_path / f"greedy-{greedy}"
        Trainer(
            tiny_config(run_dir, "total_steps=300", f"eval.greedy={str(greedy).lower()}", game=SIGNAL),
            log=False,
        ).train()
        runs[greedy] = str(run_dir)
    seen = {}

    def record(info, players, *args, **kwargs):
        seen.update(players)
        return {}

    monkeypatch.setattr(cli, "crossplay", record)
    assert main(["crossplay", runs[True], runs[False], "scripted", "--partners", "none"]) == 0
    played = [p for name, p in seen.items() if name != "scripted"]
    assert [p.greedy for p in played] == [True, False] and seen["scripted"] == "scripted"
    seen.clear()
    assert main(["crossplay", runs[True], runs[False], "--no-greedy", "--partners", "none"]) == 0
    assert [p.greedy for p in seen.values()] == [False, False]
    capsys.readouterr()


def test_cross_play_on_workers_plays_each_share_from_its_own_stream():
    """With workers each team's games are split over them, each share from its own stream as `match`
    shares them (the same deals for every team); without, the table is played in this process from the
    seed alone."""
    info = game_info(SIGNAL, {})
    players = {"scripted": "scripted", "random": "random"}
    with Workers(GameWorker, [(SIGNAL, {})] * 2) as workers:
        table = crossplay(info, players, games=30, seed=5, partners="scripted", workers=workers)

    def by_shares(a, b, mixed):
        results = []
        for w, share in enumerate(split(30, 2)):
            rng = np.random.default_rng(stream(5, 2, w))
            results += play_games(info, a, b, share, rng, num_envs=32, mixed=mixed)
        return summarize(results, info)

    assert table["self_play"]["random"] == by_shares("random", "random", None)
    assert table["pairs"]["scripted + random"] == by_shares("scripted", "random", alternate_seats)
    assert table["with_partners"]["random + scripted"] == by_shares("random", "scripted", one_seat)
    assert table["self_play"]["scripted"]["win_rate"] == 1.0
    alone = crossplay(info, players, games=30, seed=5, partners="scripted")
    in_process = play_games(info, "random", "random", range(30), np.random.default_rng(5))
    assert alone["self_play"]["random"] == summarize(in_process, info)


def test_the_command_line_plays_cross_play_on_workers(capsys):
    argv = ["crossplay", "scripted", "random", "--game", SIGNAL, "--games", "24", "--partners", "none"]
    tables = []
    for _ in range(2):
        assert main([*argv, "--workers", "2"]) == 0
        tables.append(json.loads(capsys.readouterr().out))
    assert tables[0] == tables[1]  # the same --workers, the same table
    assert tables[0]["self_play"]["scripted"]["games"] == 24
