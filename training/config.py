"""Training configuration: nested dataclasses read from YAML, overridden by `key=value` arguments.

Every key is checked: an unknown key or a value of the wrong type raises ConfigError naming it and the
keys that exist. Nested keys use dots on the command line: `ppo.lr=1e-3 net.kind=gru game_config.num_players=4`.
"""

from __future__ import annotations

import dataclasses
import math
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from envs.core.errors import ConfigError, did_you_mean
from envs.core.search import ROOTS

BACKENDS = ("native", "rllib")  # training/run.py maps each to its class; each checks its own options
SEED_LIMIT = 2**63  # seeds are below it: torch.manual_seed and int64 arrays take every one
EVAL_OPPONENTS = ("random", "scripted")


def check_count(name: str, value: int, minimum: int = 1, meaning: str = "") -> None:
    """A whole number of things (games, iterations, layer units): at least `minimum`; `meaning` says
    what the smallest value does, e.g. " (0 = only at the end)"."""
    if value < minimum:
        raise ConfigError(f"{name} must be at least {minimum}{meaning}, got {value}")


def check_number(
    name: str,
    value: float,
    low: float,
    high: float = math.inf,
    low_open: bool = False,
    high_open: bool = False,
    meaning: str = "",
) -> None:
    """A finite rate, weight or coefficient between `low` and `high` (each end included unless open);
    NaN and infinities are refused, which plain comparisons would let through."""
    inside = (value > low if low_open else value >= low) and (value < high if high_open else value <= high)
    if math.isfinite(value) and inside:
        return
    if high == math.inf:
        allowed = f"> {low:g}" if low_open else f">= {low:g}"
    else:
        allowed = f"in {'(' if low_open else '['}{low:g}, {high:g}{')' if high_open else ']'}"
    raise ConfigError(f"{name} must be {allowed}{meaning}, got {value!r}")


def check_seed(name: str, value: int) -> None:
    if not 0 <= value < SEED_LIMIT:
        raise ConfigError(f"{name} must be an integer from 0 to 2**63 - 1, got {value}")


@dataclass
class NetConfig:
    kind: str = "mlp"  # "mlp", "gru", or "layout" (an encoder built from the observation layout's axis
    # declarations: seats share weights, card/tile/item sets become entity embeddings, row x col grids
    # go through convolutions; then the MLP of `hidden`, see training/nets.py)
    hidden: list = field(default_factory=lambda: [128, 128])  # actor trunk layer sizes
    gru_size: int = 128  # recurrent state size (kind="gru")
    critic: str = "separate"  # "separate" (own MLP on the observation), "shared" (head on the actor
    # trunk), "central" (own MLP on observation + the full state_tensor(); the actor still sees only
    # the observation)
    critic_hidden: list = field(default_factory=lambda: [128, 128])
    normalize_obs: bool = False  # running mean/std of observations, kept in the checkpoint
    # a linear map from the observation straight to the action logits, added to the head's ("wide and
    # deep"): a logit can follow one observation entry (what is known of a card -> guess that card)
    # without being squeezed through the trunk; it starts at zero
    direct: bool = False
    embed: int = 32  # kind="layout": entity and per-seat embeddings are 2 * embed wide (mean and max)
    conv_channels: int = 16  # kind="layout": channels of the two 3x3 convolutions over each grid
    # kind="layout": the logits of an action block laid over a grid's cells (Exposaurus's placements:
    # museum cell x rotation) come from each cell's convolution features beside the trunk's features
    # (the blocks are the game's: training.netshape.NetShape)
    cells: bool = False
    # with cells (0 = off): each cell also gets this many keys (a 3x3 convolution of the cell and its
    # neighbours) and each of the block's per-cell actions a query from the trunk's features; their
    # dot product joins the cell's logit. A match (this edge against that neighbour's, this kind
    # beside that one) is a product of two inputs, which a dot product states directly
    cell_keys: int = 0
    # with cells: a cell's numbers also hold every seat's grid of the same size at that cell, seats in
    # relative order (Exposed's candidates and identities: which player may stand on the cell a Steal
    # or an Expose names), beside the table's
    cell_seats: bool = False
    # the logits of an action block of seats (Artifacts' votes and accusations: relative seat x depth)
    # also come from each seat's own numbers (every observation piece led by a seat axis) beside the
    # trunk's features, with the same weights for every seat: what makes a player worth accusing is the
    # same at every seat. Any net.kind (the blocks and pieces are the game's: training.netshape.NetShape)
    seats: bool = False
    # an auxiliary target (0 = off): a linear head on the actor's features predicts the full
    # state_tensor() (hidden roles and cards among it) as the deciding seat sees it (the state
    # layout's seat axes renumbered from that seat, as observations number them), and its mean squared
    # error times this weight joins the loss of PPO and of the warm start. Training only: the policy
    # acts on the observation alone.
    aux_state: float = 0.0

    def validate(self) -> None:
        _choice("net.kind", self.kind, ("mlp", "gru", "layout"))
        check_number("net.aux_state", self.aux_state, 0, meaning=" (0 = off)")
        _choice("net.critic", self.critic, ("separate", "shared", "central"))
        for name in ("hidden", "critic_hidden"):
            sizes = getattr(self, name)
            if not isinstance(sizes, list) or not all(
                isinstance(s, int) and not isinstance(s, bool) and s > 0 for s in sizes
            ):
                raise ConfigError(f"net.{name} must be a list of positive layer sizes, got {sizes!r}")
        for name in ("gru_size", "embed", "conv_channels"):
            check_count(f"net.{name}", getattr(self, name))
        if self.cell_keys < 0 or (self.cell_keys and not self.cells):
            raise ConfigError(f"net.cell_keys must be >= 0 and needs net.cells=true, got {self.cell_keys}")
        if self.cell_seats and not self.cells:
            raise ConfigError("net.cell_seats=true adds to the cell heads: it needs net.cells=true")
        if self.cells and self.kind != "layout":
            raise ConfigError(
                f"net.cells=true reads the layout encoder's grids: it needs net.kind=layout, got {self.kind!r}"
            )


