"""`bergen play`'s session: a person against an engine. `PlaySession` never reads the
terminal: the command feeds it lines."""
from __future__ import annotations

import copy

from ..errors import BergenError
from ..formats.game import load_record_game
from ..formats.notation import format_hand, format_line, parse_move, parse_move_text
from ..formats.position_string import to_string
from ..formats.record_io import to_record, write_record
from ..game.match import Match
from ..game.rules import Rules
from ..game.state import DRAW, PASS, State, mirror_twins, move_str
from ..play.engines import EngineSpec
from ..play.seats import Seats
from ..search.api import choices
from ..views.search import gap_text, move_text, scores_text, value_text

HELP = ("moves: a-b:L or a-b:R (a bare a-b when it fits one end only, or both ends give the same "
        "position mirrored); "
        "'hint' asks the engine; 'undo' takes back your last play; 'moves' lists your legal "
        "plays; 'quit' saves and stops")


class PlaySession:
    def __init__(self, rules: Rules, engine: EngineSpec, seat: int = 0, seed: int = 0,
                 hint_engine: EngineSpec | None = None):
        self.rules, self.engine, self.seat, self.seed = rules, engine, seat, seed
        # Hints come from the opponent's search, or ISMCTS when the opponent does not search.
        self.hint_engine = hint_engine or (engine if engine.simple_code is None
                                           else EngineSpec("ismcts", {"iterations": 5000}))
        specs = [None if s == seat else engine for s in range(rules.players)]
        self.match = Match(rules, seed, seats=lambda rng: Seats(rules, specs, seed, rng))
        self.undo_stack = []

    @property
    def state(self) -> State:
        return self.match.state

    @property
    def log(self):
        return self.match.log

    @property
    def over(self) -> bool:
        return self.match.over

    def _describe(self, before: State, move: int, after: State) -> str:
        seat = before.to_move
        who = "you" if seat == self.seat else f"seat {seat}"
        if move == DRAW:
            tile = after.last_drawn
            what = f"{who} drew" + (f" {format_hand(1 << tile)[0]}" if seat == self.seat else "")
        elif move == PASS:
            what = f"{who} passed"
        else:
            what = f"{who} played {move_str(move, not before.led)}"
        gained = after.last_points
        if any(gained):
            what += "  (" + ", ".join(f"side {s} +{p}" for s, p in enumerate(gained) if p) + ")"
        return what

    def _persons_choice(self, state: State, moves: list) -> bool:
        return state.to_move == self.seat and len(moves) > 1

    def advance(self) -> list:
        """Play every action until the person has a choice or the match ends; the lines."""
        out = []
        match = self.match
        while not self.over:
            state = match.play_round(
                until=self._persons_choice,
                on_action=lambda before, move, after: out.append(
                    self._describe(before, move, after)))
            if state.ended is None:
                break
            out.append(f"round over ({state.ended}): scores {scores_text(state.scores)}")
            if match.end_round():
                you = self.rules.side_of(self.seat) == state.winner
                out.append("you win the match" if you else f"side {state.winner} wins the match")
                break
            match.new_round()
            self.undo_stack = []
            out.append(f"round {len(self.log.rounds)}")
        return out

    def legal(self) -> list:
        lead = not self.state.led
        return [move_str(m, lead) for m in self.state.legal_moves()]

    def play(self, text: str) -> list:
        """The person's move (an illegal one raises BergenError); a bare `a-b` fitting both
        ends as mirror twins is the left one."""
        state = self.state
        if state.to_move != self.seat:
            raise BergenError("it is not your turn")
        tile, end = parse_move_text(text)
        if not state.hands[self.seat] >> tile & 1:
            raise BergenError(f"you do not hold {format_hand(1 << tile)[0]}")
        twins = mirror_twins(state.left, state.right, state.left_double, state.right_double,
                             state.legal_moves()) if state.led and end is None else {}
        move = (tile * 2 if tile * 2 + 1 in twins
                else parse_move(text, state if state.led else None))
        if move not in self.state.legal_moves():
            raise BergenError(f"{text.strip()} is not legal here; legal: {', '.join(self.legal())}")
        match = self.match
        self.undo_stack.append((match.state, copy.deepcopy(match.seats), len(match.round.events)))
        before = match.state
        return [self._describe(before, move, match.apply(move))] + self.advance()

    def undo(self) -> list:
        if not self.undo_stack:
            raise BergenError("nothing to undo in this round")
        match = self.match
        match.state, match.seats, n_events = self.undo_stack.pop()
        del match.round.events[n_events:]
        return ["took back your last play"]

    def hint(self) -> str:
        """The engine's move for the person, with up to four plays' values."""
        args = self.hint_engine.search_args()
        game = load_record_game(to_record(self.log))
        result = args.search(game.info, seed=self.seed)
        if result.info.get("interrupted"):
            raise KeyboardInterrupt         # Ctrl-C during a hint ends the game (saved)
        objective = args.objective
        rows = ", ".join(f"{move_text(m)} {value_text(m.value, objective, 2)} ± "
                         f"{gap_text(m.plus_minus, objective, 2)}"
                         for m in choices(result.moves)[:4])
        exact = "; exact" if result.info.get("endgame", {}).get("solved") else ""
        return (f"hint: {move_text(result.best)}   ({rows}{exact})\n"
                f"position {to_string(game.position)}")

    def view(self) -> str:
        s = self.state
        line = format_line(s.line) or "(empty)"
        sizes = ", ".join(f"seat {j}: {s.hand_size(j)}" for j in range(self.rules.players)
                          if j != self.seat)
        return (f"scores {scores_text(s.scores)} (you are side "
                f"{self.rules.side_of(self.seat)})   reserve {s.reserve_size}   {sizes}\n"
                f"line  {line}\nhand  {' '.join(format_hand(s.hands[self.seat]))}")

    def record(self) -> dict:
        """The match so far as a bergen-record/1."""
        return write_record(self.log)
