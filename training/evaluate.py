"""Evaluation a researcher can check: many games, seats rotated, Wilson intervals, a rating table.

A player is a name ("random", "scripted", "search", "search:<run>" - envs.core.search.Search, unguided
or guided by a run's policy -, a run directory or checkpoint, or any name registered in
envs.core.players.PLAYERS), a Search object, a trained network (a PolicyNet, or
`load_policy(checkpoint)`), or any callable `policy(observation, action_mask) -> int` (the policy
protocol of the envs' `opponents=`: its optional `for_seat(seat)` gives each seat of each game its own
copy, `reset()` is called when a game starts). In `match(A, B)` game j gives A the team j mod (number
of teams) - so A sits in every seat equally often - and B every other seat; the engine also draws the
starting seat at random. Cooperative games (one team) have no opponent: A plays every seat and the
team's win rate and mean return are reported."""

from __future__ import annotations

import math
import pickle
from collections.abc import Callable

import numpy as np
import torch

from envs.core.players import PLAYERS
from envs.core.search import Search
from envs.core.workers import split, stream

from .actors import NetActor, RandomActor
from .games import evaluation_info, final_outcomes
from .policy import CallableActor, Policy
from .runner import Runner
from .search import SearchActor


def wilson(successes: float, n: int, z: float = 1.959964) -> tuple[float, float]:
    """95% Wilson score interval for a proportion (ties count as half a success)."""
    if n == 0:
        return (0.0, 1.0)
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def make_actor(player, info, greedy: bool = False):
    """A player's name (envs.core.players.PLAYERS: "random", "scripted", "search", "search:<run>", a run
    directory or checkpoint, or a name of one's own), a PolicyNet, a loaded Policy, a Search, an actor
    object, or any policy callable."""
    if isinstance(player, str):
        named = PLAYERS.resolve(player, info)
        if named is None:  # random play, from the runner's stream
            return RandomActor()
        if isinstance(named, Policy):  # a run by name plays as a network does here: `greedy` says how
            return NetActor(named.net, greedy=greedy)
        return make_actor(named, info, greedy)
    if isinstance(player, Search):
        return SearchActor(player)
    if isinstance(player, torch.nn.Module):
        return NetActor(player, greedy=greedy)
    if isinstance(player, Policy):  # batched: one forward pass for all games; its own greedy setting
        if (player.net.obs_dim, player.net.num_actions) != (info.obs_dim, info.num_actions):
            raise ValueError(f"{player!r} was trained on another game or configuration: {player.game_config}")
        return NetActor(player.net, greedy=player.greedy)
    if getattr(player, "kind", None) in ("net", "scripted", "random", "search"):
        return player
    if callable(player):
        return CallableActor(player)
    raise TypeError(
        f"a player is a name ({', '.join(PLAYERS.labels())}), a network or a callable "
        f"policy(observation, action_mask) -> int; got {player!r}"
    )