@dataclass
class PPOConfig:
    num_envs: int = 64  # games stepped at once
    rollout_steps: int = 64  # decisions per game per iteration (every seat's decisions count)
    epochs: int = 4
    minibatches: int = 4
    lr: float = 3e-4
    anneal_lr: bool = True
    gamma: float = 1.0
    gae_lambda: float = 0.95
    clip: float = 0.2
    clip_value: bool = False
    vf_coef: float = 0.5
    ent_coef: float = 0.01
    max_grad_norm: float = 0.5
    target_kl: float = 0.0  # 0 = no early stop of the epochs
    normalize_advantages: bool = True
    reward_scale: float = 1.0  # recorded rewards are multiplied by this (returns in reports are not)

    def validate(self) -> None:
        for name in ("num_envs", "rollout_steps", "epochs", "minibatches"):
            check_count(f"ppo.{name}", getattr(self, name))
        check_number("ppo.lr", self.lr, 0, 1, low_open=True, high_open=True)
        for name in ("gamma", "gae_lambda"):
            check_number(f"ppo.{name}", getattr(self, name), 0, 1)
        # 0 would freeze the policy (clip: no ratio change; max_grad_norm: zero gradients; reward_scale:
        # no rewards), and a negative value would turn it around
        for name in ("clip", "max_grad_norm", "reward_scale"):
            check_number(f"ppo.{name}", getattr(self, name), 0, low_open=True)
        for name in ("vf_coef", "ent_coef"):
            check_number(f"ppo.{name}", getattr(self, name), 0)
        check_number("ppo.target_kl", self.target_kl, 0, meaning=" (0 = no early stop)")


