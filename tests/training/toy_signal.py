"""A cooperative toy game written only for the cross-play tests (NOT registered in envs): a signal.

Two players, one team. The signaller (seat 0) is dealt a secret bit and shows a sign, 0 or 1; the
guesser (seat 1) sees the sign and names the bit. Both win (+1 each) when the guess is the bit, both
lose (-1) otherwise. Any convention that maps the bit to a sign and back wins every game, and there are
two of them (`same`: show the bit; `flip`: show its opposite): players of one convention win together,
players of the two lose every game together. Self-play scores cannot tell the conventions apart;
cross-play can.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np

from envs.core import Definition, Game, GameSpec, Layout
from envs.core.game import GameType


@dataclass(frozen=True)
class SignalConfig:
    max_decisions: int = 2


class SignalDefinition(Definition):
    def __init__(self):
        self.num_players, self.num_actions = 2, 2
        self.observation_layout = Layout(
            [("bit", (2,), "my secret bit, one-hot (the signaller's only)", 0, 1),
             ("sign", (2,), "the sign shown, one-hot (once shown)", 0, 1)]
        )  # fmt: skip
        self.state_layout = Layout([("bit", (2,), "the secret bit"), ("sign", (2,), "the sign")])
        self.freeze()


@cache
def signal_definition() -> SignalDefinition:
    return SignalDefinition()


class ToySignal(Game):
    name = "toy_signal"
    config_class = SignalConfig

    @classmethod
    def definition(cls, config: SignalConfig) -> SignalDefinition:
        return signal_definition()

    def __init__(self, config=None, rng=None, **options):
        super().__init__(config, rng, **options)
        self.bit = int(self.rng.integers(2))
        self.sign = -1
        self.guess = -1

    def game_type(self) -> GameType:
        return GameType("identical", "fixed", -1.0, 1.0, self.config.max_decisions)

    def teams(self) -> list[int]:
        return [0, 0]

    def current_player(self) -> int:
        return -1 if self.is_terminal() else (0 if self.sign < 0 else 1)

    def _legal_mask(self) -> np.ndarray:
        return np.ones(2, dtype=bool)

    def _apply(self, action: int) -> None:
        if self.sign < 0:
            self.sign = action
        else:
            self.guess = action

    def observation(self, player: int) -> np.ndarray:
        obs = np.zeros(4, dtype=np.float32)
        if player == 0:
            obs[self.bit] = 1.0
        if self.sign >= 0:
            obs[2 + self.sign] = 1.0
        return obs

    def state_tensor(self) -> np.ndarray:
        out = np.zeros(4, dtype=np.float32)
        out[self.bit] = 1.0
        if self.sign >= 0:
            out[2 + self.sign] = 1.0
        return out

    def is_terminal(self) -> bool:
        return self.guess >= 0

    def returns(self) -> np.ndarray:
        if not self.is_terminal():
            return np.zeros(2)
        return np.full(2, 1.0 if self.guess == self.bit else -1.0)

    def resample_hidden(self, player: int, rng: np.random.Generator) -> ToySignal:
        other = self.clone()
        if player != 0:
            other.bit = int(rng.integers(2))
        return other

    def action_to_string(self, action: int) -> str:
        return f"{'show' if self.sign < 0 else 'guess'} {action}"

    def to_string(self, player: int | None = None) -> str:
        return f"sign {self.sign}, guess {self.guess}"


def convention(flip: bool):
    """A player of one convention: shows the bit (or its opposite) and reads the sign back the same way."""

    def policy(observation, mask):
        if observation[2:].any():  # the guesser: a sign is shown
            return int(np.argmax(observation[2:])) ^ flip
        return int(np.argmax(observation[:2])) ^ flip

    return policy


SPEC = GameSpec(
    name="toy_signal",
    title="ToySignal",
    game_class=ToySignal,
    test_configs=({},),
    benchmark_config={},
    scripted_policy=lambda config, seat: convention(False),
)
