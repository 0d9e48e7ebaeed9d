"""Engines playing: their specs, their seats at a match, whole matches, self-play, the arena
of duplicate sets with the luck of the draws taken out, and `bench`."""
from .arena import ArenaResult, run_arena
from .engines import EngineSpec, parse_engine_list, parse_engine_spec
from .seats import Seats, play_engines
from .selfplay import selfplay

__all__ = ["ArenaResult", "EngineSpec", "Seats", "parse_engine_list", "parse_engine_spec",
           "play_engines", "run_arena", "selfplay"]
