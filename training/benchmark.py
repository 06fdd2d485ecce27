"""The benchmark protocol: one agent's card, the same for the same agent and protocol version.

    python -m training benchmark runs/exposaurus-seed0 --out cards/
    python -m training benchmark reference:exposaurus-v1 --out cards/
    python -m training benchmark scripted --game exposaurus --out cards/

Protocol version 3 (`PROTOCOL`), for a game with sides: the agent plays `games` games against random
play, the scripted player and each reference agent of the game's configuration (`training.references`,
every version), and `search_games` against the unguided search (ISMCTS, roll-outs as the game declares) and the
search guided by the newest reference agent, `search_simulations` per decision each, seats and sides
rotated game by game, from fixed seeds; each result has its 95% Wilson interval and the agent's win
rate per seat or side. In a game whose seats hold roles (the spec's `seat_roles`: Artifacts) the
agent also plays `games` games at one seat among scripted players, its partners included, at every
seat in turn, with its win rate per role it was dealt. The ratings put every player on one scale:
Elo from a Plackett-Luce fit of `games` games per pair of the agent, random, scripted and the
reference agents (the agent's pairs are its results' games above; the others' pairs a round robin
plays from its own seeds), with 95% bootstrap intervals, and a second aggregate that does not assume
transitivity, alpha-Rank (OpenSpiel's implementation, with the `openspiel` extra) over the same win
rates; the card says when the two orders disagree. For a cooperative game the card gives the agent's
team alone (team win rate, the game's own measures such as Harmony - Agony), the agent at one seat
among scripted partners, and the teams mixed from the agent, the scripted player and the reference
agents, side by side.

Earlier versions stay playable (`--protocol 1` or `2`), so their cards stay reproducible. Version 2
is version 3 with the agent's pairs of the ratings played again from the round robin's seeds (a card
cost about twice its results' games of the agent; a search agent's card, hours more); its results
are the same games. Version 1 is version 2 without the reference agents and the guided search.
The card is JSON (`card.json`) and Markdown (`card.md`);
`python -m training leaderboard` builds the leaderboard page from the cards in a folder.
"""

from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from envs.core.errors import ConfigError
from envs.core.players import PLAYERS
from envs.core.search import Search, SearchBudget

from . import references
from .evaluate import crossplay, match, one_seat, rating_table, wilson
from .games import team_names
from .policy import as_run_evaluates

VERSIONS = (1, 2, 3)


@dataclass(frozen=True)
class Protocol:
    # 2: the reference agents and the search guided by the newest one join the opponents; 3: the
    # ratings reuse the agent's results' games
    version: int = 3
    games: int = 1000  # against random play, the scripted player, each reference; per pair of the ratings
    search_games: int = 100  # against each search (it costs 0.1-0.5 s a decision)
    search_simulations: int = 100
    seed: int = 20_261_201

    def __post_init__(self):
        if self.version not in VERSIONS:
            raise ValueError(f"protocol version {self.version!r} is not one of {VERSIONS}")


PROTOCOL = Protocol()
UNSAFE = re.compile(r"[^\w.-]+")  # what a card's file name replaces in an agent's name (a reference's ':')


def as_evaluated(agent, meta: dict | None, protocol: Protocol):
    """A trained agent (its network, `meta` what its run was trained with) as protocols 2 and 3 play it: as
    its run's own evaluations did (`as_run_evaluates`). Protocol 1 sampled every network; other players
    are played as they are."""
    if meta is None or protocol.version < 2:
        return agent
    return as_run_evaluates(agent, meta)


def reference_agents(info, protocol: Protocol) -> dict:
    """Protocol 2's and 3's reference agents of the game's configuration, every version, by full name, each
    played as its run's evaluations did."""
    if protocol.version < 2:
        return {}
    shipped = [
        r for r in references.shipped() if (r.game, r.num_players) == (info.spec.name, info.num_players)
    ]
    policies = {r.name: PLAYERS.resolve(r.name, info) for r in shipped}
    return {name: as_evaluated(p.net, p.meta, protocol) for name, p in policies.items()}


