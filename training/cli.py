"""`python -m training train | evaluate | rate | play | export` - see each command's --help."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np
import torch

from envs.core.errors import ConfigError
from envs.core.replay import Recordings

from . import checkpoint as ckpt
from .config import load_config
from .evaluate import match, rating_table
from .games import evaluation_info, game_info
from .runlog import result_lines

# the default configs: inside the installed package (configs/ is packaged as training/configs), or
# the configs/ folder of a source checkout
CONFIG_DIRS = (
    Path(__file__).resolve().parent / "configs",
    Path(__file__).resolve().parent.parent / "configs",
)


def default_config(game: str) -> Path:
    """The default training config of a game ("exposed" -> configs/exposed.yaml), from any folder."""
    for folder in CONFIG_DIRS:
        path = folder / f"{game}.yaml"
        if path.is_file():
            return path
    known = sorted({p.stem for folder in CONFIG_DIRS if folder.is_dir() for p in folder.glob("*.yaml")})
    raise ConfigError(f"no config file {game!r} and no default config for a game {game!r}; defaults: {known}")


def config_file(text: str) -> Path:
    """A config file path as given, else the default config of the game named `text`."""
    path = Path(text)
    if path.is_file():
        return path
    if path.is_dir():
        raise ConfigError(
            f"config file {text!r} is a directory, not a YAML file (to continue a run: --resume {text})"
        )
    if path.suffix in (".yaml", ".yml") or len(path.parts) > 1:
        raise ConfigError(f"config file {text!r} does not exist")
    return default_config(text)


def _load_player(text: str, info=None, game: str | None = None):
    """'random', 'scripted', or a checkpoint / run directory -> (name, player, checkpoint data)."""
    if text in ("random", "scripted"):
        return text, text, None
    data = ckpt.read_checkpoint(text)
    if info is not None:
        ckpt.check_compatible(data, info, game, "the evaluated agent's game")
    net = ckpt.build_net(data)
    net.eval()
    name = Path(data["path"]).stem
    if name in ("latest", "final"):
        name = f"{Path(data['path']).parent.parent.name}/{name}"
    return name, net, data


def cmd_train(args) -> int:
    overrides = list(args.overrides)
    config_path = args.config
    if config_path is not None and "=" in config_path:
        overrides.insert(0, config_path)
        config_path = None
    from .trainer import Trainer, resume

    if args.resume:
        extra = dict(o.split("=", 1) for o in overrides)
        trainer = resume(args.resume, extra, log=not args.no_log)
    else:
        if config_path is None and not any(o.startswith("game=") for o in overrides):
            raise ConfigError("give a game name, a config file (configs/<game>.yaml) or --resume RUN_DIR")
        config = load_config(config_file(config_path) if config_path else None, overrides)
        if config.backend == "rllib":
            try:
                from .rllib import train as rllib_train
            except ImportError as exc:
                raise ConfigError(str(exc)) from None
            summary = rllib_train(config, overwrite=args.overwrite, log=not args.no_log)
            info = game_info(config.game, config.game_config)
            report(summary, summary["final_eval"], info, config.eval.games)
            return 0
        trainer = Trainer(config, overwrite=args.overwrite, log=not args.no_log)
    summary = trainer.train()
    if summary.get("already_finished"):
        total = trainer.config.total_steps
        say(
            f"run {trainer.run_dir} already finished ({summary['decisions']} decisions, total_steps={total}): "
            f"nothing to do; to train longer: --resume {trainer.run_dir} total_steps={2 * total}"
        )
    report(summary, summary["final_eval"], trainer.info, trainer.config.eval.games)
    return 0


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


def cmd_evaluate(args) -> int:
    torch.set_num_threads(args.threads)
    data = ckpt.read_checkpoint(args.checkpoint)
    game = data["game"]
    info = scored_info(data)
    name, agent, _ = _load_player(args.checkpoint, info, game)
    opponents = [o for o in args.opponents.split(",") if o]
    players = {name: agent}
    out = {
        "agent": name,
        "game": game,
        "game_config": info.game_config,
        "games": args.games,
        "seed": args.seed,
        "greedy": args.greedy,
        "seats_rotated": True,
        "results": {},
    }
    metrics = info.spec.extra.get("metrics")
    recorded = {}  # result key -> the games recorded for it (--record)

    def record(key, names):
        if not args.record:
            return None
        recorded[key] = Recordings(args.record_games, names)
        return recorded[key].start

    def team(player, pname):  # a cooperative game: the player in every seat
        hook = record(f"team_{pname}", {"A": pname})
        return match(
            info,
            player,
            player,
            args.games,
            args.seed,
            greedy=args.greedy,
            metrics=metrics,
            on_game_start=hook,
        )

    for text in opponents:
        oname, opponent, _ = _load_player(text, info, game)
        players[oname] = opponent
        if info.cooperative:
            if f"team_{name}" not in out["results"]:
                out["results"][f"team_{name}"] = team(agent, name)
            out["results"][f"team_{oname}"] = team(opponent, oname)
        else:
            hook = record(f"vs_{oname}", {"A": name, "B": oname})
            out["results"][f"vs_{oname}"] = match(
                info, agent, opponent, args.games, args.seed, greedy=args.greedy, on_game_start=hook
            )
    if recorded:
        out["replays"] = write_replays(recorded, Path(args.record), info)
    if args.rating and len(players) > 1:
        out["rating"] = rating_table(info, players, args.games, args.seed, greedy=args.greedy)
    for line in result_lines(out["results"], info, args.games, name):
        say(line)
    print(json.dumps(out, indent=1), flush=True)
    if args.output:
        Path(args.output).write_text(json.dumps(out, indent=1))
    return 0


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


def cmd_rate(args) -> int:
    torch.set_num_threads(args.threads)
    first = next((p for p in args.players if p not in ("random", "scripted")), None)
    if first is None:
        raise ConfigError("rate needs at least one checkpoint among the players")
    data = ckpt.read_checkpoint(first)
    info = scored_info(data)
    players = {}
    for text in args.players:
        name, player, _ = _load_player(text, info, data["game"])
        players[name] = player
    table = rating_table(info, players, args.games, args.seed, greedy=args.greedy)
    print(json.dumps(table, indent=1))
    return 0


def cmd_play(args) -> int:
    data = ckpt.read_checkpoint(args.checkpoint)
    info = game_info(data["game"], data["game_config"])
    net = ckpt.build_net(data)
    net.eval()
    rng = np.random.default_rng(args.seed)
    game = info.new_game(int(rng.integers(2**63)))
    seat = args.seat if args.seat is not None else int(rng.integers(info.num_players))
    humans = set(range(info.num_players)) if info.cooperative and args.all_seats else {seat}
    hidden = {p: torch.zeros(1, net.hidden_size) for p in range(info.num_players)}
    print(f"{info.spec.title}: you play seat {seat}; the trained agent plays the others. 'q' quits.")
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
            with torch.no_grad():
                obs = torch.from_numpy(game.observation(p)[None])
                logits, _, h = net.step(obs, torch.from_numpy(mask[None].copy()), hidden[p], None, False)
                if h is not None:
                    hidden[p] = h
                probs = torch.softmax(logits, -1)[0].numpy().astype(float)
            action = (
                int(probs.argmax()) if args.greedy else int(rng.choice(len(probs), p=probs / probs.sum()))
            )
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


def cmd_export(args) -> int:
    from .policy import export_policy, load_policy

    policy = load_policy(args.checkpoint)
    out = export_policy(policy, args.output)
    kind = f"GRU, hidden_size={policy.net.hidden_size}" if policy.recurrent else "MLP"
    print(f"wrote {out}: {policy.game} ({kind}); load it with torch.jit.load({str(out)!r})")
    return 0


class HelpFormatter(argparse.ArgumentDefaultsHelpFormatter):
    """Every option's help ends with its default, unless the help already says what the default is."""

    def _get_help_string(self, action):
        if "default" in (action.help or ""):
            return action.help
        return super()._get_help_string(action)


