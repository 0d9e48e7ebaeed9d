"""The learned belief model: what the other seats' plays say about their hands, fitted to
records of games.

`inference.TileModel` weighs each tile the playing seat may have held by one hand-set
relation to the play (a missed match, the number opened, a fitting tile passed over). This
model keeps that form, so that the world sampler still draws from it exactly (the weight of
a world is a product over its tiles and groups, `sampler.WorldTable(info, factors)`), and
learns what the relations cannot say: each (play, tile) pair is described by a few binary
features (`FEATURES`: the relation split finer, and its interactions with the play, the tile
and the phase of the round), and the likelihood ratio of the tile being in the player's hand
is `exp(w . x)`, one weight `w` per feature and table shape (2, 3, 4 players, partnerships).

The weights are fitted by `benchmarks/train_belief.py` (a multinomial logistic regression of
where each hidden tile is, given the uniform sampler's chances as offsets and the features
summed over the seats' plays: the same product the sampler draws from) on self-play records,
and shipped as package data (`bergen_search/data/belief_model.json`) with the command that
fitted them and their held-out figures. Evaluating the model needs no library: per play, the
ratio of each of the 28 tiles is computed once and cached (a play seen in one search is seen
again in the next).

The model reads only what the seat saw: the other seats' plays as everyone saw them
(`infoset.ObservedPlay`); the sampler's proofs (`infoset.py`) stay exact and the model only
weighs the worlds they allow.

>>> model = learned_model(Rules())
>>> [name for name in FEATURES][:3]
['missed_triple', 'missed_double', 'opened']
>>> model.relation(ObservedPlay(3, 1, 2, 5, False, False, 0, tile_index(2, 4) * 2, False),
...                tile_index(2, 5))
('missed_double',)
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources

from ..errors import BergenError
from ..game.rules import Rules
from ..game.tiles import DOUBLE_OF, DOUBLES, N_TILES, PIPS, TILES_WITH, popcount, tile_index
from .infoset import ObservedPlay

#: The model file shipped with the package.
MODEL_FILE = "belief_model.json"
MODEL_FORMAT = "bergen-belief-model/1"

#: The binary features of a (play, tile) pair, in the order of the weights. The first six
#: are the relation (exactly one, or none: `TileModel`'s classes, split finer); the rest are
#: added to it.
FEATURES = (
    # the relation of the tile to the play (at most one)
    "missed_triple",      # the tile would have made a 3-point match at the ends (a double end)
    "missed_double",      # ... a 2-point match
    "opened",             # it shows the number the play opened, and did not fit the ends
    "opened_fitting",     # it shows the number opened, and fitted
    "fitting_double",     # a double that fitted the ends, passed over
    "fitting_same_end",   # it fitted the end the seat played on, passed over
    "fitting_other_end",  # it fitted only the other end, passed over
    # modifiers of a fitting tile passed over (the last four relations)
    "fit_scored",         # the play made a match itself (the choice is explained)
    "fit_played_double",  # the play was a double
    "fit_heavy",          # the tile has 9 pips or more
    "fit_early",          # the line held 3 tiles or fewer before the play
    "fit_late",           # the line held 9 tiles or more
    "fit_end_double",     # an end was a double before the play
    # other modifiers
    "left_match",         # the tile would make a match at the ends the play left
    "opened_double",      # the tile is the double of the number the play opened
    "missed_late",        # a missed match with 9 tiles or more on the line
    # the phase alone, for any related tile (a relation above), in two bands
    "late",               # 6 tiles or more on the line before the play
    "line_short",         # the play followed the lead at once (one tile on the line)
)
_INDEX = {name: i for i, name in enumerate(FEATURES)}
_FITTING = frozenset(("opened_fitting", "fitting_double", "fitting_same_end",
                      "fitting_other_end"))


def table_key(rules: Rules) -> str:
    """The model's key for a table shape: '2', '3', '4' or '4p' (partnerships)."""
    return f"{rules.players}{'p' if rules.partnerships else ''}"


def _scoring_tile(left: int, right: int) -> int:
    return DOUBLE_OF[left] if left == right else tile_index(left, right)


