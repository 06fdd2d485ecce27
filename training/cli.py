"""`python -m training train | evaluate | rate | play | export` - see each command's --help."""

from __future__ import annotations

import argparse
import contextlib
import importlib
import json
import sys
import warnings
from pathlib import Path

import numpy as np
import torch
import yaml

from envs.core.errors import ConfigError, PositionError
from envs.core.players import PLAYERS
from envs.core.position import read_position
from envs.core.replay import Recordings
from envs.core.search import ROOTS, Search

from . import checkpoint as ckpt
from . import references
from .benchmark import VERSIONS
from .config import ScaledWarmStart, check_count, check_number, check_seed, config_file, load_config
from .evaluate import crossplay, match, rating_table
from .games import evaluation_info, game_info
from .players import GUIDED, REFERENCE, RUN
from .policy import as_run_evaluates, run_evaluates_greedy
from .runlog import result_lines
from .search import budget_from

# `play` plays the agents against a person in the terminal: searches, trained runs, reference agents and
# the baselines
PLAY_AGENTS = ("random", "scripted", "search", GUIDED, RUN, REFERENCE, REFERENCE + ":")
TRAINED = (RUN, REFERENCE, REFERENCE + ":")  # players that are a trained network


def check_player(text: str, only: tuple[str, ...] | None = None) -> None:
    """`text` names a player (envs.core.players.PLAYERS; of the kinds in `only`, if given); otherwise a
    ConfigError that lists what a player can be and suggests the closest name."""
    PLAYERS.check(text, only, command_line=True)


def _load_player(text: str, info, args=None):
    """A player's name -> (its name in the results, the player, its run's metadata or None). A run
    directory or checkpoint gives its network (played as the command's --greedy says), a search gives
    a Search with the command's budget, and any other name stays a name (match resolves it)."""
    key = PLAYERS.check(text, command_line=True).key
    if key in TRAINED:
        policy = PLAYERS.resolve(text, info, what="the evaluated agent's game")
        name = Path(policy.meta["path"]).stem
        if key != RUN:
            name = references.find(text, info).name
        elif name in ("latest", "final"):
            name = f"{Path(policy.meta['path']).parent.parent.name}/{name}"
        return name, policy.net, policy.meta
    if key in ("search", GUIDED):
        budget = budget_from(getattr(args, "simulations", None), getattr(args, "seconds", None))
        rollout = getattr(args, "rollout", None)
        seed = getattr(args, "seed", 0)
        guided = {}
        if key != GUIDED and getattr(args, "search_root", "puct") != "puct":
            raise ConfigError(
                f"--search-root {args.search_root} needs a guided search (search:RUN), not {text!r}"
            )
        if key == GUIDED:
            guided = {"batch": getattr(args, "search_batch", 1), "root": getattr(args, "search_root", "puct")}
        return text, PLAYERS.resolve(text, info, budget=budget, rollout=rollout, seed=seed, **guided), None
    return text, text, None


def cmd_train(args) -> int:
    overrides = list(args.overrides)
    config_path = args.config
    if config_path is not None and (args.resume or "=" in config_path):
        overrides.insert(0, config_path)  # --resume takes no config: a lone word is a broken override
        config_path = None
    check_overrides(overrides, args.resume)
    from .run import resume, start

    # a game=MODULE:SPEC typed on the command line names the user's own module, as --import does
    import_user_modules([o[5:].split(":", 1)[0] for o in overrides if o.startswith("game=") and ":" in o])
    if args.resume:
        extra = dict(o.split("=", 1) for o in overrides)
        run = resume(args.resume, extra, log=not args.no_log)
    else:
        if config_path is None and not any(o.startswith("game=") for o in overrides):
            raise ConfigError("give a game name, a config file (configs/<game>.yaml) or --resume RUN_DIR")
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", ScaledWarmStart)
            config = load_config(config_file(config_path) if config_path else None, overrides)
        for w in caught:  # the scaled warm start as a plain line; anything else as Python shows it
            if issubclass(w.category, ScaledWarmStart):
                say(f"note: {w.message}")
            else:
                warnings.showwarning(w.message, w.category, w.filename, w.lineno)
        run = start(config, overwrite=args.overwrite, log=not args.no_log)  # config.backend trains it
    summary = run.train()
    if summary.get("already_finished"):
        total = run.config.total_steps
        say(
            f"run {run.run_dir} already finished ({summary['decisions']} decisions, total_steps={total}): "
            f"nothing to do; to train longer: --resume {run.run_dir} total_steps={2 * total}"
        )
    report(summary, summary["final_eval"], run.info, run.config.eval.games)
    return 0


