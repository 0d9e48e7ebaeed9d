"""`bergen analyze --html`: the self-contained report, as a document and rendered in headless
Chromium (BERGEN_REQUIRE_BROWSER=1 fails instead of skipping)."""
import json
import os
import re
from html.parser import HTMLParser

import pytest
from support import bergen as run
from support import chromium_browser

from bergen_search.formats.record_io import write_record
from bergen_search.game.rng import derive_seed
from bergen_search.game.rules import Rules
from bergen_search.play.engines import parse_engine_list
from bergen_search.play.seats import play_engines

MATCH = "examples/match.json"
ARGS = ["--iterations", "300", "--seed", "3", "--quiet"]


class Tags(HTMLParser):
    """Every start tag with its attributes, and the text of the document."""

    def __init__(self):
        super().__init__()
        self.tags, self.text = [], []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))

    handle_startendtag = handle_starttag

    def handle_data(self, data):
        self.text.append(data)


def parse(html_text):
    p = Tags()
    p.feed(html_text)
    return p


def classes(attrs):
    return (attrs.get("class") or "").split()


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    """examples/match.json analysed once: (the HTML, the JSON of the same run)."""
    path = tmp_path_factory.mktemp("report") / "match.html"
    res = run("analyze", MATCH, *ARGS, "--json", "--html", str(path))
    assert res.exit_code == 0, res.stderr
    return path.read_text(encoding="utf-8"), json.loads(res.stdout), path


def test_report_is_self_contained_and_holds_every_decision_and_the_summary(report):
    """Drawn with views/drawing.py's symbols, as the board is; nothing fetched; every decision,
    its label and its marker; the summary's cells; rounds numbered from 1."""
    from bergen_search.views import drawing
    html_text, out, _ = report
    assert drawing.sprite() in html_text and drawing.css() in html_text
    doc = parse(html_text)
    hrefs = {a.get("href") for t, a in doc.tags if t == "use"}
    assert {"#tile-h", "#tile-v", "#half6"} <= hrefs and any(h.startswith("#mark-") for h in hrefs)
    assert not [a for t, a in doc.tags if t == "polyline" and "stroke" in a]
    names = {t for t, _ in doc.tags}
    assert not names & {"script", "link", "img", "iframe", "object", "embed"}
    for tag, attrs in doc.tags:
        for key in ("href", "src", "xlink:href"):
            if key in attrs:
                assert attrs[key].startswith("#"), (tag, attrs)
    assert "url(" not in html_text and "@import" not in html_text
    csp = [a for t, a in doc.tags if t == "meta" and a.get("http-equiv") == "Content-Security-Policy"]
    assert csp and "default-src 'none'" in csp[0]["content"]
    decisions = out["decisions"]
    circles = [a for t, a in doc.tags if t == "circle" and "decision" in classes(a)]
    assert [int(a["data-decision"]) for a in circles] == list(range(len(decisions)))
    items = {a["id"]: a for t, a in doc.tags if t == "li" and "decision" in classes(a)}
    assert len(items) == len(decisions)
    labelled = [i for i, d in enumerate(decisions) if d["label"] and not d["borderline"]]
    assert labelled, "the example should have labelled decisions at this budget"
    for i, d in enumerate(decisions):
        # a decided label is data-label; an undecided one data-borderline (its loss's label)
        for tag in (items[f"d{i}"], circles[i]):
            if d["borderline"]:
                assert tag.get("data-borderline") == (d["label"] or "none")
                assert "data-label" not in tag
            else:
                assert tag.get("data-label") == d["label"]
    markers = [a for t, a in doc.tags if t == "g" and "marker" in classes(a)
               and int(a["data-decision"]) >= 0]      # the legend's samples are -1
    assert sorted(int(a["data-decision"]) for a in markers) == labelled
    assert [m.split()[1] for m in (a["class"] for a in markers)] == \
        [decisions[int(a["data-decision"])]["label"] for a in markers]
    cells = {}
    for t, a in doc.tags:
        if t == "td" and "data-value" in a:
            cells.setdefault(a["class"], []).append(a["data-value"])
    for key in ("decisions", "forced", "total_loss", "mean_loss", "inaccuracies", "mistakes",
                "blunders", "error_rate", "luck_deal", "luck_draws"):
        assert [float(v) for v in cells[key]] == [float(s[key]) for s in out["summary"]], key
    text = "".join(doc.text)
    assert "blunder" in text and "Round 1" in text and out["settings"]["algorithm"] in text
    assert "Round 1: from" in html_text and "Round 0:" not in html_text
    assert ">round 1 " in html_text or ">round 1\u00a0" in html_text or "round 1  " in html_text
    # Each line of tiles, drawn: one domino per tile of the line after each decision.
    assert html_text.count('<symbol id="half') == 7