def play_relation(d: ObservedPlay, t: int) -> tuple:
    """The names of the features of tile `t` (not the one played, not on the line) at the
    play `d`, in `FEATURES` order; () for a tile the play says nothing about."""
    u, end = d.move >> 1, d.move & 1
    left, right = d.left, d.right
    covered = right if end else left
    opened = PIPS[u] - covered
    new_left, new_right = (left, opened) if end else (opened, right)
    is_double = DOUBLES >> t & 1
    fits = (TILES_WITH[left] | TILES_WITH[right]) >> t & 1
    line = popcount(d.line_mask)
    out = []
    if t == _scoring_tile(left, right):
        triple = left == right or d.left_double or d.right_double
        rel = "missed_triple" if triple else "missed_double"
    elif TILES_WITH[opened] >> t & 1:
        rel = "opened_fitting" if fits else "opened"
    elif fits:
        if is_double:
            rel = "fitting_double"
        elif TILES_WITH[covered] >> t & 1:
            rel = "fitting_same_end"
        else:
            rel = "fitting_other_end"
    else:
        rel = ""
    if rel:
        out.append(rel)
    if rel in _FITTING:
        if new_left == new_right:
            out.append("fit_scored")
        if DOUBLES >> u & 1:
            out.append("fit_played_double")
        if PIPS[t] >= 9:
            out.append("fit_heavy")
        if line <= 3:
            out.append("fit_early")
        if line >= 9:
            out.append("fit_late")
        if d.left_double or d.right_double:
            out.append("fit_end_double")
    left_match = _scoring_tile(new_left, new_right)
    if t == left_match and not (d.line_mask | 1 << u) >> t & 1:
        out.append("left_match")
    if t == DOUBLE_OF[opened] and rel in ("opened", "opened_fitting"):
        out.append("opened_double")
    if rel in ("missed_triple", "missed_double") and line >= 9:
        out.append("missed_late")
    if out:
        if line >= 6:
            out.append("late")
        if line == 1:
            out.append("line_short")
    return tuple(sorted(out, key=_INDEX.__getitem__))


@dataclass(frozen=True)
class LearnedModel:
    """A fitted weight per feature (`FEATURES`) for one table shape: a play's likelihood
    ratio for a tile is exp(sum of the weights of its features). It has `inference`'s model
    interface (`relation`, `ratio`, `play_ratios`), so `inference.tile_factors` weighs the
    sampler's groups with it exactly as with `TileModel`."""
    weights: tuple
    key: str = "2"
    _cache: dict = field(default_factory=dict, compare=False, hash=False, repr=False)

    def __post_init__(self):
        if len(self.weights) != len(FEATURES) or not all(
                isinstance(w, (int, float)) and math.isfinite(w) and abs(w) <= 20
                for w in self.weights):
            raise BergenError(f"a belief model needs {len(FEATURES)} finite weights in "
                              f"-20..20", field="weights")

    def relation(self, d: ObservedPlay, t: int) -> tuple:
        return play_relation(d, t)

    def ratio(self, relation: tuple) -> float:
        if not relation:
            return 1.0
        return math.exp(sum(self.weights[_INDEX[name]] for name in relation))

    def play_ratios(self, d: ObservedPlay) -> tuple:
        """The ratio of each of the 28 tiles at the play `d` (1.0 where it says nothing: the
        tile played and those on the line included), computed once per play."""
        out = self._cache.get(d)
        if out is None:
            if len(self._cache) > 4096:
                self._cache.clear()
            blocked = d.line_mask | 1 << (d.move >> 1)
            out = tuple(1.0 if blocked >> t & 1 else self.ratio(play_relation(d, t))
                        for t in range(N_TILES))
            self._cache[d] = out
        return out


def check_model_data(data) -> dict:
    """The model file's document checked: its format, the feature names the code knows, one
    weight vector per table shape."""
    if not isinstance(data, dict) or data.get("format") != MODEL_FORMAT:
        raise BergenError(f"a belief model must be a {MODEL_FORMAT} document", field="format")
    if tuple(data.get("features", ())) != FEATURES:
        raise BergenError("the belief model's features are not this version's",
                          field="features")
    models = data.get("models")
    if not isinstance(models, dict) or not models:
        raise BergenError("the belief model has no weights", field="models")
    for key, m in models.items():
        LearnedModel(tuple(m.get("weights", ())) if isinstance(m, dict) else (), key)
    return data


@lru_cache(maxsize=1)
def model_data() -> dict:
    """The fitted weights shipped with the package (`bergen_search/data/belief_model.json`,
    written by `benchmarks/train_belief.py`)."""
    text = resources.files("bergen_search").joinpath("data", MODEL_FILE).read_text()
    return check_model_data(json.loads(text))


@lru_cache(maxsize=8)
def learned_model(rules: Rules) -> LearnedModel:
    """The shipped model for `rules`' table shape (the weights of 2, 3, 4 players or
    partnerships; the rule variants share their shape's weights: they were fitted on the
    default rules)."""
    models = model_data()["models"]
    key = table_key(rules)
    if key not in models:
        key = str(rules.players) if str(rules.players) in models else "2"
    return LearnedModel(tuple(models[key]["weights"]), key)