def check_overrides(overrides: list[str], resume: str | None) -> None:
    """Every override is key=value: a word without "=" is refused (with --resume, where a config file or
    game name has no place, too), and `key value` gets the hint `key=value`."""
    for i, text in enumerate(overrides):
        if "=" in text:
            continue
        following = overrides[i + 1] if i + 1 < len(overrides) else None
        hint = f"; did you mean {text}={following}?" if following is not None and "=" not in following else ""
        if resume:
            raise ConfigError(
                f"--resume continues a run with its own config: what follows is key=value overrides "
                f"(e.g. total_steps=400000), got {text!r}{hint}"
            )
        raise ConfigError(f"override {text!r} must look like key=value (e.g. ppo.lr=1e-3){hint}")


def say(text: str) -> None:
    """A line for the person at the terminal (stderr: stdout carries only the JSON)."""
    print(text, file=sys.stderr, flush=True)


def report(out: dict, results: dict, info, games: int) -> None:
    """The results in plain lines a person reads at a glance (stderr), then the JSON (stdout)."""
    for line in result_lines(results, info, games):
        say(line)
    print(json.dumps(out, indent=1), flush=True)


def scored_info(data: dict):
    """The checkpoint's game, scored as the run's own evaluations scored it (its eval.game_config)."""
    info = game_info(data["game"], data["game_config"])
    return evaluation_info(info, data["train_config"].get("eval", {}).get("game_config", {}))


def game_checkpoint(text: str) -> str | None:
    """The checkpoint or run a player's name reads its game from (None for random, scripted, search)."""
    key = PLAYERS.check(text, command_line=True).key
    if key in TRAINED:
        return text
    if key == GUIDED and text != GUIDED:
        return text[len(GUIDED) :]
    return None


def target_game(args, players: list[str]):
    """(game name, scored GameInfo): from --game NAME [key=value ...], else from the first player that
    names a checkpoint (scored as that run's evaluations scored it)."""
    if args.game:
        options = dict(parse_option(o) for o in args.game_options)
        try:
            return args.game, game_info(args.game, options)
        except (KeyError, ValueError, TypeError) as exc:
            raise ConfigError(f"--game {args.game}: {exc}") from None
    if args.game_options:
        raise ConfigError(f"game options {args.game_options} need --game NAME")
    source = next((c for c in map(game_checkpoint, players) if c is not None), None)
    if source is None:
        raise ConfigError("no checkpoint names the game: give --game NAME [key=value ...]")
    data = ckpt.read_checkpoint(source)
    return data["game"], scored_info(data)


def parse_option(text: str) -> tuple[str, object]:
    if "=" not in text:
        raise ConfigError(f"a game option is key=value, got {text!r}")
    key, value = text.split("=", 1)
    return key, yaml.safe_load(value)


def search_times(players: dict) -> dict:
    """Seconds per decision of each search player (the time its budget cost)."""
    return {
        name: round(p.seconds_per_decision(), 4)
        for name, p in players.items()
        if isinstance(p, Search) and p.decisions
    }


def cmd_evaluate(args) -> int:
    torch.set_num_threads(args.threads)
    opponents = [o for o in args.opponents.split(",") if o]
    if not opponents:
        raise ConfigError(
            f"--opponents names no player; give a comma list of {', '.join(PLAYERS.labels(command_line=True))}"
        )
    for text in (args.checkpoint, *opponents):
        check_player(text)
    game, info = target_game(args, [args.checkpoint, *opponents])
    name, agent, data = _load_player(args.checkpoint, info, args)
    if args.opponents_greedy is None:  # trained opponents: as their own runs evaluate, unless told
        args.opponents_greedy = args.greedy
    if args.greedy is None:  # play as the run's own evaluations did, so the numbers compare
        args.greedy = run_evaluates_greedy(data)
        if args.greedy:
            say(
                f"{name} plays its most likely actions, as its run evaluates (eval.greedy; --no-greedy samples)"
            )
    players = {name: agent}
    out = {
        "agent": name,
        "game": game,
        "game_config": info.game_config,
        "games": args.games,
        "seed": args.seed,
        "greedy": args.greedy,
        "opponents_greedy": {},  # each trained opponent: True where it played its most likely actions
        "seats_rotated": True,
        "results": {},
    }
    metrics = info.spec.extra.get("metrics")
    recorded = {}  # result key -> the games recorded for it (--record)
    with worker_pool(args.workers, game, info, args.imports) as workers:
        evaluate_all(args, info, game, name, agent, opponents, players, out, metrics, recorded, workers)
    if recorded:
        out["replays"] = write_replays(recorded, Path(args.record), info)
    times = search_times(players)
    if times:
        out["seconds_per_decision"] = times
    for line in result_lines(out["results"], info, args.games, name):
        say(line)
    for pname, seconds in times.items():
        say(f"{pname}: {seconds:.3f} s per decision")
    print(json.dumps(out, indent=1), flush=True)
    if args.output:
        Path(args.output).write_text(json.dumps(out, indent=1))
    return 0


