"""Information-set Monte Carlo tree search over the engine contract alone.

`Search` decides for one seat from what that seat knows: every simulation starts from
`game.resample_hidden(seat, rng)` (a full state drawn from those the seat cannot tell apart), walks
one tree shared by all draws (single-observer ISMCTS, Cowling, Powley & Whitehouse 2012), expands one
node, evaluates it by a rollout (or a value function) and backs up every seat's return. The true
game is read only through `resample_hidden`, so two games the seat cannot tell apart give the same
decision for the same seed (tests/core checks that `resample_hidden` is a function of the seat's
information and the rng).

Guided search (AlphaZero-style PUCT) takes a `prior(game, player) -> probabilities` and a
`value(game, viewer) -> return per seat`, asked from the searching seat's own information (its
observation at the leaf, not another seat's view of a resampled hand). `others(game, player, rng) -> action` lets the other seats play a
known policy inside the tree instead of the tree's choice (a cooperative team searching on the
assumption that teammates play a known convention: the trained policy, or the scripted players).
With `batch` > 1 a guided search walks that many simulations down the tree before it evaluates their
leaves together (`leaves`: one network call for all of them instead of one or two each), each walk
counting its visits at once so the next one is steered elsewhere (a "virtual loss", as AlphaGo's
parallel search does); a new leaf's prior comes from that same call.

`root="gumbel"` replaces PUCT at the root of a guided search by Gumbel MuZero's (Danihelka et al.
2022): it samples without replacement the `considered` actions of the largest Gumbel-perturbed prior
logits, shares the simulations among them by sequential halving (each round halves them by logit +
Gumbel + sigma(completed Q)) and plays the best of the last ones. Below the root the walk is PUCT.
Every action the search tries gets a fair share of the budget, so a small budget still improves on
the prior in expectation (the paper's policy-improvement result), where PUCT spends it on the
prior's favourite.
"""

from __future__ import annotations

import functools
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from .game import Game

Prior = Callable[[Game, int], np.ndarray]  # (game, player) -> a probability per action
# (game, viewer) -> an expected return per seat (return units), estimated from the viewer's information
Value = Callable[[Game, int], np.ndarray]
Rollout = Callable[[Game, int, np.random.Generator], int]  # (game, player, rng) -> action
# (leaf states, the player whose prior each needs or -1, viewer) -> (a prior per leaf, None where not
# asked; a return per seat per leaf): `prior` and `value` for many leaves at once
Leaves = Callable[[list[Game], list[int], int], tuple[Sequence, Sequence]]

ROOTS = ("puct", "gumbel")  # how a guided search chooses among the root's actions
# Gumbel MuZero's sigma constants (Danihelka et al. 2022; mctx's defaults)
C_VISIT, C_SCALE = 50.0, 0.1


@dataclass(frozen=True)
class SearchBudget:
    """Simulations per decision, or seconds per decision (whichever ends first when both are set)."""

    simulations: int | None = 100
    seconds: float | None = None

    def __post_init__(self):
        if self.simulations is None and self.seconds is None:
            raise ValueError("a search budget needs simulations or seconds per decision")
        if self.simulations is not None and self.simulations < 1:
            raise ValueError(f"simulations per decision must be at least 1, got {self.simulations}")
        if self.seconds is not None and not self.seconds > 0:
            raise ValueError(f"seconds per decision must be positive, got {self.seconds}")


class Node:
    """Statistics of one action sequence from the root: visits, summed scaled returns per seat, and
    how often each child was available (ISMCTS counts availability, not parent visits)."""

    __slots__ = ("visits", "total", "children", "available", "prior", "order", "pending")

    def __init__(self, num_players: int):
        self.visits = 0
        self.total = np.zeros(num_players)
        self.children: dict[int, Node] = {}
        self.available: dict[int, int] = {}
        self.prior: np.ndarray | None = None
        self.order: list[int] | None = None  # the order in which a widening search opens actions
        self.pending = False  # a leaf of the batch being walked, not yet evaluated (its walks stop there)


def reads_game(agent) -> bool:
    """Whether an agent decides from the game itself (`agent.act(game, seat)`), like Search, rather than
    from an observation and a mask."""
    return bool(getattr(agent, "reads_game", False)) and callable(getattr(agent, "act", None))


def random_rollout(game: Game, player: int, rng: np.random.Generator) -> int:
    """Uniform random play (named "random" in a search's settings)."""
    legal = np.flatnonzero(game.legal_action_mask())
    return int(legal[rng.integers(len(legal))])


