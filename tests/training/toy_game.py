"""A small game written only for the training tests (NOT registered in envs): team Nim with a secret.

Players sit in a circle and take 1..max_take stones from a pile in turn; whoever takes the last stone
wins for their team (+1 each, every other seat -1). Options: `teams=True` seats alternate between two
teams (0, 1, 0, 1, ...); `cooperative=True` puts everyone in one team that wins (+1) when the starting
player takes the last stone, else loses (-1); `stone_reward` pays the taker that much per stone taken
during play (to test turn-based credit assignment). Each player is dealt a secret bit that only they
see (hidden information for the state tensor and the leak check), and the starting seat is random.
`max_decisions` cuts a game that has not ended after that many decisions (a pile of 11 needs at least
4), to test truncation; `teams()` and `game_type()` declare the team structure as every game does.
Optimal play in the two-player game takes `pile % (max_take + 1)` stones, so a learner should beat a
uniformly random opponent far more often than the 50% random play gets.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np

from envs.core import ConfigError, Definition, Game, GameSpec, Layout
from envs.core.game import GameType
from envs.core.policies import random_action


@dataclass(frozen=True)
class ToyConfig:
    num_players: int = 2
    pile: int = 11
    max_take: int = 3
    teams: bool = False
    cooperative: bool = False
    secret_teams: bool = False  # two teams dealt at random at set-up; each player sees only its own
    stone_reward: float = 0.0
    max_decisions: int = 100_000  # the game is cut (truncated) after this many decisions

    def validate(self) -> None:
        if not 2 <= self.num_players <= 6:
            raise ConfigError(f"num_players must be between 2 and 6, got {self.num_players}")
        if (self.teams or self.secret_teams) and self.num_players % 2:
            raise ConfigError("teams=True and secret_teams=True need an even num_players")
        if self.pile < 1 or self.max_take < 1:
            raise ConfigError("pile and max_take must be positive")
        if self.max_decisions < 1:
            raise ConfigError(f"max_decisions must be positive, got {self.max_decisions}")


class ToyDefinition(Definition):
    """What a configuration fixes: the seats, the actions, the layouts."""

    def __init__(self, c: ToyConfig):
        n = c.num_players
        self.num_players = n
        self.num_actions = c.max_take
        self.observation_layout = Layout(
            [
                ("pile", (c.pile + 1,), "one-hot stones left"),
                ("secret", (1,), "my secret bit (+2 if I am on team 9 with secret_teams)"),
                ("starter", (n,), "one-hot seat of the starting player, relative to me"),
            ]
        )
        self.state_layout = Layout(
            [
                ("pile", (c.pile + 1,), "one-hot stones left"),
                ("player", (n,), "one-hot current player"),
                ("secrets", (n,), "every secret bit"),
                ("starter", (n,), "one-hot starting seat"),
            ]
        )
        self.freeze()


@cache
def toy_definition(config: ToyConfig) -> ToyDefinition:
    return ToyDefinition(config)


class ToyNim(Game):
    name = "toy_nim"
    config_class = ToyConfig

    @classmethod
    def definition(cls, config: ToyConfig) -> ToyDefinition:
        return toy_definition(config)

    def __init__(self, config=None, rng=None, **options):
        super().__init__(config, rng, **options)
        c = self.config
        n = c.num_players
        self.pile = c.pile
        self.starter = int(self.rng.integers(n))
        self.player = self.starter
        self.secrets = self.rng.integers(0, 2, n)
        self.winner = -1
        self.sides = [i % 2 if c.teams else (0 if c.cooperative else i) for i in range(n)]
        if c.secret_teams:  # dealt: half the seats on team 7, half on team 9 (ids as the game names them)
            self.sides = [int(t) for t in self.rng.permutation([7, 9] * (n // 2))]
        self._returns = np.zeros(n)

    def teams(self) -> list[int]:
        """The team of each seat (dealt with secret_teams: the referee's view; observations show only
        one's own)."""
        return list(self.sides)

    def game_type(self) -> GameType:
        c = self.config
        if c.cooperative:
            utility = "identical"
        elif c.stone_reward == 0 and (c.num_players == 2 or c.teams or c.secret_teams):
            utility = "zero_sum"  # +1 each winner, -1 each loser, on sides of equal size
        else:
            utility = "general_sum"
        kind = "secret" if c.secret_teams else ("fixed" if c.teams or c.cooperative else "none")
        bound = 1.0 + abs(c.stone_reward) * c.pile
        rewards = "rewards" if c.stone_reward else "terminal"  # stones pay their taker along the game
        return GameType(utility, kind, -bound, bound, c.max_decisions, reward_model=rewards)

    def current_player(self) -> int:
        return -1 if self.is_terminal() else self.player

    def _legal_mask(self) -> np.ndarray:
        mask = np.zeros(self.num_actions, dtype=bool)
        mask[: min(self.pile, self.config.max_take)] = True
        return mask

    def _apply(self, action: int) -> None:
        take = action + 1
        self.pile -= take
        self._returns[self.player] += self.config.stone_reward * take
        if self.pile == 0:
            self.winner = self.player
            if self.config.cooperative:
                self._returns += 1.0 if self.player == self.starter else -1.0
            else:
                team = self.sides[self.player]
                self._returns += np.where(np.array(self.sides) == team, 1.0, -1.0)
        else:
            self.player = (self.player + 1) % self.num_players

    def observation(self, player: int) -> np.ndarray:
        obs = np.zeros(self.observation_layout.size, dtype=np.float32)
        obs[self.pile] = 1.0
        obs[self.config.pile + 1] = self.secrets[player] + (
            2 * (self.sides[player] == 9) if self.config.secret_teams else 0
        )
        obs[self.config.pile + 2 + (self.starter - player) % self.num_players] = 1.0
        return obs

    def state_tensor(self) -> np.ndarray:
        c, n = self.config, self.num_players
        out = np.zeros(self.state_layout.size, dtype=np.float32)
        out[self.pile] = 1.0
        if not self.is_terminal():
            out[c.pile + 1 + self.player] = 1.0
        out[c.pile + 1 + n : c.pile + 1 + 2 * n] = self.secrets
        out[c.pile + 1 + 2 * n + self.starter] = 1.0
        return out

    def is_terminal(self) -> bool:
        return self.pile == 0

    def returns(self) -> np.ndarray:
        return self._returns.copy()

    def resample_hidden(self, player: int, rng: np.random.Generator) -> ToyNim:
        other = self.clone()
        redraw = rng.integers(0, 2, self.num_players)
        redraw[player] = self.secrets[player]
        other.secrets = redraw
        return other

    def action_to_string(self, action: int) -> str:
        return f"take {action + 1}"

    def to_string(self, player: int | None = None) -> str:
        return f"pile {self.pile}, player {self.player} to move"


def toy_scripted(config, seat):
    """Plays the Nim strategy when it can, else takes one stone (observation only)."""
    pile_size = config.pile + 1
    period = config.max_take + 1

    def policy(observation, mask):
        pile = int(np.argmax(observation[:pile_size]))
        take = pile % period
        if 1 <= take and mask[take - 1]:
            return take - 1
        return int(np.flatnonzero(mask)[0])

    return policy


SPEC = GameSpec(
    name="toy_nim",
    title="ToyNim",
    game_class=ToyNim,
    test_configs=({}, {"num_players": 4, "teams": True}, {"num_players": 3, "cooperative": True}),
    benchmark_config={},
    scripted_policy=toy_scripted,
)

__all__ = ["SPEC", "ToyConfig", "ToyNim", "random_action"]
