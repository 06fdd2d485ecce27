"""Replays: a played game as pictures plus one self-contained HTML page to step through it.

Works through the engine contract alone (no torch), so any loop that plays a game can record it:

    recording = GameRecording(game, names=["agent", "random"])  # before the first move
    ... play the game: whoever calls game.apply_action, every move is heard ...
    write_replay(recording, "replays/game_01", title="Expressions")

A recording keeps a copy of the game as dealt (its random generator included) and the moves; the
pictures are drawn afterwards by playing the moves again on that copy, so recording costs nothing
while the game is played. Each step's pictures are `render_rgb(None)` (the whole table) and
`render_rgb(seat)` for every seat (only what that seat may see), written as PNGs with one palette
per game, each distinct picture once. The page carries a whole picture now and then and, in
between, only the pixels each move changed (a few percent of them), drawn one over the other.
"""

from __future__ import annotations

import base64
import gzip
import hashlib
import html
import io
import json
import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from PIL import Image

from .game import Game


@dataclass
class Move:
    """One decision: who made it and what it was, as `action_to_string` words it."""

    player: int
    action: int
    text: str


class GameRecording:
    """Hears every move of one game, whoever applies it (a runner, a face, a person's loop).

    Construct it before the first move. `names` (optional) says who plays each seat ("agent").
    """

    def __init__(self, game: Game, names: list[str] | None = None):
        self.start = game.clone()
        self.game = game
        self.names = list(names) if names is not None else None
        self.actions: list[tuple[int, int]] = []
        # Game.apply_action notes each legal move of this very game (not of its clones, whatever way
        # a game copies itself: a clone's recording, shallow or deep, is not about the clone)
        game._recording = self

    def who(self, seat: int) -> str:
        name = f"Player {seat}"
        return f"{name} ({self.names[seat]})" if self.names else name


class Recordings:
    """Records the first `limit` games of a match: pass `start` as the match's `on_game_start`.

    `names` maps the match's keys per seat ("A", "B") to the players' names."""

    def __init__(self, limit: int, names: dict[str, str]):
        self.limit = limit
        self.names = names
        self.games: list[tuple[int, GameRecording]] = []

    def start(self, j: int, game: Game, keys: list[str]) -> None:
        if j < self.limit:
            self.games.append((j, GameRecording(game, [self.names.get(k, k) for k in keys])))

    def write(self, folder: str | Path, title: str = "", scale: float = 1.0) -> list[Path]:
        """One page (and its pictures) per recorded game: folder/game_01.html, ..."""
        pages = []
        for j, recording in sorted(self.games, key=lambda g: g[0]):
            name = f"{title} - game {j + 1}" if title else f"game {j + 1}"
            pages.append(write_replay(recording, Path(folder) / f"game_{j + 1:02d}", name, scale))
        return pages


@dataclass
class Step:
    """The table after `move` (None: as dealt): per view, its picture (the key of a whole PNG) and
    the pictures the page draws, one over the other, to show it (`layers`: a whole picture, then
    only the pixels each later step changed)."""

    move: Move | None
    pictures: list[str]
    layers: list[list[str]]
    to_move: int
    terminal: bool
    truncated: bool
    returns: list[float] = field(default_factory=list)
    position: dict = field(default_factory=dict)  # Game.to_dict() of the table after the move


def view_names(num_players: int) -> list[str]:
    """The views a replay offers: the whole table, then each seat's."""
    return ["table"] + [f"player{p}" for p in range(num_players)]


def png_bytes(image: Image.Image, **options) -> bytes:
    out = io.BytesIO()
    image.save(out, "PNG", compress_level=9, **options)
    return out.getvalue()


def rgb_image(picture: np.ndarray, scale: float = 1.0) -> Image.Image:
    image = Image.fromarray(np.asarray(picture, dtype=np.uint8))
    if scale != 1.0:
        size = (max(1, round(image.width * scale)), max(1, round(image.height * scale)))
        image = image.resize(size, Image.Resampling.LANCZOS)
    return image


def game_palette(images: list[Image.Image], colors: int) -> Image.Image:
    """One palette for a whole game, drawn from its first pictures (the pictures are flat drawings
    and text): every later picture maps each pixel to its nearest entry, so a pixel that does not
    change keeps its exact colour and only what a move changed differs between steps."""
    sheet = Image.new("RGB", (max(i.width for i in images), sum(i.height for i in images)))
    y = 0
    for image in images:
        sheet.paste(image, (0, y))
        y += image.height
    return sheet.quantize(colors=colors, dither=Image.Dither.NONE)