class PolicyRollout:
    """Rollouts played by observation policies, one per seat (`policy_for_seat(seat)`, made once), e.g.
    a game's scripted players: `policy(observation, action_mask) -> action`. `name` says whose play it
    is in a search's settings. A class, not a closure, so that a search holding it travels to worker
    processes by value (`evaluate --workers`): the seats' policies are made again there, on first use."""

    def __init__(self, policy_for_seat: Callable[[int], Callable], name: str = "policy"):
        self.policy_for_seat = policy_for_seat
        self.__name__ = name
        self.policies: dict[int, Callable] = {}

    def __call__(self, game: Game, player: int, rng: np.random.Generator) -> int:
        policy = self.policies.get(player)
        if policy is None:
            policy = self.policies[player] = self.policy_for_seat(player)
        return int(policy(game.observation(player), game.legal_action_mask()))

    def __getstate__(self) -> dict:
        return {**self.__dict__, "policies": {}}


def _scripted_player(spec, config, seat: int) -> Callable:
    """The game's scripted player for a seat, reached through the spec (which pickles by name: its
    scripted_policy may be a lambda)."""
    return spec.scripted_policy(config, seat)


ROLLOUTS = ("scripted", "random")


def rollout_name(rollout: Rollout) -> str:
    """Whose play a rollout is: "random", "scripted", or the name a policy rollout was given."""
    return "random" if rollout is random_rollout else getattr(rollout, "__name__", "policy")


def unguided_search(
    spec, config, rollout: str | None = None, budget: SearchBudget | None = None, seed: int | None = 0
) -> Search:
    """The unguided search of a registered game, with the game's declared defaults (`spec.search`):
    simulated games finished by its scripted players or by random play, and its simulations per decision.
    Where the game has scripted players, every node opens their action first and widens from there."""
    rollout = rollout or spec.search.rollout
    if rollout not in ROLLOUTS:
        raise ValueError(f"rollout must be one of {ROLLOUTS}, got {rollout!r}")
    budget = budget or SearchBudget(simulations=spec.search.simulations)
    if spec.scripted_policy is None:
        return Search(budget, seed=seed, name="search")
    scripted = PolicyRollout(functools.partial(_scripted_player, spec, config), name="scripted")
    # a cooperative team (one team, identical returns) searches assuming teammates play the scripted
    # convention, as a team that agreed on it would; otherwise the others are searched like oneself
    cooperative = spec.game_class(config, np.random.default_rng(0)).game_type().utility == "identical"
    return Search(
        budget,
        rollout=scripted if rollout == "scripted" else random_rollout,
        others=scripted if cooperative else None,
        default=scripted,  # each node opens the scripted player's action first, then widens
        seed=seed,
        name="search",
    )


def return_scale(game: Game) -> tuple[float, float]:
    """(low, width) that put the game type's returns on [0, 1] (where its bounds are finite)."""
    gtype = game.game_type()
    low, high = gtype.min_return, gtype.max_return
    return (low, high - low) if np.isfinite(low) and np.isfinite(high) and high > low else (0.0, 1.0)


def completed_values(
    prior: np.ndarray, visits: np.ndarray, values: np.ndarray, root_value: float, mask: np.ndarray
) -> np.ndarray:
    """Gumbel MuZero's completed Q per action, stretched to [0, 1] over the legal actions (mctx's
    `qtransform_completed_by_mix_value`): a tried action's mean return at the root (`values`), an
    untried one's v_mix, the root's own value mixed with the prior-weighted mean of the tried actions'
    values (the paper's appendix D). The stretch makes the best action found gain the whole sigma,
    whatever the spread of returns."""
    legal = mask.astype(bool)
    completed = completed_returns(prior, visits, values, root_value, mask)
    low, high = completed[legal].min(), completed[legal].max()
    return (completed - low) / max(high - low, 1e-8)


def completed_returns(
    prior: np.ndarray, visits: np.ndarray, values: np.ndarray, root_value: float, mask: np.ndarray
) -> np.ndarray:
    """The completed Q of `completed_values` before its stretch, in the game's returns."""
    probs = np.where(mask.astype(bool), prior, 0.0)
    tried = visits > 0
    weight = probs[tried].sum()
    v_mix = root_value
    if weight > 0:
        v_mix = (root_value + visits.sum() * (probs[tried] * values[tried]).sum() / weight) / (
            1 + visits.sum()
        )
    return np.where(tried, values, v_mix)


