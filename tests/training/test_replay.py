"""Replays: `evaluate --record` writes each recorded game as pictures plus one self-contained HTML page;
a real headless browser (Debian's chromium) steps through the page and reads what it shows."""

from __future__ import annotations

import copy as copy_module
import fcntl
import hashlib
import html
import io
import json
import os
import re
import select
import shutil
import subprocess
import time
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from envs.core.errors import IllegalActionError
from envs.core.replay import GameRecording, PictureStore, write_replay
from training.cli import main

from .helpers import TOY
from .toy_game import ToyNim

RECORDED = 2


@pytest.fixture(scope="module")
def replays(tmp_path_factory):
    """A tiny run, evaluated against random play with its first games recorded."""
    tmp = tmp_path_factory.mktemp("replays")
    run, folder = tmp / "run", tmp / "replays"
    config = tmp / "toy.yaml"
    config.write_text(f"game: {TOY}\nppo:\n  num_envs: 8\n  rollout_steps: 16\nnet:\n  hidden: [16]\n")
    assert (
        main(["train", str(config), f"run_dir={run}", "total_steps=100", "progress=false", "--no-log"]) == 0
    )
    argv = ["evaluate", str(run), "--opponents", "random", "--games", "6", "--output", str(tmp / "out.json")]
    assert main([*argv, "--record", str(folder), "--record-games", str(RECORDED)]) == 0
    return folder, json.loads((tmp / "out.json").read_text())


def index(page: Path) -> dict:
    return json.loads((page.with_suffix("") / "replay.json").read_text())


def test_evaluate_record_writes_pictures_and_one_page_per_game(replays):
    folder, out = replays
    pages = sorted((folder / "vs_random").glob("*.html"))
    assert [p.name for p in pages] == ["game_01.html", "game_02.html"]
    assert out["replays"]["vs_random"] == [str(p) for p in pages]
    for page in pages:
        data = index(page)
        steps = data["steps"]
        assert data["views"] == [
            "Whole table",
            "Player 0 (run/latest)'s view",
            "Player 1 (random)'s view",
        ] or (data["views"] == ["Whole table", "Player 0 (random)'s view", "Player 1 (run/latest)'s view"])
        assert steps[0]["move"] is None and all(s["move"].startswith("take ") for s in steps[1:])
        # every stone of the pile of 11 is taken, the last move ends the game
        assert sum(s["action"] + 1 for s in steps[1:]) == 11
        assert steps[-1]["status"].startswith("Game over") and "to move" in steps[0]["status"]
        for s in steps:  # each view's picture of each step is on disk
            assert len(s["pictures"]) == 3 and all(
                (page.with_suffix("") / f).is_file() for f in s["pictures"]
            )
        # nothing outside the page: no links, no scripts or pictures from elsewhere
        text = page.read_text()
        assert "http://" not in text and "https://" not in text and 'src="' not in text.replace('src=""', "")


def test_recording_hears_every_legal_move_and_replays_it(tmp_path):
    game = ToyNim(rng=np.random.default_rng(3))
    recording = GameRecording(game, names=["me", "you</script>"])
    game.apply_action(2)
    with pytest.raises(IllegalActionError):
        game.apply_action(7)  # refused by the rules: not a move, not recorded
    game.apply_action(np.int64(0))
    assert recording.actions == [(game.starter, 2), (1 - game.starter, 0)]
    copy = game.clone()  # a copy (a search, a resampled deal) plays on its own, unrecorded
    copy.apply_action(0)
    assert copy.pile == game.pile - 1 and len(recording.actions) == 2
    shallow = copy_module.copy(game)  # engines whose clone copies attributes by reference
    shallow.apply_action(0)
    assert len(recording.actions) == 2 and shallow.pile == game.pile - 1
    page = write_replay(recording, tmp_path / "nim", title="Nim")
    data = index(page)
    assert [s["move"] for s in data["steps"]] == [None, "take 3", "take 1"]
    assert data["steps"][1]["who"] == f"Player {game.starter} ({['me', 'you</script>'][game.starter]})"
    assert (
        data["steps"][2]["status"]
        == f"Player {game.starter} ({['me', 'you</script>'][game.starter]}) to move"
    )
    assert page.read_text().count("</script>") == 2  # a name cannot end the page's scripts
    # 3 steps x 3 views: each view's picture differs by its title, each step's by the pile; the files
    # on disk are the ones the index names
    names = {f for s in data["steps"] for f in s["pictures"]}
    assert len(names) == 9 and sorted(names) == sorted(p.name for p in page.with_suffix("").glob("*.png"))


