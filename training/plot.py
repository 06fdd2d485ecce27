"""The PNG learning curve of a run: evaluation win rates (95% Wilson bands) against learner decisions."""

from __future__ import annotations

from pathlib import Path


def plot_curve(history: list[dict], path: str | Path, title: str = "") -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    if not history:
        return
    names = [k for k, v in history[-1].items() if isinstance(v, dict)]
    fig, ax = plt.subplots(figsize=(7, 4), dpi=100)
    for name in names:
        xs, ys, lo, hi = [], [], [], []
        for entry in history:
            r = entry.get(name)
            if isinstance(r, dict):
                xs.append(entry["decisions"])
                ys.append(r["win_rate"])
                lo.append(r["ci95"][0])
                hi.append(r["ci95"][1])
        label = "team win rate (self-play team)" if name == "self" else f"vs {name}"
        if name == "scripted_team":
            label = "scripted team win rate"
        ax.plot(xs, ys, marker="o", label=label)
        ax.fill_between(xs, lo, hi, alpha=0.2)
    _decisions_axis(ax)
    ax.set_ylabel("win rate (95% Wilson interval)")
    ax.set_ylim(0, 1)
    ax.grid(alpha=0.3)
    ax.set_title(f"{title} learning curve")
    ax.legend(loc="lower right")
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


METRICS = {"win_rate": "win rate", "mean_return": "mean return"}
# a cooperative game's evaluation plays teams, not opponents
PANELS = {"self": "the trained team", "scripted_team": "the scripted team (reference)"}


def _decisions_axis(ax) -> None:
    """x: learner decisions, ticks as 250k / 1M so that long runs' labels do not run together."""
    from matplotlib.ticker import FuncFormatter

    def short(x, _):
        return f"{x / 1e6:g}M" if abs(x) >= 1e6 else f"{x / 1e3:g}k" if x else "0"

    ax.xaxis.set_major_formatter(FuncFormatter(short))
    ax.set_xlabel("learner decisions")


def plot_seeds(
    histories: dict[str, list[dict]],
    path: str | Path,
    title: str = "",
    metric: str = "win_rate",
    team_names: dict[str, str] | None = None,
) -> None:
    """The learning curves of several runs of one config (e.g. three seeds): one panel per evaluation
    opponent, one line per run, so the spread between seeds shows at a glance. `metric`: the win rate,
    or the mean return (e.g. Harmony - Agony where a cooperative team rarely wins). `team_names`
    (team id -> name, e.g. Artifacts' sides) adds a row of panels per team: each side's own win rate
    from the evaluations' `by_team` results (half of each evaluation's games with two sides)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    opponents = sorted(
        {k for h in histories.values() for e in h for k, v in e.items() if isinstance(v, dict)}
    )
    if not opponents:
        return
    rows = [None, *(team_names or {})]
    fig, axes = plt.subplots(
        len(rows), len(opponents), figsize=(5 * len(opponents), 3.6 * len(rows)), dpi=100, squeeze=False
    )
    for row, team in zip(axes, rows):
        for ax, name in zip(row, opponents):
            for label, history in histories.items():
                points = [(e["decisions"], r[metric]) for e in history if (r := _result(e, name, team))]
                if points:
                    xs, ys = zip(*points)
                    ax.plot(xs, ys, marker=".", label=label)
            panel = PANELS.get(name, f"vs {name}")
            ax.set_title(panel if team is None else f"{team_names[team]} {panel}")
            _decisions_axis(ax)
            if metric == "win_rate":
                ax.set_ylim(0, 1)
            ax.grid(alpha=0.3)
        row[0].set_ylabel(METRICS[metric])
    axes[0][-1].legend(loc="lower right")
    fig.suptitle(f"{title} learning curves")
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def _result(entry: dict, opponent: str, team: str | None) -> dict | None:
    """One evaluation's result against `opponent`: the whole, or one team's part of it."""
    result = entry.get(opponent)
    if not isinstance(result, dict):
        return None
    return result if team is None else result.get("by_team", {}).get(team)


def _team_names(run: Path) -> dict[str, str]:
    """Team id -> name for a run's game (its config.yaml), as its evaluations' `by_team` keys them."""
    import yaml

    from .games import team_names

    return team_names(yaml.safe_load((run / "config.yaml").read_text())["game"])


def main(argv: list[str] | None = None) -> None:
    """python -m training.plot RUN [RUN ...] --output PNG: the runs' curves (their eval.json) side by side."""
    import argparse
    import json

    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("runs", nargs="+", help="run directories (each with an eval.json)")
    parser.add_argument("--output", required=True, help="the PNG to write")
    parser.add_argument("--title", default="")
    parser.add_argument("--metric", choices=sorted(METRICS), default="win_rate", help="what the curves show")
    parser.add_argument(
        "--by-team",
        action="store_true",
        help="also a row per team: each side's win rate (games with sides, e.g. Artifacts)",
    )
    args = parser.parse_args(argv)
    if args.by_team and args.metric != "win_rate":
        parser.error("--by-team draws win rates only (the evaluations record each team's win rate)")
    histories = {}
    for run in args.runs:
        path = Path(run) / "eval.json"
        if not path.is_file():
            parser.error(f"{run}: no eval.json (is it a run directory?)")
        histories[Path(run).name] = json.loads(path.read_text())
    names = None
    if args.by_team:
        first = Path(args.runs[0])
        names = _team_names(first) if (first / "config.yaml").is_file() else {}
        if len(names) < 2:
            parser.error(f"{first}: --by-team needs a game with named teams (its config.yaml names the game)")
    plot_seeds(histories, args.output, args.title, args.metric, names)
    print(f"wrote {args.output}")


if __name__ == "__main__":
    main()
