"""config.device: where the update runs. Resolution and refusals run everywhere; a short run on a CUDA GPU
runs where torch sees one and skips cleanly elsewhere."""

from __future__ import annotations

import pytest
import torch

from envs.core.errors import ConfigError
from training import checkpoint as ckpt
from training.device import mps_available, resolve_device
from training.trainer import Trainer, resume

from .helpers import tiny_config

CUDA = torch.cuda.is_available()


def test_auto_takes_the_best_device_torch_sees():
    expected = "cuda" if CUDA else "mps" if mps_available() else "cpu"
    assert resolve_device("auto").type == expected
    assert resolve_device("cpu") == torch.device("cpu")


@pytest.mark.skipif(CUDA, reason="this machine has a CUDA GPU")
def test_a_missing_gpu_is_a_config_error_listing_what_there_is():
    with pytest.raises(ConfigError, match="device=cuda: this torch sees no CUDA GPU \\(available: cpu"):
        resolve_device("cuda")
    with pytest.raises(ConfigError, match="device=cuda:1"):
        resolve_device("cuda:1")


@pytest.mark.parametrize("bad", ["gpu", "cuda:x", "cpu:0", "tpu", ""])
def test_a_misspelt_device_is_refused_by_the_config(bad, tmp_path):
    with pytest.raises(ConfigError, match="device must be one of auto, cpu, cuda, cuda:N, mps"):
        tiny_config(tmp_path, f"device={bad!r}").validate()


def test_on_the_cpu_the_rollouts_play_the_trained_network_itself(tmp_path):
    trainer = Trainer(tiny_config(tmp_path / "cpu", "total_steps=200", "device=cpu"), log=False)
    assert trainer.backend.acting is trainer.backend.net and trainer.backend.policy() is trainer.backend.net


@pytest.mark.skipif(not CUDA, reason="needs a CUDA GPU")
def test_a_run_on_a_gpu_keeps_a_cpu_copy_in_step_and_cpu_checkpoints(tmp_path):
    trainer = Trainer(tiny_config(tmp_path / "gpu", "total_steps=400", "device=cuda"), log=False)
    assert (
        next(trainer.backend.net.parameters()).is_cuda
        and not next(trainer.backend.acting.parameters()).is_cuda
    )
    trainer.train()
    for (name, trained), (_, acting) in zip(
        trainer.backend.net.state_dict().items(), trainer.backend.acting.state_dict().items()
    ):
        assert torch.equal(trained.cpu(), acting), name  # the rollouts play the updated weights
    data = ckpt.read_checkpoint(tmp_path / "gpu")
    assert all(t.device.type == "cpu" for t in data["model"].values())
    net = ckpt.build_net(data)  # loads without a GPU
    assert torch.equal(next(net.parameters()), next(trainer.backend.acting.parameters()))


@pytest.mark.skipif(not CUDA, reason="needs a CUDA GPU")
def test_a_gpu_run_with_workers_resumes_on_the_cpu_and_back(tmp_path):
    Trainer(tiny_config(tmp_path / "gpu", "total_steps=400", "device=cuda", "workers=2"), log=False).train()
    on_cpu = resume(
        tmp_path / "gpu", {"total_steps": 800, "device": "cpu"}, run_dir=tmp_path / "cpu", log=False
    )
    on_cpu.train()  # the optimizer's moments were saved from the GPU: they load onto the CPU's parameters
    moments = on_cpu.backend.optimizer.state_dict()["state"].values()
    assert on_cpu.backend.decisions >= 800 and all(m["exp_avg"].device.type == "cpu" for m in moments)
    back = resume(
        tmp_path / "cpu", {"total_steps": 1200, "device": "cuda"}, run_dir=tmp_path / "back", log=False
    )
    back.train()
    moments = back.backend.optimizer.state_dict()["state"].values()
    assert back.backend.decisions >= 1200 and all(m["exp_avg"].is_cuda for m in moments)