def sigma(completed: np.ndarray, visits: np.ndarray) -> np.ndarray:
    """Gumbel MuZero's monotone transform of the completed values: (C_VISIT + the most visits) x
    C_SCALE x q, so the searched values weigh more as the budget grows."""
    return (C_VISIT + visits.max()) * C_SCALE * completed


def halving_schedule(simulations: int, considered: int) -> list[tuple[int, int]]:
    """Sequential halving (Karnin et al. 2013) as Gumbel MuZero spends a budget: per round, how many
    actions are still considered and the visits each gets, the considered halving after each round
    (never below two) until the simulations are spent. A round gives each of its k actions
    max(1, simulations // (ceil(log2 considered) x k)) visits; the last round may stop short."""
    if considered <= 1:
        return [(1, simulations)]
    rounds = math.ceil(math.log2(considered))
    schedule, spent, k = [], 0, considered
    while spent < simulations:
        each = max(1, simulations // (rounds * k))
        schedule.append((k, each))
        spent += each * k
        k = max(2, k // 2)
    return schedule


class Search:
    """ISMCTS for one seat at a time; `act(game, seat) -> action` (a game-reading agent).

    exploration: the UCB1 constant (unguided) or the PUCT constant (guided), on returns scaled to
    [0, 1] by the game type's bounds. rollout: the policy that finishes a game from a new node
    (uniform random by default); `max_rollout` cuts a rollout after that many decisions (the leaf is
    then valued by `value` if given, else by `returns()` as it stands). default: a policy whose action
    each node opens first; with it the unguided search widens progressively (a node visited n times
    considers its first 1 + widening * sqrt(n) legal actions, the default's action first, the others
    in a random order), so a game with hundreds of actions and a budget of a hundred simulations
    improves on the default policy instead of trying actions at random once each. batch: simulations
    whose leaves a guided search evaluates together (`leaves`, or `prior` and `value` one leaf at a
    time); 1, the default, evaluates each before the next walk begins. root: "puct" or "gumbel" (a
    guided search with a budget of simulations; `considered` actions sampled at the root, module
    docstring); gumbel_scale: the Gumbel noise's weight, 1 to sample from the improved policy (the
    exploration expert iteration's games want), 0 for its best action (play to win, as mctx advises
    for evaluation)."""

    kind = "search"
    reads_game = True  # the faces hand it the game (it reads it only through resample_hidden)

    def __init__(
        self,
        budget: SearchBudget | None = None,
        exploration: float | None = None,
        rollout: Rollout = random_rollout,
        max_rollout: int | None = None,
        prior: Prior | None = None,
        value: Value | None = None,
        others: Rollout | None = None,
        default: Rollout | None = None,
        widening: float = 1.0,
        seed: int | None = 0,
        name: str = "search",
        batch: int = 1,
        leaves: Leaves | None = None,
        root: str = "puct",
        considered: int = 16,
        gumbel_scale: float = 1.0,
    ):
        if not (isinstance(batch, int) and batch >= 1):
            raise ValueError(
                f"batch (simulations evaluated together) must be an integer of at least 1, got {batch!r}"
            )
        self.budget = budget or SearchBudget()
        self._check_root(root, considered, gumbel_scale, prior, value, self.budget)
        self.exploration = exploration if exploration is not None else (1.5 if prior is not None else 0.7)
        self.rollout = rollout
        self.max_rollout = max_rollout
        self.prior = prior
        self.value = value
        self.others = others
        self.default = default
        self.widening = widening
        self.batch = batch
        self.leaves = leaves or self._one_leaf_at_a_time
        self.root = root
        self.considered = considered
        self.gumbel_scale = gumbel_scale
        self.seed = seed
        self.rng = np.random.default_rng(seed)
        self.name = name
        self.decisions = 0
        # the root at the last searched decision: each tried action's visits and mean return for the
        # searching seat (on the [0, 1] scale), and the guide's probabilities there (None unguided)
        self.last_visits: dict[int, int] = {}
        self.last_values: dict[int, float] = {}
        self.last_prior: np.ndarray | None = None
        self.seconds = 0.0
        self.simulations = 0

    @staticmethod
    def _check_root(root, considered, gumbel_scale, prior, value, budget) -> None:
        if root not in ROOTS:
            raise ValueError(f"root must be one of {ROOTS}, got {root!r}")
        if not (isinstance(gumbel_scale, (int, float)) and math.isfinite(gumbel_scale) and gumbel_scale >= 0):
            raise ValueError(f"gumbel_scale must be a number of at least 0, got {gumbel_scale!r}")
        if not (isinstance(considered, int) and considered >= 1):
            raise ValueError(
                f"considered (actions sampled at the root) must be at least 1, got {considered!r}"
            )
        if root == "gumbel" and (prior is None or value is None):
            raise ValueError("root='gumbel' needs a guided search (a prior and a value function)")
        if root == "gumbel" and (budget.simulations is None or budget.seconds is not None):
            raise ValueError(
                "root='gumbel' shares a number of simulations by sequential halving: give the budget "
                "as simulations only (no seconds)"
            )

    def settings(self) -> dict:
        """What decides this search's play, as data (a benchmark card records it): the budget, the
        batch, the exploration constant, whether a network guides it, and who plays its rollouts."""
        return {
            "simulations": self.budget.simulations,
            "seconds": self.budget.seconds,
            "batch": self.batch,
            **(
                {"root": "gumbel", "considered": self.considered, "gumbel_scale": self.gumbel_scale}
                if self.root == "gumbel"
                else {}
            ),
            "exploration": self.exploration,
            "guided": self.prior is not None,
            "rollout": None if self.prior is not None else rollout_name(self.rollout),
            "seed": self.seed,
        }

    # ----- the agent ------------------------------------------------------------------------------
    def reset(self) -> None:
        """A new game (nothing carries over; the rng stream goes on, as a training loop's does)."""

    def act(self, game: Game, seat: int) -> int:
        """The most visited action at the root after the budget is spent (PUCT), or the best of the
        actions sequential halving kept (Gumbel)."""
        if game.current_player() != seat:
            raise ValueError(f"search for seat {seat} asked to move on seat {game.current_player()}'s turn")
        start = time.perf_counter()
        legal = np.flatnonzero(game.legal_action_mask())
        if len(legal) == 1:
            action = int(legal[0])
        else:
            if self.root == "gumbel":
                root, action = self._gumbel_search(game, seat, legal)
            else:
                root = self._search(game, seat, start)
                best = max(child.visits for child in root.children.values())
                # ties: the lowest id, reproducibly
                action = min(a for a, child in root.children.items() if child.visits == best)
            self.last_visits = {a: child.visits for a, child in root.children.items()}
            self.last_values = {
                a: float(c.total[seat] / c.visits) for a, c in root.children.items() if c.visits
            }
            self.last_prior = root.prior
        self.decisions += 1
        self.seconds += time.perf_counter() - start
        return action

    def seconds_per_decision(self) -> float:
        return self.seconds / self.decisions if self.decisions else 0.0

    # ----- one search -----------------------------------------------------------------------------
    def root_value(self, game: Game, seat: int, rng: np.random.Generator) -> float:
        """The guide's value of `game` for `seat` on the search's [0, 1] scale: the estimate a tree
        starts from before any simulation (Gumbel-style targets mix it in). Valued on a state resampled
        from the seat's information with `rng` (a central critic reads the whole state), as leaves are."""
        if self.value is None:
            raise ValueError("root_value needs a guided search (a value function)")
        low, width = return_scale(game)
        return float(
            (np.asarray(self.value(game.resample_hidden(seat, rng), seat), float)[seat] - low) / width
        )

    def _search(self, game: Game, seat: int, start: float) -> Node:
        scale = return_scale(game)
        root = Node(game.num_players)
        budget = self.budget
        batched = self._batched()
        done = 0
        while True:
            if batched:
                left = budget.simulations - done if budget.simulations is not None else self.batch
                done += self._simulate_together(game, root, seat, scale, [None] * min(self.batch, left))
            else:
                self._simulate(game.resample_hidden(seat, self.rng), root, seat, scale)
                done += 1
            if budget.simulations is not None and done >= budget.simulations:
                break
            if budget.seconds is not None and time.perf_counter() - start >= budget.seconds:
                break
        self.simulations += done
        return root

    def _gumbel_search(self, game: Game, seat: int, legal: np.ndarray) -> tuple[Node, int]:
        """Gumbel MuZero's root (module docstring): the searched root and the action chosen."""
        scale = return_scale(game)
        root = Node(game.num_players)
        priors, values = self.leaves([game.resample_hidden(seat, self.rng)], [seat], seat)
        root.prior = np.asarray(priors[0], float)
        root_value = (float(np.asarray(values[0], float)[seat]) - scale[0]) / scale[1]
        noisy = np.full(game.num_actions, -np.inf)  # Gumbel-perturbed logits of the legal actions
        noise = self.rng.gumbel(size=len(legal))  # drawn at any scale: the rng stream stays the same
        noisy[legal] = np.log(np.maximum(root.prior[legal], 1e-12)) + self.gumbel_scale * noise
        simulations = self.budget.simulations
        considered = min(self.considered, len(legal), simulations)  # each is visited at least once
        candidates = legal[np.argsort(-noisy[legal], kind="stable")][:considered]
        done = 0
        for count, each in halving_schedule(simulations, len(candidates)):
            candidates = self._best_by_score(root, seat, game, noisy, root_value, candidates, count)
            firsts = [int(a) for _ in range(each) for a in candidates][: simulations - done]
            self._simulate_from(game, root, seat, scale, firsts)
            done += len(firsts)
        self.simulations += done
        return root, int(self._best_by_score(root, seat, game, noisy, root_value, candidates, 1)[0])

    def _best_by_score(self, root, seat, game, noisy, root_value, candidates, count) -> np.ndarray:
        """The `count` candidates of the highest Gumbel-perturbed logit + sigma(completed Q) (ties: the
        lower action id)."""
        if count >= len(candidates):
            return candidates
        visits, values = np.zeros(game.num_actions), np.zeros(game.num_actions)
        for a, child in root.children.items():
            visits[a], values[a] = child.visits, child.total[seat] / max(child.visits, 1)
        mask = game.legal_action_mask()
        score = noisy + sigma(completed_values(root.prior, visits, values, root_value, mask), visits)
        ranked = sorted(candidates.tolist(), key=lambda a: (-score[a], a))
        return np.asarray(ranked[:count])

    def _batched(self) -> bool:
        """Whether walks are evaluated `batch` at a time (a guided search valuing leaves by its critic)."""
        return (
            self.batch > 1 and self.prior is not None and self.value is not None and self.max_rollout is None
        )

    def _simulate_from(self, game: Game, root: Node, seat: int, scale, firsts: list[int]) -> None:
        """One simulation per entry of `firsts`, each opening with that root action; batched as `batch`
        says."""
        if self._batched():
            for i in range(0, len(firsts), self.batch):
                self._simulate_together(game, root, seat, scale, firsts[i : i + self.batch])
        else:
            for first in firsts:
                self._simulate(game.resample_hidden(seat, self.rng), root, seat, scale, first)

    def _simulate(
        self, state: Game, root: Node, seat: int, scale: tuple[float, float], first: int | None = None
    ) -> None:
        path = self._walk(state, root, seat, first)
        self._back_up(path, (self._evaluate(state, seat) - scale[0]) / scale[1])

    def _simulate_together(
        self, game: Game, root: Node, seat: int, scale: tuple[float, float], firsts: list[int | None]
    ) -> int:
        """A walk per entry of `firsts` (the root action it opens with, or None: the tree's choice)
        from fresh resamples, their leaves evaluated in one `leaves` call; each walk's
        visits count at once (a virtual loss: a visit with nothing won yet), its returns at the end. A
        walk that reaches another's leaf stops there (a second sample of that leaf, evaluated in the same
        call), so every node a walk chooses from has its prior: only the root's is asked alone."""
        walks = []
        for first in firsts:
            state = game.resample_hidden(seat, self.rng)
            path = self._walk(state, root, seat, first)
            path[-1].pending = True  # a later walk that reaches it stops there: a second sample of it
            walks.append((state, path))
        open_ = [(state, path) for state, path in walks if not state.is_terminal()]
        if open_:
            asked: set[int] = set()  # a leaf two walks reached needs its prior once
            players = [self._prior_wanted(state, path[-1], seat, asked) for state, path in open_]
            priors, values = self.leaves([state for state, _ in open_], players, seat)
            for (_, path), player, prior, value in zip(open_, players, priors, values):
                if player >= 0:
                    path[-1].prior = np.asarray(prior, float)
                self._back_up(path, (np.asarray(value, float) - scale[0]) / scale[1])
        for state, path in walks:
            path[-1].pending = False
            if state.is_terminal():
                self._back_up(path, (np.asarray(state.returns(), float) - scale[0]) / scale[1])
        return len(firsts)

    @staticmethod
    def _back_up(path: list[Node], returns: np.ndarray) -> None:
        for n in path:
            n.total += returns

    def _prior_wanted(self, state: Game, leaf: Node, seat: int, asked: set[int]) -> int:
        """The player whose prior the leaf will need when a walk next passes it (the tree chooses for
        that player), or -1."""
        if leaf.prior is not None or state.is_truncated() or id(leaf) in asked:
            return -1
        asked.add(id(leaf))
        player = state.current_player()
        return player if self.others is None or player == seat else -1

    def _one_leaf_at_a_time(self, states: list[Game], players: list[int], viewer: int):
        priors = [self.prior(s, p) if p >= 0 else None for s, p in zip(states, players)]
        return priors, [self.value(s, viewer) for s in states]

    def _walk(self, state: Game, root: Node, seat: int, first: int | None = None) -> list[Node]:
        """Down the tree from the root to a new node (or the end), playing the chosen actions on
        `state` (`first`, where given, at the root); each node on the way counts the visit as it is
        left (so a node's own statistics steer its choice). The path walked."""
        path = [root]
        node = root
        while not (state.is_terminal() or state.is_truncated()):
            player = state.current_player()
            mask = state.legal_action_mask()
            legal = np.flatnonzero(mask)
            for a in legal:
                node.available[int(a)] = node.available.get(int(a), 0) + 1
            if first is not None:
                action, first = first, None
            elif self.others is not None and player != seat:
                action = int(self.others(state, player, self.rng))
            else:
                action = self._select(state, node, player, legal)
            child = node.children.get(action)
            new = child is None
            if new:
                child = node.children[action] = Node(state.num_players)
            state.apply_action(action)
            node.visits += 1
            path.append(child)
            node = child
            if new or child.pending:
                break
        node.visits += 1
        return path

    def _select(self, state: Game, node: Node, player: int, legal: np.ndarray) -> int:
        if self.prior is not None:
            return self._select_puct(state, node, player, legal)
        if self.default is not None:
            legal = self._widened(state, node, player, legal)
        untried = [int(a) for a in legal if int(a) not in node.children]
        if untried:  # in the widening order (the default's action first), else at random
            return untried[0] if self.default is not None else untried[int(self.rng.integers(len(untried)))]
        c = self.exploration
        best, best_score = -1, -math.inf
        for a in legal:
            a = int(a)
            child = node.children[a]
            score = child.total[player] / child.visits + c * math.sqrt(
                math.log(node.available[a]) / child.visits
            )
            if score > best_score:
                best, best_score = a, score
        return best

    def _widened(self, state: Game, node: Node, player: int, legal: np.ndarray) -> list[int]:
        """The legal actions a node considers now: the first 1 + widening * sqrt(visits) of its order
        (the default policy's action first, then the others in a random order)."""
        if node.order is None:
            first = int(self.default(state, player, self.rng))
            node.order = [first] + [int(a) for a in self.rng.permutation(state.num_actions) if a != first]
        allowed = 1 + int(self.widening * math.sqrt(node.visits))
        is_legal = set(legal.tolist())
        out: list[int] = []
        for a in node.order:
            if a in is_legal:
                out.append(a)
                if len(out) == allowed:
                    break
        return out

    def _select_puct(self, state: Game, node: Node, player: int, legal: np.ndarray) -> int:
        if node.prior is None:
            node.prior = np.asarray(self.prior(state, player), float)
        parent_q = node.total[player] / node.visits if node.visits else 0.5
        root_n = math.sqrt(max(1, node.visits))
        c = self.exploration
        best, best_score = -1, -math.inf
        for a in legal:
            a = int(a)
            child = node.children.get(a)
            n = child.visits if child is not None else 0
            q = child.total[player] / n if n else parent_q
            score = q + c * node.prior[a] * root_n / (1 + n)
            if score > best_score:
                best, best_score = a, score
        return best

    def _evaluate(self, state: Game, seat: int) -> np.ndarray:
        """Every seat's return from here, as `seat` (the searcher) estimates it: the value function at
        once, or a rollout to the end."""
        if self.value is not None and self.max_rollout is None and not state.is_terminal():
            return np.asarray(self.value(state, seat), float)
        steps = 0
        while not (state.is_terminal() or state.is_truncated()):
            if self.max_rollout is not None and steps >= self.max_rollout:
                break
            state.apply_action(self.rollout(state, state.current_player(), self.rng))
            steps += 1
        if self.value is not None and not state.is_terminal():
            return np.asarray(self.value(state, seat), float)
        return np.asarray(state.returns(), float)