def opponents(info, protocol: Protocol) -> dict:
    """The protocol's opponents for a game: random play, the scripted player (when the game has one), the
    reference agents (from version 2), the unguided search and the search guided by the newest reference."""
    found = {"random": "random"}
    if info.spec.scripted_policy is not None:
        found["scripted"] = "scripted"
    found |= reference_agents(info, protocol)
    budget = SearchBudget(simulations=protocol.search_simulations)
    found["search"] = PLAYERS.resolve("search", info, budget=budget, seed=protocol.seed)
    newest = [name for name in found if name.startswith(references.PREFIX)][-1:]
    for name in newest:
        found[f"search:{name}"] = PLAYERS.resolve(f"search:{name}", info, budget=budget, seed=protocol.seed)
    return found


def is_search(key: str) -> bool:
    return key == "search" or key.startswith("search:")


def benchmark(name: str, agent, info, protocol: Protocol = PROTOCOL, workers=None) -> dict:
    """The card of `agent` (any player `match` takes) named `name` on the game `info`."""
    card = {
        "agent": name,
        "game": info.spec.name,
        "game_config": info.game_config,
        "protocol": asdict(protocol),
        # each worker plays its share from its own stream, so a card is reproduced at its own count
        "workers": 1 if workers is None else len(workers),
    }
    if isinstance(agent, Search):  # a search's play depends on its own budget, not only on its name
        card["agent_settings"] = agent.settings()
    if info.cooperative:
        card |= cooperative_results(name, agent, info, protocol, workers)
        return card
    rivals = opponents(info, protocol)
    results = {}
    for i, (key, rival) in enumerate(rivals.items()):
        searching = is_search(key)
        games = protocol.search_games if searching else protocol.games
        results[key] = match(info, agent, rival, games, protocol.seed + i, workers=workers)
    card["results"] = results
    if info.spec.extra.get("seat_roles") and info.spec.scripted_policy is not None:
        card["at_one_seat"] = at_one_seat(agent, info, protocol, protocol.seed + len(rivals), workers)
    rated = {name: agent, **{k: v for k, v in rivals.items() if not is_search(k)}}
    already = rated_already(name, results, protocol)
    table = rating_table(info, rated, protocol.games, protocol.seed, workers=workers, played=already)
    card["rating"] = {"elo": table["ratings"], "ci95": table["ci95"], "anchor": table["anchor"]}
    card["rating"] |= alpha_rank(list(rated), table["matches"], info.num_teams - 1)
    return card


def rated_already(name: str, results: dict, protocol: Protocol) -> dict:
    """Version 3: the agent's pairs of the ratings are its results' games (the agent first, so each is
    its own win rate), not a second round of them; earlier versions play them again."""
    if protocol.version < 3:
        return {}
    return {(name, key): r for key, r in results.items() if key != name and not is_search(key)}


def at_one_seat(agent, info, protocol: Protocol, seed: int, workers=None) -> dict:
    """In a game whose seats hold roles: the agent at one seat among scripted players (seat j mod n in
    game j, its role as dealt there), its results per role."""
    return {"scripted": match(info, agent, "scripted", protocol.games, seed, workers=workers, mixed=one_seat)}


def cooperative_results(name: str, agent, info, protocol: Protocol, workers=None) -> dict:
    metrics = info.spec.extra.get("metrics")
    players = {name: agent}
    if info.spec.scripted_policy is not None and name != "scripted":
        players["scripted"] = "scripted"
    players |= {k: v for k, v in reference_agents(info, protocol).items() if k != name}
    table = crossplay(
        info,
        players,
        protocol.games,
        protocol.seed,
        metrics,
        partners=players.get("scripted"),
        workers=workers,
    )
    return {
        "team": table["self_play"],
        "with_scripted_partners": table["with_partners"],
        "mixed": table["pairs"],
    }


