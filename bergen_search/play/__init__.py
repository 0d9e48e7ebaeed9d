"""Engines playing: their specs (`greedy`, `ismcts:time=0.1`, ...), their seats at a match
(each search seeing only its own seat's information), whole matches, self-play, the arena of
duplicate sets with the luck of the draws taken out, and `bench`, the throughput and the
search signature.

>>> from bergen_search.game import Rules
>>> log = play_engines(Rules(), parse_engine_list("greedy,random", 2), seed=3)
>>> log.winner in (0, 1)
True
"""
from .arena import ArenaResult, run_arena
from .engines import EngineSpec, parse_engine_list, parse_engine_spec
from .seats import Seats, play_engines
from .selfplay import selfplay

__all__ = ["ArenaResult", "EngineSpec", "Seats", "parse_engine_list", "parse_engine_spec",
           "play_engines", "run_arena", "selfplay"]
