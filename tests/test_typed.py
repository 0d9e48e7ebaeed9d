"""Typed values inside, text at the edge: a search's and an analysis's moves are
`notation.Move`s, lines `notation.Line`s; only the views write them, and nothing parses text
the program produced. The JSON documents are what they were before the change, byte for byte
(the golden files were written by the program before it: tests/data/golden/)."""
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from bergen_search.analysis.review import Annotated, analyze
from bergen_search.cli import main
from bergen_search.errors import BergenError
from bergen_search.formats import notation
from bergen_search.formats.game import load, load_game
from bergen_search.formats.notation import Line, Move
from bergen_search.formats.record import parse_record
from bergen_search.formats.record_io import load_record, to_record, write_record
from bergen_search.game.rules import Rules
from bergen_search.game.state import DRAW, PASS
from bergen_search.game.tiles import tile_index
from bergen_search.play.engines import parse_engine_list
from bergen_search.play.seats import play_engines
from bergen_search.search import backend
from bergen_search.search.api import Limits, choices, search
from bergen_search.views import report
from bergen_search.views import search as views

GOLDEN = Path(__file__).parent / "data" / "golden"


def pastes_back(x):
    return eval(repr(x), {"Move": Move, "Line": Line}) == x


# ---- Move: every action of the core ---------------------------------------------------------
def test_move_stands_for_the_draw_and_the_pass():
    for text, code in (("draw", DRAW), ("pass", PASS)):
        m = Move.parse(text)
        assert m is Move.from_code(code) and m.code == code and str(m) == text
        assert repr(m) == f"Move.parse({text!r})" and pastes_back(m)
        assert m.kind == text and m.tile is None and not m.is_play and not m.is_double
        assert Move.parse(f"  {text} ") is m
    assert Move.DRAW != Move.PASS and len({Move.DRAW, Move.PASS, Move.parse("draw")}) == 2
    # Ordered as the core's move ints (the lead before the same tile at the left end).
    moves = [Move.from_code(c, lead) for c in (PASS, DRAW, 9, 8, 0) for lead in (False, True)]
    assert [m.code for m in sorted(moves)] == sorted(m.code for m in moves)
    assert sorted(moves)[:2] == [Move(0), Move(0, 0)]
    assert Move(4) < Move(4, 0) < Move(4, 1) < Move(5) < Move.DRAW < Move.PASS
    assert max(Move.parse("6-6:R"), Move.DRAW) is Move.DRAW
    with pytest.raises(TypeError):
        Move(4) < "0-4"
    # A play is as it was: Move(tile, end), the lead without an end.
    t = tile_index(3, 5)
    assert Move(t, 1) == Move.parse("5-3:R") and Move(t).is_lead and Move(t, 0).code == t * 2
    assert Move.from_code(t * 2 + 1) == Move(t, 1) and Move.from_code(t * 2, lead=True) == Move(t)
    for code in list(range(56)) + [DRAW, PASS]:
        for lead in (False, True):
            m = Move.from_code(code, lead)
            assert m.code == (code & ~1 if lead and code < DRAW else code) and pastes_back(m)


@pytest.mark.parametrize("args", [(28, 0), (-1, None), (3, 2), (True, 0), (None, None),
                                  (3, None, "draw"), (None, None, "resign"), ("3-5", 0)])
def test_a_move_that_is_no_action_is_refused(args):
    with pytest.raises(BergenError):
        Move(*args)


# ---- the search ---------------------------------------------------------------------------
@pytest.fixture(scope="module")
def twinned():
    """examples/decision.json: every play has a mirror twin at the other end."""
    game = load(open("examples/decision.json").read())
    return game, search(game.info, Limits(iterations=1500), seed=2)


def test_a_search_holds_moves_whose_repr_pastes_back_and_choices_that_fold_twins(twinned):
    _, res = twinned
    assert isinstance(res.best, Move) and pastes_back(res.best)
    assert res.best == res.moves[0].move and res.best.code == res.moves[0].code
    for m in res.moves:
        assert isinstance(m.move, Move) and pastes_back(m.move) and m.move.code == m.code
        if m.twin is not None:
            assert isinstance(m.twin, Move) and m.twin.tile == m.move.tile and pastes_back(m.twin)
    assert set(res.info["sides"]) == {m.move for m in res.moves}
    assert all(isinstance(k, Move) and isinstance(v, Move) for k, v in res.info["twins"].items())
    assert res.info["twins"] == {m.move: m.twin for m in res.moves if m.twin is not None}
    # the choices say they stand for both twins
    rows = choices(res.moves)
    assert len(rows) == 5 and all(r.both_ends and r.move.end == 0 for r in rows)
    assert [views.move_text(r) for r in rows] == [f"{r.move}"[:-2] + ":L/R" for r in rows]
    # A move without a twin is written as it is; the JSON rows never fold twins.
    assert [views.move_text(m) for m in res.moves] == [str(m.move) for m in res.moves]
    doc = views.move_rows(res.moves)
    assert [d["move"] for d in doc] == [str(m.move) for m in res.moves]
    assert [d.get("twin") for d in doc] == [None if m.twin is None else str(m.twin)
                                           for m in res.moves]


