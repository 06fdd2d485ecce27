"""The core observer: gathers built from the layout's seat axes alone."""

import numpy as np
import pytest

from envs.core.layout import Layout, PieceSpec
from envs.core.observer import Observer, seat_gathers

N = 3


def layout():
    return Layout(
        [
            PieceSpec("board", (2,), "shared", 0, 9, ("feature",)),
            PieceSpec("stash", (N,), "per seat", 0, 9, ("seat",)),
            PieceSpec("knows", (N, N), "seat knows seat", 0, 1, ("seat", "seat")),
            PieceSpec("record", (N, 2), "per seat rows", 0, 9, ("seat", "feature")),
        ]
    )


def test_every_seat_axis_is_rotated_to_the_observer():
    lay = layout()
    source = np.arange(lay.size, dtype=np.float32)
    views = [lay.split(Observer(lay, N).observe(source, p)) for p in range(N)]
    absolute = lay.split(source)
    for p, view in enumerate(views):
        rel = (p + np.arange(N)) % N
        assert np.array_equal(view["board"], absolute["board"])
        assert np.array_equal(view["stash"], absolute["stash"][rel])
        assert np.array_equal(view["knows"], absolute["knows"][rel][:, rel])
        assert np.array_equal(view["record"], absolute["record"][rel])


def test_own_rows_and_starts_and_custom_rotations():
    lay = Layout([PieceSpec("hand", (4,), "mine", 0, 1), PieceSpec("votes", (N + 1,), "pass + seats", 0, 1)])
    hands_at, votes_at = 10, 30

    def seats_after_pass(block, perm):
        return np.concatenate([block[:1], block[1:][perm]])

    index = seat_gathers(
        lay, N, starts={"votes": votes_at}, own={"hand": hands_at}, rotate={"votes": seats_after_pass}
    )
    assert index[2, :4].tolist() == [18, 19, 20, 21]  # seat 2's row of the hands block
    assert index[1, 4:].tolist() == [30, 32, 33, 31]


def test_a_seat_axis_of_the_wrong_length_is_refused():
    lay = Layout([PieceSpec("bad", (N + 1,), "not seats", 0, 1, ("seat",))])
    with pytest.raises(ValueError, match="declared a seat axis but has 4 entries for 3 players"):
        seat_gathers(lay, N)
    with pytest.raises(ValueError, match="no observation piece named"):
        seat_gathers(lay, N + 1, starts={"nope": 0})


def test_a_layouts_views_are_its_pieces_of_one_vector_or_a_batch_and_a_wrong_length_is_refused():
    lay = layout()
    vector = np.arange(lay.size, dtype=np.float32)
    one = lay.split(vector)
    assert one["board"].tolist() == [0, 1] and one["stash"].tolist() == [2, 3, 4]
    assert one["knows"].shape == (N, N) and one["knows"][0].tolist() == [5, 6, 7]
    one["stash"][0] = -1  # a view: writing through it fills the vector
    assert vector[2] == -1
    batch = np.stack([vector, vector + 100])
    views = lay.views(batch)
    assert views["record"].shape == (2, N, 2) and views["record"][1, 0].tolist() == [114, 115]
    with pytest.raises(ValueError, match=f"has {lay.size} entries, not shape"):
        lay.split(vector[:-1])
