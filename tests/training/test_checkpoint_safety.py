"""A checkpoint is data, never code: crafted files are refused by every command that reads one, no code in
them runs, no module they name is imported, and a run killed mid-write recovers."""

from __future__ import annotations

import io
import os
import pickle
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
import torch

from training import checkpoint as ckpt
from training.cli import main
from training.policy import load_policy
from training.trainer import Trainer, resume

from .helpers import TOY, tiny_config

ROOT = Path(__file__).resolve().parents[2]
MARKER_ENV = "TABLETOP_TEST_MARKER"


class Payload:
    """Unpickling this runs code: it writes the marker file (the attack the checkpoint format must stop)."""

    def __init__(self, marker: Path):
        self.marker = str(marker)

    def __reduce__(self):
        return (Path(self.marker).write_text, ("code from a checkpoint ran",))


@pytest.fixture(scope="module")
def good(tmp_path_factory) -> Path:
    run_dir = tmp_path_factory.mktemp("safety") / "run"
    Trainer(tiny_config(run_dir, "total_steps=200"), log=False).train()
    return run_dir / "checkpoints" / "latest.pt"


def _with_checksums(data: dict) -> dict:
    """A forger rewrites the checksums too: they find damage, not forgery."""
    data["checksums"] = {
        "model": ckpt.tensors_sha256(data["model"]),
        "trainer": ckpt.blob_sha256(data["trainer"]),
    }
    return data