class ExampleFormatter(HelpFormatter, argparse.RawDescriptionHelpFormatter):
    """Keeps the line breaks of a description that shows code."""


def command(sub, name: str, text: str, description: str | None = None) -> argparse.ArgumentParser:
    return sub.add_parser(
        name,
        help=text.replace("%", "%%"),
        description=description or text,
        formatter_class=ExampleFormatter if description else HelpFormatter,
    )


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m training", description=__doc__)
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
    e.add_argument("checkpoint", help="the agent: a run directory (its latest checkpoint) or a checkpoint")
    e.add_argument("--opponents", default="random", help="comma list of random, scripted, CHECKPOINT")
    e.add_argument("--games", type=int, default=1000, help="games per opponent (at least 1)")
    e.add_argument("--seed", type=int, default=0, help="seed of the games and of sampled actions")
    e.add_argument("--greedy", action="store_true", help="argmax actions instead of sampling")
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
    e.set_defaults(func=cmd_evaluate)

    r = command(sub, "rate", "Elo-scale rating table over checkpoints and baselines (JSON)")
    r.add_argument("players", nargs="+", help="checkpoints, run directories, random, scripted")
    r.add_argument("--games", type=int, default=400, help="games per pair (at least 1)")
    r.add_argument("--seed", type=int, default=0, help="seed of the games and of sampled actions")
    r.add_argument("--greedy", action="store_true", help="argmax actions instead of sampling")
    r.add_argument("--threads", type=int, default=1, help="torch threads")
    r.set_defaults(func=cmd_rate)

    p = command(sub, "play", "play against the trained agents in the terminal")
    p.add_argument("checkpoint", help="a run directory (its latest checkpoint) or a checkpoint file")
    p.add_argument("--seat", type=int, default=None, help="your seat (default: a random seat)")
    p.add_argument("--seed", type=int, default=None, help="seed of the deal (default: a fresh random one)")
    p.add_argument("--greedy", action="store_true", help="the agents take their most likely action")
    p.add_argument("--all-seats", action="store_true", help="cooperative games: you play every seat")
    p.set_defaults(func=cmd_play)

    x = command(
        sub,
        "export",
        "write a policy as TorchScript, for torch.jit.load without this package",
        description=EXPORT_HELP,
    )
    x.add_argument("checkpoint", help="a run directory (its latest checkpoint) or a checkpoint file")
    x.add_argument("output", help="the TorchScript file to write, e.g. policy.pt")
    x.set_defaults(func=cmd_export)
    return parser


