"""Options of the RLlib backend, and the training options it does not support (no Ray import here).

They live in the training config's `rllib` section, a mapping the generic config leaves to this backend:
`rllib.<name>=value` on the command line, e.g. `rllib.num_env_runners=4`; `train()` also takes them
directly. `trainer.rllib_options` checks every key and value when a run is built.
"""

from __future__ import annotations

from dataclasses import dataclass

from envs.core.errors import ConfigError

from ..config import TrainConfig, check_count, check_number


@dataclass
class RLlibConfig:
    num_env_runners: int = 1  # sampling actors (each steps ppo.num_envs / num_env_runners games)
    num_learners: int = 0  # 0 = the learner runs in the driver process; n = n remote learner actors
    num_cpus_per_env_runner: float = 1.0
    num_cpus: int = 0  # CPUs of a local Ray started by train() (0 = every core); ignored on a cluster
    address: str = ""  # "" = $RAY_ADDRESS when set, else a local Ray; or "auto" / "host:port"
    object_store_mb: int = 0  # object store of a local Ray (0 = Ray's default)
    # how long the driver waits for one EnvRunner's sample; an iteration whose sample does not come back
    # in time learns nothing and is asked again (training/rllib/trainer.py). An Exposaurus iteration
    # took over 120 s (the earlier default) on the 2-core machine beside two other processes
    sample_timeout_s: float = 600.0

    def validate(self) -> None:
        for name in ("num_env_runners", "num_learners"):
            check_count(f"rllib.{name}", getattr(self, name), 0)
        check_count("rllib.num_cpus", self.num_cpus, 0, " (0 = every core)")
        check_number("rllib.num_cpus_per_env_runner", self.num_cpus_per_env_runner, 0, low_open=True)
        if self.object_store_mb:
            check_count("rllib.object_store_mb", self.object_store_mb, 80, " (or 0, Ray's default)")
        check_number("rllib.sample_timeout_s", self.sample_timeout_s, 0, low_open=True)


def unsupported(config: TrainConfig, rllib: RLlibConfig) -> list[str]:
    """What the RLlib backend cannot train of `config`, each as `key=value (the reason)`; empty when it
    trains it all. Every network, the warm start, the teacher and expert iteration train under RLlib;
    what remains is what RLlib itself cannot express."""
    net, device = config.net, config.device
    found = [
        (
            net.normalize_obs and rllib.num_learners > 1,
            f"net.normalize_obs=true with rllib.num_learners={rllib.num_learners} (each learner would keep "
            "its own running statistics: RLlib's distributed learners share gradients, not buffers)",
        ),
        (device == "mps", "device=mps (RLlib's learners run on CUDA GPUs or the CPU)"),
        (
            config.opponents.fixed > 0,
            "opponents.fixed (the RLlib league seats self-play, snapshots, scripted and random play)",
        ),
        (
            config.expert.optimizer == "ppo",
            "expert.optimizer=ppo (RLlib's learners step on their own batches, away from the driver that "
            "keeps the searched positions; expert.optimizer=own distils them there)",
        ),
    ]
    return [text for present, text in found if present]


def check_supported(config: TrainConfig, rllib: RLlibConfig) -> None:
    """One ConfigError naming every option the RLlib backend cannot train, so a config is fixed in one go."""
    problems = unsupported(config, rllib)
    if problems:
        raise ConfigError(
            f"backend=rllib does not support {'; '.join(problems)}: change them or train with backend=native"
        )