def crafted_files(good: Path, folder: Path, marker: Path) -> dict[str, Path]:
    """Every way to hide the payload in a checkpoint-shaped file."""
    data = torch.load(good, weights_only=True)
    files = {}

    def write(name, content):
        path = folder / name / "checkpoints" / "latest.pt"  # a run directory, as a user is handed one
        path.parent.mkdir(parents=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            torch.save(content, path)
        files[name] = path

    # the payload beside the policy, in the checkpoint itself
    write("object_in_checkpoint", _with_checksums({**data, "extra": Payload(marker)}))
    # the payload as the trainer state, pickled as version 1 checkpoints stored it
    write(
        "version1_pickle", _with_checksums({**data, "version": 1, "trainer": pickle.dumps(Payload(marker))})
    )
    # the payload inside a version 2 trainer blob
    blob = io.BytesIO()
    torch.save({"backend": "native", "evil": Payload(marker)}, blob)
    write("object_in_trainer_state", _with_checksums({**data, "trainer": blob.getvalue()}))
    # a plain pickle named latest.pt
    write("plain_pickle", pickle.dumps({"format": ckpt.FORMAT, "evil": Payload(marker)}))
    return files


def commands(path: Path, tmp: Path) -> dict[str, list[str]]:
    return {
        "resume": ["train", "--resume", str(path), f"run_dir={tmp / 'resumed'}"],
        "evaluate": ["evaluate", str(path), "--games", "2"],
        "rate": ["rate", str(path), "random", "--games", "2"],
        "play": ["play", str(path), "--seat", "0", "--seed", "0"],
        "export": ["export", str(path), str(tmp / "exported.pt")],
    }


def test_crafted_checkpoints_are_refused_and_run_no_code(good, tmp_path, capsys, monkeypatch):
    marker = tmp_path / "marker"
    monkeypatch.setattr("builtins.input", lambda prompt="": "q")
    for name, path in crafted_files(good, tmp_path, marker).items():
        resumable_only = name in ("version1_pickle", "object_in_trainer_state")  # the policy itself is intact
        for command, argv in commands(path, tmp_path / name).items():
            code = main(argv)
            err = capsys.readouterr().err
            assert not marker.exists(), f"{name}: {command} ran code from the file"
            if resumable_only and command != "resume":
                assert code == 0, f"{name}: {command} should load the intact policy: {err}"
                continue
            assert code == 2, f"{name}: {command} accepted it"
            assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
            assert str(path) in err, err
            if name == "version1_pickle":
                assert "older version" in err and "could run code" in err, err
            elif name == "plain_pickle":
                assert "is not a checkpoint" in err, err
            else:
                assert "Python objects beyond plain data" in err and "nothing in it was run" in err, err
        if resumable_only:
            load_policy(path)  # the policy part is data: it loads
        else:
            with pytest.raises(ckpt.CheckpointError):
                load_policy(path)
        assert not marker.exists()


def test_verbose_shows_what_torch_said(good, tmp_path, capsys):
    marker = tmp_path / "marker"
    path = crafted_files(good, tmp_path, marker)["object_in_checkpoint"]
    assert main(["evaluate", str(path), "--games", "2", "--verbose"]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 2 and err[0].startswith("error: ") and "underneath:" in err[1]
    assert "Unsupported global" in err[1], err[1]  # torch names the global it refused
    assert not marker.exists()


def test_text_and_empty_files_say_what_is_wrong(tmp_path, capsys):
    text = tmp_path / "notes.pt"
    text.write_text("epoch 3: loss 0.2\n")
    empty = tmp_path / "empty.pt"
    empty.write_bytes(b"")
    assert main(["evaluate", str(text)]) == 2
    assert "is not a checkpoint" in capsys.readouterr().err
    assert main(["evaluate", str(empty)]) == 2
    assert "is empty (0 bytes)" in capsys.readouterr().err


def test_the_trainer_state_is_plain_data_both_ways():
    state = {
        "rng": np.random.default_rng(5).bit_generator.state,  # integers past 64 bits
        "arrays": [np.arange(6, dtype=np.int64).reshape(2, 3), np.ones(3, bool), np.float32(0.5)],
        ("snapshot", 3): (1, "a", None, 2.5),
        "hidden": {"learner": np.zeros((2, 2, 4), np.float32)},
    }
    back = torch.load(io.BytesIO(ckpt.trainer_blob(state)), weights_only=True)
    back = ckpt.unplain(back)
    assert back["rng"] == state["rng"] and back[("snapshot", 3)] == (1, "a", None, 2.5)
    for a, b in zip(back["arrays"][:2], state["arrays"][:2]):
        assert isinstance(a, np.ndarray) and a.dtype == b.dtype and np.array_equal(a, b)
    assert back["arrays"][2] == 0.5 and back["hidden"]["learner"].shape == (2, 2, 4)
    with pytest.raises(TypeError, match=r"trainer state\['hook'\]: a function is not plain data"):
        ckpt.trainer_blob({"hook": lambda: 0})
    with pytest.raises(TypeError, match=r"trainer state\['games'\]\[0\]: a Game is not plain data"):
        ckpt.trainer_blob({"games": [type("Game", (), {})()]})


# ----- a checkpoint names a game; it never makes the program import one ---------------------------------
HELPER = """
from pathlib import Path
import os
Path(os.environ["{marker}"]).write_text("imported")
from tests.training.toy_game import SPEC
"""


def _cli(args: list[str], cwd: Path, marker: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT), OMP_NUM_THREADS="1", **{MARKER_ENV: str(marker)})
    return subprocess.run(
        [sys.executable, "-m", "training", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        input="q\n",
        timeout=300,
    )


def test_a_checkpoint_naming_a_module_beside_it_does_not_import_it(good, tmp_path):
    """`python -m` puts the current folder on the path: a checkpoint naming helper:SPEC, with a
    helper.py beside it, must not import helper (and so run its code)."""
    folder = tmp_path / "handed"
    marker = tmp_path / "marker"
    (folder / "run" / "checkpoints").mkdir(parents=True)
    (folder / "helper.py").write_text(HELPER.format(marker=MARKER_ENV))
    data = torch.load(good, weights_only=True)
    data["game"] = "helper:SPEC"
    data["train_config"] = {**data["train_config"], "game": "helper:SPEC"}
    path = folder / "run" / "checkpoints" / "latest.pt"
    torch.save(data, path)
    for command, argv in commands(Path("run"), folder).items():
        if command == "export":
            continue  # export reads no game: it writes the weights with the game's name as a label
        out = _cli(argv, folder, marker)
        assert not marker.exists(), f"{command} imported the module the checkpoint names"
        assert out.returncode == 2, (command, out.stderr)
        assert "never makes this program import code" in out.stderr and "--import helper" in out.stderr
        assert "Traceback" not in out.stderr
    # named by the user on the command line, the module is theirs to run
    out = _cli(["evaluate", "run", "--games", "2", "--import", "helper"], folder, marker)
    assert out.returncode == 0, out.stderr
    assert marker.exists()


def test_a_config_file_naming_a_module_needs_import_on_the_command_line(tmp_path):
    marker = tmp_path / "marker"
    (tmp_path / "helper.py").write_text(HELPER.format(marker=MARKER_ENV))
    (tmp_path / "mine.yaml").write_text("game: helper:SPEC\ntotal_steps: 64\nppo:\n  num_envs: 4\n")
    out = _cli(["train", "mine.yaml", "--no-log"], tmp_path, marker)
    assert out.returncode == 2 and not marker.exists()
    assert "--import helper" in out.stderr
    # typed on the command line, it is the user's choice
    typed = [f"game={TOY}", "run_dir=typed", "total_steps=64", "ppo.num_envs=4", "eval.games=4", "--no-log"]
    out = _cli(["train", *typed], tmp_path, marker)
    assert out.returncode == 0, out.stderr


# ----- a kill mid-write ------------------------------------------------------------------------------
WRITER = """
import sys
from training import checkpoint as ckpt
from training.trainer import Trainer
from tests.training.helpers import tiny_config

trainer = Trainer(tiny_config(sys.argv[1], "total_steps=100000000", "net.hidden=[256, 256]"), log=False)
print("ready", flush=True)
while True:
    trainer.save("latest.pt")
"""


def test_sigkill_at_random_moments_of_a_checkpoint_write(tmp_path):
    """Kill a process that writes checkpoints over and over, at random moments inside a write: latest.pt
    is whole or absent, never damaged; leftovers (*.pt.tmp) are not checkpoints, a fresh run and a
    resume agree on that, and both clean them up."""
    random.seed(0)
    env = dict(os.environ, PYTHONPATH=str(ROOT), OMP_NUM_THREADS="1")
    seen = {"tmp left": 0, "latest whole": 0}
    for trial in range(4):
        run_dir = tmp_path / f"run{trial}"
        proc = subprocess.Popen(
            [sys.executable, "-c", WRITER, str(run_dir)], env=env, cwd=ROOT, stdout=subprocess.PIPE, text=True
        )
        assert proc.stdout.readline().strip() == "ready"
        tmp = run_dir / "checkpoints" / "latest.pt.tmp"
        deadline = time.monotonic() + 60
        while not tmp.exists():  # a write has begun
            assert time.monotonic() < deadline and proc.poll() is None
            time.sleep(0.0005)
        time.sleep(random.uniform(0.0, 0.03) if trial else 0.0)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        latest = run_dir / "checkpoints" / "latest.pt"
        seen["tmp left"] += tmp.exists()
        if latest.exists():
            ckpt.read_checkpoint(latest)  # whole: it reads and verifies
            seen["latest whole"] += 1
            resumed = resume(run_dir, log=False)
            assert not tmp.exists(), "a resume cleans up what a kill left"
            assert resumed.backend.runner.decisions == 0
        else:
            with pytest.raises(ckpt.CheckpointError, match="interrupted, not a checkpoint"):
                resume(run_dir, log=False)
            Trainer(tiny_config(run_dir, "total_steps=64"), log=False)  # a fresh run takes the folder
            assert not tmp.exists()
    assert seen["tmp left"] >= 1  # the kills did land inside writes


def test_ctrl_c_during_a_write_leaves_no_partial_file(good, tmp_path, monkeypatch):
    data = torch.load(good, weights_only=True)

    def interrupted_save(obj, f):
        f.write(b"PK\x03\x04 half a checkpoint")
        raise KeyboardInterrupt

    monkeypatch.setattr(torch, "save", interrupted_save)
    with pytest.raises(KeyboardInterrupt):
        ckpt.write_atomically(tmp_path / "latest.pt", data)
    assert list(tmp_path.iterdir()) == []


def test_ctrl_c_that_torch_save_masks_with_its_own_error_stays_an_interrupt(good, tmp_path, monkeypatch):
    """Interrupted mid-record, torch's zip writer raises a RuntimeError while closing, over the
    KeyboardInterrupt: the write reports the interrupt (so the CLI exits 130), and leaves no file."""
    data = torch.load(good, weights_only=True)

    def masked_save(obj, f):
        f.write(b"PK\x03\x04 half a checkpoint")
        try:
            raise KeyboardInterrupt
        finally:
            raise RuntimeError("[enforce fail at inline_container.cc:672] . unexpected pos 64 vs 0")

    monkeypatch.setattr(torch, "save", masked_save)
    with pytest.raises(KeyboardInterrupt):
        ckpt.write_atomically(tmp_path / "latest.pt", data)
    assert list(tmp_path.iterdir()) == []
    monkeypatch.setattr(torch, "save", lambda obj, f: (_ for _ in ()).throw(RuntimeError("disk full")))
    with pytest.raises(RuntimeError, match="disk full"):  # other errors pass through as they are
        ckpt.write_atomically(tmp_path / "latest.pt", data)