@contextlib.contextmanager
def worker_pool(count: int, game: str, info, imports: list[str] | tuple[str, ...] = ()):
    """`count` worker processes playing `game` as `info` scores it (None: play in this process), each
    importing the --import modules first (a player of one's own is registered there too)."""
    from .workers import game_workers

    workers = game_workers(count, game, info.game_config, imports)
    if workers is None:
        yield None
        return
    with workers:
        yield workers


def evaluate_all(args, info, game, name, agent, opponents, players, out, metrics, recorded, workers) -> None:
    """The agent against each opponent (its team and theirs in a cooperative game), and the rating table."""

    def record(key, names):
        if not args.record:
            return None
        recorded[key] = Recordings(args.record_games, names)
        return recorded[key].start

    def play(key, a, b, roles, game_metrics=None):
        return match(
            info,
            a,
            b,
            args.games,
            args.seed,
            greedy=args.greedy,
            metrics=game_metrics,
            on_game_start=record(key, roles),
            workers=workers,
        )

    def team(player, pname):  # a cooperative game: the player in every seat
        return play(f"team_{pname}", player, player, {"A": pname}, metrics)

    for text in opponents:
        oname, opponent, meta = _load_player(text, info, args)
        if meta is not None:  # a trained opponent plays as its run evaluates (or as the command says)
            opponent = as_run_evaluates(opponent, meta, args.opponents_greedy)
            out["opponents_greedy"][oname] = opponent.greedy
        players[oname] = opponent
        if info.cooperative:
            if f"team_{name}" not in out["results"]:
                out["results"][f"team_{name}"] = team(agent, name)
            out["results"][f"team_{oname}"] = team(opponent, oname)
        else:
            out["results"][f"vs_{oname}"] = play(f"vs_{oname}", agent, opponent, {"A": name, "B": oname})
    if args.rating and len(players) > 1:
        out["rating"] = rating_table(
            info, players, args.games, args.seed, greedy=args.greedy, workers=workers
        )


def write_replays(recorded: dict, folder: Path, info) -> dict:
    """Each recorded game as pictures plus one HTML page (folder/<result key>/game_01.html, ...)."""
    pages = {}
    for key, recordings in recorded.items():
        title = f"{info.spec.title}: {key.replace('_', ' ', 1)}"
        written = recordings.write(folder / key.replace("/", "-"), title)
        pages[key] = [str(page) for page in written]
    count = sum(len(p) for p in pages.values())
    say(f"replays: {count} games written to {folder} (open the .html pages in a browser)")
    return pages


def named_players(args, as_evaluated: bool = False) -> tuple:
    """The command's game and its players by name (args.players: names, runs, checkpoints); with
    `as_evaluated`, each trained one as its run evaluates unless the command's --greedy says."""
    torch.set_num_threads(args.threads)
    for text in args.players:
        check_player(text)
    game, info = target_game(args, args.players)
    players = {}
    for text in args.players:
        name, player, meta = _load_player(text, info, args)
        trained = as_evaluated and meta is not None
        players[name] = as_run_evaluates(player, meta, args.greedy) if trained else player
    return game, info, players


def cmd_rate(args) -> int:
    game, info, players = named_players(args)
    with worker_pool(args.workers, game, info, args.imports) as workers:
        table = rating_table(info, players, args.games, args.seed, greedy=args.greedy, workers=workers)
    times = search_times(players)
    if times:
        table["seconds_per_decision"] = times
    print(json.dumps(table, indent=1))
    return 0


def cmd_exploit(args) -> int:
    from .exploit import STARTS, exploit

    check_count("--budget", args.budget)
    check_count("--games", args.games)
    check_seed("--seed", args.seed)
    torch.set_num_threads(args.threads)
    starts = tuple(args.starts.split(",")) if args.starts else STARTS
    greedy = True if args.greedy else (False if args.sample else None)
    out_dir = args.out or f"runs/exploit-{Path(str(args.agent)).name or 'agent'}-{args.budget}"
    report = exploit(
        args.agent, args.budget, out_dir, args.game, args.games, args.seed, greedy, starts, config=args.config
    )
    text = json.dumps(report, indent=1)
    if args.output:
        Path(args.output).write_text(text + "\n")
    print(text)
    return 0