def match(
    info,
    player_a,
    player_b,
    games: int,
    seed: int = 0,
    num_envs: int = 64,
    greedy: bool = False,
    metrics: Callable | None = None,
    on_game_start: Callable | None = None,
    workers=None,
    mixed: Callable | None = None,
) -> dict:
    """Play `games` games of A against B (seats rotated); A's results with a 95% Wilson interval.
    `mixed(j, num_players) -> seats`: A plays those seats of game j, B the others (`play_games`).

    `on_game_start(j, game, keys)` hears game j before its first move ("A" or "B" per seat), e.g. to
    record it (`envs.core.replay.Recordings`). With `workers` (`envs.core.workers.Workers` hosting
    `training.workers.GameWorker`s), worker w plays a contiguous share of the games from its own stream
    (seed, number of workers, w); the players travel to them by value (a network with its weights)."""
    if workers is None or len(workers) == 1 or on_game_start is not None:
        results = play_games(
            info,
            player_a,
            player_b,
            range(games),
            np.random.default_rng(seed),
            num_envs,
            greedy,
            metrics,
            on_game_start,
            mixed,
        )
        return summarize(results, info)
    players = pickle.dumps((player_a, player_b, metrics, mixed))
    shares = split(games, len(workers))
    config = dict(info.game_config)
    per_worker = -(-num_envs // len(workers))
    calls = [
        (config, players, share, stream(seed, len(workers), w), per_worker, greedy)
        for w, share in enumerate(shares)
    ]
    replies = workers.call("play", calls)
    for reply in replies:  # a search's time is spent in the workers: count it where it is read
        for player, (seconds, decisions) in zip((player_a, player_b), reply["searched"]):
            if isinstance(player, Search):
                player.seconds += seconds
                player.decisions += decisions
    return summarize([r for reply in replies for r in reply["results"]], info)


def search_spent(players) -> list[tuple[float, int]]:
    """(seconds, decisions) each player has searched so far ((0.0, 0) for a player that does not search)."""
    return [(p.seconds, p.decisions) if isinstance(p, Search) else (0.0, 0) for p in players]


def play_games(
    info,
    player_a,
    player_b,
    games: range,
    rng: np.random.Generator,
    num_envs: int = 64,
    greedy: bool = False,
    metrics: Callable | None = None,
    on_game_start: Callable | None = None,
    mixed: Callable | None = None,
) -> list:
    """Games `games` (indices j) of A against B, each result (outcome, A's mean return, A's team,
    metrics, truncated, A's role) in the order of j: game j gives A the team j mod (number of teams).
    In a cooperative game A plays every seat, or with `mixed(j, num_players) -> seats` those seats and
    B the others (one team of both: cross-play). With `mixed` in a game of sides, A plays those seats
    (all on one side: its team is theirs, as dealt) and B every other seat, its partners included. A's
    role is its seat's (the game's `seat_roles`) where A plays one seat, else None."""
    actors = {"A": make_actor(player_a, info, greedy), "B": make_actor(player_b, info, greedy)}
    indices = iter(games)
    results: list = [None] * len(games)
    seat_roles = info.spec.extra.get("seat_roles")

    def assign(slot, rng, game):
        j = next(indices, None)
        if j is None:
            return None
        teams = info.teams_of(game)
        ids = sorted(set(teams))
        team = ids[j % len(ids)]
        if mixed is not None:  # mixed(j, seats) says which seats A plays
            mine = mixed(j, len(teams))
            keys = ["A" if s in mine else "B" for s in range(len(teams))]
            if not info.cooperative:
                team = a_team(teams, mine)
        else:
            keys = ["A" if info.cooperative or t == team else "B" for t in teams]
        if on_game_start is not None:
            on_game_start(j, game, keys)
        return keys, (j, team, teams, [s for s, k in enumerate(keys) if k == "A"])

    def on_episode(slot, meta, game):
        j, team, teams, mine = meta
        ret = np.asarray(game.returns(), float)
        outcome = final_outcomes(game, teams)[team]  # a game cut at its length limit is a draw
        seats = [s for s, t in enumerate(teams) if t == team]
        extra = metrics(game) if metrics is not None else {}
        role = seat_roles(game)[mine[0]] if seat_roles is not None and len(mine) == 1 else None
        results[j - games.start] = (outcome, float(ret[seats].mean()), team, extra, game.is_truncated(), role)

    runner = Runner(info, min(num_envs, len(games)), rng, actors, assign, on_episode)
    with torch.no_grad():
        runner.run_episodes()
    return results


def a_team(teams: list[int], seats: set[int]) -> int:
    """The one team of `seats` (a player seated at several seats of a game of sides plays for one)."""
    held = {teams[s] for s in seats}
    if len(held) != 1:
        raise ValueError(f"seats {sorted(seats)} are on teams {sorted(held)}: a player plays for one side")
    return held.pop()


def alternate_seats(j: int, n: int) -> set[int]:
    """Every other seat, starting at seat 0 in even games and seat 1 in odd ones."""
    return {s for s in range(n) if (s + j) % 2 == 0}


def one_seat(j: int, n: int) -> set[int]:
    """Seat j mod n: one player among the other's partners, at every seat in turn."""
    return {j % n}


def crossplay(info, players: dict, games: int, seed: int = 0, metrics: Callable | None = None,
              partners: str | None = "scripted", workers=None) -> dict:  # fmt: skip
    """A cooperative game's cross-play table: each pair of players as one team (seats alternating, which
    of the two starts rotated), each player alone (self-play, the diagonal), and each player at one seat
    with `partners` at the others. Self-play scores hide conventions that fail with any other partner
    (Hanabi's SAD, Other-Play); cross-play shows them. Every team plays the same deals (the same seed;
    with `workers`, the same streams per worker, as `match` shares them)."""
    if not info.cooperative:
        raise ValueError(f"cross-play is for cooperative games; {info.spec.name} has sides (use rate)")
    names = list(players)
    table: dict = {"players": names, "games": games, "self_play": {}, "pairs": {}, "with_partners": {}}

    def run(a, b, mixed):
        return match(info, a, b, games, seed, metrics=metrics, workers=workers, mixed=mixed)

    for i, a in enumerate(names):
        table["self_play"][a] = run(players[a], players[a], None)
        for b in names[i + 1 :]:
            table["pairs"][f"{a} + {b}"] = run(players[a], players[b], alternate_seats)
        if partners is not None and a != partners:
            table["with_partners"][f"{a} + {partners}"] = run(players[a], partners, one_seat)
    table["partners"] = partners
    cross = [r["win_rate"] for r in table["pairs"].values()]
    own = [r["win_rate"] for r in table["self_play"].values()]
    table["mean_self_play"] = round(float(np.mean(own)), 4)
    table["mean_cross_play"] = round(float(np.mean(cross)), 4) if cross else None
    return table


def summarize(results: list, info) -> dict:
    outcomes = np.array([r[0] for r in results])
    n = len(outcomes)
    # a tie is a shared first place (1/k of a win), a truncated game's draw among the teams included
    wins, ties = int((outcomes == 1).sum()), int(((outcomes > 0) & (outcomes < 1)).sum())
    score = float(outcomes.sum())
    lo, hi = wilson(score, n)
    out = {
        "games": n,
        "wins": wins,
        "ties": ties,
        "losses": n - wins - ties,
        "win_rate": round(score / n, 4) if n else 0.0,
        "ci95": [round(lo, 4), round(hi, 4)],
        "mean_return": round(float(np.mean([r[1] for r in results])), 4) if n else 0.0,
        "truncated": sum(bool(r[4]) for r in results),  # games cut at the length limit (scored as draws)
    }
    if not info.cooperative:  # A's team (its seat, in games without teams) is rotated game by game
        out["by_team"] = rates_by(results, 2)
    if any(r[5] is not None for r in results):  # A at one seat of a game with roles: by the role dealt
        out["by_role"] = rates_by([r for r in results if r[5] is not None], 5)
    extras = [r[3] for r in results if r[3]]
    if extras:
        for key in extras[0]:
            out[f"mean_{key}"] = round(float(np.mean([e[key] for e in extras])), 4)
    return out


def rates_by(results: list, field: int) -> dict:
    """A's win rate (with its 95% interval) in the games of each value of a result's `field`."""
    out = {}
    for value in sorted({r[field] for r in results}):
        sub = np.array([r[0] for r in results if r[field] == value])
        lo, hi = wilson(float(sub.sum()), len(sub))
        out[str(value)] = {
            "games": len(sub),
            "win_rate": round(float(sub.mean()), 4),
            "ci95": [round(lo, 4), round(hi, 4)],
        }
    return out


def rating_table(
    info,
    players: dict,
    games: int,
    seed: int = 0,
    anchor: str = "random",
    num_envs: int = 64,
    greedy: bool = False,
    workers=None,
    played: dict | None = None,
) -> dict:
    """Round robin of every pair, then Elo-scale ratings from a Plackett-Luce (Bradley-Terry) fit.

    `played` maps a pair (a, b), in `players`' order, to a `match` of `games` games already played
    between them (A's win rate); such a pair is not played again.

    In a game with k teams, one copy of A faces k - 1 teams of B, and A's chance of winning is modelled
    as s_A / (s_A + (k - 1) s_B); with k = 2 this is Bradley-Terry. Ratings are 400 log10(s), the anchor
    player (random play, when present) at 0, each with a 95% bootstrap interval (`ci95`). Cooperative games have no head-to-head: the table lists
    each player's team win rate and mean return instead.
    """
    names = list(players)
    if info.cooperative:
        rows = {}
        for i, name in enumerate(names):
            r = match(info, players[name], players[name], games, seed + i, num_envs, greedy, workers=workers)
            rows[name] = {"win_rate": r["win_rate"], "ci95": r["ci95"], "mean_return": r["mean_return"]}
        return {"kind": "cooperative team results", "games_per_player": games, "players": rows}
    k = len(set(info.teams_of(info.new_game(0))))  # teams per game (secret sides: known at the deal)
    pairs = []
    played = played or {}
    for i, a in enumerate(names):
        for j, b in enumerate(names):
            if i < j:
                r = played.get((a, b)) or match(
                    info,
                    players[a],
                    players[b],
                    games,
                    seed + 1000 * i + j,
                    num_envs,
                    greedy,
                    workers=workers,
                )
                pairs.append((a, b, r["win_rate"] * r["games"], r["games"], r))
    anchor = anchor if anchor in names else names[0]
    elo = elo_ratings(names, pairs, k, anchor)
    intervals = bootstrap_intervals(names, pairs, k, anchor, np.random.default_rng(seed))
    return {
        "kind": "Elo scale, Plackett-Luce fit over round-robin matches",
        "anchor": anchor,
        "games_per_pair": games,
        "ratings": {n: round(v, 1) for n, v in sorted(elo.items(), key=lambda kv: -kv[1])},
        "ci95": {n: intervals[n] for n in sorted(elo, key=lambda n: -elo[n])},
        "matches": [
            {"a": a, "b": b, "a_win_rate": r["win_rate"], "ci95": r["ci95"]} for a, b, _, _, r in pairs
        ],
    }


def elo_ratings(names: list[str], pairs: list[tuple], k: int, anchor: str) -> dict[str, float]:
    strength = fit_ratings(names, pairs, k)
    return {n: 400 * math.log10(strength[n] / strength[anchor]) for n in names}


def bootstrap_intervals(
    names: list[str], pairs: list[tuple], k: int, anchor: str, rng: np.random.Generator, samples: int = 200
) -> dict[str, list[float]]:
    """95% intervals of the ratings (the anchor's is [0, 0]): refit on every pair's score redrawn as
    binomial(games, observed rate), a parametric bootstrap of the round robin."""
    fits = {n: [] for n in names}
    for _ in range(samples):
        redrawn = [(a, b, float(rng.binomial(n, score / n)), n) for a, b, score, n, *_ in pairs]
        for name, value in elo_ratings(names, redrawn, k, anchor).items():
            fits[name].append(value)
    return {
        n: [round(float(np.percentile(v, 2.5)), 1), round(float(np.percentile(v, 97.5)), 1)]
        for n, v in fits.items()
    }


def fit_ratings(names: list[str], pairs: list[tuple], k: int, iterations: int = 500) -> dict[str, float]:
    """Minorize-maximize fit (Hunter 2004) of winner-only Plackett-Luce strengths.

    pairs: (a, b, a_score, games): a's team faced k - 1 teams of b. One virtual tie per pair keeps
    the fit finite when a player wins every game.
    """
    s = dict.fromkeys(names, 1.0)
    data = [(a, b, score + 0.5, (n - score) + 0.5, n + 1) for a, b, score, n, *_ in pairs]
    for _ in range(iterations):
        wins = dict.fromkeys(names, 0.0)
        denom = dict.fromkeys(names, 0.0)
        for a, b, wa, wb, n in data:
            total = s[a] + (k - 1) * s[b]
            wins[a] += wa
            wins[b] += wb
            denom[a] += n / total
            denom[b] += n * (k - 1) / total
        new = {x: (wins[x] / denom[x] if denom[x] > 0 else s[x]) for x in names}
        norm = math.exp(np.mean([math.log(v) for v in new.values()]))
        new = {x: v / norm for x, v in new.items()}
        converged = all(abs(new[x] / s[x] - 1) < 1e-10 for x in names)
        s = new
        if converged:
            break
    return s


def evaluation_entry(
    info, net, eval_config, seed: int, has_scripted: bool, iteration: int, decisions: int, workers=None
) -> dict:
    """One evaluation of `net` as both trainers record it: against each configured opponent (the team
    itself in cooperative games, plus the scripted team for comparison), in games with the options of
    `eval.game_config` on top. Draws from its own seeds and restores torch's rng, so evaluating never
    changes a training run."""
    entry = {"iteration": iteration, "decisions": decisions}
    info = evaluation_info(info, eval_config.game_config)
    opponents = ["self"] if info.cooperative else list(eval_config.opponents)
    metrics = info.spec.extra.get("metrics")
    torch_state = torch.get_rng_state()
    for name in opponents:
        if name == "scripted" and not has_scripted:
            continue
        opponent = net if name == "self" else name
        entry[name] = match(
            info,
            net,
            opponent,
            eval_config.games,
            seed,
            greedy=eval_config.greedy,
            metrics=metrics,
            workers=workers,
        )
    if info.cooperative and has_scripted:
        entry["scripted_team"] = match(
            info, "scripted", "scripted", eval_config.games, seed, metrics=metrics, workers=workers
        )
    torch.set_rng_state(torch_state)
    return entry
