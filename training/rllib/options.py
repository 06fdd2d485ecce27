"""Options of the RLlib backend (no Ray import here).

They live in the training config's `rllib` section, a mapping the generic config leaves to this backend:
`rllib.<name>=value` on the command line, e.g. `rllib.num_env_runners=4`; `train()` also takes them
directly. `trainer.rllib_options` checks every key and value when a run is built.
"""

from __future__ import annotations

from dataclasses import dataclass

from envs.core.errors import ConfigError


@dataclass
class RLlibConfig:
    num_env_runners: int = 1  # sampling actors (each steps ppo.num_envs / num_env_runners games)
    num_learners: int = 0  # 0 = the learner runs in the driver process; n = n remote learner actors
    num_cpus_per_env_runner: float = 1.0
    num_cpus: int = 0  # CPUs of a local Ray started by train() (0 = every core); ignored on a cluster
    address: str = ""  # "" = $RAY_ADDRESS when set, else a local Ray; or "auto" / "host:port"
    object_store_mb: int = 0  # object store of a local Ray (0 = Ray's default)
    sample_timeout_s: float = 120.0  # how long the driver waits for one EnvRunner's sample

    def validate(self) -> None:
        if self.num_env_runners < 0 or self.num_learners < 0 or self.num_cpus < 0:
            raise ConfigError(
                "rllib.num_env_runners, rllib.num_learners and rllib.num_cpus must be >= 0, got "
                f"{self.num_env_runners}, {self.num_learners}, {self.num_cpus}"
            )
        if self.num_cpus_per_env_runner <= 0:
            raise ConfigError(
                f"rllib.num_cpus_per_env_runner must be positive, got {self.num_cpus_per_env_runner}"
            )
        if self.object_store_mb and self.object_store_mb < 80:
            raise ConfigError(
                f"rllib.object_store_mb must be 0 (default) or at least 80, got {self.object_store_mb}"
            )
        if self.sample_timeout_s <= 0:
            raise ConfigError(f"rllib.sample_timeout_s must be positive, got {self.sample_timeout_s}")