def changed_pixels(image: Image.Image, changed: np.ndarray) -> Image.Image | None:
    """The pixels of a palette picture where `changed`, every other pixel transparent (None when the
    palette has no room left for a transparent entry)."""
    palette = image.getpalette() or []
    clear = len(palette) // 3
    if clear >= 256:
        return None
    layer = Image.fromarray(np.where(changed, np.asarray(image), clear).astype(np.uint8), "P")
    layer.putpalette(palette + [0, 0, 0])
    layer.info["transparency"] = clear
    return layer


class PictureStore:
    """Every distinct PNG once, by key. The page shows a view's picture as its last whole picture
    with the changes of the later steps drawn over it: most moves change a few percent of the
    pixels, so a game's page stays a fraction of its pictures' size."""

    WHOLE_EVERY = 20  # at most this many layers per picture: the page draws any step at once

    def __init__(self, views: int, colors: int = 64, scale: float = 1.0):
        self.colors, self.scale = colors, scale
        self.palette: Image.Image | None = None
        self.pngs: dict[str, bytes] = {}
        self.last: list[tuple[np.ndarray, list[str]] | None] = [None] * views

    def add(self, png: bytes) -> str:
        key = hashlib.sha1(png).hexdigest()[:16]
        self.pngs.setdefault(key, png)
        return key

    def pictures(self, pictures: list[np.ndarray]) -> list[tuple[str, list[str]]]:
        """Each view's (whole picture's key, layers the page draws for it), in the order of the views."""
        images = [rgb_image(p, self.scale) for p in pictures]
        if self.palette is None:
            self.palette = game_palette(images, self.colors)
        return [self.picture(view, image) for view, image in enumerate(images)]

    def picture(self, view: int, image: Image.Image) -> tuple[str, list[str]]:
        image = image.quantize(palette=self.palette, dither=Image.Dither.NONE)
        whole = png_bytes(image)
        rgb = np.asarray(image.convert("RGB"))
        key = self.add(whole)
        layers = [key]
        last = self.last[view]
        if last is not None and last[0].shape == rgb.shape:
            changed = (last[0] != rgb).any(-1)
            if not changed.any():
                layers = last[1]
            elif len(last[1]) < self.WHOLE_EVERY:
                layer = changed_pixels(image, changed)
                delta = png_bytes(layer) if layer else None
                if delta is not None and len(delta) < len(whole):
                    layers = [*last[1], self.add(delta)]
        self.last[view] = (rgb, layers)
        return key, layers


def replay_steps(recording: GameRecording, store: PictureStore) -> list[Step]:
    """Plays the recorded moves again on the game as dealt, drawing every view after every move."""
    game = recording.start.clone()
    views = [None, *range(game.num_players)]

    def step(move):
        drawn = store.pictures([game.render_rgb(view) for view in views])
        return Step(
            move,
            [whole for whole, _ in drawn],
            [layers for _, layers in drawn],
            int(game.current_player()),
            bool(game.is_terminal()),
            bool(game.is_truncated()),
            [float(r) for r in game.returns()],
            game.to_dict(),
        )

    steps = [step(None)]
    for seat, action in recording.actions:
        move = Move(seat, action, game.action_to_string(action))
        game.apply_action(action)
        steps.append(step(move))
    if not np.array_equal(game.state_tensor(), recording.game.state_tensor()):
        raise RuntimeError(
            f"{game.name}: replaying the recorded moves on the game as dealt did not reach the same "
            "table; the game draws chance events from something other than its own rng"
        )
    return steps


def write_replay(
    recording: GameRecording, path: str | Path, title: str = "", scale: float = 1.0, colors: int = 64
) -> Path:
    """Writes `path`.html (the page) and the folder `path`/ (each distinct picture as a PNG, and
    replay.json: the moves and which picture each view shows at each step). Returns the page."""
    path = Path(path)
    folder = path.with_suffix("") if path.suffix == ".html" else path
    folder.mkdir(parents=True, exist_ok=True)
    views = view_names(recording.start.num_players)
    store = PictureStore(len(views), colors, scale)
    steps = replay_steps(recording, store)
    files = {}
    for i, s in enumerate(steps):
        for view, key in zip(views, s.pictures, strict=True):
            if key not in files:
                files[key] = f"step{i:04d}-{view}.png"
                (folder / files[key]).write_bytes(store.pngs[key])
    positions = folder / "positions"
    positions.mkdir(exist_ok=True)
    for i, s in enumerate(steps):
        (positions / f"step{i:04d}.json").write_text(json.dumps(s.position, separators=(",", ":")))
    data = replay_data(recording, steps, title)
    index = dict(data, steps=[dict(s, pictures=[files[k] for k in s["pictures"]]) for s in data["steps"]])
    for i, s in enumerate(index["steps"]):
        del s["layers"], s["position"]
        s["position_file"] = f"positions/step{i:04d}.json"
    (folder / "replay.json").write_text(json.dumps(index, indent=1))
    page = folder.with_suffix(".html")
    used = {k for s in steps for layers in s.layers for k in layers}
    shown = dict(data, steps=[{k: v for k, v in s.items() if k != "pictures"} for s in data["steps"]])
    page.write_text(replay_page(shown, {k: store.pngs[k] for k in sorted(used)}))
    return page


