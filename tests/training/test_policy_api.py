"""The public policy API: load_policy, the policy protocol in match()/rating_table() and the Gymnasium
env, pickling, and the TorchScript export a user loads with torch alone."""

from __future__ import annotations

import pickle
import subprocess
import sys

import numpy as np
import pytest
import torch

from envs.core.gym_env import SingleSeatEnv
from training import CheckpointError, Policy, export_policy, load_policy
from training.cli import main
from training.config import NetConfig
from training.evaluate import match, rating_table
from training.games import game_info
from training.nets import PolicyNet
from training.netshape import NetShape
from training.trainer import Trainer

from .helpers import TOY, tiny_config
from .toy_game import SPEC

GRU_PLAYERS = 3  # the GRU run plays 3-player Nim, so one policy fills two opponent seats


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """Tiny trained runs: an MLP on 2-player Nim (and one with the direct map), a GRU on 3-player Nim."""
    root = tmp_path_factory.mktemp("runs")
    Trainer(tiny_config(root / "mlp", "total_steps=600", "net.normalize_obs=true"), log=False).train()
    direct = tiny_config(root / "direct", "total_steps=600", "net.normalize_obs=true", "net.direct=true")
    Trainer(direct, log=False).train()
    Trainer(
        tiny_config(
            root / "gru", "total_steps=600", "net.kind=gru", f"game_config.num_players={GRU_PLAYERS}"
        ),
        log=False,
    ).train()
    return {"mlp": root / "mlp", "gru": root / "gru", "direct": root / "direct"}


def first_legal(observation, action_mask) -> int:
    """A plain function: the policy protocol needs nothing more."""
    return int(np.flatnonzero(action_mask)[0])


class Hooked:
    """A user's own policy object with the optional hooks, wrapping a loaded policy: match() must
    go through the callable path for it (not the batched network path)."""

    def __init__(self, policy):
        self.policy = policy

    def __call__(self, observation, action_mask):
        return self.policy(observation, action_mask)

    def reset(self):
        self.policy.reset()

    def for_seat(self, seat):
        return Hooked(self.policy.for_seat(seat))


def decisions(game_config: dict, games: int, seed: int = 0):
    """(seat, observation, mask, new game?) of random games of the toy game, in decision order."""
    info = game_info(TOY, game_config)
    rng = np.random.default_rng(seed)
    out = []
    for g in range(games):
        game = info.new_game(seed * 1000 + g)
        first = True
        while not game.is_terminal():
            p = game.current_player()
            mask = game.legal_action_mask()
            out.append((p, game.observation(p).copy(), mask.copy(), first))
            first = False
            game.apply_action(int(rng.choice(np.flatnonzero(mask))))
    return out


# ----- load_policy ---------------------------------------------------------------------------------


def test_load_policy_from_run_directory_or_checkpoint_file_plays_the_greedy_legal_action(runs):
    from_dir = load_policy(runs["mlp"])
    from_file = load_policy(runs["mlp"] / "checkpoints" / "final.pt")
    assert from_dir.game == TOY and from_dir.greedy and not from_dir.recurrent
    net = from_dir.net
    for _, obs, mask, _ in decisions({}, 20):
        action = from_dir(obs, mask)
        assert isinstance(action, int) and mask[action]
        with torch.no_grad():
            logits, _, _ = net.step(
                torch.from_numpy(obs[None]), torch.from_numpy(mask[None]), None, None, False
            )
        assert action == int(logits.argmax())
        assert from_file(obs, mask) == action
        assert from_dir({"observation": obs, "action_mask": mask}, None) == action  # the AEC dict


def test_load_policy_errors_are_clear(tmp_path, runs):
    with pytest.raises(CheckpointError, match="no checkpoint"):
        load_policy(tmp_path / "nothing")
    policy = load_policy(runs["mlp"])
    with pytest.raises(ValueError, match="trained on") as refused:
        policy(np.zeros(3, np.float32), np.ones(policy.net.num_actions + 1, bool))
    assert "predates" not in str(refused.value)  # other actions too: another game, no version hint
    # the same actions, a longer observation: what a newer version of the game's observation gives
    wider = np.zeros(policy.net.obs_dim + 5, np.float32)
    with pytest.raises(ValueError, match="predates a change of its observation: train a new one"):
        policy(wider, np.ones(policy.net.num_actions, bool))