@dataclass
class OpponentConfig:
    # sampling weights of who plays the other seats (or teams) in each new game:
    # self = the current policy plays every seat (shared-parameter self-play, all seats learn),
    # snapshot = a past snapshot from the pool, scripted = the game's baseline, random = uniform legal
    self_play: float = 1.0
    snapshot: float = 0.0
    scripted: float = 0.0
    random: float = 0.0
    # fixed = a frozen player named by fixed_player (a run directory or checkpoint, "scripted",
    # "search:RUN", any name envs.core.players knows): what `python -m training exploit` trains against
    fixed: float = 0.0
    fixed_player: str = ""
    fixed_greedy: bool = False  # the fixed player (a network) takes its most likely action
    # in a free-for-all game, the other seats the fixed player takes when it is drawn: 0 = all of them;
    # k = k of them at random, the rest played by fixed_among (an exploiter seated among other players)
    fixed_seats: int = 0
    fixed_among: str = "scripted"  # "scripted" or "random"
    pfsp: str = "hard"  # how snapshots are drawn: "uniform", "hard" ((1-p)^2), "even" (p(1-p))
    snapshot_every: int = 10  # iterations between snapshots added to the pool
    pool_size: int = 16  # newest snapshots kept

    def validate(self) -> None:
        for name, weight in self.weights().items():
            check_number(f"opponents.{name.replace('self', 'self_play')}", weight, 0)
        if sum(self.weights().values()) <= 0:
            raise ConfigError(
                "opponents.self_play, snapshot, scripted, random and fixed are weights: at least one must be > 0, "
                f"got {list(self.weights().values())}"
            )
        if self.fixed and not self.fixed_player:
            raise ConfigError(
                "opponents.fixed needs opponents.fixed_player: who plays (a run, 'scripted', ...)"
            )
        _choice("opponents.pfsp", self.pfsp, ("uniform", "hard", "even"))
        check_count("opponents.fixed_seats", self.fixed_seats, 0, " (0 = every other seat)")
        _choice("opponents.fixed_among", self.fixed_among, ("scripted", "random"))
        for name in ("snapshot_every", "pool_size"):
            check_count(f"opponents.{name}", getattr(self, name))

    def weights(self) -> dict[str, float]:
        return {
            "self": self.self_play,
            "snapshot": self.snapshot,
            "scripted": self.scripted,
            "random": self.random,
            "fixed": self.fixed,
        }


@dataclass
class EvalConfig:
    every: int = 20  # iterations between evaluations, plus one at step 0 (0 = only at the end)
    games: int = 200  # games per opponent during training (use `evaluate` for 1000+)
    opponents: list = field(default_factory=lambda: ["random", "scripted"])
    greedy: bool = False  # argmax instead of sampling
    # game options for evaluation games only, e.g. {reward: rank} to count real wins when training on
    # a dense reward (reward: margin); may not change the observation or the actions
    game_config: dict = field(default_factory=dict)

    def validate(self) -> None:
        for o in self.opponents:
            if o not in EVAL_OPPONENTS:
                raise ConfigError(
                    f"eval.opponents entries must be 'random' or 'scripted', got {o!r}"
                    + did_you_mean(o, EVAL_OPPONENTS)
                )
        check_count("eval.every", self.every, 0, " (0 = only at the end)")
        check_count("eval.games", self.games)
        if not isinstance(self.game_config, dict):
            raise ConfigError(f"eval.game_config must be a mapping of game options, got {self.game_config!r}")


@dataclass
class PretrainConfig:
    # scripted self-play games to imitate before PPO (0 = no warm start); a run made shorter than its
    # config file's records proportionally fewer (load_config)
    games: int = 0
    epochs: int = 5
    lr: float = 1e-3
    minibatch: int = 512
    # share of the recorded games in which one team is scripted and the others play at random
    random_opponents: float = 0.0
    # the cloning target puts this share of its probability evenly on the decision's legal actions
    # (label smoothing), so the clone PPO starts from is less certain than the scripted player
    label_smoothing: float = 0.0

    def validate(self) -> None:
        check_count("pretrain.games", self.games, 0, " (0 = no warm start)")
        for name in ("epochs", "minibatch"):
            check_count(f"pretrain.{name}", getattr(self, name))
        check_number("pretrain.lr", self.lr, 0, 1, low_open=True, high_open=True)
        check_number("pretrain.random_opponents", self.random_opponents, 0, 1)
        check_number("pretrain.label_smoothing", self.label_smoothing, 0, 1, high_open=True)