def test_the_exact_endgame_keys_its_solution_by_move():
    from bergen_search.search import endgame
    if endgame.compiled() is None or backend.SEARCH.name != "core":
        pytest.skip("the exact endgame needs the compiled core")
    info = load_game(open("examples/endgame.json").read())
    res = search(info, Limits(iterations=2000), seed=1)
    assert res.info["endgame"]["solved"] and isinstance(res.best, Move)
    assert all(isinstance(m, Move) for m in res.info["endgame"]["mix"])
    assert set(res.info["sides"]) == {m.move for m in res.moves}
    sol = endgame.solve(endgame.game(info), tolerance=1e-3)
    assert all(isinstance(m, Move) for d in (sol.values, sol.mix, sol.sides) for m in d)
    assert isinstance(sol.choose(0), Move)


# ---- the analysis -------------------------------------------------------------------------
@pytest.fixture(scope="module")
def analysed():
    rec = load_record(open("examples/partial.json").read())
    return analyze(rec, limits=Limits(iterations=300), seed=4)


def test_an_analysis_holds_moves_and_lines(analysed):
    assert analysed.decisions
    for d in analysed.decisions:
        assert isinstance(d.played, Move) and isinstance(d.best, Move)
        assert pastes_back(d.played) and pastes_back(d.best)
        assert all(isinstance(m, Move) for m in d.values) and set(d.values) == set(d.stderrs)
        assert d.played in d.values and d.best in d.values
        out = d.to_json()
        assert out["played"] == str(d.played) and out["best"] == str(d.best)
        assert list(out["values"]) == [str(m) for m in d.values]
    kinds = set()
    for events in analysed.annotated:
        for row in events:
            assert isinstance(row, Annotated)
            assert isinstance(row.action, Move) and pastes_back(row.action)
            assert isinstance(row.line, Line) and pastes_back(row.line)
            kinds.add(row.action.kind)
            if row.action.is_play:
                # The tile just laid is at the end it was laid at (the lead: the whole line).
                assert row.line.tiles[-1 if row.action.end == 1 else 0] == row.action.tile
            if row.decision is not None:
                assert row.action == row.decision.played
    assert kinds == {"play", "draw"}


def _refuse(*_a, **_k):
    raise AssertionError("a view parsed text")


def test_the_views_parse_nothing(analysed, twinned, monkeypatch):
    """With every parser of notation made to fail, the listing, the HTML report and the
    search's documents are written all the same: the views only format."""
    game, res = twinned

    def written():
        return (report.text(analysed), report.html_report([analysed]),
                json.dumps(report.to_json([analysed], None)),
                json.dumps(views.best_document(game, res, seed=2, workers=1,
                                               objective="points", algorithm="ismcts")))
    expected = written()
    for name in ("parse_line", "parse_move_text", "parse_move", "parse_tile", "parse_tiles",
                 "parse_hand"):
        monkeypatch.setattr(notation, name, _refuse)
    for module in (report, views):          # a parser imported by name into a view
        for name in dir(module):
            if name.startswith("parse"):
                monkeypatch.setattr(module, name, _refuse)
    monkeypatch.setattr(notation.Move, "parse", classmethod(_refuse))
    monkeypatch.setattr(notation.Line, "parse", classmethod(_refuse))
    assert written() == expected
    assert "draws" in expected[1] and str(analysed.decisions[0].played) in expected[0]


# ---- the record of a match, without its text -----------------------------------------------
@pytest.mark.parametrize("players", [2, 3, 4])
def test_a_matchs_record_is_built_without_writing_it(players):
    rules = Rules(players=players)
    for seed in range(4):
        log = play_engines(rules, parse_engine_list("greedy", players), seed)
        rec = to_record(log)
        assert rec == parse_record(json.loads(json.dumps(write_record(log))))
        assert rec.to_dict() == write_record(log) and to_record(rec) is rec


# ---- the documents, byte for byte ----------------------------------------------------------
def _drop(o):
    """A document without what the clock and the release change."""
    if isinstance(o, dict):
        return {k: _drop(v) for k, v in o.items()
                if k not in ("seconds", "solve_seconds", "version")}
    if isinstance(o, list):
        return [_drop(x) for x in o]
    return o


@pytest.mark.parametrize("name,args", [
    ("best_decision", ["best", "examples/decision.json", "--seed", "3", "--iterations", "3000",
                       "--json"]),
    ("best_endgame", ["best", "examples/endgame.json", "--seed", "3", "--iterations", "3000",
                      "--json"]),
    ("analyze_partial", ["analyze", "examples/partial.json", "--seed", "5", "--iterations",
                         "400", "--json", "--quiet"]),
])
def test_the_json_documents_are_as_before(name, args, require_compiled):
    from bergen_search.search import endgame
    require_compiled(endgame.compiled(), "_endgame")
    if backend.SEARCH.name != "core":
        pytest.skip("the golden documents are the compiled core's")
    res = CliRunner().invoke(main, args)
    assert res.exit_code == 0, res.stderr
    got = json.dumps(_drop(json.loads(res.stdout)), indent=1) + "\n"
    assert got == (GOLDEN / f"{name}.json").read_text()