def test_gru_policy_keeps_one_recurrent_state_per_seat(runs):
    policy = load_policy(runs["gru"])
    assert policy.recurrent
    seats = {s: policy.for_seat(s) for s in range(GRU_PLAYERS)}
    net = policy.net
    hidden = {s: torch.zeros(1, net.hidden_size) for s in range(GRU_PLAYERS)}
    changed_by_history = 0
    for p, obs, mask, new_game in decisions({"num_players": GRU_PLAYERS}, 30):
        if new_game:
            for s in seats:
                seats[s].reset()
                hidden[s] = torch.zeros(1, net.hidden_size)
        others = {s: seats[s].hidden.clone() for s in seats if s != p}
        logits = seats[p].logits(obs, mask)
        with torch.no_grad():
            expected, _, hidden[p] = net.step(
                torch.from_numpy(obs[None]), torch.from_numpy(mask[None]), hidden[p], None, False
            )
            fresh, _, _ = net.step(
                torch.from_numpy(obs[None]), torch.from_numpy(mask[None]), None, None, False
            )
        np.testing.assert_allclose(logits, expected[0].numpy(), rtol=1e-5, atol=1e-6)
        changed_by_history += not np.allclose(logits, fresh[0].numpy())
        for s, h in others.items():  # a seat's decision leaves the other seats' memory alone
            assert torch.equal(seats[s].hidden, h)
    assert changed_by_history > 0  # the memory is used: the same observation, another history


def test_sampling_policy_is_seeded_and_plays_only_legal_actions():
    net = PolicyNet(NetShape(5, 4), NetConfig(hidden=[8], critic_hidden=[8]))
    obs, mask = np.ones(5, np.float32), np.array([True, False, True, True])

    def draws(policy, n=60):
        return [policy(obs, mask) for _ in range(n)]

    a = draws(Policy(net, greedy=False, seed=3))
    assert a == draws(Policy(net, greedy=False, seed=3))
    assert a != draws(Policy(net, greedy=False, seed=4))
    assert set(a) == {0, 2, 3}  # an untrained net is near uniform over the legal actions
    seated = Policy(net, greedy=False, seed=3)
    assert draws(seated.for_seat(0)) != draws(seated.for_seat(1))  # own rng stream per seat


def test_policies_pickle_with_their_weights_and_memory(runs):
    policy = load_policy(runs["gru"]).for_seat(1)
    steps = decisions({"num_players": GRU_PLAYERS}, 2)
    for _, obs, mask, _ in steps[:3]:
        policy(obs, mask)
    copy = pickle.loads(pickle.dumps(policy))
    assert torch.equal(copy.hidden, policy.hidden)
    for _, obs, mask, _ in steps[3:]:
        assert copy(obs, mask) == policy(obs, mask)


def test_loaded_policy_is_one_gymnasium_opponents_entry_for_every_seat(runs):
    policy = load_policy(runs["gru"])
    env = SingleSeatEnv(SPEC, opponents=policy, seat=0, num_players=GRU_PLAYERS)
    mine = policy.for_seat(0)
    seat_policies = env.opponents[1:]
    assert all(isinstance(p, Policy) for p in seat_policies)
    assert seat_policies[0] is not seat_policies[1] and seat_policies[0] is not policy
    for episode in range(10):
        obs, info = env.reset(seed=episode)
        mine.reset()
        done = False
        while not done:
            obs, reward, terminated, truncated, info = env.step(mine(obs, info["action_mask"]))
            done = terminated or truncated
        assert not info.get("illegal_action")


# ----- match and rating_table with plain callables ------------------------------------------------


def test_a_plain_function_and_a_loaded_policy_play_a_match(runs):
    info = game_info(TOY, {})
    policy = load_policy(runs["mlp"])
    result = match(info, policy, first_legal, games=40, seed=1, num_envs=8)
    assert result["games"] == 40 and result["wins"] + result["ties"] + result["losses"] == 40
    # the callable path (hooks, one policy per game and seat) plays exactly what the batched one plays
    assert match(info, Hooked(policy), first_legal, games=40, seed=1, num_envs=8) == result
    flipped = match(info, first_legal, policy, games=40, seed=1, num_envs=8)
    assert flipped["games"] == 40


