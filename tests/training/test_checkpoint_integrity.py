"""Checkpoints notice damage: a sha256 of the network tensors and of the trainer state travels with them."""

from __future__ import annotations

import pytest
import torch

from training import checkpoint as ckpt
from training.cli import main
from training.trainer import Trainer, resume

from .helpers import tiny_config


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    run_dir = tmp_path_factory.mktemp("integrity") / "run"
    Trainer(tiny_config(run_dir, "total_steps=200"), log=False).train()
    return run_dir


def _flip_inside(raw: bytes, tensor: torch.Tensor) -> bytes:
    """The file with one byte flipped in the middle of `tensor`'s stored bytes (torch stores each
    tensor's bytes as they are, uncompressed, inside its zip archive)."""
    payload = tensor.contiguous().reshape(-1).view(torch.uint8).numpy().tobytes()
    at = raw.find(payload)
    assert at >= 0 and raw.count(payload) == 1
    damaged = bytearray(raw)
    damaged[at + len(payload) // 2] ^= 0x5A
    return bytes(damaged)


def test_flipped_bytes_in_a_weight_tensor_are_refused(run, tmp_path, capsys):
    good = run / "checkpoints" / "final.pt"
    data = ckpt.read_checkpoint(good)
    assert set(data["checksums"]) == {"model", "trainer"}
    weight = data["model"]["trunk.0.weight"]
    bad = tmp_path / "flipped.pt"
    bad.write_bytes(_flip_inside(good.read_bytes(), weight))
    # torch itself reads the damaged file without complaint: the tensor really changed
    raw = torch.load(bad, weights_only=True)
    assert not torch.equal(raw["model"]["trunk.0.weight"], weight)
    with pytest.raises(ckpt.CheckpointError, match="flipped.pt.*damaged.*checksum"):
        ckpt.read_checkpoint(bad)
    # every command that loads it says so in one line
    assert main(["evaluate", str(bad), "--games", "4"]) == 2
    err = capsys.readouterr().err
    assert "damaged" in err and "flipped.pt" in err and "Traceback" not in err


def test_a_damaged_trainer_state_is_refused_on_resume(run, tmp_path):
    good = run / "checkpoints" / "latest.pt"
    data = torch.load(good, weights_only=True)
    blob = bytearray(data["trainer"])
    blob[len(blob) // 2] ^= 0x01
    data["trainer"] = bytes(blob)
    torch.save(data, tmp_path / "damaged.pt")
    ckpt.read_checkpoint(tmp_path / "damaged.pt")  # the policy itself is intact: evaluate may use it
    with pytest.raises(ckpt.CheckpointError, match="damaged trainer state.*checksum"):
        resume(tmp_path / "damaged.pt", run_dir=tmp_path / "resumed", log=False)


def test_checkpoints_without_checksums_still_load(run, tmp_path):
    """Checkpoints written before checksums existed load unverified."""
    data = torch.load(run / "checkpoints" / "final.pt", weights_only=True)
    del data["checksums"]
    torch.save(data, tmp_path / "old.pt")
    old = ckpt.read_checkpoint(tmp_path / "old.pt")
    net = ckpt.build_net(old)
    assert torch.equal(net.state_dict()["trunk.0.weight"], data["model"]["trunk.0.weight"])
    resumed = resume(tmp_path / "old.pt", {"total_steps": 400}, run_dir=tmp_path / "more", log=False)
    assert resumed.iteration == old["iteration"]


def test_checksum_covers_names_dtypes_and_shapes():
    a = {"w": torch.arange(6, dtype=torch.float32).reshape(2, 3)}
    assert ckpt.tensors_sha256(a) == ckpt.tensors_sha256({"w": a["w"].clone()})
    assert ckpt.tensors_sha256(a) != ckpt.tensors_sha256({"v": a["w"]})
    assert ckpt.tensors_sha256(a) != ckpt.tensors_sha256({"w": a["w"].reshape(3, 2)})
    assert ckpt.tensors_sha256(a) != ckpt.tensors_sha256({"w": a["w"].view(torch.int32)})