@dataclass
class TeacherConfig:
    # The scripted baseline labels the learner's own decisions in each rollout (as DAgger does: on the
    # positions the learner reaches, not only the baseline's), and a cross-entropy towards its choice
    # joins the PPO loss. Its weight falls linearly from `coef` to 0 at `until` of total_steps.
    coef: float = 0.0  # 0 = off
    until: float = 0.5  # share of total_steps after which the teacher is silent
    share: float = 1.0  # share of each rollout's learner decisions the teacher labels (it costs time)

    def weight_at(self, decisions: int, total_steps: int) -> float:
        """The imitation term's weight after `decisions` of `total_steps`: coef, falling linearly to 0
        at `until` of total_steps."""
        return self.coef * max(0.0, 1.0 - decisions / (self.until * total_steps))

    def validate(self) -> None:
        check_number("teacher.coef", self.coef, 0, meaning=" (0 = off)")
        for name in ("until", "share"):
            check_number(f"teacher.{name}", getattr(self, name), 0, 1, low_open=True)


EXPERT_TARGETS = ("visits", "completed_q", "kl")
EXPERT_OPTIMIZERS = ("own", "ppo")


@dataclass
class ExpertConfig:
    # Expert iteration (training/expert.py): every `every` iterations the guided search (the current
    # policy as its prior, its critic at the leaves) plays `games` games; after every PPO update the
    # policy learns the search's visit distributions and the critic the games' returns on the last
    # `rounds` rounds' positions. Needs a feed-forward network (net.kind mlp or layout).
    games: int = 0  # search games per round (0 = off)
    every: int = 1  # PPO iterations between rounds
    simulations: int = 32  # search simulations per decision
    batch: int = 1  # simulations whose leaves one network call evaluates (envs.core.search.Search)
    # share of a competitive game's rounds in which the searched side faces the scripted players (the
    # rest: the search plays every seat; on Exposed the search against itself swaps tiles back and
    # forth until the game's length cap, so use 1 there: docs/strength.md)
    scripted: float = 0.5
    rounds: int = 4  # rounds whose positions the distillation keeps
    epochs: int = 1  # passes over the kept positions after each update
    minibatch: int = 256
    # who steps on the distillation: its own Adam after each PPO update ("own", at expert.lr), or PPO's
    # optimizer inside the update ("ppo": expert.coef x the lessons' loss joins each minibatch's PPO
    # loss, so the step is PPO's own, annealed with it, and one gradient clip bounds both)
    optimizer: str = "own"
    coef: float = 1.0  # optimizer=ppo: the lessons' weight in PPO's loss
    # the distillation's own Adam step size (its moments apart from PPO's; optimizer=own)
    lr: float = 3e-4
    # anneal the distillation's step with PPO's: expert.lr x the share of total_steps left (as ppo.lr
    # with ppo.anneal_lr), so late rounds do not outweigh the updates; false = expert.lr throughout
    anneal_lr: bool = False
    value_coef: float = 0.5  # the critic's share of the distillation loss
    # the policy's target at each searched decision: the root's visit distribution ("visits"),
    # Gumbel MuZero's improved policy from the root's values ("completed_q"), or the prior moved
    # towards the root's values by at most expert.kl nats ("kl", MPO's step; training/expert.py)
    target: str = "visits"
    kl: float = 0.05  # target=kl: KL(target || prior) at each searched decision
    # how the search chooses at its root: PUCT ("puct") or Gumbel MuZero's sequential halving over
    # actions sampled from the policy ("gumbel", envs/core/search.py), whose improved policy is
    # completed_q's
    root: str = "puct"
    # hold each position's target at the policy's entropy there: the target mixed with the prior (the
    # searching policy's probabilities) by the least share that brings its entropy up to the prior's,
    # so the search may move the policy's mass between actions but not sharpen it round after round
    hold_entropy: bool = False
    # either target ^(1/temperature), normalized; 0 = its most likely action alone
    temperature: float = 1.0
    start: float = 0.0  # share of total_steps before the first round

    def validate(self) -> None:
        check_count("expert.games", self.games, 0, " (0 = off)")
        for name in ("every", "simulations", "batch", "rounds", "epochs", "minibatch"):
            check_count(f"expert.{name}", getattr(self, name))
        for name in ("scripted", "start"):
            check_number(f"expert.{name}", getattr(self, name), 0, 1)
        check_number("expert.lr", self.lr, 0, 1, low_open=True, high_open=True)
        check_number("expert.value_coef", self.value_coef, 0)
        check_number("expert.temperature", self.temperature, 0, 10, meaning=" (0 = the most likely action)")
        _choice("expert.target", self.target, EXPERT_TARGETS)
        _choice("expert.optimizer", self.optimizer, EXPERT_OPTIMIZERS)
        check_number("expert.coef", self.coef, 0, low_open=True)
        _choice("expert.root", self.root, ROOTS)
        check_number("expert.kl", self.kl, 0, 10, low_open=True)
        if self.root == "gumbel" and self.target == "visits":
            raise ConfigError(
                "expert.root=gumbel needs expert.target=completed_q or kl: sequential halving shares the "
                "visits out by its own schedule, so they are no policy to learn (its improved policy is "
                "completed_q's)"
            )


