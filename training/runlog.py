"""What both trainers (native and RLlib) show a person: TensorBoard writers, evaluation scalars, the
evaluation history with its learning curve, the progress bar."""

from __future__ import annotations

import json
import platform
import warnings
from pathlib import Path

import numpy as np
import torch


def open_writer(run_dir: Path, log: bool, purge_step: int | None = None):
    """A TensorBoard SummaryWriter on run_dir/tb, or None when logging is off or TensorBoard is missing."""
    if not log:
        return None
    try:
        from torch.utils.tensorboard import SummaryWriter
    except Exception as exc:  # tensorboard missing: train anyway
        warnings.warn(f"TensorBoard logging off: {exc}", stacklevel=3)
        return None
    return SummaryWriter(str(run_dir / "tb"), purge_step=purge_step)


def environment() -> dict:
    """What a run's numbers depend on beside its config and seed, for summary.json: the same seed gives
    the same run bit for bit on the same machine and library versions, but torch's kernels may round
    floats differently on another CPU kind or version, and a long run magnifies that (Exposaurus seed 0:
    0.647 on one machine, 0.55 on another, the same code; docs/strength.md)."""
    return {
        "python": platform.python_version(),
        "torch": torch.__version__,
        "numpy": np.__version__,
        "cpu_capability": torch.backends.cpu.get_cpu_capability(),
        "machine": platform.machine(),
        "system": platform.system(),
    }


def log_eval(writer, entry: dict) -> None:
    """One evaluation's win rates and mean returns, per opponent, at its decision count."""
    if writer is None:
        return
    for name, result in entry.items():
        if isinstance(result, dict):
            writer.add_scalar(f"eval/{name}_win_rate", result["win_rate"], entry["decisions"])
            writer.add_scalar(f"eval/{name}_mean_return", result["mean_return"], entry["decisions"])


def write_history(run_dir: Path, history: list[dict], game: str, curve: bool = True) -> None:
    """eval.json (every evaluation) and, when `curve`, curve.png; a failed plot only warns."""
    (run_dir / "eval.json").write_text(json.dumps(history, indent=1))
    if not curve:
        return
    try:
        from .plot import plot_curve

        plot_curve(history, run_dir / "curve.png", game)
    except Exception as exc:  # plotting must never stop a run
        warnings.warn(f"could not draw the learning curve: {exc}", stacklevel=3)


def progress_bar(show: bool, total: int, initial: int, desc: str):
    """A bar counting learner decisions up to `total` (total_steps), or None.

    A run ends on a whole iteration, so it may overshoot total_steps; the bar stops at its total
    (tqdm would drop the total and the bar) and, once there, says that the final evaluation runs:
    both trainers evaluate right after their last iteration."""
    if not show:
        return None
    from tqdm import tqdm

    class DecisionBar(tqdm):
        def update(self, n=1):
            n = max(0, min(n, self.total - self.n))
            shown = super().update(n)
            if self.n >= self.total and not self.desc.endswith(FINAL):
                self.set_description_str(self.desc.removesuffix(": ") + FINAL)
            return shown

    return DecisionBar(total=total, initial=min(initial, total), unit="dec", dynamic_ncols=True, desc=desc)


FINAL = " done, final evaluation running"


def warm_start_bar(show: bool, total: int, what: str, unit: str):
    """A bar over one stage of the warm start (recording the scripted games, then cloning them), or
    None: a large warm start takes minutes before the first PPO iteration."""
    if not show:
        return None
    from tqdm import tqdm

    return tqdm(total=total, unit=unit, dynamic_ncols=True, desc=f"warm start: {what}")


def result_lines(results: dict, info, games: int, agent: str = "the agent") -> list[str]:
    """What a person reads at a glance: one line of win rates with 95% intervals, one line saying what
    they measure (seats, teams, chance level), and for team games the rate of each team.

    results: label -> a `match` result, labels as the reports key them: an opponent's name
    ("random", or "vs_random"), "self"/"team_<name>" (a cooperative team) or "scripted_team"."""
    pairs = [(_label(key, agent), r) for key, r in results.items() if isinstance(r, dict) and "win_rate" in r]
    if not pairs:
        return []
    lines = [" · ".join(f"{label} {_rate(r)}" for label, r in pairs)]
    lines.append(_meaning(info, games, agent))
    by_team = [(label, r["by_team"]) for label, r in pairs if len(r.get("by_team", {})) > 1]
    if by_team and info.num_teams < info.num_players:  # real teams (not one seat each)
        names = info.spec.extra.get("team_names") or {}
        parts = [
            f"{label}: " + ", ".join(f"{_team_name(t, names)} {v['win_rate']:.2f}" for t, v in teams.items())
            for label, teams in by_team
        ]
        lines.append("by team: " + " · ".join(parts))
    truncated = sum(r.get("truncated", 0) for _, r in pairs)
    if truncated:
        lines.append(f"{truncated} games were cut at the length limit (max_decisions) and count as draws")
    return lines


def _label(key: str, agent: str) -> str:
    if key in ("self", f"team_{agent}"):
        return f"team of {agent}"
    if key == "scripted_team":
        return "team of scripted"
    if key.startswith("team_"):
        return f"team of {key[5:]}"
    return "vs " + key.removeprefix("vs_")


def _rate(r: dict) -> str:
    lo, hi = r["ci95"]
    return f"{r['win_rate']:.2f} [{lo:.2f}, {hi:.2f}]"


def _team_name(team: str, names) -> str:
    try:
        return str(names[int(team)])
    except (IndexError, KeyError, TypeError, ValueError):
        return f"team {team}"


def _meaning(info, games: int, agent: str) -> str:
    n, k = info.num_players, info.num_teams
    head = f"(win rate of {agent} with a 95% interval, {games} games each"
    if info.cooperative:
        return (
            f"(cooperative game: one policy plays all {n} seats and the team wins when its return is "
            f"positive; share of {games} games won, 95% interval)"
        )
    if k == n:
        if n == 2:
            return f"{head}; it plays one seat and the opponent the other, seats alternating; a draw counts half)"
        return (
            f"{head}; it plays one seat against {n - 1} copies of the opponent, seats rotating, so equal "
            f"play wins 1/{n} = {1 / n:.2f}; a shared first place counts as a part of a win)"
        )
    others = f"the opponent the other team{'s' if k > 2 else ''}, teams alternating"
    if info.secret_teams:  # asymmetric sides: no chance level to quote
        return f"{head}; {n} players in {k} sides dealt in secret: {agent} plays every seat of one side, {others})"
    return f"{head}; {n} players in {k} fixed teams: {agent} plays every seat of one team, {others}, so equal play wins 1/{k} = {1 / k:.2f})"
