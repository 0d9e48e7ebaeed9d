"""`bergen play`: a person plays a match against an engine, in the terminal.

`PlaySession` holds the match (the same deals as `engines.play_match` for the seed), the
engine's seats (an `engines.Table`, whose searches never see the person's hand), and a stack
of snapshots for `undo`. The command line feeds it lines of input and prints what it
returns; nothing here reads the terminal, so it is tested with scripted input.
"""
from __future__ import annotations

import copy

from .engines import EngineSpec, Table
from .errors import BergenError
from .notation import format_hand, format_line, parse_move, parse_move_text
from .playout import MatchLog, RoundLog, deal
from .record import write_record
from .rng import PLAY_STREAM, Rng
from .rules import Rules
from .state import DRAW, PASS, State, move_str

HELP = ("moves: a-b:L or a-b:R (a bare a-b when it fits one end only); 'hint' asks the engine; "
        "'undo' takes back your last play; 'moves' lists your legal plays; 'quit' saves and stops")


class PlaySession:
    def __init__(self, rules: Rules, engine: EngineSpec, seat: int = 0, seed: int = 0,
                 hint_engine: EngineSpec | None = None):
        self.rules, self.engine, self.seat, self.seed = rules, engine, seat, seed
        # Hints come from the opponent's search, or ISMCTS when the opponent does not search.
        self.hint_engine = hint_engine or (engine if engine.simple_code is None
                                           else EngineSpec("ismcts", {"iterations": 5000}))
        self.deal_rng = Rng(seed)
        self.table = Table(rules, [None if s == seat else engine for s in range(rules.players)],
                           seed, Rng(seed ^ PLAY_STREAM))
        self.log = MatchLog(rules, (0,) * rules.n_sides)
        self.undo_stack = []
        self._new_round()

    # ---- the match ------------------------------------------------------------------------
    def _new_round(self):
        hands, reserve = deal(self.rules, self.deal_rng)
        scores = self.log.rounds[-1].scores if self.log.rounds else self.log.start_scores
        self.state = State.deal(self.rules, hands, reserve, scores)
        self.round = RoundLog(hands, reserve, [])
        self.log.rounds.append(self.round)
        self.table.new_round(self.state)
        self.undo_stack = []

    @property
    def over(self) -> bool:
        return self.log.winner is not None

    def _apply(self, move: int) -> str:
        """Apply the move of the seat to move; return how it reads."""
        seat = self.state.to_move
        lead = not self.state.led
        tile = self.state.reserve[0] if move == DRAW else -1
        after = self.state.apply(move)
        self.table.observe(seat, move, after)
        self.round.events.append((seat, move, tile))
        self.state = after
        who = "you" if seat == self.seat else f"seat {seat}"
        if move == DRAW:
            what = f"{who} drew" + (f" {format_hand(1 << tile)[0]}" if seat == self.seat else "")
        elif move == PASS:
            what = f"{who} passed"
        else:
            what = f"{who} played {move_str(move, lead)}"
        gained = [p for p in after.last_points]
        if any(gained):
            what += "  (" + ", ".join(f"side {s} +{p}" for s, p in enumerate(gained) if p) + ")"
        return what

    def advance(self) -> list:
        """Play every action until the person has a choice (or the match ends): the engine's
        moves and all forced actions. Returns the lines to show."""
        out = []
        while not self.over:
            if self.state.ended is not None:
                out.append(f"round over ({self.state.ended}): scores "
                           f"{'-'.join(map(str, self.state.scores))}")
                self.round.end, self.round.scores = self.state.ended, self.state.scores
                if self.state.winner is not None:
                    self.log.scores, self.log.winner = self.state.scores, self.state.winner
                    you = self.rules.side_of(self.seat) == self.state.winner
                    out.append("you win the match" if you else
                               f"side {self.state.winner} wins the match")
                    break
                self._new_round()
                out.append(f"round {len(self.log.rounds) - 1}")
                continue
            seat = self.state.to_move
            moves = self.state.legal_moves()
            if seat == self.seat:
                if len(moves) > 1:
                    break
                out.append(self._apply(moves[0]))
            else:
                out.append(self._apply(self.table.choose(self.state, moves)))
        return out

    # ---- the person's input ---------------------------------------------------------------
    def legal(self) -> list:
        lead = not self.state.led
        return [move_str(m, lead) for m in self.state.legal_moves()]

    def play(self, text: str) -> list:
        """The person's move in FORMATS.md notation; an illegal one raises BergenError and
        changes nothing."""
        if self.state.to_move != self.seat:
            raise BergenError("it is not your turn")
        tile, _ = parse_move_text(text)
        if not self.state.hands[self.seat] >> tile & 1:
            raise BergenError(f"you do not hold {format_hand(1 << tile)[0]}")
        move = parse_move(text, self.state if self.state.led else None)
        if move not in self.state.legal_moves():
            raise BergenError(f"{text.strip()} is not legal here; legal: {', '.join(self.legal())}")
        self.undo_stack.append((self.state, copy.deepcopy(self.table), len(self.round.events)))
        return [self._apply(move)] + self.advance()

    def undo(self) -> list:
        if not self.undo_stack:
            raise BergenError("nothing to undo in this round")
        self.state, self.table, n_events = self.undo_stack.pop()
        del self.round.events[n_events:]
        return ["took back your last play"]

    def hint(self) -> str:
        """The engine's move for the person, the values of up to four plays, and the
        position as a string (to paste into `bergen best`)."""
        from .position_string import to_string
        from .search import choices, search
        from .viewpoint import load_record_game
        limits, kwargs = self.hint_engine.search_args()
        # The person is to move: the record's viewpoint, seen as that seat alone sees it.
        game = load_record_game(self.record())
        result = search(game.info, limits, seed=self.seed, **kwargs)
        if result.info.get("interrupted"):
            raise KeyboardInterrupt         # Ctrl-C during a hint ends the game (saved)
        rows = ", ".join(f"{m.move} {m.value:+.2f}" for m in choices(result.moves)[:4])
        exact = "; exact" if result.info.get("endgame", {}).get("solved") else ""
        return f"hint: {result.best}   ({rows}{exact})\nposition {to_string(game.position)}"

    def view(self) -> str:
        s = self.state
        line = format_line(s.line) or "(empty)"
        sizes = ", ".join(f"seat {j}: {s.hand_size(j)}" for j in range(self.rules.players)
                          if j != self.seat)
        return (f"scores {'-'.join(map(str, s.scores))} (you are side "
                f"{self.rules.side_of(self.seat)})   reserve {s.reserve_size}   {sizes}\n"
                f"line  {line}\nhand  {' '.join(format_hand(s.hands[self.seat]))}")

    def record(self) -> dict:
        """The match so far as a complete bergen-record/1 (the last round may be unfinished)."""
        return write_record(self.log)