@dataclass
class TrainConfig:
    game: str = ""  # registered name ("expressions") or "module:ATTR" naming a GameSpec
    game_config: dict = field(default_factory=dict)
    seed: int = 0
    total_steps: int = 200_000  # learner decisions to train for
    run_dir: str = ""  # default runs/<game>-seed<seed>
    checkpoint_every: int = 20  # iterations between checkpoints (0 = only at the end)
    # iter_NNNNN.pt files a run keeps, the newest (0 = all); latest.pt, final.pt and warm_start.pt stay.
    # A checkpoint holds the opponent pool's snapshots, so late in a long run each can be tens of MB
    keep_checkpoints: int = 0
    threads: int = 1  # torch intra-op threads of the trainer's own process
    # rollout worker processes: each steps its share of the ppo.num_envs games with its own copy of the
    # networks (synced every iteration); they also play the evaluations and the warm start's games.
    # 1 = everything in this process (the results of earlier versions, bit for bit). backend=rllib:
    # they play the evaluations and the warm start only; its rollouts run on rllib.num_env_runners
    workers: int = 1
    # where the update runs: "auto" (cuda if torch sees a GPU, else mps if present, else cpu), "cpu",
    # "cuda", "cuda:N" or "mps"; rollouts infer on the CPU, in the workers
    device: str = "auto"
    progress: bool = True
    net: NetConfig = field(default_factory=NetConfig)
    ppo: PPOConfig = field(default_factory=PPOConfig)
    opponents: OpponentConfig = field(default_factory=OpponentConfig)
    eval: EvalConfig = field(default_factory=EvalConfig)
    pretrain: PretrainConfig = field(default_factory=PretrainConfig)
    teacher: TeacherConfig = field(default_factory=TeacherConfig)
    expert: ExpertConfig = field(default_factory=ExpertConfig)
    # a checkpoint (file, run directory or reference:<game>-v<N>) whose policy the run starts from, in
    # place of the warm start (pretrain.games is then not played); its network must be this config's
    # net. A run's checkpoints/warm_start.pt is its policy right after the warm start, so several runs
    # can share one clone. Weights only: the optimizer, pool and random streams start fresh
    init: str = ""
    backend: str = "native"  # "native" (this package's PPO) or "rllib" (RLlib's PPO on Ray)
    # options of backend=rllib (training/rllib/options.py), e.g. rllib.num_env_runners=4; that backend
    # checks them (this module never imports it), the native one ignores them
    rllib: dict = field(default_factory=dict)

    def validate(self) -> None:
        _choice("backend", self.backend, BACKENDS)
        if not isinstance(self.rllib, dict):
            raise ConfigError(f"rllib must be a mapping of options, got {self.rllib!r}")
        if not self.game:
            raise ConfigError("the config must name a game (game: expressions)")
        check_seed("seed", self.seed)
        check_count("total_steps", self.total_steps)
        check_count("checkpoint_every", self.checkpoint_every, 0, " (0 = only at the end)")
        check_count("keep_checkpoints", self.keep_checkpoints, 0, " (0 = all)")
        check_count("threads", self.threads)
        check_count("workers", self.workers)
        if self.workers > self.ppo.num_envs:
            raise ConfigError(
                f"workers={self.workers} is more than ppo.num_envs={self.ppo.num_envs}: every worker needs "
                "at least one game"
            )
        check_device(self.device)
        for part in (self.net, self.ppo, self.opponents, self.eval, self.pretrain, self.teacher, self.expert):
            part.validate()

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    def resolved_run_dir(self) -> Path:
        if self.run_dir:
            return Path(self.run_dir)
        safe = self.game.replace(":", "_").replace(".", "_").replace("/", "_")
        return Path("runs") / f"{safe}-seed{self.seed}"


