"""`bergen play` with scripted input: illegal moves refused, undo, hint, the saved record."""
import json

import pytest
from click.testing import CliRunner

from bergen_search.cli import main
from bergen_search.cli.session import PlaySession
from bergen_search.errors import BergenError
from bergen_search.formats.replay import replay
from bergen_search.game.rules import Rules
from bergen_search.play.engines import EngineSpec, parse_engine_spec


def _session(seed=3):
    s = PlaySession(Rules(), EngineSpec("greedy"), seat=0, seed=seed)
    s.advance()
    return s


def test_illegal_move_is_refused_and_not_applied():
    s = _session()
    before = (s.state.hands, s.state.line, len(s.match.round.events))
    held = s.state.hands[0]
    not_held = next(t for t in range(28) if not held >> t & 1)
    from bergen_search.game.tiles import tile_str
    with pytest.raises(BergenError, match="do not hold"):
        s.play(tile_str(not_held))
    with pytest.raises(BergenError):
        s.play("7-1")
    assert (s.state.hands, s.state.line, len(s.match.round.events)) == before


@pytest.mark.parametrize("engine", ["greedy", "random", "ismcts:iterations=50",
                                    "expectimax:iterations=4,depth=2"])
def test_undo_restores_the_position_and_the_engine(engine):
    """Undo restores the position, and the engine's random stream, search counter and
    observers: the person's original line gets the same answers."""
    def events_after(s, moves):
        for m in moves:
            if s.over or s.state.to_move != s.seat:
                break
            s.play(m if m in s.legal() else s.legal()[0])
        table = s.match.seats
        return [list(r.events) for r in s.log.rounds], table.decisions, table.rng.state

    for seed in range(4):
        a = PlaySession(Rules(), parse_engine_spec(engine), seat=0, seed=seed)
        b = PlaySession(Rules(), parse_engine_spec(engine), seat=0, seed=seed)
        a.advance(), b.advance()
        if a.over or len(a.legal()) < 2:
            continue
        first, other = a.legal()[0], a.legal()[-1]
        before = (b.state.hands, b.state.line, b.state.scores, len(b.match.round.events))
        b.play(other)
        b.undo()
        assert (b.state.hands, b.state.line, b.state.scores, len(b.match.round.events)) == before
        with pytest.raises(BergenError, match="nothing to undo"):
            b.undo()
        assert events_after(a, [first] * 3) == events_after(b, [first] * 3)


def test_a_session_deals_and_plays_as_the_engines_match():
    """Playing as greedy against greedy is the engines' match of the seed, record for record;
    the record saved replays to the same winner."""
    from bergen_search.formats.record_io import write_record
    from bergen_search.game.policy import greedy_choice
    from bergen_search.game.state import move_str
    from bergen_search.play.seats import play_engines
    for seed in range(3):
        rules, spec = Rules(target=7), parse_engine_spec("greedy")
        want = play_engines(rules, [spec, spec], seed)
        s = PlaySession(rules, spec, seat=1, seed=seed)
        s.advance()
        while not s.over:
            m = greedy_choice(s.state, s.state.legal_moves())
            s.play(move_str(m, not s.state.led))
        assert write_record(s.log) == write_record(want)
        rep = replay(s.record())
        assert rep["ok"] and rep["winner"] == s.log.winner and max(rep["scores"]) >= 7


def test_a_bare_tile_is_accepted_where_both_ends_mirror():
    """After a 4-4 lead a bare `2-4` goes left; where the ends differ in doubles it asks."""
    s = _session(seed=7)
    st = s.state
    assert (st.left, st.right, st.left_double, st.right_double) == (4, 4, True, True)
    assert {"2-4:L", "2-4:R"} <= set(s.legal())
    lines = s.play("2-4")
    assert lines[0] == "you played 2-4:L"
    s = _session(seed=0)
    s.play(s.legal()[0])
    st = s.state
    assert st.left == st.right == 2 and st.left_double != st.right_double
    before = (s.state.line, len(s.match.round.events))
    with pytest.raises(BergenError, match=r"^2-4 fits both ends \(2 and 2\): write 2-4:L or "
                                          r"2-4:R$"):
        s.play("2-4")
    assert (s.state.line, len(s.match.round.events)) == before


@pytest.mark.parametrize("engine, value", [("greedy", r"[+-]\d+\.\d\d ± \d+\.\d\d"),
                                           ("ismcts:iterations=300,objective=match",
                                            r"\d+\.\d% ± \d+\.\d")])
def test_a_hint_gives_every_value_with_its_error(engine, value):
    """Each value with its ± as `best` has it; a chance as a percentage."""
    import re
    s = PlaySession(Rules(), parse_engine_spec(engine), seat=0, seed=3)
    s.advance()
    head = s.hint().splitlines()[0]
    rows = re.fullmatch(r"hint: \S+   \((.*)\)", head).group(1).split(", ")
    assert len(rows) == min(4, len(s.legal()))
    for row in rows:
        assert re.fullmatch(r"\S+ " + value, row), head


def test_cli_play_scripted(tmp_path):
    out = tmp_path / "game.json"
    s = _session()
    first = s.legal()[0]
    script = "\n".join(["9-9", "1-1:X", "moves", first, "undo", first, "quit"]) + "\n"
    res = CliRunner().invoke(main, ["play", "--engine", "greedy", "--seed", "3", "--out",
                                    str(out)], input=script)
    assert res.exit_code == 0, res.output
    assert res.output.count("not played:") == 2 and "legal:" in res.output     # `moves`
    assert "took back your last play" in res.output
    assert f"game saved to {out}" in res.output
    rec = json.loads(out.read_text())
    rep = replay(rec)
    assert rep["ok"] and rep["rounds"][-1]["end"] == "unfinished"
    plays = [e for e in rec["rounds"][0]["events"] if e["seat"] == 0]
    assert sum(1 for e in plays if e.get("play") == first) == 1
    out.unlink()
    res = CliRunner().invoke(main, ["play", "--engine", "random", "--seed", "5", "--out",
                                    str(out)], input="")     # the end of input saves too
    assert res.exit_code == 0 and replay(json.loads(out.read_text()))["ok"]