def replay_data(recording: GameRecording, steps: list[Step], title: str) -> dict:
    """What the page shows, as JSON-ready data."""
    n = recording.start.num_players
    view_labels = ["Whole table"] + [f"{recording.who(p)}'s view" for p in range(n)]
    return {
        "title": title or recording.start.name,
        "game": recording.start.name,
        "players": [recording.who(p) for p in range(n)],
        "views": view_labels,
        "steps": [
            {
                "move": None if s.move is None else s.move.text,
                "player": None if s.move is None else s.move.player,
                "who": None if s.move is None else recording.who(s.move.player),
                "action": None if s.move is None else s.move.action,
                "status": status(recording, s),
                "pictures": s.pictures,
                "layers": s.layers,
                "position": packed_position(s.position),
            }
            for s in steps
        ],
    }


def packed_position(position: dict) -> str:
    """A position as the page carries it: its JSON gzipped, in base64 (the page unpacks it with the
    browser's DecompressionStream when asked; a position is mostly the same from step to step, but
    each must stand alone to be copied)."""
    text = json.dumps(position, separators=(",", ":")).encode()
    return base64.b64encode(gzip.compress(text, mtime=0)).decode()


def status(recording: GameRecording, step: Step) -> str:
    """The line under a step's move: who is to move, or how the game ended."""
    if step.terminal:
        returns = ", ".join(f"{recording.who(p)} {r:+g}" for p, r in enumerate(step.returns))
        return f"Game over. Returns: {returns}"
    if step.truncated:
        return "Game cut at its length limit (max_decisions): no result"
    return f"{recording.who(step.to_move)} to move"


def replay_page(data: dict, pictures: dict[str, bytes]) -> str:
    """One HTML file, nothing outside it: the pictures are data: URLs inside the page's JSON."""
    payload = dict(
        data,
        pictures={k: "data:image/png;base64," + base64.b64encode(v).decode() for k, v in pictures.items()},
    )
    text = json.dumps(payload, separators=(",", ":")).replace("<", "\\u003c")  # cannot end the <script>
    return fill_page({"title": html.escape(data["title"]), "data": text})


def fill_page(values: dict[str, str]) -> str:
    """PAGE with each {{name}} replaced by values[name] in one pass over PAGE alone: what goes in (a run
    named "{{data}}", a player's name) is never read again as a placeholder."""
    return PLACEHOLDER.sub(lambda m: values[m.group(1)], PAGE)


PLACEHOLDER = re.compile(r"\{\{(\w+)\}\}")


PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Replay: {{title}}</title>
<style>
body { font: 15px/1.4 system-ui, sans-serif; margin: 16px; background: #f4f4f0; color: #222; }
#controls { display: flex; gap: 8px; align-items: center; flex-wrap: wrap; margin: 8px 0; }
button { font-size: 15px; padding: 4px 10px; }
#move { font-weight: 600; font-size: 17px; min-height: 1.4em; }
#status { color: #555; min-height: 1.4em; }
#main { display: flex; gap: 16px; align-items: flex-start; }
#picture { border: 1px solid #999; max-width: 100%; image-rendering: auto; }
#moves { position: relative; max-height: 80vh; overflow: auto; margin: 0; padding-left: 3.2em; font-size: 13px; min-width: 16em; }
#moves li { cursor: pointer; }
#moves li.current { background: #ffe28a; }
kbd { border: 1px solid #aaa; border-radius: 3px; padding: 0 4px; background: #fff; }
</style></head>
<body>
<h1 id="title"></h1>
<div id="controls">
 <button id="first" title="first step (Home)">&laquo; First</button>
 <button id="back" title="previous move (left arrow)">&#x25C0; Back</button>
 <button id="next" title="next move (right arrow)">Next &#x25B6;</button>
 <button id="last" title="last step (End)">Last &raquo;</button>
 <span id="counter"></span>
 <button id="copy" title="copy this step's position (JSON for Game.from_dict, env.reset(options={'state': ...}) or play --from)">Copy position</button>
 <label>View: <select id="view"></select></label>
 <span><kbd>&larr;</kbd> <kbd>&rarr;</kbd> step, <kbd>Home</kbd> <kbd>End</kbd>, <kbd>v</kbd> next view</span>
</div>
<div id="move"></div>
<div id="status"></div>
<div id="main">
 <canvas id="picture" width="1" height="1"></canvas>
 <ol id="moves" start="0"></ol>
</div>
<script type="application/json" id="replay-data">{{data}}</script>
<script>
"use strict";
const data = JSON.parse(document.getElementById("replay-data").textContent);
const $ = (id) => document.getElementById(id);
const last = data.steps.length - 1;
const canvas = $("picture"), context = canvas.getContext("2d");
const decoded = {};  // picture key -> a promise of the decoded image
let step = 0, view = 0, drawing = 0;
$("title").textContent = "Replay: " + data.title;
data.views.forEach((label, i) => $("view").add(new Option(label, i)));
data.steps.forEach((s, i) => {
  const li = document.createElement("li");
  li.textContent = s.move === null ? "Start of the game" : s.who + ": " + s.move;
  li.onclick = () => show(i, view);
  $("moves").appendChild(li);
});
function show(newStep, newView) {
  step = Math.max(0, Math.min(last, newStep));
  view = Math.max(0, Math.min(data.views.length - 1, newView));
  const s = data.steps[step];
  draw(s.layers[view], step + "," + view);
  $("move").textContent = s.move === null ? "Start of the game" : "Move " + step + ": " + s.who + " \\u2014 " + s.move;
  $("status").textContent = s.status;
  $("counter").textContent = "Step " + step + " / " + last;
  $("view").value = String(view);
  $("first").disabled = $("back").disabled = step === 0;
  $("next").disabled = $("last").disabled = step === last;
  const items = $("moves").children;
  for (let i = 0; i < items.length; i++) items[i].className = i === step ? "current" : "";
  scrollTo(items[step]);
  history.replaceState(null, "", "#step=" + step + "&view=" + view);
}
function scrollTo(item) {  // keep the move in sight inside the list, without scrolling the page
  const list = $("moves");
  if (item.offsetTop < list.scrollTop) list.scrollTop = item.offsetTop;
  else if (item.offsetTop + item.offsetHeight > list.scrollTop + list.clientHeight)
    list.scrollTop = item.offsetTop + item.offsetHeight - list.clientHeight;
}
function decode(key) {
  if (!decoded[key]) {
    const image = new Image();
    image.src = data.pictures[key];
    decoded[key] = image.decode().then(() => image);
  }
  return decoded[key];
}
async function draw(layers, shown) {  // a whole picture, then the pixels later steps changed
  const token = ++drawing;
  canvas.dataset.shown = "";
  const images = await Promise.all(layers.map(decode));
  if (token !== drawing) return;  // a later step was asked for meanwhile
  canvas.width = images[0].naturalWidth;
  canvas.height = images[0].naturalHeight;
  for (const image of images) context.drawImage(image, 0, 0);
  canvas.dataset.shown = shown;
}
function fromHash() {
  const q = new URLSearchParams(location.hash.slice(1));
  show(parseInt(q.get("step") || "0", 10) || 0, parseInt(q.get("view") || "0", 10) || 0);
}
async function positionText(i) {  // the step's position: gzipped JSON in base64
  const bytes = Uint8Array.from(atob(data.steps[i].position), (c) => c.charCodeAt(0));
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
  return await new Response(stream).text();
}
$("copy").onclick = async () => {
  const text = await positionText(step);
  try { await navigator.clipboard.writeText(text); $("copy").textContent = "Copied"; }
  catch (e) {  // no clipboard (a file:// page in some browsers): offer the file instead
    const link = document.createElement("a");
    link.href = URL.createObjectURL(new Blob([text], {type: "application/json"}));
    link.download = "position-step" + step + ".json";
    link.click();
    $("copy").textContent = "Downloaded";
  }
  setTimeout(() => { $("copy").textContent = "Copy position"; }, 1500);
};
$("first").onclick = () => show(0, view);
$("back").onclick = () => show(step - 1, view);
$("next").onclick = () => show(step + 1, view);
$("last").onclick = () => show(last, view);
$("view").onchange = () => show(step, parseInt($("view").value, 10));
document.addEventListener("keydown", (e) => {
  if (e.target === $("view") && (e.key === "ArrowUp" || e.key === "ArrowDown")) return;
  const keys = {ArrowRight: step + 1, ArrowLeft: step - 1, Home: 0, End: last};
  if (e.key in keys) { show(keys[e.key], view); e.preventDefault(); }
  else if (e.key === "v") show(step, (view + 1) % data.views.length);
});
window.addEventListener("hashchange", fromHash);
fromHash();
</script>
</body></html>
"""