@pytest.mark.slow
def test_the_bundled_report_is_current(tmp_path):
    """examples/match.html is what `bergen analyze examples/match.json --html` writes today."""
    fresh = tmp_path / "match.html"
    assert run("analyze", MATCH, "--quiet", "--html", str(fresh)).exit_code == 0
    assert fresh.read_text(encoding="utf-8") == open("examples/match.html", encoding="utf-8").read()


def first_round(tmp_path):
    """examples/match.json cut to its first round (6 of its 20 decisions), in a file."""
    src = tmp_path.parent / f"{tmp_path.name}-round0.json"
    rec = json.loads(open(MATCH).read())
    rec["rounds"] = rec["rounds"][:1]
    src.write_text(json.dumps(rec))
    return str(src)


def test_html_leaves_the_text_and_json_outputs_as_they_were(tmp_path, one_search):
    """--html leaves the JSON output alone; the same seed writes the same bytes. Two analyses,
    each printed twice (one_search): the JSON and the text, then --json --html and --html."""
    src = first_round(tmp_path)
    plain = run("analyze", src, *ARGS, "--json")
    text = run("analyze", src, *ARGS)
    assert text.exit_code == 0 and text.stdout.startswith("round 1\n")     # from 1, for people
    assert "seat  decisions forced total loss" in text.stdout and "round 0" not in text.stdout
    better = [(got.group(1), re.search(r": (\S+) [+-]", line).group(1))
              for line in text.stdout.splitlines() if (got := re.search(r", better (\S+) ", line))]
    assert better and all(b != played for b, played in better), better
    with_html = run("analyze", src, *ARGS, "--json", "--html", str(tmp_path / "r.html"))
    drop = lambda s: {k: v for k, v in json.loads(s).items() if k != "seconds"}  # noqa: E731
    assert drop(plain.stdout) == drop(with_html.stdout)
    assert (tmp_path / "r.html").read_text().startswith("<!DOCTYPE html>")
    alone = run("analyze", src, *ARGS, "--html", str(tmp_path / "again.html"))
    assert alone.exit_code == 0 and alone.stdout.startswith("wrote ")
    assert len(alone.stdout.splitlines()) == 1
    assert (tmp_path / "again.html").read_bytes() == (tmp_path / "r.html").read_bytes()


