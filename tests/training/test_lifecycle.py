"""The run lifecycle (training/run.py) that every backend shares: the run directory policy, config and
seeds, the evaluation and checkpoint schedule, the final save, Ctrl-C; and the generic config's
independence from the RLlib package."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch
import yaml

from training import checkpoint as ckpt
from training.config import load_config
from training.evaluate import match
from training.nets import PolicyNet
from training.run import RUN_FILES, Backend, Interrupted, Run, Seeds, prepare_run_dir, run_game
from training.trainer import Trainer

from .helpers import tiny_config

ROOT = Path(__file__).resolve().parents[2]


class Counting(Backend):
    """A backend that learns nothing: each iteration adds `step` decisions; it records what the run
    asked of it, and presses Ctrl-C in iteration `interrupt_at`."""

    name = "counting"

    def __init__(self, config, step=100, interrupt_at=0):
        self.config, self.info = config, run_game(config)
        self.step, self.interrupt_at = step, interrupt_at
        torch.manual_seed(0)
        self.net = PolicyNet(self.info.net_shape, config.net)
        self.calls: list[str] = []

    def iterate(self):
        if self.iteration + 1 == self.interrupt_at:
            raise KeyboardInterrupt
        self.iteration += 1
        self.decisions += self.step
        return {"live_win_rate/random": 0.5, "loss/policy": 0.0}

    def policy(self):
        return self.net

    def state_dict(self):
        return {"iteration": self.iteration}

    def open(self, run_dir):
        self.calls.append("open")
        self.opened_in = run_dir

    def close(self):
        self.calls.append("close")

    def finish(self):
        self.calls.append("finish")


def counting(config, interrupt_at=0, **run) -> Run:
    """A run of the Counting backend (`run`: Run's own arguments)."""
    return Run(Counting(config, interrupt_at=interrupt_at), **run)


def _config(run_dir, *overrides):
    return tiny_config(
        run_dir, "total_steps=1000", "eval.games=4", "eval.every=2", "checkpoint_every=3", *overrides
    )


def test_generic_config_does_not_import_the_rllib_package():
    code = (
        "import sys, training.config, training.run, training\n"
        "loaded = [m for m in sys.modules if m == 'ray' or m.startswith(('ray.', 'training.rllib'))]\n"
        "assert not loaded, loaded\n"
        "c = training.config.load_config(None, ['game=exposed', 'backend=rllib', 'rllib.num_env_runners=3'])\n"
        "assert c.rllib == {'num_env_runners': 3} and 'training.rllib' not in sys.modules\n"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_schedule_evaluates_at_step_0_every_k_and_at_the_end_and_checkpoints_on_schedule(tmp_path):
    run_dir = tmp_path / "run"
    run = counting(_config(run_dir, "seed=3"))
    summary = run.train()
    assert run.backend.calls == ["open", "finish", "close"]
    assert run.backend.opened_in == run_dir  # what the backend needs of its run comes as an argument
    # 10 iterations of 100 decisions: evaluations at 0, 2, 4, 6, 8 and the final one at 10
    history = json.loads((run_dir / "eval.json").read_text())
    assert [e["iteration"] for e in history] == [0, 2, 4, 6, 8, 10]
    assert [e["decisions"] for e in history] == [0, 200, 400, 600, 800, 1000]
    seeds = Seeds(3)
    assert [e["seed"] for e in history] == [seeds.evaluation(e["iteration"]) for e in history]
    assert history[0]["random"] == match(run.info, run.backend.net, "random", 4, seeds.evaluation(0))
    # checkpoints every 3 iterations, then latest and final at the end
    names = sorted(p.name for p in (run_dir / "checkpoints").iterdir())
    assert names == ["final.pt", "iter_00003.pt", "iter_00006.pt", "iter_00009.pt", "latest.pt"]
    final = ckpt.read_checkpoint(run_dir / "checkpoints" / "final.pt")
    assert (final["iteration"], final["decisions"]) == (10, 1000)
    state = ckpt.trainer_state(final)
    assert state["backend"] == "counting" and state["history"] == history and state["iteration"] == 10
    # config.yaml reads back as the run's config; the summary records the backend and the seeds
    used = load_config(run_dir / "config.yaml")
    assert used.to_dict() == run.config.to_dict()
    saved = json.loads((run_dir / "summary.json").read_text())
    assert saved == json.loads(json.dumps(summary))
    assert saved["backend"] == "counting" and saved["iterations"] == 10 and saved["decisions"] == 1000
    assert saved["seeds"] == seeds.record() and saved["final_eval"] == history[-1]
    # and what else the same seed's numbers depend on: the libraries and the CPU kind
    env = saved["environment"]
    assert (env["torch"], env["numpy"]) == (torch.__version__, np.__version__)
    assert env["cpu_capability"] == torch.backends.cpu.get_cpu_capability() and env["python"].count(".") == 2
    assert (run_dir / "curve.png").exists()


def test_ctrl_c_releases_the_backend_and_says_where_the_last_checkpoint_is(tmp_path):
    run = counting(_config(tmp_path / "run"), interrupt_at=5)
    with pytest.raises(Interrupted) as caught:
        run.train()
    assert run.backend.calls == ["open", "close"]
    message = str(caught.value)
    assert "interrupted at 400 decisions (iteration 4)" in message
    assert f"the last checkpoint is {tmp_path / 'run' / 'checkpoints' / 'latest.pt'} (iteration 3" in message
    assert "backend=counting runs cannot be resumed" in message  # no resume command it could not keep


def test_a_fresh_run_removes_only_the_run_files(tmp_path):
    run_dir = tmp_path / "run"
    counting(_config(run_dir, "total_steps=300")).train()
    (run_dir / "rllib_checkpoint").mkdir()  # what an RLlib run leaves beside the native files
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "keep.txt").write_text("a person's file")
    (run_dir / "notes.md").write_text("my notes")
    (run_dir / "data").mkdir()
    (run_dir / "data" / "games.csv").write_text("1,2,3")
    # without --overwrite a run with checkpoints is refused and nothing is touched
    before = sorted(p.relative_to(run_dir) for p in run_dir.rglob("*"))
    with pytest.raises(FileExistsError, match="pick another run_dir"):
        counting(_config(run_dir))
    assert sorted(p.relative_to(run_dir) for p in run_dir.rglob("*")) == before
    # with it: every run file goes, the person's files stay
    prepare_run_dir(run_dir, overwrite=True)
    assert sorted(p.name for p in run_dir.iterdir()) == ["data", "notes.md"]
    assert (run_dir / "data" / "games.csv").read_text() == "1,2,3"
    # a run file that is a link: the link goes, never what it points to
    (run_dir / "tb").symlink_to(mine, target_is_directory=True)
    prepare_run_dir(run_dir, overwrite=False)  # no checkpoints: nothing to lose, no --overwrite needed
    assert not (run_dir / "tb").exists() and (mine / "keep.txt").exists()
    assert set(RUN_FILES) >= {"checkpoints", "tb", "config.yaml", "eval.json", "summary.json"}


def test_a_run_interrupted_before_its_first_checkpoint_starts_again_clean(tmp_path):
    run_dir = tmp_path / "run"
    with pytest.raises(Interrupted, match="no checkpoint was written yet"):
        counting(_config(run_dir, "checkpoint_every=0"), interrupt_at=3).train()
    assert (run_dir / "eval.json").exists() and not (run_dir / "checkpoints").exists()
    assert any((run_dir / "tb").iterdir())  # the interrupted run's TensorBoard events
    again = counting(_config(run_dir, "checkpoint_every=0"))
    assert not (run_dir / "eval.json").exists() and not (run_dir / "tb").exists()
    again.train()
    assert [e["iteration"] for e in json.loads((run_dir / "eval.json").read_text())] == [0, 2, 4, 6, 8, 10]


def test_native_runs_record_the_seeds_and_config_of_the_lifecycle(tmp_path):
    trainer = Trainer(tiny_config(tmp_path / "n", "total_steps=300", "seed=5", "eval.every=1"), log=False)
    summary = trainer.train()
    assert summary["backend"] == "native" and summary["seeds"] == Seeds(5).record()
    assert all(e["seed"] == 5 * 7919 + e["iteration"] for e in trainer.history)
    saved = yaml.safe_load((tmp_path / "n" / "config.yaml").read_text())
    assert saved["backend"] == "native" and saved["seed"] == 5


def test_a_resume_cannot_switch_backends(tmp_path):
    from training.run import resume

    Trainer(tiny_config(tmp_path / "n", "total_steps=200"), log=False).train()
    with pytest.raises(ckpt.CheckpointError, match="backend=counting cannot resume"):
        counting(tiny_config(tmp_path / "other"), resume_from=ckpt.read_checkpoint(tmp_path / "n"))
    resumed = resume(tmp_path / "n", {"total_steps": 400}, log=False)
    assert isinstance(resumed, Trainer) and resumed.iteration == 2
