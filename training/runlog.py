"""What both trainers (native and RLlib) show a person: TensorBoard writers, evaluation scalars, the
evaluation history with its learning curve, the progress bar."""

from __future__ import annotations

import json
import warnings
from pathlib import Path


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
    """A tqdm bar counting learner decisions, or None."""
    if not show:
        return None
    from tqdm import tqdm

    return tqdm(total=total, initial=initial, unit="dec", dynamic_ncols=True, desc=desc)