def head_to_head(win_rate: float, copies: int) -> float:
    """A's chance of beating one given seat of B, from A's win rate at one seat against `copies` seats of
    B (a free-for-all of n players has n - 1; two players or two sides, 1): of A and that seat, the
    share of the wins that are A's."""
    theirs = (1 - win_rate) / copies
    return win_rate / (win_rate + theirs) if win_rate + theirs > 0 else 0.5


def alpha_rank(names: list[str], matches: list[dict], copies: int = 1) -> dict:
    """alpha-Rank's stationary mass over the players, from the round robin's results as a symmetric
    meta-game (the row player's payoff: its chance of beating the column player's seat, `head_to_head`);
    None without OpenSpiel."""
    try:
        from open_spiel.python.egt import alpharank
    except ImportError:
        return {"alpha_rank": None, "alpha_rank_note": "needs the openspiel extra"}
    index = {n: i for i, n in enumerate(names)}
    payoff = np.full((len(names), len(names)), 0.5)
    for m in matches:
        i, j = index[m["a"]], index[m["b"]]
        payoff[i, j] = head_to_head(m["a_win_rate"], copies)
        payoff[j, i] = 1 - payoff[i, j]
    _, _, pi, _, _ = alpharank.compute([payoff], alpha=10.0)
    mass = {n: max(0.0, round(float(p), 4)) for n, p in zip(names, pi)}
    return {"alpha_rank": mass}


def orders_disagree(card: dict) -> bool:
    """Whether Elo and alpha-Rank put some pair of players in opposite orders (a tie in either, such as
    two players with no alpha-Rank mass, orders nothing)."""
    rating = card.get("rating", {})
    if not rating.get("alpha_rank"):
        return False
    elo, mass = rating["elo"], rating["alpha_rank"]
    return any(elo[a] > elo[b] and mass[a] < mass[b] for a in elo for b in elo)


