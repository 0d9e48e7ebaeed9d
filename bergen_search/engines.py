"""Engines and the matches they play: `random`, `greedy`, and the searches `ismcts` and
`expectimax` with their settings (`ismcts:iterations=2000`, `expectimax:worlds=64,depth=6`).

A search engine sees only its own information set (built by an `Observer` that reads the
public events and its own hand), never the other hands.

>>> parse_engine_spec("ismcts:iterations=500")
EngineSpec(name='ismcts', params={'iterations': 500})
"""
from __future__ import annotations

from dataclasses import dataclass, field

from .errors import BergenError
from .playout import SIMPLE_ENGINES, MatchLog, RoundLog, choose, deal
from .rng import PLAY_STREAM, Rng, derive_seed
from .rules import Rules
from .state import DRAW, State

#: name -> {setting: type} for every engine the program knows.
ENGINE_SETTINGS = {
    "random": {},
    "greedy": {},
    "ismcts": {"iterations": int, "time": float, "exploration": float, "objective": str,
               "workers": int},
    "expectimax": {"worlds": int, "time": float, "depth": int, "playouts": int,
                   "objective": str, "workers": int},
}
#: XORed into a match's seed to seed its searches.
SEARCH_STREAM = 0x2545F4914F6CDD1D


@dataclass(frozen=True)
class EngineSpec:
    name: str
    params: dict = field(default_factory=dict)

    @property
    def simple_code(self):
        """The core's code for the engines that need no search, else None."""
        return SIMPLE_ENGINES.get(self.name)

    def __str__(self) -> str:
        if not self.params:
            return self.name
        return self.name + ":" + ",".join(f"{k}={v}" for k, v in self.params.items())

    def search_args(self):
        """(Limits, keyword arguments) of `search.search` for a search engine."""
        from .search import Limits
        p = dict(self.params)
        budget = p.pop("iterations", None) if self.name == "ismcts" else p.pop("worlds", None)
        seconds = p.pop("time", None)
        if budget is None and seconds is None:
            budget = 2000 if self.name == "ismcts" else 64
        return Limits(iterations=budget, time=seconds), dict(algorithm=self.name, **p)


def parse_engine_spec(text: str) -> EngineSpec:
    """Parse `name` or `name:key=value,key=value`."""
    name, _, rest = text.strip().partition(":")
    if name not in ENGINE_SETTINGS:
        raise BergenError(f"unknown engine {name!r} (known: {', '.join(ENGINE_SETTINGS)})")
    settings = ENGINE_SETTINGS[name]
    params = {}
    for item in filter(None, (p.strip() for p in rest.split(","))):
        key, eq, value = item.partition("=")
        if not eq or key not in settings:
            known = ", ".join(settings) or "none"
            raise BergenError(f"engine {name!r}: bad setting {item!r} (settings: {known})")
        try:
            params[key] = settings[key](value)
        except ValueError:
            raise BergenError(f"engine {name!r}: setting {key} needs a {settings[key].__name__}, "
                              f"got {value!r}") from None
        if key in ("iterations", "worlds", "depth", "workers") and params[key] < 1:
            raise BergenError(f"engine {name!r}: {key} must be at least 1")
        if key == "time" and not params[key] > 0:
            raise BergenError(f"engine {name!r}: time must be positive")
        if key == "objective" and value not in ("points", "match"):
            raise BergenError(f"engine {name!r}: objective must be points or match")
    return EngineSpec(name, params)


def parse_engine_list(text: str, players: int) -> list:
    """`SPEC[,SPEC...]` one per seat, or one for all seats. Settings inside a spec are joined
    with ',' too, so specs are split where a new engine name starts."""
    parts, current = [], None
    for item in (p.strip() for p in text.split(",")):
        head = item.partition(":")[0]
        if current is None or head in ENGINE_SETTINGS:
            if current is not None:
                parts.append(current)
            current = item
        else:
            current += "," + item
    if current is not None:
        parts.append(current)
    specs = [parse_engine_spec(p) for p in parts]
    if len(specs) == 1:
        specs *= players
    if len(specs) != players:
        raise BergenError(f"--engines gives {len(specs)} engines for {players} seats "
                          f"(give one for all seats or one per seat)")
    return specs


def play_match(rules: Rules, specs, seed: int, start_scores=None, backend=None) -> MatchLog:
    """A whole match between engines. With only `random` and `greedy` it is the backend's
    `play_match` (the same match on both backends); with a search engine the match is driven
    here, with the same deals, and each search sees only its own seat's information."""
    codes = [s.simple_code for s in specs]
    if all(c is not None for c in codes):
        if backend is None:
            from .backend import ACTIVE as backend
        return backend.play_match(rules, codes, seed, start_scores)
    from .infoset import Observer
    from .search import search
    deal_rng, play_rng = Rng(seed), Rng(seed ^ PLAY_STREAM)
    scores = tuple(start_scores) if start_scores is not None else (0,) * rules.n_sides
    log = MatchLog(rules, scores)
    decision = 0
    while True:
        hands, reserve = deal(rules, deal_rng)
        state = State.deal(rules, hands, reserve, scores)
        rnd = RoundLog(hands, reserve, [])
        observers = {s: Observer(rules, {s}, state) for s in range(rules.players)
                     if codes[s] is None}
        while state.ended is None:
            moves = state.legal_moves()
            seat = state.to_move
            if len(moves) == 1 or codes[seat] is not None:
                m = choose(codes[seat] or 0, state, moves, play_rng)
            else:
                limits, kwargs = specs[seat].search_args()
                info = observers[seat].infoset(seat)
                result = search(info, limits, seed=derive_seed(seed ^ SEARCH_STREAM, decision),
                                **kwargs)
                decision += 1
                m = result.moves[0].code
            tile = state.reserve[0] if m == DRAW else -1
            after = state.apply(m)
            for obs in observers.values():
                obs.step(seat, m, after)
            rnd.events.append((seat, m, tile))
            state = after
        rnd.end, rnd.scores = state.ended, state.scores
        log.rounds.append(rnd)
        scores = state.scores
        if state.winner is not None:
            log.scores, log.winner = scores, state.winner
            return log
