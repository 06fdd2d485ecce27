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
    ax.set_xlabel("learner decisions")
    ax.set_ylabel("win rate (95% Wilson interval)")
    ax.set_ylim(0, 1)
    ax.grid(alpha=0.3)
    ax.set_title(f"{title} learning curve")
    ax.legend(loc="lower right")
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
