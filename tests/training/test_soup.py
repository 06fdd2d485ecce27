"""Model soups (training/soup.py): the average of runs from one starting point, and what it refuses."""

from __future__ import annotations

import json

import pytest
import torch

from envs.core.errors import ConfigError
from training import checkpoint as ckpt
from training.cli import main
from training.evaluate import match
from training.games import game_info
from training.policy import load_policy
from training.soup import make_soup
from training.trainer import Trainer, resume

from .helpers import CLONED, TOY, tiny_config


def _train(path, *overrides, game: str = TOY) -> Trainer:
    trainer = Trainer(tiny_config(path, *overrides, game=game), log=False)
    trainer.train()
    return trainer


@pytest.fixture(scope="module")
def two_runs(tmp_path_factory):
    """Run a (a warm start, then PPO) and run b, PPO on another seed from a's warm start."""
    root = tmp_path_factory.mktemp("soup")
    a = _train(root / "a", *CLONED)
    b = _train(root / "b", *CLONED, "seed=1", f"init={root / 'a' / 'checkpoints' / 'warm_start.pt'}")
    return root, a, b


def test_runs_record_the_weights_they_began_from(two_runs):
    root, a, b = two_runs
    warm = ckpt.read_checkpoint(root / "a" / "checkpoints" / "warm_start.pt")
    assert a.start_weights == b.start_weights == ckpt.tensors_sha256(warm["model"])
    for run in ("a", "b"):
        summary = json.loads((root / run / "summary.json").read_text())
        assert summary["start_weights"] == a.start_weights
        latest = ckpt.read_checkpoint(root / run)
        assert ckpt.trainer_state(latest)["start_weights"] == a.start_weights
    resumed = resume(root / "a" / "checkpoints" / "warm_start.pt", run_dir=root / "a2", log=False)
    assert resumed.start_weights == a.start_weights  # (kept over a resume)


def test_a_soup_is_the_average_of_the_runs_weights_and_plays_as_any_checkpoint(two_runs, capsys):
    root, a, b = two_runs
    out = root / "soup.pt"
    assert main(["soup", str(root / "a"), str(root / "b"), "--out", str(out)]) == 0
    record = json.loads(capsys.readouterr().out)
    soup, first, second = (ckpt.read_checkpoint(p) for p in (out, root / "a", root / "b"))
    assert not torch.equal(first["model"]["actor_head.weight"], second["model"]["actor_head.weight"])
    for name, tensor in soup["model"].items():
        if tensor.is_floating_point():
            want = ((first["model"][name].double() + second["model"][name].double()) / 2).to(tensor.dtype)
            assert torch.equal(tensor, want), name
    assert record == soup["soup"]
    assert [m["path"] for m in record["members"]] == [first["path"], second["path"]]
    assert record["members"][1]["model"] == ckpt.tensors_sha256(second["model"])
    assert record["start_weights"] == a.start_weights
    assert soup["decisions"] == a.decisions + b.decisions
    # a policy: it loads and plays legal games; not a run to resume
    policy = load_policy(out)
    results = match(game_info(TOY, {}), policy, "random", games=6)
    assert results["games"] == 6 and results["truncated"] == 0
    with pytest.raises(ckpt.CheckpointError, match="holds no trainer state"):
        resume(out, log=False)


def test_a_soup_of_soups_keeps_the_common_start(two_runs):
    root, a, _ = two_runs
    make_soup([root / "a", root / "b"], root / "ab.pt")
    record = make_soup([root / "ab.pt", root / "b"], root / "abb.pt")
    assert record["start_weights"] == a.start_weights


def test_a_soup_refuses_runs_from_other_weights_networks_or_games(two_runs, tmp_path):
    root, _, _ = two_runs
    out = tmp_path / "soup.pt"
    other_start = _train(tmp_path / "c", *CLONED, "seed=2")  # its own warm start
    with pytest.raises(ConfigError, match="began from different weights"):
        make_soup([root / "a", tmp_path / "c"], out)
    _train(tmp_path / "wide", "total_steps=64", "net.hidden=[48]")
    with pytest.raises(ConfigError, match=r"net\.hidden=\[48\] there, \[32\] here"):
        make_soup([root / "a", tmp_path / "wide"], out)
    _train(tmp_path / "exposed", "total_steps=64", game="exposed")
    with pytest.raises(ckpt.CheckpointError, match="plays exposed"):
        make_soup([root / "a", tmp_path / "exposed"], out)
    with pytest.raises(ConfigError, match="named twice"):
        make_soup([root / "a", root / "a" / "checkpoints" / "latest.pt"], out)
    with pytest.raises(ConfigError, match="two checkpoints or more"):
        make_soup([root / "a"], out)
    assert other_start.start_weights and not out.exists()


def test_a_soup_warns_when_a_member_recorded_no_starting_weights(two_runs, tmp_path):
    root, _, _ = two_runs
    data = ckpt.read_checkpoint(root / "b")
    data.pop("path")
    data["trainer"] = None  # as an export or a reference agent: no run state
    data["checksums"] = ckpt.checksums(data)
    ckpt.write_atomically(tmp_path / "bare.pt", data)
    heard = []
    record = make_soup([root / "a", tmp_path / "bare.pt"], tmp_path / "soup.pt", warn=heard.append)
    assert record["start_weights"] is None
    assert len(heard) == 1 and "bare.pt" in heard[0] and "cannot tell" in heard[0]
