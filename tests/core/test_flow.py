"""The core turn flow: typed frames played last in first out, copied as a plain list."""

import numpy as np
import pytest

from envs.core.flow import Decide, Do, TurnFlow, check_handlers

ASK = 7


class Tiny:
    """A two-decision toy: seat 0 picks a number, seat 1 picks one different from it, then it ends."""

    def __init__(self):
        self.log: list = []
        self.flow = TurnFlow()
        self.flow.do(Tiny.finish)
        self.flow.decide(ASK, 0, Tiny.any_number, Tiny.first_pick)

    def any_number(self, mask):
        mask[:] = True

    def not_this(self, mask, taken):
        mask[:] = True
        mask[taken] = False

    def first_pick(self, action):
        self.log.append(("first", action))
        self.flow.decide(ASK, 1, Tiny.not_this, Tiny.second_pick, action)

    def second_pick(self, action, taken):
        self.log.append(("second", action, taken))

    def finish(self):
        self.log.append("end")


def play(game, action):
    game.flow.choose(game, action)
    game.flow.run(game)


def test_decisions_and_steps_play_in_stack_order():
    game = Tiny()
    assert game.flow.player() == 0
    play(game, 2)
    assert game.flow.player() == 1
    mask = game.flow.fill_mask(game, np.zeros(4, dtype=bool))
    assert mask.tolist() == [True, True, False, True]  # the frame's argument reached its mask
    play(game, 3)
    assert game.log == [("first", 2), ("second", 3, 2), "end"]
    assert game.flow.player() == -1 and len(game.flow) == 0


def test_a_copy_is_independent():
    game = Tiny()
    copy = game.flow.copy()
    play(game, 1)
    assert len(copy) == 2 and copy.player() == 0  # the original moved on, the copy did not


def test_run_stops_when_told():
    game = Tiny()
    game.flow.clear()
    game.flow.do(Tiny.finish)
    game.flow.do(Tiny.finish)
    game.flow.run(game, stop=lambda: len(game.log) == 1)
    assert game.log == ["end"] and len(game.flow) == 1


def test_choosing_without_a_waiting_decision_is_an_error():
    game = Tiny()
    game.flow.clear()
    game.flow.do(Tiny.finish)
    with pytest.raises(RuntimeError, match="no decision is waiting"):
        game.flow.choose(game, 0)
    assert len(game.flow) == 1  # nothing was taken off


def test_frames_are_typed_records():
    frame = Decide(ASK, 1, Tiny.any_number, Tiny.first_pick)
    assert (frame.kind, frame.player, frame.args) == (ASK, 1, ())
    assert Do(Tiny.finish).run is Tiny.finish
    assert "Tiny.first_pick" in repr(TurnFlow([frame]))


def test_handler_tables_are_checked():
    check_handlers({"a": Tiny.finish}, ["a"], "items")
    with pytest.raises(ValueError, match=r"no handler for \['b'\]"):
        check_handlers({"a": Tiny.finish}, ["a", "b"], "items")
    with pytest.raises(ValueError, match=r"unknown names \['c'\]"):
        check_handlers({"a": Tiny.finish, "c": Tiny.finish}, ["a"], "items")
    with pytest.raises(TypeError, match="not a function"):
        check_handlers({"a": "_item_a"}, ["a"], "items")
    check_handlers({"a": (Tiny.any_number, Tiny.first_pick)}, ["a"], "decisions")  # a row of handlers
    with pytest.raises(TypeError, match="not a function"):
        check_handlers({"a": (Tiny.any_number, "_first_pick")}, ["a"], "decisions")