def markdown(card: dict) -> str:
    """The card as a page a person reads."""
    p = card["protocol"]
    if "results" not in card:
        games = f"{p['games']} games of each team, the same deals for every team"
    elif p["version"] == 1:
        games = (
            f"{p['games']} games against random and scripted play, {p['search_games']} against the "
            f"unguided search ({p['search_simulations']} simulations a decision), seats and sides rotated"
        )
    else:
        games = (
            f"{p['games']} games against random play, the scripted player and each reference agent, "
            f"{p['search_games']} against the unguided search and the search guided by the newest reference "
            f"agent ({p['search_simulations']} simulations a decision), seats and sides rotated"
        )
    lines = [
        f"# {card['agent']} on {card['game']} {' '.join(f'{k}={v}' for k, v in card['game_config'].items())}".rstrip(),
        "",
        f"Protocol version {p['version']}: {games}, seed {p['seed']}{played_by(card)}; 95% intervals.",
        "",
    ]
    if card.get("agent_settings"):
        # in name order, as the card's JSON stores them (write_card sorts keys): the page is the same
        # whether it is written from the card just played or from its file
        said = ", ".join(f"{k} {v}" for k, v in sorted(card["agent_settings"].items()) if v is not None)
        lines += [f"The agent's own settings: {said}.", ""]
    if "results" in card:
        lines += [
            "| opponent | win rate | 95% interval | mean return | per seat or side |",
            "|---|---|---|---|---|",
        ]
        names = named_teams(card["game"])
        for key, r in sorted(card["results"].items(), key=lambda item: protocol_rank(item[0])):
            sides = ", ".join(
                f"{names.get(t, t)}: {s['win_rate']:.3f}" for t, s in r.get("by_team", {}).items()
            )
            lines.append(
                f"| {key} | {r['win_rate']:.3f} | [{r['ci95'][0]:.3f}, {r['ci95'][1]:.3f}] | {r['mean_return']:+.3f} | {sides} |"
            )
        for key, r in card.get("at_one_seat", {}).items():
            lines += [
                "",
                f"The agent at one seat, every other seat {key} (its partners too), each seat in turn; by "
                "the role it was dealt:",
                "",
                "| role | games | win rate | 95% interval |",
                "|---|---|---|---|",
            ]
            for role, v in [("every role", r), *r.get("by_role", {}).items()]:
                lines.append(
                    f"| {role} | {v['games']} | {v['win_rate']:.3f} | [{v['ci95'][0]:.3f}, {v['ci95'][1]:.3f}] |"
                )
        rating = card["rating"]
        if p["version"] >= 3:
            lines += [
                "",
                f"Ratings: the agent's pairs are the games above; every other pair plays {p['games']} games.",
            ]
        lines += ["", "| player | Elo (random = 0) | 95% interval | alpha-Rank mass |", "|---|---|---|---|"]
        for n, elo in sorted(rating["elo"].items(), key=lambda item: (-item[1], item[0])):
            mass = rating["alpha_rank"].get(n) if rating.get("alpha_rank") else None
            lo, hi = rating["ci95"][n]
            lines.append(
                f"| {n} | {elo:+.0f} | [{lo:+.0f}, {hi:+.0f}] | {'—' if mass is None else f'{mass:.3f}'} |"
            )
        if orders_disagree(card):
            lines += [
                "",
                "Note: Elo and alpha-Rank order the players differently (the results are not transitive).",
            ]
    else:
        lines += [
            "| team | win rate | 95% interval | mean return | the game's measures (means) |",
            "|---|---|---|---|---|",
        ]
        for group in ("team", "with_scripted_partners", "mixed"):
            for key, r in sorted(
                card[group].items(), key=lambda item: (item[0] != card["agent"], protocol_rank(item[0]))
            ):
                extra = ", ".join(
                    f"{k[5:]}: {v:+.2f}" for k, v in r.items() if k.startswith("mean_") and k != "mean_return"
                )
                lines.append(
                    f"| {key}{' (one seat)' if group == 'with_scripted_partners' else ''} | {r['win_rate']:.3f} | [{r['ci95'][0]:.3f}, {r['ci95'][1]:.3f}] | {r['mean_return']:+.2f} | {extra} |"
                )
    return "\n".join(lines) + "\n"


def protocol_rank(opponent: str) -> tuple[int, str]:
    """Where an opponent's row stands on the page: in the protocol's order (random, scripted, the
    reference agents, the searches), whatever order the card's dictionary came in (its JSON is sorted)."""
    kinds = ("random", "scripted", "reference", "search")
    kind = opponent.split(":")[0]
    return (kinds.index(kind) if kind in kinds else len(kinds), opponent)


def own_with_scripted_partners(card: dict) -> float | None:
    """A cooperative card's agent at one seat among scripted partners (the card also holds the reference
    agents' rows; for the scripted player it is its own team)."""
    if card["agent"] == "scripted":
        return card["team"]["scripted"]["win_rate"]
    return card["with_scripted_partners"].get(f"{card['agent']} + scripted", {}).get("win_rate")


def workers_of(card: dict) -> int:
    """The worker processes a card's games were played by (cards from before it was recorded: one)."""
    return card.get("workers", 1)


def played_by(card: dict) -> str:
    """How the Markdown card says it was played, where that was not in one process."""
    count = workers_of(card)
    return f", played by {count} worker processes (reproduce with --workers {count})" if count > 1 else ""


def named_teams(game: str) -> dict[str, str]:
    """A card's team names (`games.team_names`); none for a game of a module not imported here."""
    try:
        return team_names(game)
    except ConfigError:
        return {}


def card_stem(card: dict) -> str:
    """A card's file name: the game and its configuration (players, other options that change play),
    then the agent, so one agent's cards on two configurations are two files."""
    options = {k: v for k, v in sorted(card["game_config"].items()) if k not in SCORING}
    where = [f"{options.pop('num_players')}p"] if "num_players" in options else []
    where += [f"{k}-{v}" for k, v in options.items()]
    game = "-".join([card["game"], *where])
    return UNSAFE.sub("_", f"{game}--{Path(str(card['agent'])).name}{budget_suffix(card)}")