def test_match_gives_each_game_and_seat_its_own_recurrent_policy():
    info = game_info(TOY, {"num_players": GRU_PLAYERS})
    torch.manual_seed(0)
    net = PolicyNet(info.net_shape, NetConfig(kind="gru", hidden=[16], gru_size=16))
    with torch.no_grad():  # a network whose choices hang on its memory, so sharing one would show
        net.actor_head.weight.mul_(1000)
        net.gru.weight_hh.mul_(3)
    policy = Policy(net)
    # B plays two seats of every game: their decisions interleave, so each needs its own memory; the
    # batched network path keeps one per game and seat, the callable path must do the same
    batched = match(info, policy, policy, games=60, seed=2, num_envs=6)
    assert match(info, Hooked(policy), Hooked(policy), games=60, seed=2, num_envs=6) == batched


def test_rating_table_accepts_callables():
    info = game_info(TOY, {})
    table = rating_table(info, {"first": first_legal, "random": "random", "scripted": "scripted"}, games=60)
    assert set(table["ratings"]) == {"first", "random", "scripted"}
    with pytest.raises(TypeError, match="callable"):
        match(info, 42, "random", games=2)


# ----- TorchScript export ------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["mlp", "gru", "direct"])
def test_exported_torchscript_plays_what_load_policy_plays(kind, runs, tmp_path):
    out = tmp_path / f"{kind}.pt"
    assert main(["export", str(runs[kind]), str(out)]) == 0
    scripted = torch.jit.load(str(out))
    policy = load_policy(runs[kind])
    players = GRU_PLAYERS if kind == "gru" else 2
    assert scripted.recurrent == policy.recurrent and scripted.game == TOY
    seats = {s: policy.for_seat(s) for s in range(players)}
    hidden = dict.fromkeys(range(players))
    steps = decisions({"num_players": players}, 40)
    assert len(steps) > 150
    for p, obs, mask, new_game in steps:
        if new_game:
            for s in seats:
                seats[s].reset()
                hidden[s] = None
        logits, hidden[p] = scripted(torch.from_numpy(obs), torch.from_numpy(mask), hidden[p])
        assert int(logits.argmax()) == seats[p](obs, mask)
        assert (logits[torch.from_numpy(~mask)] == -1e9).all()
    batch = torch.from_numpy(np.stack([s[1] for s in steps[:7]]))
    masks = torch.from_numpy(np.stack([s[2] for s in steps[:7]]).astype(np.int64))  # 0/1 numbers
    logits, h = scripted(batch, masks)
    assert logits.shape == (7, policy.net.num_actions) and h.shape == (7, policy.net.hidden_size)
    with pytest.raises(Exception, match="observations of"):  # another game configuration: said clearly
        scripted(batch[:, 1:], masks)


def test_the_direct_map_is_learnt_and_kept_in_the_checkpoint(runs):
    direct, plain = load_policy(runs["direct"]).net, load_policy(runs["mlp"]).net
    assert plain.direct is None
    assert direct.direct.weight.shape == (direct.num_actions, direct.obs_dim)
    assert direct.direct.weight.abs().sum() > 0  # it starts at zero: training moved it
    obs, mask = decisions({}, 1)[0][1:3]
    x = direct._norm(torch.from_numpy(obs)[None])
    with torch.no_grad():
        logits, _, _ = direct.step(
            torch.from_numpy(obs)[None], torch.from_numpy(mask)[None], need_value=False
        )
        head = direct.actor_head(direct.trunk(x)) + direct.direct(x)
    legal = torch.from_numpy(mask)
    assert torch.allclose(logits[0][legal], head[0][legal])


def test_exported_policy_loads_with_torch_alone(runs, tmp_path):
    out = export_policy(runs["mlp"], tmp_path / "policy.pt")
    obs, mask = decisions({}, 1)[0][1:3]
    code = (
        "import sys; sys.modules['training'] = sys.modules['envs'] = None\n"
        "import torch\n"
        f"net = torch.jit.load({str(out)!r})\n"
        f"logits, _ = net(torch.tensor({obs.tolist()}), torch.tensor({mask.tolist()}))\n"
        "print(int(logits.argmax()))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert int(done.stdout) == load_policy(runs["mlp"])(obs, mask)