DEVICES = ("auto", "cpu", "cuda", "mps")


def check_device(device: str) -> None:
    """A device option's spelling: auto, cpu, cuda, cuda:N or mps (whether it exists is checked when a run
    starts, `training.device.resolve`)."""
    kind, _, index = device.partition(":")
    if kind not in DEVICES or (index and (kind != "cuda" or not index.isdigit())):
        raise ConfigError(f"device must be one of auto, cpu, cuda, cuda:N, mps; got {device!r}")


def _choice(name: str, value: Any, choices) -> None:
    if value not in choices:
        raise ConfigError(
            f"{name} must be one of {list(choices)}, got {value!r}" + did_you_mean(value, choices)
        )


_FREE_DICTS = {"game_config"}  # keys passed through to the game's own config check


def _check_type(key: str, value: Any, default: Any) -> Any:
    if isinstance(default, bool):
        if not isinstance(value, bool):
            raise ConfigError(f"{key} must be true or false, got {value!r}")
    elif isinstance(default, int):
        if isinstance(value, bool) or not isinstance(value, int):
            raise ConfigError(f"{key} must be an integer, got {value!r}")
    elif isinstance(default, float):
        if isinstance(value, str):  # YAML 1.1 reads 1e-3 as a string
            try:
                value = float(value)
            except ValueError:
                pass
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ConfigError(f"{key} must be a number, got {value!r}")
        value = float(value)
    elif isinstance(default, str):
        if not isinstance(value, str):
            raise ConfigError(f"{key} must be a string, got {value!r}")
    elif isinstance(default, list):
        if not isinstance(value, list):
            raise ConfigError(f"{key} must be a list, got {value!r}")
    elif isinstance(default, dict):
        if not isinstance(value, dict):
            raise ConfigError(f"{key} must be a mapping, got {value!r}")
    return value


def _fill(obj, data: dict[str, Any], prefix: str = "") -> None:
    if not isinstance(data, dict):
        raise ConfigError(f"{prefix.rstrip('.') or 'config'} must be a mapping, got {data!r}")
    known = {f.name: f for f in dataclasses.fields(obj)}
    for key, value in data.items():
        if key not in known:
            raise ConfigError(
                f"unknown config key {prefix + key!r}; known keys: {sorted(known)}" + did_you_mean(key, known)
            )
        current = getattr(obj, key)
        if dataclasses.is_dataclass(current):
            _fill(current, value, prefix + key + ".")
        else:
            setattr(obj, key, _check_type(prefix + key, value, current))


def options(cls, data: dict[str, Any], section: str):
    """A backend's options dataclass `cls` from the mapping of config section `section`, each key and
    type checked as the config's own keys are, then its own `validate()`."""
    obj = cls()
    _fill(obj, data, section + ".")
    if hasattr(obj, "validate"):
        obj.validate()
    return obj


def parse_override(text: str) -> tuple[list[str], Any]:
    if "=" not in text:
        raise ConfigError(f"override {text!r} must look like key=value (e.g. ppo.lr=1e-3)")
    key, raw = text.split("=", 1)
    try:
        value = yaml.safe_load(raw) if raw != "" else ""
    except yaml.YAMLError as exc:
        raise ConfigError(f"cannot read the value of override {text!r}: {exc}") from None
    return key.strip().split("."), value


def apply_overrides(data: dict[str, Any], overrides: list[str]) -> dict[str, Any]:
    for text in overrides:
        path, value = parse_override(text)
        node = data
        for part in path[:-1]:
            node = node.setdefault(part, {})
            if not isinstance(node, dict):
                raise ConfigError(f"override {text!r}: {part!r} is not a section")
        node[path[-1]] = value
    return data


def from_dict(data: dict[str, Any]) -> TrainConfig:
    config = TrainConfig()
    _fill(config, data)
    config.validate()
    return config