def test_report_of_several_matches_and_three_players(tmp_path):
    rules = Rules(players=3, target=4)      # two matches: of one round, and of two
    lines = [json.dumps(write_record(play_engines(rules, parse_engine_list("greedy,random,greedy", 3),
                                                derive_seed(11, g)))) for g in range(2)]
    src = tmp_path / "m.jsonl"
    src.write_text("\n".join(lines) + "\n")
    path = tmp_path / "m.html"
    res = run("analyze", str(src), "--iterations", "100", "--quiet", "--json", "--html", str(path))
    assert res.exit_code == 0, res.stderr
    out, doc = json.loads(res.stdout), parse(path.read_text())
    ids = [a["id"] for _, a in doc.tags if "id" in a]
    assert len(ids) == len(set(ids))
    html_text = path.read_text()
    for m in range(2):
        n = sum(1 for d in out["decisions"] if d["match"] == m)
        graph = parse(re.search(rf'<svg class="graph" id="m{m}-graph".*?</svg>', html_text).group(0))
        circles = [a for t, a in graph.tags if t == "circle" and "decision" in classes(a)]
        assert [int(a["data-decision"]) for a in circles] == list(range(n))
        assert all(f"m{m}-d{i}" in ids for i in range(n))
        curves = [a for t, a in graph.tags if t == "polyline" and "curve" in classes(a)]
        assert {a["data-side"] for a in curves} == {"0", "1", "2"}
    total = [a for t, a in doc.tags if t == "table" and a.get("id") == "summary"]
    assert total, "the combined summary table"
    got = [float(a["data-value"]) for t, a in doc.tags if t == "td" and a.get("class") == "total_loss"]
    assert got[:len(out["summary"])] == [s["total_loss"] for s in out["summary"]]


def test_bad_input_keeps_the_old_report_and_a_folder_is_refused(tmp_path):
    existing = tmp_path / "keep.html"
    existing.write_text("old report")
    bad = json.loads(open(MATCH).read())
    bad["rounds"][0]["events"][1] = {"seat": 1, "play": "6-6:L"}
    res = run("analyze", "-", "--html", str(existing), "--force", input=json.dumps(bad))
    assert res.exit_code == 2 and len(res.stderr.strip().splitlines()) == 1
    assert "round 1, event 1" in res.stderr and "Traceback" not in res.stderr
    assert existing.read_text() == "old report"
    # a folder given as the file (a missing folder: test_messages' row)
    res = run("analyze", MATCH, "--iterations", "50", "--html", str(tmp_path))
    assert res.exit_code == 2 and "directory" in res.stderr, res.stderr
    assert len(res.stderr.strip().splitlines()) == 1


def test_the_report_is_written_whole_or_not_at_all(tmp_path, monkeypatch):
    """A failure moving the report into place keeps the old file; --resume writes it."""
    src = first_round(tmp_path)
    target = tmp_path / "r.html"
    target.write_text("old report")

    def broken(src, dst):
        if str(dst) != str(target):         # the journal is put in place the same way
            return real(src, dst)
        raise OSError(28, "No space left on device")

    real = os.replace
    monkeypatch.setattr(os, "replace", broken)
    res = run("analyze", src, "--iterations", "50", "--quiet", "--html", str(target),
              "--force")
    # A write error: exit 74 (errors.WriteFailed), naming the file and --resume.
    assert res.exit_code == 74 and "No space left" in res.stderr and "--resume" in res.stderr
    assert target.read_text() == "old report"
    # The analysis itself is kept in the journal: --resume writes the report without it.
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.html", "r.html.journal"]
    monkeypatch.setattr(os, "replace", real)
    again = run("analyze", src, "--iterations", "50", "--quiet", "--html", str(target),
                "--resume")
    assert again.exit_code == 0, again.output
    assert target.read_text().startswith("<!DOCTYPE html>")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.html"]


# ---- in a real browser ----------------------------------------------------------------------

@pytest.fixture(scope="module")
def browser():
    with chromium_browser() as b:
        yield b


def _open(browser, path, width):
    """The file at `width` px in a page of its own; (the page, its console and page errors)."""
    page = browser.new_page(viewport={"width": width, "height": 3000})
    console = []
    page.on("console", lambda m: console.append(f"{m.type}: {m.text}"))
    page.on("pageerror", lambda e: console.append(f"pageerror: {e}"))
    page.goto(path.as_uri())
    return page, console