EXPORT_HELP = """Write the policy of a run or checkpoint as a TorchScript module; load it with torch alone:

    net = torch.jit.load("policy.pt")
    logits, hidden = net(observation, action_mask, hidden)   # hidden: None at the start of a game
    action = int(logits.argmax(-1))                          # greedy; or sample from the logits

observation: float [obs_dim] or [batch, obs_dim]; action_mask: bool or 0/1, [num_actions] or
[batch, num_actions]; logits: masked (illegal actions at -1e9); hidden: the recurrent state to pass
back at the same seat's next decision (GRU networks; an empty tensor for MLPs). Attributes: obs_dim,
num_actions, recurrent, hidden_size, game, game_config (JSON)."""


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args, unknown = parser.parse_known_args(argv)
    if unknown:
        if args.command != "train" or any("=" not in u or u.startswith("-") for u in unknown):
            parser.error(f"unrecognized arguments: {' '.join(unknown)}")
        args.overrides = list(args.overrides) + unknown
    try:
        check_counts(args)
        return args.func(args)
    except (ConfigError, ckpt.CheckpointError, FileExistsError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt as exc:  # train's Interrupted says where its last checkpoint is
        print(f"\ninterrupted: {exc}" if str(exc) else "\ninterrupted", file=sys.stderr)
        return 130


def check_counts(args) -> None:
    """Numbers of games and threads must be positive: 0 games would report a meaningless 0.0 win rate."""
    for name in ("games", "threads"):
        value = getattr(args, name, None)
        if value is not None and value < 1:
            raise ConfigError(f"--{name} must be at least 1, got {value}")