def test_each_step_of_a_replay_carries_its_position(tmp_path):
    """positions/stepNNNN.json holds the table after step N: loading it gives the game the recorded
    moves reached, and it goes on as that game does."""
    game = ToyNim(rng=np.random.default_rng(5), pile=9)
    recording = GameRecording(game)
    reached = [game.clone()]
    for action in (2, 0, 1):
        game.apply_action(action)
        reached.append(game.clone())
    page = write_replay(recording, tmp_path / "nim")
    data = index(page)
    for i, (step, original) in enumerate(zip(data["steps"], reached, strict=True)):
        assert step["position_file"] == f"positions/step{i:04d}.json"
        loaded = ToyNim.from_dict(json.loads((page.with_suffix("") / step["position_file"]).read_text()))
        assert (loaded.pile, loaded.player, loaded.secrets.tolist()) == (
            original.pile,
            original.player,
            original.secrets.tolist(),
        )
        assert loaded.to_dict() == original.to_dict()


@pytest.mark.parametrize(
    "text", ["{{data}}", "{{title}}", "<b>{{title}}</b> & {{data}}{{data}}", "{{ data }}"]
)
def test_no_title_or_name_is_read_as_a_placeholder_of_the_page(tmp_path, text):
    """A run or player named like the page's placeholders ({{title}}, {{data}}) stays that text: the
    page's title is the escaped text, its data block appears once and reads back the names."""
    game = ToyNim(rng=np.random.default_rng(3))
    names = [text, "{{title}}" + text]
    recording = GameRecording(game, names=names)
    game.apply_action(2)
    page = write_replay(recording, tmp_path / "nim", title=text).read_text()
    assert re.findall("<title>(.*?)</title>", page, re.S) == ["Replay: " + html.escape(text)]
    blocks = re.findall(r'<script type="application/json" id="replay-data">(.*?)</script>', page, re.S)
    assert len(blocks) == 1 and page.count('id="replay-data"') == 1
    shown = json.loads(blocks[0])
    assert shown["title"] == text
    assert shown["players"] == [f"Player {p} ({name})" for p, name in enumerate(names)]


def test_replay_refuses_a_game_whose_moves_do_not_replay(tmp_path):
    game = ToyNim(rng=np.random.default_rng(3))
    recording = GameRecording(game)
    game.apply_action(0)
    game.secrets = 1 - game.secrets  # chance outside the game's own rng: the replay cannot follow
    with pytest.raises(RuntimeError, match="did not reach the same"):
        write_replay(recording, tmp_path / "bad")


def test_pictures_are_stored_once_and_changes_drawn_over_the_last_whole_picture():
    store = PictureStore(views=1)
    table = np.random.default_rng(0).integers(0, 4, (60, 80, 1)) * np.array([[[60, 50, 40]]])
    first = store.pictures([table])[0]
    assert store.pictures([table.copy()])[0] == first  # nothing changed: the same picture, once
    moved = table.copy()
    moved[10:20, 30:40] = [250, 250, 250]
    key, layers = store.pictures([moved])[0]
    assert layers[0] == first[1][0] and len(layers) == 2 and key != first[0]
    assert len(store.pngs[layers[1]]) < len(store.pngs[key]) / 2  # only the changed pixels
    # the page draws the layers one over the other: that is the whole picture, pixel for pixel
    drawn = Image.new("RGBA", (80, 60))
    for layer in layers:
        drawn.alpha_composite(Image.open(io.BytesIO(store.pngs[layer])).convert("RGBA"))
    assert np.array_equal(
        np.asarray(drawn), np.asarray(Image.open(io.BytesIO(store.pngs[key])).convert("RGBA"))
    )