def cmd_crossplay(args) -> int:
    game, info, players = named_players(args, as_evaluated=True)
    partners = None if args.partners == "none" else args.partners
    if partners is not None:
        check_player(partners)
    with worker_pool(args.workers, game, info, args.imports) as workers:
        table = crossplay(
            info, players, args.games, args.seed, info.spec.extra.get("metrics"), partners, workers=workers
        )
    print(json.dumps(table, indent=1))
    return 0


def cmd_benchmark(args) -> int:
    from .benchmark import PROTOCOL, Protocol, as_evaluated, benchmark, write_card

    torch.set_num_threads(args.threads)
    check_player(args.agent)
    game, info = target_game(args, [args.agent])
    name, agent, data = _load_player(args.agent, info, args)
    protocol = Protocol(
        version=args.protocol,
        games=args.games or PROTOCOL.games,
        search_games=args.search_games or PROTOCOL.search_games,
    )
    with worker_pool(args.workers, game, info, args.imports) as workers:
        card = benchmark(name, as_evaluated(agent, data, protocol), info, protocol, workers)
    if args.out:
        for path in write_card(card, args.out):
            say(f"wrote {path}")
    print(json.dumps(card, indent=1))
    return 0


def cmd_leaderboard(args) -> int:
    from .benchmark import leaderboard

    print(leaderboard(args.folder), end="")
    return 0


def cmd_play(args) -> int:
    check_player(args.checkpoint, PLAY_AGENTS)
    key = PLAYERS.check(args.checkpoint).key
    if key in ("random", "scripted"):  # learn the game against the baselines: one for each seat
        _, info = target_game(args, [args.checkpoint])
        return play_in_terminal(args, info, baseline_moves(key, info, args.seed))
    if key not in TRAINED:  # a search
        _, info = target_game(args, [args.checkpoint])
        _, searcher, _ = _load_player(args.checkpoint, info, args)
        return play_in_terminal(args, info, lambda game, p, mask: searcher.act(game, p))
    if key == RUN and (args.game or args.game_options):
        raise ConfigError("--game is for 'search' and 'reference': a checkpoint names its own game")
    if args.game:  # a reference agent, for the game named
        _, info = target_game(args, [args.checkpoint])
    else:
        data = ckpt.read_checkpoint(args.checkpoint)
        info = game_info(data["game"], data["game_config"])
    _, net, _ = _load_player(args.checkpoint, info, args)
    hidden = {p: torch.zeros(1, net.hidden_size) for p in range(info.num_players)}
    rng = np.random.default_rng(args.seed)

    def net_move(game, p, mask) -> int:
        with torch.no_grad():
            obs = torch.from_numpy(game.observation(p)[None])
            logits, _, h = net.step(obs, torch.from_numpy(mask[None].copy()), hidden[p], None, False)
            if h is not None:
                hidden[p] = h
            probs = torch.softmax(logits, -1)[0].numpy().astype(float)
        return int(probs.argmax()) if args.greedy else int(rng.choice(len(probs), p=probs / probs.sum()))

    return play_in_terminal(args, info, net_move)


def start_position(path: str, info):
    """The game saved in a position file (`Game.to_dict`, a replay's step), which must be of the agents'
    game and configuration and not over."""
    game = info.spec.game_class.start_from({"state": read_position(path)}, info.config)
    print(f"starting from the position in {path} (decision {game.num_decisions})")
    return game


def baseline_moves(name: str, info, seed: int | None):
    """agent_move(game, seat, mask) of random play or the scripted player (its own for each seat)."""
    rng = np.random.default_rng(seed)
    if name == "random":
        return lambda game, p, mask: int(rng.choice(np.flatnonzero(mask)))
    seats = {p: PLAYERS.resolve("scripted", info, p) for p in range(info.num_players)}
    return lambda game, p, mask: int(seats[p](game.observation(p), mask))