def budget_suffix(card: dict) -> str:
    """A search's budget in its card's file name, so two budgets (or roots) of one search are two cards."""
    return "".join(f"-{v}" if k == "root" else f"-{k}{v}" for k, v in budget_of(card))


def budget_of(card: dict) -> list[tuple[str, str]]:
    """A search agent's budget as it names its card: simulations, seconds, batch (when above 1), and
    its root where it is not PUCT."""
    settings = card.get("agent_settings") or {}
    named = [(k, settings.get(k)) for k in ("simulations", "seconds", "batch")]
    out = [(k, f"{v:g}") for k, v in named if v is not None and not (k == "batch" and v == 1)]
    return out + ([("root", settings["root"])] if settings.get("root", "puct") != "puct" else [])


def write_card(card: dict, folder: str | Path) -> tuple[Path, Path]:
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    stem = card_stem(card)
    json_path, md_path = folder / f"{stem}.json", folder / f"{stem}.md"
    json_path.write_text(json.dumps(card, indent=1, sort_keys=True) + "\n")
    md_path.write_text(markdown(card))
    return json_path, md_path


# game options that change only how a game is scored (its return), not its play: one leaderboard table,
# whose columns (win rates, the game's own measures) do not depend on them
SCORING = ("reward",)
# the leaderboard's columns: a result's key, or how to find it (the newest reference, its search)
COLUMNS = ("random", "scripted", "reference", "search", "search:reference")


def leaderboard_cell(results: dict, column: str, agent: str = "", versioned: bool = False) -> str:
    """A card's win rate against the opponent of `column` ("reference": the newest reference agent in
    the card other than the agent itself, where there is one; "search:reference": the newest guided
    search), "—" where the card has none (protocol 1). `versioned`: say which version it was (a table
    whose cards met different versions)."""
    if column in results:
        return f"{results[column]['win_rate']:.3f}"
    found = sorted((k for k in results if k.startswith(column + ":")), key=version_of)
    if not found:
        return "—"
    key = ([k for k in found if k != agent] or found)[-1]
    said = f" (v{version_of(key)})" if versioned else ""
    return f"{results[key]['win_rate']:.3f}{said}"


def with_interval(result: dict) -> str:
    """A win rate and its 95% interval: the column a leaderboard table is ordered by, so a reader sees
    which neighbouring rows the games tell apart."""
    low, high = result["ci95"]
    return f"{result['win_rate']:.3f} [{low:.3f}, {high:.3f}]"


def version_of(key: str) -> int:
    """The version of a reference agent's result key, or of the search it guides."""
    return references.parse(key.removeprefix("search:"))[2]


def met_versions(cards: list[dict]) -> set[str]:
    """The reference agents the cards' agents met (under protocol 2 or later)."""
    return {k for c in cards for k in c["results"] if references.is_reference_name(k)}


def agent_cell(card: dict) -> str:
    """The agent's name, with its own budget when it is a search."""
    said = ", ".join(f"{k} {v}" for k, v in budget_of(card))
    return f"{card['agent']} ({said})" if said else card["agent"]


def protocol_cell(card: dict) -> str:
    """The protocol's version, its game counts where a card changed them (`--games`, `--search-games`),
    and the worker processes where there were several (`--workers`)."""
    protocol = card["protocol"]
    changed = [
        f"{protocol[key]} {what}"
        for key, what in (("games", "games"), ("search_games", "search games"))
        if protocol[key] != getattr(PROTOCOL, key)
    ]
    if workers_of(card) > 1:
        changed.append(f"{workers_of(card)} workers")
    return f"v{protocol['version']}" + (f" ({', '.join(changed)})" if changed else "")


