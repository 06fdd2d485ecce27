"""Documentation generated from the code's own declarations (the games' pages, face docstrings)."""

from __future__ import annotations

import numpy as np

from .layout import ActionGroup


def game_parts(spec, config: dict | None = None) -> list[tuple[str, str, str]]:
    """One game's documentation as (title, note, table) parts, in order: players, actions, observation
    pieces, state, rewards, game type and search defaults (a part without a table has table "")."""
    config = dict(spec.benchmark_config if config is None else config)
    game = spec.new_game(np.random.default_rng(0), **config)
    shown = ", ".join(f"{k}={v}" for k, v in config.items())
    groups = [ActionGroup(*g) for g in game.action_groups()]
    actions = ["| block | first index | count | meaning |", "|---|---|---|---|"]
    actions += [f"| {g.name} | {g.start} | {g.count} | {g.meaning}{_structure(g)} |" for g in groups]
    state = ", ".join(f"`{p.name}`" for p in game.state_layout)
    return [
        ("Players", spec.players_doc, ""),
        (
            "Actions",
            f"{game.num_actions} flat actions with {shown}; the mask selects what the current step allows",
            "\n".join(actions),
        ),
        (
            "Observation",
            f"{game.observation_layout.size} floats with {shown}; seats are relative: 0 is the observer",
            game.observation_layout.markdown(),
        ),
        (
            "State",
            f"`state()`, everything, for centralized critics: {game.state_layout.size} floats, pieces {state}.",
            "",
        ),
        ("Rewards", spec.reward_doc, ""),
        ("Game type", f"`game_type()`, with {shown}: {type_line(game.game_type())}", ""),
        ("Search", f"`search`, unguided: {search_line(spec)}", ""),
    ]


def game_section(spec, config: dict | None = None) -> str:
    """A markdown section for a face's docstring: players, actions, observation pieces and rewards."""
    lines = [f"### {spec.title} (`envs.{spec.name}_v0`, Gymnasium `{spec.gym_id}`)", ""]
    for title, note, table in game_parts(spec, config):
        lines += [f"**{title}:** {_sentence(note)}", ""] + ([table, ""] if table else [])
    return "\n".join(lines)


def game_page_body(spec, config: dict | None = None) -> str:
    """The generated part of a game's documentation page: one second-level heading per part."""
    lines = []
    for title, note, table in game_parts(spec, config):
        lines += [f"## {title}", "", _sentence(note), ""] + ([table, ""] if table else [])
    return "\n".join(lines).rstrip("\n")


def _sentence(text: str) -> str:
    return text if text.endswith((".", ")")) else f"{text}."


def _structure(group: ActionGroup) -> str:
    if group.cells is not None:
        return f" (laid over the cells of `{group.cells}`, {group.depth} per cell)"
    if group.seats:
        return " (one action per seat)" if group.depth == 1 else f" ({group.depth} actions per seat)"
    return ""


def search_line(spec) -> str:
    """The unguided search's defaults for this game (GameSpec.search)."""
    who = "the scripted players" if spec.search.rollout == "scripted" else "uniformly random play"
    opens = "each node opens the scripted player's action first; " if spec.scripted_policy else ""
    return f"{opens}simulated games finished by {who}, {spec.search.simulations} simulations per decision."


def type_line(kind) -> str:
    """One line of documentation for a GameType."""
    teams = {
        "none": "every seat for itself",
        "fixed": "fixed teams",
        "secret": "secret teams, dealt per game",
    }
    return (
        f"{kind.utility.replace('_', '-')}"
        + (f" (the returns add up to {kind.utility_sum:g})" if kind.utility == "constant_sum" else "")
        + f", {teams[kind.teams]}; a return lies in "
        f"[{kind.min_return:g}, {kind.max_return:g}]; at most {kind.max_decisions:,} decisions "
        "(`max_decisions`), then the game is truncated."
    )