def play_in_terminal(args, info, agent_move) -> int:
    """You play one seat (every seat of a cooperative game with --all-seats); agent_move(game, seat,
    mask) -> action plays the others."""
    if args.seat is not None and not 0 <= args.seat < info.num_players:
        raise ConfigError(
            f"--seat must be from 0 to {info.num_players - 1} ({info.num_players} players), got {args.seat}"
        )
    rng = np.random.default_rng(args.seed)
    game = info.new_game(int(rng.integers(2**63))) if args.start is None else start_position(args.start, info)
    seat = args.seat if args.seat is not None else int(rng.integers(info.num_players))
    humans = set(range(info.num_players)) if info.cooperative and args.all_seats else {seat}
    print(f"{info.spec.title}: you play seat {seat}; {args.checkpoint} plays the others. 'q' quits.")
    while not (game.is_terminal() or game.is_truncated()):  # stop at the length limit too
        p = game.current_player()
        mask = game.legal_action_mask()
        if p in humans:
            print("\n" + game.to_string(p))
            legal = np.flatnonzero(mask)
            for a in legal:
                print(f"  {a:4d}: {game.action_to_string(int(a))}")
            while True:
                try:
                    text = input(f"seat {p}, your action: ").strip()
                except EOFError:  # Ctrl-D or a piped list of moves that ran out
                    print()
                    say("error: end of input before the game ended; the game is abandoned (type q to quit)")
                    return 2
                if text in ("q", "quit"):
                    return 0
                if text.isdigit() and int(text) < len(mask) and mask[int(text)]:
                    action = int(text)
                    break
                print("not a legal action number; choose one from the list")
        else:
            action = agent_move(game, p, mask)
            print(f"seat {p} plays: {game.action_to_string(action)}")
        game.apply_action(action)
    print("\n" + game.to_string())
    if game.is_truncated():
        print(
            f"the game was cut at the limit of {game.num_decisions} decisions (max_decisions): "
            "truncated, no result; evaluations score it as a draw"
        )
    print("returns:", {s: float(r) for s, r in enumerate(game.returns())})
    return 0


def cmd_soup(args) -> int:
    from .soup import make_soup

    record = make_soup(args.checkpoints, args.out, warn=say)
    say(f"{args.out}: the average of {len(record['members'])} runs' weights (evaluate it as any checkpoint)")
    print(json.dumps(record, indent=1), flush=True)
    return 0


def cmd_export(args) -> int:
    from .policy import export_format, export_policy, load_policy

    format = export_format(args.output, args.format)
    policy = load_policy(args.checkpoint)
    out = export_policy(policy, args.output, format)
    kind = f"GRU, hidden_size={policy.net.hidden_size}" if policy.recurrent else policy.net.kind
    if format == "export":
        how = f"torch.export.load({str(out)!r}, extra_files={{'policy.json': ''}}).module()"
    else:
        how = f"torch.jit.load({str(out)!r})"
    print(f"wrote {out}: {policy.game} ({kind}); load it with {how}")
    return 0


class Parser(argparse.ArgumentParser):
    """A usage mistake (a missing argument, `--games abc`) as one line, as every other bad input is."""

    def error(self, message: str):
        self.exit(2, f"error: {message} (see {self.prog} --help)\n")


class HelpFormatter(argparse.ArgumentDefaultsHelpFormatter):
    """Every option's help ends with its default, unless the help already says what the default is."""

    def _get_help_string(self, action):
        if "default" in (action.help or ""):
            return action.help
        return super()._get_help_string(action)


class ExampleFormatter(HelpFormatter, argparse.RawDescriptionHelpFormatter):
    """Keeps the line breaks of a description that shows code."""