def leaderboard(folder: str | Path) -> str:
    """The leaderboard page from the cards (*.json) in `folder`: one table per game, rows by the win rate
    against the scripted players (each card's Elo is on its own round robin's scale)."""
    cards = [json.loads(p.read_text()) for p in sorted(Path(folder).glob("*.json"))]
    lines = [
        "# Leaderboard",
        "",
        "Generated by `python -m training leaderboard benchmarks/cards > docs/leaderboard.md` from the cards in",
        "`benchmarks/cards/` (a test fails if this page and the cards drift apart). Each card is one agent",
        "under the benchmark protocol (`training/benchmark.py`); every number has its 95% interval on the",
        "card. Add yours: `python -m training benchmark RUN --out benchmarks/cards`, then regenerate this page,",
        "and give the command that trained the agent.",
        "",
        "Rows are ordered by the win rate against the scripted players (the team win rate in a cooperative",
        "game), shown with its 95% Wilson interval: rows whose intervals overlap are not told apart by",
        "their games. The Elo column is each card's own:",
        "it rates the players of that card's games (random = 0), so ratings from two cards are not on one",
        "scale (the scripted player, rated against weaker opponents on its own card, can stand above an",
        "agent that beats it); compare agents by the win-rate columns. Where the cards of a table met",
        "different versions of the reference agent, its columns say which version each cell is: 'vs",
        "reference' the newest on that card other than the agent itself, 'vs guided search' the search",
        "guided by the newest on that card.",
        "",
    ]

    def table_of(card: dict) -> str:  # one table per game and configuration (how it was scored aside)
        options = " ".join(f"{k}={v}" for k, v in sorted(card["game_config"].items()) if k not in SCORING)
        return f"{card['game']} {options}".rstrip()

    for title in sorted({table_of(c) for c in cards}):
        mine = [c for c in cards if table_of(c) == title]
        lines += [f"## {title}", ""]
        if "results" in mine[0]:
            seated = any("at_one_seat" in c for c in mine)  # a game with roles: the agent at one seat too
            extra = " at one seat among scripted |" if seated else ""
            lines += [
                f"| agent | protocol | vs random | vs scripted | vs reference | vs search | vs guided search |{extra}"
                " Elo (its card) |",
                "|---|---|---|---|---|---|---|---|" + ("---|" if seated else ""),
            ]
            mine.sort(key=lambda c: -c["results"]["scripted"]["win_rate"])
            versioned = len(met_versions(mine)) > 1
            for c in mine:
                cells = [  # the column the rows are ordered by with its interval, the others bare
                    with_interval(c["results"][column])
                    if column == "scripted"
                    else leaderboard_cell(c["results"], column, c["agent"], versioned)
                    for column in COLUMNS
                ]
                if seated:
                    cells.append(leaderboard_cell(c.get("at_one_seat", {}), "scripted"))
                elo = c["rating"]["elo"].get(c["agent"], 0.0)
                lines.append(f"| {agent_cell(c)} | {protocol_cell(c)} | {' | '.join(cells)} | {elo:+.0f} |")
        else:
            lines += [
                "| agent | protocol | team win rate | the game's measures | with scripted partners |",
                "|---|---|---|---|---|",
            ]
            mine.sort(key=lambda c: -c["team"][c["agent"]]["win_rate"])
            for c in mine:
                team = c["team"][c["agent"]]
                measures = ", ".join(
                    f"{k[5:]} {v:+.2f}"
                    for k, v in team.items()
                    if k.startswith("mean_") and k != "mean_return"
                )
                partners = own_with_scripted_partners(c)
                lines.append(
                    f"| {agent_cell(c)} | {protocol_cell(c)} | {with_interval(team)} | "
                    f"{measures} | {'—' if partners is None else f'{partners:.3f}'} |"
                )
        lines.append("")
    if not cards:
        lines.append("No cards yet.")
    return "\n".join(lines).rstrip() + "\n"


__all__ = ["PROTOCOL", "Protocol", "benchmark", "leaderboard", "markdown", "wilson", "write_card"]