# ----- a real browser ------------------------------------------------------------------------------
def find_chromium() -> str | None:
    return next((p for p in map(shutil.which, ("chromium", "chromium-browser", "google-chrome")) if p), None)


class Browser:
    """Headless chromium driven over the DevTools protocol on a pipe (fds 3 and 4: no extra package)."""

    def __init__(self, binary: str, profile: Path):
        to_browser, from_browser = os.pipe(), os.pipe()
        # keep the child's ends above 4 so placing them at 3 and 4 cannot overwrite one another
        child_in = fcntl.fcntl(to_browser[0], fcntl.F_DUPFD, 10)
        child_out = fcntl.fcntl(from_browser[1], fcntl.F_DUPFD, 10)

        def place_pipes():
            os.dup2(child_in, 3)
            os.dup2(child_out, 4)

        args = [binary, "--headless", "--remote-debugging-pipe", "--no-sandbox", "--disable-gpu"]
        args += [f"--user-data-dir={profile}", "--no-first-run", "about:blank"]
        self.process = subprocess.Popen(
            args,
            pass_fds=(3, 4),
            preexec_fn=place_pipes,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        for fd in (child_in, child_out, to_browser[0], from_browser[1]):
            os.close(fd)
        self.send_fd, self.read_fd = to_browser[1], from_browser[0]
        self.pending = b""
        self.next_id = 0
        self.session = None

    def call(self, method: str, **params):
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params}
        if self.session and not method.startswith("Target."):
            message["sessionId"] = self.session
        os.write(self.send_fd, json.dumps(message).encode() + b"\0")
        while True:
            reply = self.receive()
            if reply.get("id") == self.next_id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply.get("result", {})

    def receive(self) -> dict:
        while b"\0" not in self.pending:
            if not select.select([self.read_fd], [], [], 60)[0]:
                raise RuntimeError("the browser did not answer within 60 s")
            chunk = os.read(self.read_fd, 1 << 16)
            if not chunk:
                raise RuntimeError("the browser closed the pipe")
            self.pending += chunk
        message, self.pending = self.pending.split(b"\0", 1)
        return json.loads(message)

    def open(self, url: str) -> None:
        target = self.call("Target.createTarget", url=url)["targetId"]
        self.session = self.call("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
        page = json.dumps(url.split("#")[0])
        loaded = f"location.href.split('#')[0] === {page} && document.readyState === 'complete'"
        deadline = time.time() + 30
        while not self.evaluate(loaded):  # (the new tab starts as about:blank)
            assert time.time() < deadline, "the page did not load"
            time.sleep(0.05)

    def evaluate(self, expression: str):
        result = self.call("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def click(self, element_id: str) -> None:
        """A real mouse click at the middle of the element, as a person clicks."""
        box = self.evaluate(
            f"(b => [b.x + b.width / 2, b.y + b.height / 2])(document.getElementById('{element_id}').getBoundingClientRect())"
        )
        for kind in ("mousePressed", "mouseReleased"):
            self.call("Input.dispatchMouseEvent", type=kind, x=box[0], y=box[1], button="left", clickCount=1)

    def press(self, key: str, code: int) -> None:
        for kind in ("keyDown", "keyUp"):
            self.call("Input.dispatchKeyEvent", type=kind, key=key, code=key, windowsVirtualKeyCode=code)

    def shown(self) -> dict:
        """What the page shows now, once its picture is drawn: the texts, the controls, and the
        picture's size and SHA-256 of its RGBA pixels."""
        deadline = time.time() + 10
        while not self.evaluate("document.getElementById('picture').dataset.shown"):
            assert time.time() < deadline, "the picture was not drawn"
            time.sleep(0.02)
        return self.evaluate(
            """(async () => {
            const $ = (id) => document.getElementById(id), canvas = $("picture");
            const pixels = canvas.getContext("2d").getImageData(0, 0, canvas.width, canvas.height).data;
            const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", pixels));
            return {move: $("move").textContent, status: $("status").textContent,
                    counter: $("counter").textContent, view: $("view").value,
                    views: [...$("view").options].map(o => o.text), drawn: canvas.dataset.shown,
                    picture: [canvas.width, canvas.height, [...digest].map(b => b.toString(16).padStart(2, "0")).join("")],
                    hash: location.hash, back: $("back").disabled, next: $("next").disabled};
            })()"""
        )

    def close(self) -> None:
        try:
            self.call("Browser.close")
        except RuntimeError:
            pass
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
        os.close(self.send_fd)
        os.close(self.read_fd)


@pytest.fixture
def browser(tmp_path):
    binary = find_chromium()
    if binary is None:
        pytest.skip("no chromium in PATH (Debian: apt-get install chromium); the replay page is not opened")
    browser = Browser(binary, tmp_path / "profile")
    yield browser
    browser.close()


def pixels(png: Path) -> list:
    """A picture file's size and the SHA-256 of its RGBA pixels, as the page's `shown` gives them."""
    image = Image.open(png).convert("RGBA")
    return [image.width, image.height, hashlib.sha256(image.tobytes()).hexdigest()]


def test_browser_steps_through_a_recorded_game(browser, replays):
    folder, _ = replays
    page = folder / "vs_random" / "game_01.html"
    data = index(page)
    steps, last = data["steps"], len(data["steps"]) - 1
    folder = page.with_suffix("")

    def expect(state, step, view):
        """The page shows step `step` in view `view`: its move, status and picture (the file on disk)."""
        s = steps[step]
        assert state["counter"] == f"Step {step} / {last}"
        if step == 0:
            assert state["move"] == "Start of the game"
        else:
            assert state["move"] == f"Move {step}: {s['who']} \u2014 {s['move']}"
        assert state["status"] == s["status"] and state["view"] == str(view)
        assert state["drawn"] == f"{step},{view}"
        assert state["picture"] == pixels(folder / s["pictures"][view])
        assert state["hash"] == f"#step={step}&view={view}"

    browser.open(page.as_uri())
    state = browser.shown()
    assert state["views"] == data["views"] and state["back"] and not state["next"]
    # most steps are drawn as a whole picture with only the changed pixels of later steps over it
    assert browser.evaluate("data.steps.filter(s => s.layers[0].length > 1).length") > last / 2
    expect(state, 0, 0)
    browser.click("next")
    expect(browser.shown(), 1, 0)
    browser.press("ArrowRight", 39)
    after_two = browser.shown()
    expect(after_two, 2, 0)
    assert state["picture"] != after_two["picture"]  # the picture follows the moves
    browser.press("ArrowLeft", 37)
    expect(browser.shown(), 1, 0)
    # the view selector: each seat's view and the whole table, each its own picture
    seen = set()
    for view in range(len(data["views"])):
        browser.evaluate(
            f"(s => {{ s.value = '{view}'; s.dispatchEvent(new Event('change')); }})(document.getElementById('view'))"
        )
        state = browser.shown()
        expect(state, 1, view)
        seen.add(tuple(state["picture"]))
    assert len(seen) == len(data["views"])
    browser.press("v", 86)  # the key cycles the views: from the last back to the whole table
    expect(browser.shown(), 1, 0)
    browser.click("last")
    state = browser.shown()
    expect(state, last, 0)
    assert state["next"] and state["status"].startswith("Game over")
    browser.press("ArrowRight", 39)  # nothing after the last step
    expect(browser.shown(), last, 0)
    browser.press("Home", 36)
    expect(browser.shown(), 0, 0)
    # a link to a step and a view opens the page there
    browser.open(page.as_uri() + f"#step={last - 1}&view=2")
    expect(browser.shown(), last - 1, 2)
    # the page unpacks each step's position (what "Copy position" copies): the step's position file
    for step in (0, last):
        text = browser.evaluate(f"positionText({step})")
        assert json.loads(text) == json.loads((folder / steps[step]["position_file"]).read_text())