def command(sub, name: str, text: str, description: str | None = None) -> argparse.ArgumentParser:
    parser = sub.add_parser(
        name,
        help=text.replace("%", "%%"),
        description=description or text,
        formatter_class=ExampleFormatter if description else HelpFormatter,
    )
    parser.add_argument(
        "--import",
        dest="imports",
        action="append",
        default=[],
        metavar="MODULE",
        help="import this Python module first (repeatable): the one way to train or load a game of your own "
        "(a config or checkpoint naming game: MODULE:SPEC), since files never make this program import "
        "code (default: none)",
    )
    parser.add_argument(
        "--verbose", action="store_true", help="on an error, also print what the library underneath said"
    )
    return parser


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(prog="python -m training", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)

    t = command(
        sub,
        "train",
        "train a policy by PPO self-play; ends with the final win rates in plain lines (stderr) and "
        "the run's summary as JSON (stdout)",
    )
    t.add_argument(
        "config",
        nargs="?",
        help="a game name (its packaged default config) or a config file (configs/<game>.yaml); "
        "default: none, then the overrides must name game=...",
    )
    t.add_argument(
        "overrides", nargs="*", help="key=value overrides, e.g. ppo.lr=1e-3 seed=3 (default: none)"
    )
    t.add_argument(
        "--resume",
        help="checkpoint or run directory to continue (default: none, a new run); key=value overrides "
        "apply on top, e.g. total_steps=... to train a finished run longer",
    )
    t.add_argument("--overwrite", action="store_true", help="replace an existing run directory")
    t.add_argument("--no-log", action="store_true", help="no TensorBoard events")
    t.set_defaults(func=cmd_train)

    e = command(
        sub,
        "evaluate",
        "win rates with 95% Wilson intervals: plain lines (stderr), then JSON (stdout)",
    )
    e.add_argument(
        "checkpoint",
        help="the agent: a run directory (its latest checkpoint), a checkpoint, a reference agent "
        "(reference:GAME-vN), random, scripted, search (ISMCTS) or search:RUN (search guided by a run's "
        "policy)",
    )
    e.add_argument(
        "--opponents",
        default="random",
        help="comma list of random, scripted, search, search:RUN, reference[:GAME-vN], CHECKPOINT",
    )
    e.add_argument("--games", type=int, default=1000, help="games per opponent (at least 1)")
    e.add_argument("--seed", type=int, default=0, help="seed of the games and of sampled actions")
    e.add_argument(
        "--greedy",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="argmax actions instead of sampling (default: each trained player as its run evaluates, its "
        "eval.greedy; sampling for a baseline agent); trained opponents too unless --opponents-greedy says",
    )
    e.add_argument(
        "--opponents-greedy",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="trained opponents take their most likely actions, or sample (--no-opponents-greedy); default: "
        "as --greedy says when given, else each as its run evaluates",
    )
    e.add_argument("--rating", action="store_true", help="add a rating table over agent and opponents")
    e.add_argument("--threads", type=int, default=1, help="torch threads")
    e.add_argument("--output", help="also write the JSON to this file (default: stdout only)")
    e.add_argument(
        "--record",
        metavar="DIR",
        help="write replays here: per opponent, the first games as pictures plus one HTML page per game "
        "to step through move by move (default: none)",
    )
    e.add_argument(
        "--record-games", type=int, default=3, metavar="K", help="games recorded per opponent with --record"
    )
    agent_options(e)
    worker_option(e)
    e.set_defaults(func=cmd_evaluate)

    r = command(sub, "rate", "Elo-scale rating table over checkpoints and baselines (JSON)")
    r.add_argument(
        "players",
        nargs="+",
        help="checkpoints, run directories, random, scripted, search, search:RUN; with --game, then "
        "key=value game options",
    )
    r.add_argument("--games", type=int, default=400, help="games per pair (at least 1)")
    r.add_argument("--seed", type=int, default=0, help="seed of the games and of sampled actions")
    r.add_argument("--greedy", action="store_true", help="argmax actions instead of sampling")
    r.add_argument("--threads", type=int, default=1, help="torch threads")
    agent_options(r)
    worker_option(r)
    r.set_defaults(func=cmd_rate)

    e = command(
        sub,
        "exploit",
        "train best responses against a frozen agent: a lower bound of how exploitable it is (JSON)",
    )
    e.add_argument(
        "agent", help="a run directory, checkpoint or reference agent, or scripted or random (with --game)"
    )
    e.add_argument("--budget", type=int, required=True, help="decisions each best response trains for")
    e.add_argument("--game", default=None, help="the game, for scripted and random")
    e.add_argument(
        "--config", default=None, help="for scripted and random: the run config best responses train with"
    )
    e.add_argument("--games", type=int, default=1000, help="games of each best response against the agent")
    e.add_argument("--seed", type=int, default=0, help="seed of the training runs and the games")
    e.add_argument("--starts", default="", help="agent,scratch (default both): where best responses start")
    e.add_argument("--greedy", action="store_true", help="the agent takes its most likely action")
    e.add_argument("--sample", action="store_true", help="the agent samples (default: as its run evaluates)")
    e.add_argument("--out", default=None, help="where the best responses' runs go (default runs/exploit-...)")
    e.add_argument("--output", default=None, help="also write the JSON report to this file")
    e.add_argument("--threads", type=int, default=1, help="torch threads")
    e.set_defaults(func=cmd_exploit)

    c = command(
        sub,
        "crossplay",
        "a cooperative game's teams mixed from different agents: self-play beside cross-play (JSON)",
    )
    c.add_argument(
        "players", nargs="+", help="run directories or checkpoints (seeds), scripted, random, search:RUN"
    )
    c.add_argument("--games", type=int, default=400, help="games per team")
    c.add_argument("--seed", type=int, default=0, help="seed of the deals (the same for every team)")
    c.add_argument(
        "--partners",
        default="scripted",
        help="each player also at one seat among these partners ('none': skip)",
    )
    c.add_argument(
        "--greedy",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="the trained players take their most likely actions (default: as each one's run evaluates)",
    )
    c.add_argument("--threads", type=int, default=1, help="torch threads")
    worker_option(c)
    agent_options(c)
    c.set_defaults(func=cmd_crossplay)

    b = command(
        sub,
        "benchmark",
        "an agent's card under the benchmark protocol (JSON; --out writes card.json and .md)",
    )
    b.add_argument(
        "agent",
        help="a run directory or checkpoint, a reference agent, scripted, random, search or search:RUN",
    )
    b.add_argument("--out", default=None, help="folder for the card (JSON and Markdown)")
    b.add_argument(
        "--games", type=int, default=None, help="games per opponent (default: the protocol's 1000)"
    )
    b.add_argument(
        "--search-games",
        type=int,
        default=None,
        help="games against each search (default: the protocol's 100)",
    )
    b.add_argument(
        "--protocol",
        type=int,
        choices=VERSIONS,
        default=VERSIONS[-1],
        help="the protocol version (default: the newest; 1 has no reference agents)",
    )
    b.add_argument("--threads", type=int, default=1, help="torch threads")
    agent_options(b)
    worker_option(b)
    b.set_defaults(func=cmd_benchmark)

    lb = command(sub, "leaderboard", "the leaderboard page (Markdown) from a folder of benchmark cards")
    lb.add_argument("folder", help="a folder of cards (benchmark --out)")
    lb.set_defaults(func=cmd_leaderboard)

    p = command(sub, "play", "play against the trained agents in the terminal")
    p.add_argument(
        "checkpoint",
        help="the agents: a run directory (its latest checkpoint), a checkpoint file, a reference agent "
        "(reference:GAME-vN), search or search:RUN, or the baselines scripted or random (with --game)",
    )
    p.add_argument("--seat", type=int, default=None, help="your seat (default: a random seat)")
    p.add_argument("--seed", type=int, default=None, help="seed of the deal (default: a fresh random one)")
    p.add_argument("--greedy", action="store_true", help="the agents take their most likely action")
    p.add_argument("--all-seats", action="store_true", help="cooperative games: you play every seat")
    p.add_argument(
        "--from",
        dest="start",
        metavar="FILE",
        default=None,
        help="start from a saved position (a JSON file from Game.to_dict or a replay's positions/ folder; "
        "a recurrent agent starts it with an empty memory) instead of a new deal",
    )
    agent_options(p, threads=False)
    p.set_defaults(func=cmd_play)

    x = command(
        sub,
        "export",
        "write a policy for torch alone (a torch.export program or TorchScript), without this package",
        description=EXPORT_HELP,
    )
    x.add_argument(
        "checkpoint", help="a run directory (its latest checkpoint), a checkpoint file or a reference agent"
    )
    x.add_argument(
        "output", help="the file to write: policy.pt2 (a torch.export program) or policy.pt (TorchScript)"
    )
    x.add_argument(
        "--format",
        choices=("export", "torchscript"),
        default=None,
        help="export: a torch.export program (torch.export.load); torchscript: torch.jit.load, deprecated "
        "by torch 2.13 (default: from the output's suffix, .pt2 a program, anything else TorchScript)",
    )
    x.set_defaults(func=cmd_export)

    s = command(
        sub,
        "soup",
        "average the weights of runs that began from one warm start into one policy (a model soup)",
        description="average the weights of runs that began from the same weights into one policy (a "
        "model soup,\nWortsman et al. 2022), written as a checkpoint that evaluate, rate, play, export and "
        "init= read.\nThe runs: one warm start, then PPO runs from it that differ in seed or option:\n\n"
        "  python -m training train configs/exposaurus.yaml seed=1 run_dir=runs/a\n"
        "  python -m training train configs/exposaurus.yaml seed=2 run_dir=runs/b \\\n"
        "      init=runs/a/checkpoints/warm_start.pt\n"
        "  python -m training soup runs/a runs/b --out runs/soup.pt",
    )
    s.add_argument(
        "checkpoints",
        nargs="+",
        help="two or more run directories (their latest checkpoint) or checkpoint files",
    )
    s.add_argument("--out", required=True, help="the checkpoint file to write")
    s.set_defaults(func=cmd_soup)
    return parser


