"""A scripted Expressions player that reads Suggestions and the guess history from its observation.

It never looks at the engine: everything comes from `observation(p)`, split by the declared layout.
- Guess when a partner's relevant Suggestion leaves few candidates (a "Highest green 8" with only
  green 3 still unseen below it names green 3 for sure); wrong guesses rule cards out.
- Otherwise play the Suggestion that leaves partners the fewest candidates for the cards it implies.
- When a card must be added to Harmony or Agony, give away the card its Suggestions cover least.
"""

from __future__ import annotations

import numpy as np

from .data import HIGHEST, LAST, LOWEST, MORE, NUM_CARDS, NUM_NUMBERS, SUGGESTIONS, setup_chart
from .rules import may_hold, must_hold, observation_layout

_CARDS = np.arange(NUM_CARDS)
_COLOR = _CARDS // NUM_NUMBERS
_NUMBER = _CARDS % NUM_NUMBERS
SAME_COLOR = _COLOR[:, None] == _COLOR[None, :]
SAME_NUMBER = _NUMBER[:, None] == _NUMBER[None, :]
HIGHER = SAME_COLOR & (_NUMBER[None, :] > _NUMBER[:, None])  # HIGHER[c] = same color, above c
LOWER = SAME_COLOR & (_NUMBER[None, :] < _NUMBER[:, None])


class ScriptedExpressionsPolicy:
    """policy(observation, action_mask) -> action, for any seat of a game with `config.num_players`."""

    def __init__(self, config, guess_threshold: float = 0.34):
        self.n = config.num_players
        self.dealt = setup_chart(self.n, getattr(config, "mode", "normal"))[0]  # hand_sizes' unit
        self.layout = observation_layout(self.n, getattr(config, "knowledge", False))
        self.guess_threshold = guess_threshold
        self.guess_base = len(SUGGESTIONS) * NUM_CARDS
        self.choose_base = self.guess_base + (self.n - 1) * NUM_CARDS

    def __call__(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        obs = self.layout.split(observation)
        mask = np.asarray(action_mask, dtype=bool)
        choose = mask[self.choose_base :]
        if choose.any() and not mask[: self.choose_base].any():
            return self.choose_base + self._card_to_give(obs, choose)
        if choose.any():  # no one else holds a card: adding to Harmony beats any Suggestion
            return self.choose_base + self._card_to_give(obs, choose)
        face_up = (obs["harmony"] + obs["agony"] + obs["suggestions"].sum(axis=(0, 1))) > 0
        guess, p_guess = self._best_guess(obs, mask, face_up)
        play = mask[: self.guess_base]
        if guess is not None and (p_guess >= self.guess_threshold or not play.any()):
            return guess
        if play.any():
            return self._best_play(obs, play, face_up)
        return int(np.flatnonzero(mask)[0])

    # ----- guessing --------------------------------------------------------------------------
    def _candidates(self, obs, face_up: np.ndarray, unseen: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Per relative seat, the cards it may hold (hidden from us, not ruled out in public) and, per
        card, 1/k for the smallest set of k of them it must hold one of (its relevant Suggestions):
        the engine's own public deductions (`rules.may_hold`, `rules.must_hold`), read from the
        history in the observation, less our own hand."""
        may = may_hold(
            obs["suggestions"], obs["past_suggestions"], obs["guessed_wrong"], obs["left_hand"], face_up
        )
        may &= unseen
        return may, must_hold(obs["suggestions"], may)

    def _best_guess(self, obs, mask, face_up) -> tuple[int | None, float]:
        unseen = ~face_up & (obs["hand"] == 0)
        total_unseen = max(int(unseen.sum()), 1)
        best, best_p = None, -1.0
        guesses = mask[self.guess_base : self.choose_base].reshape(self.n - 1, NUM_CARDS)
        allowed, required = self._candidates(obs, face_up, unseen)
        for r in range(1, self.n):
            legal = guesses[r - 1]
            if not legal.any():
                continue
            hand_cards = obs["hand_sizes"][r] * self.dealt
            base = min(1.0, hand_cards / total_unseen)
            prob = np.where(allowed[r], base, 0.0)
            prob = np.maximum(prob, required[r].astype(prob.dtype))  # as precise as the estimate
            prob = np.where(legal, prob, -1.0)
            c = int(np.argmax(prob))
            if prob[c] > best_p:
                best, best_p = self.guess_base + (r - 1) * NUM_CARDS + c, float(prob[c])
        return best, best_p

    # ----- playing a Suggestion --------------------------------------------------------------
    def _best_play(self, obs, play: np.ndarray, face_up: np.ndarray) -> int:
        """The legal Suggestion whose implied card set is smallest for partners (most guessable)."""
        hand = obs["hand"] > 0
        legal = np.flatnonzero(play)
        best, best_score = int(legal[0]), -np.inf
        for action in legal:
            kind, card = divmod(int(action), NUM_CARDS)
            rest = hand.copy()
            rest[card] = False
            hidden = ~face_up.copy()
            hidden[card] = False
            if kind in (HIGHEST, LOWEST):
                implied = hidden & SAME_COLOR[card] & ~(HIGHER[card] if kind == HIGHEST else LOWER[card])
            elif kind == MORE:
                implied = hidden & SAME_NUMBER[card]
            else:
                implied = np.zeros(NUM_CARDS, dtype=bool)
            size = int(implied.sum())
            holds = int((rest & implied).sum())
            # a relevant hint with few candidates is worth most; a hint that is discarded at once is worth
            # nothing (the card goes to Agony), so a "Last" card is played only when nothing better exists
            score = holds / size if size and holds else (0.05 if kind == LAST else -1.0)
            score -= 0.001 * (card % NUM_NUMBERS)  # stable tie-break
            if score > best_score:
                best, best_score = int(action), score
        return best

    # ----- giving a card ---------------------------------------------------------------------
    def _card_to_give(self, obs, legal: np.ndarray) -> int:
        """Give away the card our own Suggestions rely on least (keep hinted cards for partners)."""
        sugg = obs["suggestions"][0] > 0
        support = np.zeros(NUM_CARDS)
        hand = obs["hand"] > 0
        for kind, rows in ((HIGHEST, SAME_COLOR), (LOWEST, SAME_COLOR), (MORE, SAME_NUMBER)):
            for c in np.flatnonzero(sugg[kind]):
                group = rows[c] & hand
                support += group / max(int(group.sum()), 1)
        cards = np.flatnonzero(legal)
        return int(cards[np.argmin(support[cards])])
