"""Expert iteration: the guided search as the policy's teacher (Anthony, Tian & Barber 2017; AlphaZero).

Every `expert.every` PPO iterations a round of `expert.games` games is played by the guided search
(`training.search.guided_search`: the current policy's probabilities as the prior, its critic at the
leaves, `expert.simulations` simulations a decision). Each searched decision is recorded with the
search's target at the root and the deciding seat's return from there to the end: the visit
distribution (`expert.target=visits`), or the improved policy Gumbel MuZero computes from the root's
values (`completed_q`: the prior moved towards the actions whose searched returns are higher, which
visits from a small budget barely do). After every PPO update the policy learns the targets
(cross-entropy) and the critic the returns (squared error) on the positions of the last
`expert.rounds` rounds, with an optimizer of its own, or inside PPO's next update as a term of its
loss (`expert.optimizer=ppo`, `LessonTerm`), so the improved policy guides the next round's search:
a policy-improvement operator (search) followed by a projection (distillation).

Who sits where:
- competitive games: in an `expert.scripted` share of the games the searched side plays against the
  scripted players (a random side, as PPO's learner meets them in its mix), in the rest the search
  plays every seat (AlphaZero's self-play); either way the tree searches every seat's choices alike,
  guided by the policy, so the search assumes nothing about whom it faces;
- a cooperative game: the search plays every seat and assumes its teammates play the current policy
  (sampled from it), as `search:RUN` does. That assumes a convention the policy already holds: each
  seat's search improves its own move against teammates who keep playing the policy, not against
  teammates who search too.

The search reads a game only through `resample_hidden`, so the positions it teaches from are decided
on the seat's information alone; the recorded observation is the seat's own.
"""

from __future__ import annotations

import pickle
import time
from array import array
from collections import deque
from dataclasses import dataclass

import numpy as np
import torch

from envs.core.search import Search, SearchBudget, completed_returns, completed_values, sigma
from envs.core.workers import split, stream

from .games import final_outcomes
from .policy import Policy
from .pretrain import SparseRows, _DenseRecorder, _SparseRecorder
from .search import guided_search


@dataclass
class Lessons:
    """Searched decisions: the seat's observation (and the state, for a central critic), the legal
    mask, the search's target over actions (`root_target`), and the seat's return from there to the end."""

    obs: SparseRows
    state: SparseRows
    mask: np.ndarray  # bool, rows x actions
    target: np.ndarray  # float32, rows x actions: a distribution over the legal actions
    returns: np.ndarray  # float32
    seat: np.ndarray  # int64: the deciding seat
    game: np.ndarray  # int64: the game of the round it was decided in
    # per game: the searched side's result against the scripted players (games.final_outcomes), -1 in
    # self-play
    searched_result: np.ndarray

    def __len__(self) -> int:
        return len(self.returns)

    @classmethod
    def join(cls, parts: list[Lessons]) -> Lessons:
        return cls(
            obs=SparseRows.concatenate([p.obs for p in parts]),
            state=SparseRows.concatenate([p.state for p in parts]),
            mask=np.concatenate([p.mask for p in parts]),
            target=np.concatenate([p.target for p in parts]),
            returns=np.concatenate([p.returns for p in parts]),
            seat=np.concatenate([p.seat for p in parts]),
            game=np.concatenate([p.game + first for p, first in zip(parts, _first_games(parts))]),
            searched_result=np.concatenate([p.searched_result for p in parts]),
        )


def _first_games(parts: list[Lessons]) -> np.ndarray:
    """Each part's first game, counted over the parts before it."""
    counts = [len(p.searched_result) for p in parts]
    return np.concatenate([[0], np.cumsum(counts)[:-1]]).astype(np.int64)


def searcher(info, policy: Policy, cfg, reward_scale: float, seed) -> Search:
    """The round's guided search (a cooperative game's assumes its teammates play the policy)."""
    budget = SearchBudget(simulations=cfg.simulations)
    return guided_search(
        policy,
        budget,
        int(seed),
        reward_scale,
        info.cooperative,
        name="expert",
        batch=cfg.batch,
        root=cfg.root,
    )