#: What the checking script measures in the report as written (playwright's evaluate runs it
#: beside the report's policy, which refuses every script of the page's own).
_CHECK = """() => {
  const box = e => { const r = e.getBoundingClientRect(); return r.width > 0 && r.height > 0; };
  const out = {};
  const graph = document.querySelector("svg.graph");
  out.graph = !!graph && box(graph);
  const circles = [...document.querySelectorAll("svg.graph circle.decision")];
  out.circles = circles.length;
  out.circles_drawn = circles.filter(box).length;
  out.labelled = [...document.querySelectorAll("li.decision[data-label]")].map(li => ({
    id: li.id, label: li.dataset.label, shown: box(li),
    text: li.querySelector(".badge") ? li.querySelector(".badge").textContent : null}));
  out.borderline = [...document.querySelectorAll("li.decision[data-borderline]")].map(li => ({
    id: li.id, shown: box(li),
    text: li.querySelector(".badge") ? li.querySelector(".badge").textContent : null}));
  out.markers = [...document.querySelectorAll("svg.graph g.marker")].filter(box).length;
  out.summary = [...document.querySelectorAll("#summary tr[data-seat]")].map(tr =>
    Object.fromEntries([...tr.querySelectorAll("td")].map(td => [td.className, td.dataset.value])));
  out.dominoes = [...document.querySelectorAll("svg.dominoes use")].filter(box).length;
  out.width = document.documentElement.scrollWidth;
  const scroller = document.querySelector(".graph-scroll");
  const note = document.querySelector(".scroll-note");
  out.graph_overflows = scroller.scrollWidth > scroller.clientWidth + 1;
  out.note_shown = note.getBoundingClientRect().height > 0;
  // every drawing of dominoes at its natural size, inside the page
  out.drawings = [...document.querySelectorAll("svg.dominoes")].map(s => {
    const r = s.getBoundingClientRect();
    return [Math.round(r.width), Number(s.getAttribute("width")), Math.round(r.right)];
  });
  out.page_width = document.documentElement.clientWidth;
  // the labels' markers (in the graph's own units) all above the highest point of a curve
  const ys = [...graph.querySelectorAll("polyline.curve")].flatMap(p =>
    [...p.points].map(pt => pt.y));
  out.curve_top = Math.min(...ys);
  out.marker_bottoms = [...graph.querySelectorAll("g.marker")].map(m => {
    const b = m.getBBox(); return b.y + b.height; });
  out.rings = [...graph.querySelectorAll("circle.exact-ring")].map(c => Number(c.dataset.decision));
  out.exact_notes = [...document.querySelectorAll("li.decision[data-exact] .values")].map(
    v => (v.textContent.match(/exact/g) || []).length);
  return out;
}"""


@pytest.mark.parametrize("width", [1200, 390])
def test_rendered_in_chromium(report, browser, tmp_path, width):
    """The report at `width`: the checking script's findings, a screenshot, a quiet console."""
    _, out, path = report
    page, console = _open(browser, path, width)
    got = page.evaluate(_CHECK)
    shot = tmp_path / f"report-{width}.png"
    page.screenshot(path=str(shot))
    page.close()
    print(f"\nscreenshot: {shot}")
    assert console == [], console
    data = shot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 20_000
    # markers above the curves, the graph's scroll, dominoes whole, the exact rings
    assert got["graph_overflows"] == (width < 640) == got["note_shown"]
    assert got["drawings"] and all(w == natural and right <= got["page_width"]
                                   for w, natural, right in got["drawings"]), got["drawings"]
    assert got["marker_bottoms"] and max(got["marker_bottoms"]) < got["curve_top"]
    exact = [i for i, d in enumerate(out["decisions"]) if d["exact"]]
    assert got["rings"] == exact and got["exact_notes"] == [1] * len(exact)
    n = len(out["decisions"])
    assert got["graph"] and got["circles"] == n and got["circles_drawn"] == n
    want = [(f"d{i}", d["label"]) for i, d in enumerate(out["decisions"])
            if d["label"] and not d["borderline"]]
    assert [(x["id"], x["label"]) for x in got["labelled"]] == want
    assert all(x["shown"] and x["text"] == x["label"] for x in got["labelled"])
    assert got["markers"] == len(want)
    undecided = [f"d{i}" for i, d in enumerate(out["decisions"]) if d["borderline"]]
    assert [x["id"] for x in got["borderline"]] == undecided
    assert all(x["shown"] and x["text"].startswith("borderline") for x in got["borderline"])
    assert got["dominoes"] > 2 * n
    for row, sm in zip(got["summary"], out["summary"], strict=True):
        for key in ("decisions", "total_loss", "mean_loss", "blunders", "error_rate", "luck_deal"):
            assert float(row[key]) == pytest.approx(float(sm[key])), key


