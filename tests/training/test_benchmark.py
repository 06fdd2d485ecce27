"""The benchmark protocol (`python -m training benchmark`): fixed game counts and seeds, seats rotated,
the same card for the same agent, ratings on one scale beside alpha-Rank, and the leaderboard page
built from the cards (the shipped one included)."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from envs.core.players import PLAYERS
from envs.core.search import SearchBudget
from training.benchmark import (
    Protocol,
    agent_cell,
    alpha_rank,
    benchmark,
    budget_suffix,
    head_to_head,
    leaderboard,
    markdown,
    opponents,
    orders_disagree,
    write_card,
)
from training.cli import main
from training.games import game_info
from training.trainer import Trainer

from . import toy_signal  # noqa: F401 - imported, so that its SPEC resolves by name
from .helpers import TOY, ship_reference, tiny_config

SMALL = Protocol(games=40, search_games=4, search_simulations=5, seed=7)
ROOT = Path(__file__).resolve().parents[2]


def test_the_protocol_plays_its_counts_rotates_seats_and_gives_the_same_card_twice():
    info = game_info(TOY, {})
    card = benchmark("scripted", "scripted", info, SMALL)
    assert card["protocol"] == {
        "version": 3,
        "games": 40,
        "search_games": 4,
        "search_simulations": 5,
        "seed": 7,
    }
    results = card["results"]
    assert [results[k]["games"] for k in ("random", "scripted", "search")] == [40, 40, 4]
    assert {seat: r["games"] for seat, r in results["random"]["by_team"].items()} == {"0": 20, "1": 20}
    assert card == benchmark("scripted", "scripted", info, SMALL)  # fixed seeds: the same card
    assert results["random"]["win_rate"] > 0.8  # the Nim strategy against random play
    rating = card["rating"]
    assert rating["elo"]["random"] == 0 and rating["elo"]["scripted"] > 200
    if rating["alpha_rank"] is not None:  # with the openspiel extra
        assert max(rating["alpha_rank"], key=rating["alpha_rank"].get) == "scripted"
    text = markdown(card)
    assert "Protocol version 3: 40 games" in text and "| random | " in text and "| scripted | +" in text


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    root = tmp_path_factory.mktemp("benchmark_run")
    Trainer(tiny_config(root / "mlp", "total_steps=600"), log=False).train()
    return root / "mlp"


def test_version_2_plays_the_reference_agents_and_their_search_and_version_1_does_not(
    run, tmp_path, monkeypatch
):
    ship_reference(run, tmp_path, monkeypatch)
    info = game_info(TOY, {})
    reference = "reference:toy_nim-2p-v1"
    # played as its run evaluated (eval.greedy is off there), not greedy as a run named elsewhere plays
    assert opponents(info, SMALL)[reference].greedy is False
    card = benchmark("scripted", "scripted", info, SMALL)
    results = card["results"]
    assert list(results) == ["random", "scripted", reference, "search", f"search:{reference}"]
    assert [results[k]["games"] for k in results] == [40, 40, 40, 4, 4]
    assert set(card["rating"]["elo"]) == {"scripted", "random", reference}
    text = markdown(card)
    assert (
        f"| {reference} | " in text and f"| search:{reference} | " in text and "each reference agent" in text
    )
    old = benchmark("scripted", "scripted", info, replace(SMALL, version=1))
    assert list(old["results"]) == ["random", "scripted", "search"]
    assert (
        old["results"]["search"]
        == benchmark("scripted", "scripted", info, replace(SMALL, version=1))["results"]["search"]
    )
    # the reference agent's own card: its name in full, a file name without ':'
    assert (
        main(
            [
                "benchmark",
                "reference",
                "--game",
                TOY,
                "--games",
                "10",
                "--search-games",
                "2",
                "--out",
                str(tmp_path / "cards"),
            ]
        )
        == 0
    )
    (written,) = (tmp_path / "cards").glob("*.json")
    assert written.name == "toy_nim--reference_toy_nim-2p-v1.json"
    assert json.loads(written.read_text())["agent"] == reference
    page = leaderboard(tmp_path / "cards")
    row = next(
        line
        for line in page.splitlines()
        if line.startswith(f"| {reference} | v3 (10 games, 2 search games) |")
    )
    assert row.count("—") == 0  # every column has its opponent under version 3 as under 2
    with pytest.raises(ValueError, match="protocol version 4 is not one of"):
        Protocol(version=4)


def test_version_3_rates_the_agent_from_its_results_games_and_plays_only_the_other_pairs(monkeypatch):
    import training.benchmark as protocol
    import training.evaluate as evaluate

    info = game_info(TOY, {})
    played, tables = [], []

    def counted(info, a, b, games, seed, *args, **kwargs):
        played.append(seed)
        return match(info, a, b, games, seed, *args, **kwargs)

    def kept(*args, **kwargs):
        tables.append(rating_table(*args, **kwargs))
        return tables[-1]

    match, rating_table = evaluate.match, protocol.rating_table
    monkeypatch.setattr(evaluate, "match", counted)  # the round robin's matches; the results' are not counted
    monkeypatch.setattr(protocol, "rating_table", kept)
    cards, pairs, count = {}, {}, {}
    for version in (2, 3):
        played.clear()
        cards[version] = benchmark("agent", "scripted", info, replace(SMALL, version=version))
        pairs[version] = {(m["a"], m["b"]): m for m in tables[-1]["matches"]}
        count[version] = len(played)
    # the agent, random and scripted: three pairs, two of them the agent's
    assert (count[2], count[3]) == (3, 1)
    new, old = cards[3], cards[2]
    assert new["results"] == old["results"]  # the same games against each opponent
    for rival in ("random", "scripted"):
        assert pairs[3]["agent", rival]["a_win_rate"] == new["results"][rival]["win_rate"]
        assert pairs[3]["agent", rival]["ci95"] == new["results"][rival]["ci95"]
    assert pairs[3]["random", "scripted"] == pairs[2]["random", "scripted"]  # the others' seeds as before
    assert new["rating"]["elo"]["random"] == 0 and new["rating"]["elo"]["agent"] > 200
    assert "Ratings: the agent's pairs are the games above" in markdown(new)
    assert "Ratings:" not in markdown(old)


def test_a_cooperative_card_puts_the_team_beside_scripted_partners():
    info = game_info("tests.training.toy_signal:SPEC", {})
    card = benchmark("flip", toy_signal.convention(True), info, SMALL)
    assert card["team"]["flip"]["win_rate"] == 1.0 and card["team"]["scripted"]["win_rate"] == 1.0
    assert card["with_scripted_partners"]["flip + scripted"]["win_rate"] == 0.0
    assert "| flip + scripted (one seat) | 0.000 |" in markdown(card)


def test_a_cooperative_card_plays_on_the_workers_and_records_their_count(capsys):
    argv = ["benchmark", "random", "--game", "tests.training.toy_signal:SPEC", "--games", "24"]
    cards = []
    for count in (2, 2):
        assert main([*argv, "--workers", str(count)]) == 0
        cards.append(json.loads(capsys.readouterr().out))
    assert cards[0] == cards[1] and cards[0]["workers"] == 2  # the same --workers, the same card
    assert cards[0]["team"]["random"]["games"] == 24
    assert "played by 2 worker processes (reproduce with --workers 2)" in markdown(cards[0])


def test_the_leaderboard_shows_a_cooperative_agents_own_seat_among_scripted_partners(tmp_path):
    info = game_info("tests.training.toy_signal:SPEC", {})
    card = benchmark("flip", toy_signal.convention(True), info, SMALL)
    # a card with reference agents holds their rows too, and a name before the agent's sorts first
    card["with_scripted_partners"]["a-reference + scripted"] = {"win_rate": 0.5}
    (tmp_path / "flip.json").write_text(json.dumps(card, sort_keys=True))
    write_card(benchmark("scripted", "scripted", info, SMALL), tmp_path)
    page = leaderboard(tmp_path)
    all_won = "1.000 [0.912, 1.000]"  # 40 deals of 40 won, with its Wilson interval
    assert f"| flip | v3 (40 games, 4 search games) | {all_won} |  | 0.000 |" in page  # its own, not the 0.5
    assert f"| scripted | v3 (40 games, 4 search games) | {all_won} |  | 1.000 |" in page  # its own team


def test_the_leaderboard_column_rows_are_ordered_by_carries_the_cards_own_interval(tmp_path):
    info = game_info(TOY, {})
    card = benchmark("scripted", "scripted", info, SMALL)
    scripted = card["results"]["scripted"]
    scripted["ci95"] = [0.123, 0.987]  # an interval no win rate of 40 games gives: read, not recomputed
    write_card(card, tmp_path)
    row = next(line for line in leaderboard(tmp_path).splitlines() if line.startswith("| scripted"))
    assert f" | {scripted['win_rate']:.3f} [0.123, 0.987] | " in row
    assert row.count("[") == 1  # the other columns stay bare: their intervals are on the card


def test_a_cooperative_search_agents_row_names_its_budget(tmp_path):
    info = game_info("tests.training.toy_signal:SPEC", {})
    card = benchmark("flip", toy_signal.convention(True), info, SMALL)
    card["agent_settings"] = {"simulations": 16, "seconds": None, "batch": 8, "guided": True}
    write_card(card, tmp_path)
    assert "| flip (simulations 16, batch 8) | v3 (40 games, 4 search games) |" in leaderboard(tmp_path)


def test_one_agents_cards_on_two_configurations_are_two_files(tmp_path):
    for players in (2, 4):
        write_card(
            benchmark("scripted", "scripted", game_info(TOY, {"num_players": players}), SMALL), tmp_path
        )
    names = sorted(p.name for p in tmp_path.glob("*.json"))
    assert names == ["toy_nim-2p--scripted.json", "toy_nim-4p--scripted.json"]


def test_a_search_agents_card_records_its_own_budget_and_two_budgets_are_two_files(tmp_path):
    info = game_info(TOY, {})
    small = replace(SMALL, games=4, search_games=2)
    cards = []
    for simulations in (3, 7):
        agent = PLAYERS.resolve("search", info, budget=SearchBudget(simulations=simulations), seed=0)
        cards.append(benchmark("search", agent, info, small))
        write_card(cards[-1], tmp_path)
    settings = [c["agent_settings"] for c in cards]
    assert [(s["simulations"], s["seconds"], s["batch"], s["guided"]) for s in settings] == [
        (3, None, 1, False),
        (7, None, 1, False),
    ]
    assert settings[0]["rollout"] == info.spec.search.rollout  # the game's declared rollout, by name
    said = markdown(cards[0]).split("The agent's own settings: ")[1].split(".\n")[0]
    assert said.startswith("batch 1, exploration") and said.endswith("simulations 3")  # in name order
    names = sorted(p.name for p in tmp_path.glob("*.json"))
    assert names == ["toy_nim--search-simulations3.json", "toy_nim--search-simulations7.json"]
    for name in names:  # each page as its stored JSON renders it (the JSON's keys are sorted)
        stored = json.loads((tmp_path / name).read_text())
        assert (tmp_path / name).with_suffix(".md").read_text() == markdown(stored)
    assert "agent_settings" not in benchmark("scripted", "scripted", info, small)  # a policy has none
    assert "| search (simulations 7) |" in leaderboard(tmp_path)


def test_a_gumbel_root_names_its_card_apart_from_puct():
    settings = {"simulations": 16, "seconds": None, "batch": 8, "guided": True}
    puct = {"agent": "search:reference", "agent_settings": settings}
    gumbel = {"agent": "search:reference", "agent_settings": settings | {"root": "gumbel", "considered": 16}}
    assert budget_suffix(puct) == "-simulations16-batch8"
    assert budget_suffix(gumbel) == "-simulations16-batch8-gumbel"
    assert agent_cell(gumbel) == "search:reference (simulations 16, batch 8, root gumbel)"


def test_a_card_records_the_workers_that_played_it_and_is_reproduced_at_that_count(tmp_path, capsys):
    # each worker plays its share of the games from its own stream: a card says how many played it
    argv = ["benchmark", "scripted", "--game", TOY, "--games", "16", "--search-games", "2"]
    cards = {}
    for count in (1, 2, 2):
        assert main([*argv, "--workers", str(count), "--out", str(tmp_path / str(count))]) == 0
        cards.setdefault(count, []).append(json.loads(capsys.readouterr().out))
    assert [c["workers"] for c in (cards[1][0], cards[2][0])] == [1, 2]
    assert cards[2][0] == cards[2][1]  # the same --workers, the same card
    assert "played by 2 worker processes (reproduce with --workers 2)" in markdown(cards[2][0])
    assert "worker" not in markdown(cards[1][0])
    assert "| scripted | v3 (16 games, 2 search games, 2 workers) |" in leaderboard(tmp_path / "2")
    assert "| scripted | v3 (16 games, 2 search games) |" in leaderboard(tmp_path / "1")


def test_the_leaderboard_lists_each_game_best_first(tmp_path):
    info = game_info(TOY, {})
    for name in ("random", "scripted"):
        write_card(benchmark(name, name, info, SMALL), tmp_path)
    page = leaderboard(tmp_path)
    rows = [
        line for line in page.splitlines() if line.startswith("| scripted") or line.startswith("| random")
    ]
    assert [row.split(" | ")[0] for row in rows] == ["| scripted", "| random"]
    assert main(["leaderboard", str(tmp_path)]) == 0


def test_a_table_whose_cards_met_several_reference_versions_says_which_each_cell_is(tmp_path):
    base = benchmark("scripted", "scripted", game_info(TOY, {}), SMALL)
    v1, v2 = "reference:toy_nim-2p-v1", "reference:toy_nim-2p-v2"
    played = base["results"]["scripted"]  # a whole result, its win rate replaced below

    def card(agent: str, rates: dict) -> dict:
        results = base["results"] | {k: played | {"win_rate": r} for k, r in rates.items()}
        return base | {"agent": agent, "results": results}

    # the newest version's own card meets itself and the one before; an older card met version 1 only
    write_card(card(v2, {v1: 0.61, v2: 0.5, f"search:{v2}": 0.42}), tmp_path)
    write_card(card("scripted", {v1: 0.37, f"search:{v1}": 0.41}), tmp_path)
    rows = {line.split(" | ")[0][2:]: line.split(" | ") for line in leaderboard(tmp_path).splitlines()}
    search = f"{base['results']['search']['win_rate']:.3f}"  # the unguided search has no version
    assert rows[v2][4:7] == ["0.610 (v1)", search, "0.420 (v2)"]  # not its 0.5 against itself
    assert rows["scripted"][4] == "0.370 (v1)" and rows["scripted"][6] == "0.410 (v1)"
    (tmp_path / "one").mkdir()
    write_card(card("scripted", {v1: 0.37, f"search:{v1}": 0.41}), tmp_path / "one")
    row = next(line for line in leaderboard(tmp_path / "one").splitlines() if line.startswith("| scripted"))
    assert " | 0.370 | " in row and "(v1)" not in row  # one version met: the column says it already


def test_the_repository_s_leaderboard_orders_each_table_by_the_win_rate_against_scripted():
    # (not by Elo: each card's Elo is on the scale of its own round robin)
    page = leaderboard(Path(__file__).parents[2] / "benchmarks" / "cards")
    tables = [block for block in page.split("\n## ")[1:] if "| vs scripted |" in block]
    assert tables
    for block in tables:
        header, _, *rows = [line for line in block.splitlines() if line.startswith("|")]
        column = [cell.strip() for cell in header.split("|")].index("vs scripted")
        rates = [float(row.split("|")[column].split()[0]) for row in rows]  # the rate before its interval
        assert len(rates) > 1 and rates == sorted(rates, reverse=True)


def test_the_shipped_leaderboard_is_built_from_the_shipped_cards(capsys):
    cards = ROOT / "benchmarks" / "cards"
    assert main(["leaderboard", str(cards)]) == 0
    assert capsys.readouterr().out == (ROOT / "docs" / "leaderboard.md").read_text(), (
        "docs/leaderboard.md drifted from benchmarks/cards: python -m training leaderboard benchmarks/cards "
        "> docs/leaderboard.md"
    )
    page = (ROOT / "docs" / "leaderboard.md").read_text()
    assert page.count("## expressions num_players=4") == 1  # scored by wins or by score: one table
    for path in cards.glob("*.json"):
        card = json.loads(path.read_text())
        assert card["protocol"]["version"] in (1, 2, 3) and card["protocol"]["games"] == 1000, path.name


def test_a_cards_page_lists_rows_in_the_protocols_order_whatever_order_its_dictionary_has():
    card = benchmark("scripted", "scripted", game_info(TOY, {}), SMALL)
    reread = json.loads(json.dumps(card, sort_keys=True))  # as write_card stores it
    shuffled = {**card, "results": dict(reversed(card["results"].items()))}
    page = markdown(card)
    assert markdown(reread) == markdown(shuffled) == page
    rows = [line.split(" | ")[0][2:] for line in page.splitlines() if line.startswith("| ")]
    ratings_at = rows.index("player")
    opponents_listed, players = rows[1 : 1 + len(card["results"])], rows[ratings_at + 1 :]
    assert opponents_listed[:2] == ["random", "scripted"] and opponents_listed[-1] == "search"
    elo = card["rating"]["elo"]
    assert sorted(players) == sorted(elo)
    assert [elo[n] for n in players] == sorted(elo.values(), reverse=True)


def test_every_shipped_cards_page_is_its_json_as_markdown_writes_it():
    shipped = [ROOT / "benchmarks" / folder for folder in ("cards", "reduced-cards")]
    for path in sorted(path for folder in shipped for path in folder.glob("*.json")):
        card = json.loads(path.read_text())
        assert markdown(card) == path.with_suffix(".md").read_text(), (
            f"{path.with_suffix('.md').name} drifted from its JSON: write it again with "
            "training.benchmark.write_card"
        )


def test_benchmark_refuses_an_unknown_agent(capsys):
    assert main(["benchmark", "scriptd", "--game", "exposed"]) == 2
    assert "did you mean 'scripted'" in capsys.readouterr().err


def test_elo_and_alpha_rank_disagree_only_where_they_order_a_pair_oppositely():
    def card(elo, mass):
        return {"rating": {"elo": elo, "alpha_rank": mass}}

    elo = {"agent": 1364.0, "scripted": 1286.0, "random": 0.0}
    assert not orders_disagree(
        card(elo, {"agent": 1.0, "random": 0.0, "scripted": 0.0})
    )  # a tie orders nothing
    assert orders_disagree(card(elo, {"agent": 0.2, "random": 0.0, "scripted": 0.8}))
    assert not orders_disagree(card(elo, None)) and not orders_disagree({})


def test_alpha_rank_reads_a_free_for_all_as_seat_against_seat():
    assert head_to_head(0.6, 1) == pytest.approx(0.6)  # two players or two sides: the win rate itself
    assert head_to_head(0.25, 3) == pytest.approx(0.5)  # a fair share of four seats: even
    assert head_to_head(0.446, 3) > 0.7  # one seat winning 0.446 against three copies beats each of them
    pytest.importorskip("open_spiel")
    matches = [{"a": "agent", "b": "scripted", "a_win_rate": 0.446}]
    mass = alpha_rank(["agent", "scripted"], matches, copies=3)["alpha_rank"]
    assert mass["agent"] > mass["scripted"]


def test_a_card_of_a_game_with_roles_gives_the_agent_at_one_seat_by_the_role_dealt(tmp_path):
    info = game_info("artifacts", {"num_players": 5})
    protocol = Protocol(games=20, search_games=1, search_simulations=2, seed=3)
    card = benchmark("scripted", "scripted", info, protocol)
    one = card["at_one_seat"]["scripted"]
    assert one["games"] == 20 and sum(v["games"] for v in one["by_role"].values()) == 20
    text = markdown(card)
    assert "The agent at one seat, every other seat scripted" in text and "| every role | 20 |" in text
    assert "| random | " in text and "Academics: " in text and "Looters: " in text  # sides by name
    assert "at_one_seat" not in benchmark("scripted", "scripted", game_info(TOY, {}), SMALL)  # no roles
    write_card(card, tmp_path)
    page = leaderboard(tmp_path)
    assert "| vs guided search | at one seat among scripted | Elo (its card) |" in page
    assert f" | {one['win_rate']:.3f} | {card['rating']['elo']['scripted']:+.0f} |" in page