def play_round(info, policy: Policy, cfg, reward_scale: float, games: int, seed, uses_state: bool) -> Lessons:
    """`games` games of a round, each searched decision recorded (`Lessons`)."""
    rng = np.random.default_rng(seed)
    search = searcher(info, policy, cfg, reward_scale, rng.integers(2**63))
    # the root values' resamples (completed_q, kl) from a stream of their own: the games, searches and
    # moves of a round are the same whatever its target
    resample = (
        np.random.default_rng(rng.bit_generator.seed_seq.spawn(1)[0]) if cfg.target != "visits" else None
    )
    scripted_share = cfg.scripted if not info.cooperative and info.spec.scripted_policy is not None else 0.0
    obs, states, masks, targets = _SparseRecorder(), _SparseRecorder(), _DenseRecorder(bool), []
    returns, results, seats, played = array("d"), array("d"), array("q"), array("q")
    for j in range(games):
        game = info.new_game(int(rng.integers(2**63)))
        teams = info.teams_of(game)
        against_scripted = scripted_share > 0 and rng.random() < scripted_share
        searched = [True] * len(teams)
        if against_scripted:
            side = teams[int(rng.integers(len(teams)))]
            searched = [t == side for t in teams]
            scripted = [info.scripted(seat) for seat in range(len(teams))]
        rows = []  # (seat, the seat's return before the decision) per recorded decision
        while not (game.is_terminal() or game.is_truncated()):
            seat = game.current_player()
            mask = game.legal_action_mask().copy()
            if not searched[seat]:
                game.apply_action(int(scripted[seat](game.observation(seat), mask)))
                continue
            action = search.act(game, seat)
            if mask.sum() > 1:  # a forced move teaches nothing
                targets.append(root_target(search, game, seat, mask, resample, cfg))
                obs.append(game.observation(seat))
                masks.append(mask)
                if uses_state:
                    states.append(game.state_tensor())
                rows.append((seat, float(game.returns()[seat])))
                seats.append(seat)
                played.append(j)
            game.apply_action(action)
        final = np.asarray(game.returns(), float)
        returns.extend(final[seat] - before for seat, before in rows)
        side = teams[searched.index(True)]
        results.append(final_outcomes(game, teams)[side] if against_scripted else -1.0)
    n = len(returns)
    width = info.num_actions
    return Lessons(
        obs=obs.finish(info.obs_dim),
        state=states.finish(info.state_dim) if uses_state else SparseRows.empty(n),
        mask=masks.finish() if n else np.zeros((0, width), bool),
        target=np.stack(targets) if n else np.zeros((0, width), np.float32),
        returns=np.frombuffer(returns).astype(np.float32),
        seat=np.frombuffer(seats, np.int64).copy(),
        game=np.frombuffer(played, np.int64).copy(),
        searched_result=np.frombuffer(results).astype(np.float32),
    )


def root_target(search: Search, game, seat: int, mask: np.ndarray, resample, cfg) -> np.ndarray:
    """The policy's target at the decision just searched (`searched_target`), held at the prior's
    entropy with expert.hold_entropy (`entropy_held`)."""
    target = searched_target(search, game, seat, mask, resample, cfg)
    if cfg.hold_entropy:
        target = entropy_held(target, search.last_prior, mask)
    return target.astype(np.float32)


def searched_target(search: Search, game, seat: int, mask: np.ndarray, resample, cfg) -> np.ndarray:
    """The root's visit distribution, or with a `resample` generator (expert.target completed_q or kl)
    a policy improved by the root's values."""
    visits = np.zeros(len(mask), np.float32)
    visits[list(search.last_visits)] = list(search.last_visits.values())
    if resample is None:
        return visits / visits.sum()
    values = np.zeros(len(mask))
    values[list(search.last_values)] = list(search.last_values.values())
    root = search.root_value(game, seat, resample)
    if cfg.target == "kl":
        returns = completed_returns(search.last_prior, visits, values, root, mask)
        return kl_step_policy(search.last_prior, returns, mask, cfg.kl)
    return completed_q_policy(search.last_prior, visits, values, root, mask)