def test_the_console_check_can_fail(report, browser, tmp_path):
    """The check above sees a fetch the report's policy refuses."""
    html_text, _, _ = report
    bad = tmp_path / "bad.html"
    bad.write_text(html_text.replace(
        "</body>", '<img src="http://example.invalid/x.png"></body>'), encoding="utf-8")
    page, console = _open(browser, bad, 1200)
    page.close()
    assert any("Content Security Policy" in line for line in console), console


def test_a_long_line_wraps_in_drawings_of_a_few_tiles():
    from bergen_search.views.report import WRAP_TILES, _line_svg
    pairs = [(i % 7, (i + 1) % 7) for i in range(13)]
    drawn = _line_svg(pairs, played_at=12)
    svgs = re.findall(r"<svg [^>]*>.*?</svg>", drawn)
    assert len(svgs) == -(-13 // WRAP_TILES)
    assert sum(s.count("<use") for s in svgs) == 3 * 13          # a frame, two halves
    assert svgs[-1].count('class="played"') == 1


def test_better_never_names_the_play_made():
    """A borderline call names the runner-up as what may be better, never the play made."""
    from bergen_search.analysis.review import Decision
    from bergen_search.formats.notation import Move
    from bergen_search.views.report import compared_text, rival
    m = Move.parse
    vals = {m("5-6:L"): -1.10, m("5-6:R"): -1.10, m("3-5:L"): -1.15, m("0-5:R"): -2.0}
    dec = Decision(2, 7, 1, m("5-6:L"), m("5-6:L"), 0.0, 0.08, None, vals,
                   {k: 0.05 for k in vals}, borderline=True, loss_interval=(0.0, 0.31))
    assert rival(dec) == m("3-5:L")          # the mirror twin is the same choice
    assert compared_text(dec) == "the search's best; 3-5:L -1.15 may be better"
    made = Decision(2, 7, 1, m("3-5:L"), m("5-6:L"), 0.05, 0.02, None, vals,
                    {k: 0.05 for k in vals}, borderline=True, loss_interval=(0.0, 0.31))
    assert compared_text(made) == "better 5-6:L -1.10"


def test_an_interrupted_analysis_of_many_matches_counts_them_right(tmp_path, monkeypatch):
    """An interrupted analysis numbers each match among the file's and says how many it covers."""
    from bergen_search.analysis import review
    from bergen_search.cli import analyze as analyze_cli
    from bergen_search.errors import Interrupted
    lines = [json.dumps(write_record(play_engines(Rules(), parse_engine_list("greedy", 2),
                                                  derive_seed(4, g)))) for g in range(5)]
    src = tmp_path / "five.jsonl"
    src.write_text("\n".join(lines) + "\n")
    real = review.analyze_all

    def cut(records, **kw):
        done = real(records[:2], **kw)
        raise Interrupted(done, 17, 99, "decisions")
    monkeypatch.setattr(analyze_cli, "analyze_all", cut)
    res = run("analyze", str(src), "--iterations", "30", "--quiet")
    assert res.exit_code == 130
    heads = [x for x in res.stdout.splitlines() if x.startswith("===")]
    assert heads == ["=== match 1 of 5", "=== match 2 of 5", "=== the 2 matches analysed, of 5"]
    assert "interrupted after 17 of 99 decisions" in res.stdout