def worker_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--workers",
        type=int,
        default=1,
        help="worker processes playing the games (each a contiguous share, from its own stream: the same "
        "--seed and --workers give the same results; 1 plays in this process)",
    )


def agent_options(parser: argparse.ArgumentParser, threads: bool = True) -> None:
    """--game (when no checkpoint names it) and the search budget."""
    parser.add_argument(
        "--game",
        help="the game, when no checkpoint among the players names it; key=value game options may follow, "
        "e.g. --game exposaurus num_players=2",
    )
    parser.add_argument(
        "--simulations",
        type=int,
        default=None,
        help="search: simulations per decision (default: the game's, GameSpec.search, about 0.5 s a decision; "
        "guided: 100)",
    )
    parser.add_argument(
        "--rollout",
        choices=("scripted", "random"),
        default=None,
        help="unguided search: who finishes the simulated games, the game's scripted players or random play "
        "(default: the game's choice, GameSpec.search)",
    )
    parser.add_argument(
        "--seconds",
        type=float,
        default=None,
        help="search: seconds per decision (default: none; with --simulations, whichever ends first)",
    )
    parser.add_argument(
        "--search-batch",
        type=int,
        default=1,
        help="guided search: simulations whose leaves one network call evaluates (default 1; 16 made a "
        "decision 1.4-3.5x cheaper on the reference agents, each walk steered from the others by a virtual loss)",
    )
    parser.add_argument(
        "--search-root",
        choices=ROOTS,
        default="puct",
        help="guided search: how it chooses among its root's actions, PUCT (default) or Gumbel MuZero's "
        "sequential halving over 16 actions sampled from the policy (a budget of --simulations only)",
    )


