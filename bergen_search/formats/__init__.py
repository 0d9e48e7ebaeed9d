"""Documents in and out: notation (`Move`, `Line`), the `bergen-record/1` record, the
`bergen-position/1` position and its string (`bergen1/...`), and `load`, which reads any of
them as what the seat to move knows (a `Game`).

>>> game = load("bergen1/2/4,7/0/0-3,1-2,2-5,5-6/1-1-4-4-6-3/4,5/14/1:14")
>>> game.info.seat, str(game.position.hand_sizes), to_string(game.position)[:9]
(0, '(4, 5)', 'bergen1/2')
"""
from .game import Game, load, load_game
from .notation import Line, Move, parse_line, parse_move
from .position import Position, parse_position, position_from_flags, write_position
from .position_string import parse_string, to_string
from .record import Record, parse_record
from .record_io import load_record, load_records, write_record
from .replay import events, replay

__all__ = ["Game", "Line", "Move", "Position", "Record", "events", "load", "load_game",
           "load_record", "load_records", "parse_line", "parse_move", "parse_position",
           "parse_record", "parse_string", "position_from_flags", "replay", "to_string",
           "write_position", "write_record"]