def entropy(p: np.ndarray) -> float:
    """Shannon entropy in nats of a distribution (zeros contribute nothing)."""
    inside = p > 0
    return float(-(p[inside] * np.log(p[inside])).sum())


def entropy_held(target: np.ndarray, prior: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """`target` mixed with the prior, (1 - share) x target + share x prior, by the least share whose
    entropy is the prior's (expert.hold_entropy); a target at least as flat as the prior is kept. The
    mixture's entropy is concave in the share and equals the prior's at share 1, so it crosses the
    prior's entropy once on the way up and bisection finds the crossing."""
    legal = mask.astype(bool)
    p = np.where(legal, prior, 0.0)
    p = p / p.sum()
    t = np.where(legal, target, 0.0)
    t = t / t.sum()
    wanted = entropy(p)
    if entropy(t) >= wanted:
        return t
    low, high = 0.0, 1.0
    for _ in range(40):
        middle = 0.5 * (low + high)
        if entropy((1 - middle) * t + middle * p) < wanted:
            low = middle
        else:
            high = middle
    return (1 - high) * t + high * p


def kl_step_policy(prior: np.ndarray, returns: np.ndarray, mask: np.ndarray, kl: float) -> np.ndarray:
    """The prior moved towards the actions of higher searched returns by `kl` nats (MPO's E-step,
    Abdolmaleki et al. 2018): prior x exp(Q / eta), eta set so KL(target || prior) = kl (or the
    prior's best-valued actions alone where even they are nearer). Unlike completed_q's, whose values
    are stretched so the best action found always gains the whole sigma, each round moves the policy
    a bounded step however small or noisy the differences are, and a position whose actions all
    value the same is not moved at all."""
    legal = mask.astype(bool) & (prior > 0)
    p = np.where(legal, prior, 0.0)
    p = p / p.sum()
    q = np.where(legal, returns - returns[legal].max(), 0.0)

    def moved(eta: float) -> tuple[np.ndarray, float]:
        weights = np.where(legal, p * np.exp(q / eta), 0.0)
        target = weights / weights.sum()
        inside = target > 0
        return target, float((target[inside] * np.log(target[inside] / p[inside])).sum())

    if np.ptp(q[legal]) < 1e-9:
        return p
    low, high = np.log(1e-6), np.log(1e6)  # log eta: KL falls as eta grows
    target, divergence = moved(np.exp(low))
    if divergence <= kl:
        return target
    for _ in range(60):
        middle = 0.5 * (low + high)
        target, divergence = moved(np.exp(middle))
        if divergence > kl:
            low = middle
        else:
            high = middle
    return moved(np.exp(high))[0]


def completed_q_policy(
    prior: np.ndarray, visits: np.ndarray, values: np.ndarray, root_value: float, mask: np.ndarray
) -> np.ndarray:
    """The improved policy of "Policy improvement by planning with Gumbel" (Danihelka et al. 2022):
    softmax(log prior + sigma(completed Q)) over the legal actions (`envs.core.search.completed_values`
    and `sigma`, the same pieces a Gumbel root ranks its actions by). Unlike the visit counts, it moves
    the policy towards a better action the search found even where a small budget leaves visits close
    to the prior."""
    legal = mask.astype(bool)
    completed = completed_values(prior, visits, values, root_value, mask)
    logits = np.log(np.maximum(np.where(legal, prior, 0.0), 1e-12)) + sigma(completed, visits)
    logits = np.where(legal, logits - logits[legal].max(), -np.inf)
    improved = np.exp(logits)
    return improved / improved.sum()


def play_round_on_workers(
    workers, policy: Policy, cfg, reward_scale: float, seed, uses_state: bool
) -> Lessons:
    """`play_round` spread over game processes (`training.workers.GameWorker`s: a run's rollout workers,
    or RLlib's `workers`): worker w plays its share of the games from its own stream (seed, number of
    workers, w); the policy travels to them by value (its network with the weights), as an
    evaluation's players do."""
    shares = split(cfg.games, len(workers))
    round_ = pickle.dumps((policy, cfg))  # (between this run's own processes; files are never unpickled)
    calls = [
        (round_, len(share), stream(seed, len(workers), w), reward_scale, uses_state)
        for w, share in enumerate(shares)
    ]
    return Lessons.join(workers.call("play_expert_round", calls))


class Teacher:
    """The rounds of a run: plays them when due, keeps the last `expert.rounds`, and distils them into
    the network after each PPO update with its own optimizer (`distil`), or hands them to PPO's update
    as a term of its loss (`term`, expert.optimizer=ppo)."""

    def __init__(self, cfg, info, reward_scale: float, seed: int):
        self.cfg, self.info, self.reward_scale, self.seed = cfg, info, reward_scale, seed
        self.rounds: deque[Lessons] = deque(maxlen=cfg.rounds)
        self._kept: Lessons | None = None  # the kept rounds joined, until the next round
        self.played = 0  # rounds played so far (each round's games draw from stream (seed, 3, round))
        self.last: dict[str, float] = {}
        self.optimizer: torch.optim.Optimizer | None = None  # made on first use, over the net's weights
        self._pending: dict | None = None  # a resumed optimizer state, loaded when it is made
        self.step_share = 1.0  # the share of expert.lr the distillation steps at (the trainer anneals it)

    def due(self, iteration: int, decisions: int, total_steps: int) -> bool:
        c = self.cfg
        return c.games > 0 and iteration % c.every == 0 and decisions >= c.start * total_steps

    def play(self, policy: Policy, workers=None) -> None:
        """A round of the guided search's games with `policy` as its prior and critic, on `workers`
        (game processes) when there are."""
        began = time.perf_counter()
        seed = [self.seed, 3, self.played]
        uses_state = policy.net.uses_state
        if workers is None:
            lessons = play_round(
                self.info, policy, self.cfg, self.reward_scale, self.cfg.games, seed, uses_state
            )
        else:
            lessons = play_round_on_workers(workers, policy, self.cfg, self.reward_scale, seed, uses_state)
        self.rounds.append(lessons)
        self._kept = None
        self.played += 1
        vs = lessons.searched_result[lessons.searched_result >= 0]
        self.last = {"expert/decisions": float(len(lessons)), "expert/seconds": time.perf_counter() - began}
        if len(vs):
            self.last["expert/search_vs_scripted"] = float(vs.mean())

    def distil(self, net, rng: np.random.Generator) -> dict[str, float]:
        """expert.epochs passes of minibatches over the kept rounds (`distil`), with the distillation's
        own optimizer."""
        if not self.rounds:
            return {}
        optimizer = self.optimizer_for(net)
        stats = distil(net, optimizer, self.kept(), self.cfg, self.reward_scale, rng)
        return stats | self.last | {"expert/lr": optimizer.param_groups[0]["lr"]}

    def term(self, rng: np.random.Generator) -> LessonTerm | None:
        """The kept rounds as a term of the next PPO update's loss (expert.optimizer=ppo); None before
        the first round."""
        return LessonTerm(self.kept(), self.cfg, self.reward_scale, rng) if self.rounds else None

    def kept(self) -> Lessons:
        """The kept rounds joined (once per new round, not once per update)."""
        if self._kept is None:
            self._kept = Lessons.join(list(self.rounds)) if len(self.rounds) > 1 else self.rounds[0]
        return self._kept

    def optimizer_for(self, net) -> torch.optim.Optimizer:
        if self.optimizer is None:
            self.optimizer = torch.optim.Adam(net.parameters(), lr=self.cfg.lr, eps=1e-5)
            if self._pending is not None:
                self.optimizer.load_state_dict(self._pending)
                self._pending = None
        for group in self.optimizer.param_groups:  # (after a resumed state, which carries its own lr)
            group["lr"] = self.cfg.lr * self.step_share
        return self.optimizer

    def state_dict(self) -> dict:
        optimizer = self.optimizer.state_dict() if self.optimizer is not None else self._pending
        return {"played": self.played, "optimizer": optimizer}

    def load_state_dict(self, state: dict) -> None:
        self.played = int(state.get("played", 0))
        self._pending, self.optimizer = state.get("optimizer"), None


def targets(visits: np.ndarray, temperature: float) -> np.ndarray:
    """The policy's targets from the recorded distributions (rows: visits, or completed-Q policies):
    each ^(1/temperature), normalized; at temperature 0 its most likely action alone (ties: the lowest,
    as the search plays)."""
    if temperature == 0:
        out = np.zeros_like(visits)
        out[np.arange(len(visits)), visits.argmax(1)] = 1.0
        return out
    if temperature == 1:
        return visits
    sharpened = visits ** (1.0 / temperature)
    return sharpened / sharpened.sum(1, keepdims=True)


def lesson_loss(net, data: Lessons, idx: np.ndarray, cfg, reward_scale: float):
    """On the lessons `idx`: the cross-entropy towards the searches' `targets`, the critic's squared
    error against the returns, and how often the policy's most likely action is the target's; the
    loss is the first plus expert.value_coef times the second."""
    device = next(net.parameters()).device

    def tensor(x: np.ndarray) -> torch.Tensor:
        return torch.from_numpy(np.ascontiguousarray(x)).to(device)

    state = tensor(data.state[idx]) if net.uses_state else None
    logits, values = net.evaluate_flat(tensor(data.obs[idx]), tensor(data.mask[idx]), state)[:2]
    target = tensor(targets(data.target[idx], cfg.temperature))
    # masked logits are a large negative, not -inf: zero targets there keep the product finite
    cross_entropy = -(target * torch.log_softmax(logits, -1)).sum(-1).mean()
    value = 0.5 * ((values - tensor(data.returns[idx]) * reward_scale) ** 2).mean()
    with torch.no_grad():
        agree = (logits.argmax(-1) == target.argmax(-1)).float().mean().item()
    return cross_entropy + cfg.value_coef * value, (cross_entropy.item(), value.item(), agree)


def distil(net, optimizer, data: Lessons, cfg, reward_scale: float, rng: np.random.Generator) -> dict:
    """The policy learns the searches' targets and the critic the returns (`lesson_loss`): expert.epochs
    passes over `data` with the distillation's own optimizer."""
    n = len(data)
    sums = np.zeros(3)
    steps = 0
    for _ in range(cfg.epochs):
        perm = rng.permutation(n)
        for k in range(0, n, cfg.minibatch):
            loss, parts = lesson_loss(net, data, np.sort(perm[k : k + cfg.minibatch]), cfg, reward_scale)
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(net.parameters(), 0.5)
            optimizer.step()
            sums += parts
            steps += 1
    return lesson_stats(sums / steps, n) if steps else {}


def lesson_stats(mean: np.ndarray, positions: int) -> dict[str, float]:
    """The distillation's log: mean cross-entropy, value error and agreement, and the positions kept."""
    names = ("expert/cross_entropy", "expert/value", "expert/agreement")
    return dict(zip(names, map(float, mean))) | {"expert/positions": float(positions)}


class LessonTerm:
    """The distillation as a term of PPO's loss (expert.optimizer=ppo): each call draws expert.minibatch
    of the kept lessons and returns expert.coef times their `lesson_loss`, which PPO's optimizer steps
    on with its own, annealed step and its gradient clipping, one minibatch of lessons per minibatch of
    the rollout."""

    def __init__(self, data: Lessons, cfg, reward_scale: float, rng: np.random.Generator):
        self.data, self.cfg, self.reward_scale, self.rng = data, cfg, reward_scale, rng
        self.sums, self.calls = np.zeros(3), 0

    def __call__(self, net) -> torch.Tensor:
        n = len(self.data)
        idx = np.sort(self.rng.choice(n, min(self.cfg.minibatch, n), replace=False))
        loss, parts = lesson_loss(net, self.data, idx, self.cfg, self.reward_scale)
        self.sums += parts
        self.calls += 1
        return self.cfg.coef * loss

    def stats(self) -> dict[str, float]:
        return lesson_stats(self.sums / self.calls, len(self.data)) if self.calls else {}