EXPORT_HELP = """Write the policy of a run or checkpoint for torch alone, in one of two formats; the output's
suffix picks it (.pt2 a torch.export program, anything else TorchScript), or --format.

A torch.export program (policy.pt2; TorchScript's successor, as torch 2.13 deprecates torch.jit.load):

    extra = {"policy.json": ""}                         # filled with the policy's metadata (JSON)
    net = torch.export.load("policy.pt2", extra_files=extra).module()
    meta = json.loads(extra["policy.json"])
    hidden = torch.zeros(batch, meta["hidden_size"])   # at the start of a game
    logits, hidden = net(observation, action_mask, hidden)
    action = logits.argmax(-1)                          # greedy; or sample from the logits

observation: float32 [batch, obs_dim]; action_mask: bool [batch, num_actions]; hidden: float32
[batch, hidden_size] (hidden_size 0 for networks without memory), passed back at the same seat's next
decision; logits: masked (illegal actions at -1e9). Any batch size; a single decision is a batch of 1.

TorchScript (policy.pt): net = torch.jit.load("policy.pt"), called the same way; it also takes a single
decision ([obs_dim], [num_actions]), a 0/1 number mask and hidden=None at the start of a game.

Metadata: obs_dim, num_actions, recurrent, hidden_size, game, game_config (the program's policy.json;
TorchScript's attributes, game_config a JSON string). A model file is a program: torch.export.load
unpickles parts of it, which can run code from it; load only files you trust."""


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args, unknown = parser.parse_known_args(argv)
    if args.command == "rate":  # key=value game options may sit among the players
        unknown = [p for p in args.players if "=" in p] + unknown
        args.players = [p for p in args.players if "=" not in p]
    # train: words after an option are overrides too (a broken one gets check_overrides' hint)
    loose = args.command == "train"
    if unknown and any(u.startswith("-") or ("=" not in u and not loose) for u in unknown):
        parser.error(f"unrecognized arguments: {' '.join(unknown)}")
    if args.command == "train":
        args.overrides = list(args.overrides) + unknown
    elif unknown and args.command not in ("evaluate", "rate", "play", "benchmark", "crossplay"):
        parser.error(f"unrecognized arguments: {' '.join(unknown)}")
    else:
        args.game_options = unknown
    try:
        check_numbers(args)
        import_user_modules(args.imports)
        return args.func(args)
    except (ConfigError, PositionError, ckpt.CheckpointError, FileExistsError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        if args.verbose and getattr(exc, "detail", ""):
            print(f"  (underneath: {exc.detail})", file=sys.stderr)
        return 2
    except KeyboardInterrupt as exc:  # train's Interrupted says where its last checkpoint is
        print(f"\ninterrupted: {exc}" if str(exc) else "\ninterrupted", file=sys.stderr)
        return 130


def import_user_modules(modules: list[str]) -> None:
    """The modules the user named with --import (their own games): the only code this program imports
    by a name it was given."""
    for name in modules:
        try:
            importlib.import_module(name)
        except ImportError as exc:
            raise ConfigError(f"--import {name}: cannot import it ({exc})") from None


def check_numbers(args) -> None:
    """The numeric options of every command, before anything runs: counts at least 1 (0 games would
    report a meaningless 0.0 win rate), seeds from 0, seconds above 0. (play checks --seat against
    its game's players.)"""
    for name in (
        "games",
        "threads",
        "record_games",
        "simulations",
        "search_batch",
        "workers",
        "search_games",
    ):
        if getattr(args, name, None) is not None:
            check_count(f"--{name.replace('_', '-')}", getattr(args, name))
    if getattr(args, "seed", None) is not None:
        check_seed("--seed", args.seed)
    if getattr(args, "seconds", None) is not None:
        check_number("--seconds", args.seconds, 0, low_open=True)