def read_yaml(path: Path):
    """The YAML in a config file; every way it can fail is a ConfigError naming the file."""
    if not path.exists():
        raise ConfigError(f"config file {str(path)!r} does not exist")
    if path.is_dir():
        raise ConfigError(f"config file {str(path)!r} is a directory, not a YAML file")
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise ConfigError(f"config file {str(path)!r} is not a text file (binary content?)") from None
    except OSError as exc:
        raise ConfigError(f"cannot read config file {str(path)!r}: {exc.strerror or exc}") from None
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as exc:
        where = getattr(exc, "problem_mark", None)
        at = f" at line {where.line + 1}, column {where.column + 1}" if where is not None else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise ConfigError(f"config file {str(path)!r} is not valid YAML{at}: {problem}") from None


class ScaledWarmStart(UserWarning):
    """A run shorter than its config file's records proportionally fewer warm-start games."""


def load_config(path: str | Path | None, overrides: list[str] = ()) -> TrainConfig:
    """The config file at `path` (None: the defaults) with `key=value` overrides on top, checked.

    A run made shorter than the file's (a total_steps=... override below its total_steps) keeps the
    file's warm start in proportion: pretrain.games times the share of total_steps it keeps, rounded
    up (a 2,000-decision smoke test of a 1.2M-decision config records 25 of its 15,000 games, not all
    of them), saying so with a ScaledWarmStart warning. A pretrain.games=... override is kept as
    given, and a run at or above the file's length, or one that starts from `init`, is left exactly as
    the file says."""
    data: dict[str, Any] = {}
    if path is not None:
        data = read_yaml(Path(path)) or {}
        if not isinstance(data, dict):
            raise ConfigError(f"config file {str(path)!r} must hold a mapping of keys")
    planned = _planned_warm_start(data)
    config = from_dict(apply_overrides(data, list(overrides)))
    given = [tuple(parse_override(text)[0]) for text in overrides]
    scaled = planned and not config.init  # (init replaces the warm start: nothing to scale)
    if scaled and not any(key[:2] in (("pretrain",), ("pretrain", "games")) for key in given):
        _scale_warm_start(config, *planned, path)
    return config


def _planned_warm_start(data: dict) -> tuple[int, int] | None:
    """(total_steps, pretrain.games) as a config file plans them, when it has a warm start."""
    steps = data.get("total_steps", TrainConfig.total_steps)
    pretrain = data.get("pretrain")
    games = pretrain.get("games", 0) if isinstance(pretrain, dict) else 0
    if not all(isinstance(n, int) and not isinstance(n, bool) and n > 0 for n in (steps, games)):
        return None  # no warm start, or values that the config's own checks refuse
    return steps, games


def _scale_warm_start(config: TrainConfig, planned_steps: int, planned_games: int, path) -> None:
    if config.total_steps >= planned_steps:
        return
    games = max(1, -(-planned_games * config.total_steps // planned_steps))  # rounded up
    config.pretrain.games = games
    warnings.warn(
        f"total_steps={config.total_steps:,} is {config.total_steps / planned_steps:.2%} of the "
        f"{planned_steps:,} that {str(path)!r} plans, so its warm start records {games:,} of its "
        f"{planned_games:,} scripted games (pretrain.games={planned_games} keeps them all)",
        ScaledWarmStart,
        stacklevel=3,
    )


# the default configs: inside the installed package (configs/ is packaged as training/configs), or
# the configs/ folder of a source checkout
CONFIG_DIRS = (
    Path(__file__).resolve().parent / "configs",
    Path(__file__).resolve().parent.parent / "configs",
)


def default_config(game: str) -> Path:
    """The default training config of a game ("exposed" -> configs/exposed.yaml), from any folder."""
    for folder in CONFIG_DIRS:
        path = folder / f"{game}.yaml"
        if path.is_file():
            return path
    known = sorted({p.stem for folder in CONFIG_DIRS if folder.is_dir() for p in folder.glob("*.yaml")})
    raise ConfigError(f"no config file {game!r} and no default config for a game {game!r}; defaults: {known}")


def config_file(text: str) -> Path:
    """A config file path as given, else the default config of the game named `text`."""
    path = Path(text)
    if path.is_file():
        return path
    if path.is_dir():
        raise ConfigError(
            f"config file {text!r} is a directory, not a YAML file (to continue a run: --resume {text})"
        )
    if path.suffix in (".yaml", ".yml") or len(path.parts) > 1:
        raise ConfigError(f"config file {text!r} does not exist")
    return default_config(text)
