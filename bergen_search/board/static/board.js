// The board: one more client of the engine protocol (docs/PROTOCOL.md), over a WebSocket.
// Every rule of the game is the engine's: the page builds position strings and shows answers.
"use strict";
(function () {
  const $ = (id) => document.getElementById(id);
  const S = {
    ws: null, seq: 0, open: false, pending: [],
    posId: null, posSource: null, position: null, changedAt: null,
    game: null,          // what the live analysis searches: a position string, or a document
    liveId: null, liveFirst: false, liveFinished: false, showId: null,
    reviewId: null, reviewRecord: null, decisions: [], step: -1,
    hand: [], line: [],   // the setup: tiles "a-b"; the line as laid, [a, b] pairs
  };
  window.boardTimings = [];   // ms from a position change to the first ranked moves on screen

  // ---- drawing tiles: the symbols the page shares with the HTML report (views/drawing.py,
  // put into the page by the server): a frame and two halves ----------------------------------
  function tileSvg(a, b) {
    return '<svg viewBox="0 0 40 20" aria-hidden="true"><use href="#tile-h" width="40" ' +
      `height="20"/><use href="#half${a}" width="20" height="20"/><use href="#half${b}" x="20" ` +
      'width="20" height="20"/></svg>';
  }
  function tileEl(a, b, tag, cls) {
    const el = document.createElement(tag || "span");
    el.className = "tile" + (cls ? " " + cls : "");
    el.dataset.tile = Math.min(a, b) + "-" + Math.max(a, b);
    el.title = a + "-" + b;
    el.setAttribute("aria-label", a + "-" + b);
    el.innerHTML = tileSvg(a, b);
    return el;
  }
  const tileName = (a, b) => Math.min(a, b) + "-" + Math.max(a, b);

  // ---- position strings (read only to draw them; the engine checks them) --------------------
  function parts(str) { return String(str).trim().split("/"); }
  function chainTiles(text) {
    if (!text || text === "-") return [];
    if (text.includes(",")) return text.split(",").map((t) => t.split("-").map(Number));
    const n = text.split("-").map(Number), out = [];
    for (let i = 0; i + 1 < n.length; i++) out.push([n[i], n[i + 1]]);
    return out;
  }
  // The best move drawn on the line, at the end it is played at (a dashed tile): `best` is
  // a move as the engine writes it (`3-5:L`, `3-5:L/R` for mirror twins, `draw`, `pass`).
  function bestOnLine(line, best) {
    const m = /^(\d)-(\d):(L|R)/.exec(best || "");
    if (!m) return null;
    const a = Number(m[1]), b = Number(m[2]), end = m[3];
    let pair = [a, b];
    if (line.length && end === "L") pair = b === line[0][0] ? [a, b] : [b, a];
    else if (line.length) pair = a === line[line.length - 1][1] ? [a, b] : [b, a];
    const el = tileEl(pair[0], pair[1], "span", "ghost");
    el.dataset.ghost = end;
    el.title = `best: ${tileName(a, b)} at the ${end === "L" ? "left" : "right"} end`;
    el.setAttribute("aria-label", el.title);
    return el;
  }
  // The position panel's board is the live analysis's position (the string box's, the
  // ranking's); a reviewed decision is drawn in the step box (`drawTiles` into its own).
  function drawTiles(str, best, lineEl, handEl) {
    const p = parts(str);
    const hand = p[4] ? p[4].split(",").filter(Boolean) : [];
    const line = chainTiles(p[5]);
    lineEl.replaceChildren(...line.map(([a, b]) => tileEl(a, b)));
    if (!line.length) lineEl.textContent = "(empty: the lead is to come)";
    const ghost = line.length ? bestOnLine(line, best) : null;
    if (ghost && ghost.dataset.ghost === "L") lineEl.prepend(ghost);
    else if (ghost) lineEl.append(ghost);
    const bestTile = best ? best.split(":")[0] : null;
    handEl.replaceChildren(...hand.map((t) => {
      const [a, b] = t.split("-").map(Number);
      return tileEl(a, b, "span", tileName(a, b) === bestTile ? "best" : "");
    }));
    balanceRows(lineEl);
    balanceRows(handEl);
    return p;
  }
  // A row of tiles wider than its box wraps into rows of about one length (the last never
  // a tile alone, its end easy to see): the box is narrowed to the tiles of its fullest row.
  function balanceRows(el) {
    el.style.maxWidth = "";
    const tiles = el.querySelectorAll(".tile");
    if (tiles.length < 2) return;
    const w = tiles[0].getBoundingClientRect().width;
    const gap = parseFloat(getComputedStyle(el).columnGap) || 0;
    const perRow = Math.max(1, Math.floor((el.clientWidth + gap) / (w + gap)));
    if (!w || tiles.length <= perRow) return;
    const per = Math.ceil(tiles.length / Math.ceil(tiles.length / perRow));
    el.style.maxWidth = `${Math.ceil(per * (w + gap) - gap) + 1}px`;
  }
  window.addEventListener("resize", () => {
    for (const el of document.querySelectorAll(".tiles.balanced")) balanceRows(el);
  });
  function drawBoard(str, best, label) {
    const p = drawTiles(str, best, $("line"), $("hand"));
    $("board-best").textContent = best ? `best: ${label || best}` : "";
    const sizes = p[6] ? p[6] : "?";
    $("board-caption").textContent = `${p[1]} · seat ${p[3]} to move · scores ${p[2]} · ` +
      `hands ${sizes} · reserve ${p[7] === undefined || p[7] === "" ? "?" : p[7]}` +
      (p[8] && p[8] !== "-" ? ` · voids ${p[8]}` : "");
  }

  // ---- the socket -----------------------------------------------------------------------------
  function connect() {
    const proto = location.protocol === "https:" ? "wss:" : "ws:";
    const ws = new WebSocket(`${proto}//${location.host}/engine`);
    S.ws = ws;
    ws.onopen = () => {
      S.open = true;
      $("connection").textContent = "engine connected";
      for (const m of S.pending.splice(0)) ws.send(m);
    };
    ws.onclose = () => {
      S.open = false;
      $("connection").textContent = "engine disconnected: reload the page";
    };
    ws.onmessage = (ev) => {
      let msg;
      try { msg = JSON.parse(ev.data); } catch (e) { return; }
      receive(msg);
    };
  }
  // The server's largest message (board/app.py's MAX_MESSAGE): a longer one would close
  // the socket before any answer, so the page says so itself and sends nothing.
  const MAX_MESSAGE = 4 * 1024 * 1024;
  const megabytes = (n) => (n / (1024 * 1024)).toFixed(1) + " MB";
  // A JSON file chosen in `input`, read and parsed, then `use(doc, file)`; one too long for
  // the socket or not JSON is said in `errorId` (`takes`: what the board takes, said after
  // "the board").
  function readJson(input, errorId, takes, use) {
    const file = $(input).files[0];
    if (!file) return;
    if (file.size > MAX_MESSAGE) {
      $(errorId).textContent = `${file.name} is ${megabytes(file.size)}: the board ${takes}`;
      return;
    }
    file.text().then((text) => {
      let doc;
      try { doc = JSON.parse(text); } catch (e) {
        $(errorId).textContent = `${file.name} is not JSON: ${e.message}`;
        return;
      }
      use(doc, file);
    });
  }
  function send(obj) {
    const text = JSON.stringify(obj);
    if (text.length > MAX_MESSAGE) return false;
    if (S.open) S.ws.send(text); else S.pending.push(text);
    return true;
  }
  const newId = (kind) => `${kind}-${++S.seq}`;

  function receive(msg) {
    const id = msg.id;
    if (id === undefined || id === null) return;
    if (id === S.posId) onPosition(msg);
    else if (id === S.showId) onShow(msg);
    else if (id === S.liveId) onLive(msg);
    else if (id === S.reviewId) onReview(msg);
    else if (id === G.id) onGame(msg);
  }

  // ---- setting a position ------------------------------------------------------------------
  // What the live analysis searches is a position string, or a whole document (a record:
  // what the lead and the draws proved is kept, as `bergen best` on the record keeps it).
  // The address carries the position string and the budget; a document is kept for the
  // tab (sessionStorage), so that a reload finds it again for the same position.
  const RECORD_KEY = "bergen-board-game";
  function clearErrors(ids) {
    for (const id of ids) $(id).textContent = "";
  }
  const POSITION_ERRORS = ["position-error", "setup-error", "go-error", "open-error",
    "err-2", "err-3", "err-4", "err-5", "err-6", "err-7", "err-8", "err-9"];
  function setPosition(game, source) {
    clearErrors(POSITION_ERRORS);
    S.posId = newId("position");
    S.posPending = true;      // until the engine answers: a Stop meanwhile holds the search
    S.stopPending = false;
    S.posSource = source;
    S.pendingGame = game;
    S.changedAt = performance.now();
    const sent = send({ cmd: "position", game, id: S.posId });
    if (!sent) {
      $(source === "file" ? "open-error" : "position-error").textContent =
        `the document is too long to send: the board takes up to ${megabytes(MAX_MESSAGE)}`;
    }
  }
  function writeAddress() {
    const url = new URL(location.href);
    const q = url.searchParams;
    if (S.position) q.set("position", S.position.position);
    q.set("budget", $("budget-mode").value === "fixed" ? "fixed" : "infinite");
    q.set("iterations", $("budget-iterations").value);
    q.set("seed", $("budget-seed").value);
    if ($("inference").value === "on") q.delete("inference");
    else q.set("inference", $("inference").value);
    history.replaceState(null, "", url.pathname + "?" +
      q.toString().replace(/%2F/g, "/").replace(/%2C/g, ",").replace(/%3A/g, ":"));
  }
  function readAddress() {
    const q = new URLSearchParams(location.search);
    if (q.get("budget") === "fixed") $("budget-mode").value = "fixed";
    const n = q.get("iterations");
    if (n && /^\d+$/.test(n)) $("budget-iterations").value = n;
    const seed = q.get("seed");
    if (seed && /^\d+$/.test(seed)) $("budget-seed").value = seed;
    const inference = q.get("inference");
    if (inference && Object.hasOwn(INFERENCE, inference)) $("inference").value = inference;
    budgetLabels();
    return q.get("position");
  }
  function onPosition(msg) {
    S.posPending = false;
    if (msg.type === "error") {
      let target = "position-error";
      if (S.posSource === "setup") {
        const m = /\(part (\d)/.exec(msg.error);
        target = m && $("err-" + m[1]) ? "err-" + m[1] : "setup-error";
      } else if (S.posSource === "file") {
        target = "open-error";
      } else if (S.posSource === "game") {
        target = "go-error";
      }
      $(target).textContent = msg.error;
      if (S.posSource === "game") stopLive();
      return;
    }
    S.position = msg;
    S.game = S.pendingGame;
    try {
      if (typeof S.game === "string") sessionStorage.removeItem(RECORD_KEY);
      else sessionStorage.setItem(RECORD_KEY, JSON.stringify({ position: msg.position,
        game: S.game, source: S.posSource }));
    } catch (e) { /* storage full or off: the address alone */ }
    $("position-input").value = msg.position;
    writeAddress();
    fillSetup(msg.position);
    drawBoard(msg.position, null);
    $("board-source").textContent = msg.history ?
      (S.posSource === "review" ? "from the reviewed record, up to this decision" :
        S.posSource === "game" ? "from the game being entered" : "from the record") +
      ": what the lead and the draws proved is kept" : "";
    if (S.stopPending) {      // Stop clicked before the engine had the position: no search
      S.stopPending = false;
      clearRanking();
      setStatus("stopped", "stopped before the search started");
    } else {
      startLive();            // the search first: its first partial answer comes within a slice
    }
    showBeliefs();
  }
  // Where the hidden tiles are (none said before the lead: the hand's value is all there is).
  function showBeliefs() {
    $("beliefs").replaceChildren();
    if (!S.position.line) return;
    S.showId = newId("show");
    send({ cmd: "show", weighting: weighting(), id: S.showId });
  }
  // A document opened in the position panel: a record (its last round unfinished) or a
  // position, searched as it is.
  function openDocument() {
    clearErrors(["open-error"]);
    readJson("open-file", "open-error", `takes documents up to ${megabytes(MAX_MESSAGE)}`,
      (doc) => setPosition(doc, "file"));
  }

  // ---- live analysis ---------------------------------------------------------------------------
  // Until stopped, the engine deepens: a search of the budget, then of twice it, four
  // times, ... each whole; the values shown are the last finished search's (`bergen best
  // --iterations N` for that N, same seed), corrected for its budget, while the next one
  // grows. With a fixed budget the search finishes and its answer is shown at once. An
  // answer that has not settled (more time may re-rank) is marked, with more time offered.
  function startLive() {
    clearErrors(["go-error"]);
    if (S.liveId) send({ cmd: "terminate", queries: [S.liveId], id: newId("terminate") });
    S.liveId = null;
    clearRanking();
    if (!S.position) return;
    const go = { cmd: "go", report_every: 0.1, beliefs: S.position.line ? weighting() : null,
      settings: { inference: INFERENCE[$("inference").value].setting },
      iterations: Number($("budget-iterations").value), seed: Number($("budget-seed").value) };
    if ($("budget-mode").value !== "fixed") go.infinite = true;
    S.liveId = go.id = newId("live");
    S.liveFirst = true;
    S.liveFinished = false;
    S.liveInfinite = !!go.infinite;
    S.liveSize = go.iterations;
    $("settled").hidden = true;
    setStatus("searching", "searching…");
    send(go);
  }
  // The ranking emptied, its answer's state with it (`settled` in the tests waits on it).
  function clearRanking() {
    $("moves").querySelector("tbody").replaceChildren();
    delete $("moves").dataset.state;
  }
  function setStatus(state, text) {
    const el = $("status");
    el.dataset.state = state;
    el.textContent = text;
  }
  // The inference choice: the search's setting and the beliefs' weighting together.
  const INFERENCE = { on: { setting: "on", weighting: "inference" },
    off: { setting: "off", weighting: "uniform" } };
  const weighting = () => INFERENCE[$("inference").value].weighting;
  function stopLive() {
    if (S.liveId) send({ cmd: "terminate", queries: [S.liveId], id: newId("terminate") });
  }
  // The Stop button: the search running, and the one a position still on its way would start.
  function stopClicked() {
    if (S.posPending) S.stopPending = true;
    stopLive();
  }
  const fmt = (v, d) => (v === null || v === undefined ? "—" : (v >= 0 && d === 3 ? "+" : "") +
    Number(v).toFixed(d));
  const count = (n) => Number(n || 0).toLocaleString("en");
  // The engine's rows with each mirror twin folded into the move it mirrors (one choice,
  // written `a-b:L/R`, as `bergen best` writes it), in the engine's order.
  function folded(moves) {
    const twinned = new Set(moves.filter((m) => m.twin).map((m) => m.twin));
    return moves.filter((m) => !m.twin).map((m) => twinned.has(m.move) ?
      { ...m, name: m.move.split(":")[0] + ":L/R" } : { ...m, name: m.move });
  }
  // What the figures are, in words, for the status line.
  function liveWords(msg) {
    if (msg.exact) return "exact: the endgame solved (± a bound)";
    if (!S.position.line) {
      return `before the lead: the hand's value ${fmt(msg.value, 3)} ± ` +
        `${fmt(msg.stderr, 3).replace("+", "")}, over the deals of each lead`;
    }
    const t = msg.trees;
    if (t === undefined) return "values so far, ± over the worlds solved";
    if (msg.deepening)
      return `the search of ${count(msg.iterations)} iterations; ${count(msg.deepening)} ` +
        `under way (${count(msg.running)})`;
    if (t === 0) return "the first tree growing: its own means, no ± yet";
    if (msg.stderr === null || msg.stderr === undefined)
      return `${t} tree${t > 1 ? "s" : ""} finished: their mean, ± once 8 have`;
    return `the mean of ${count(t)} independent trees, ± their spread`;
  }
  function onLive(msg) {
    if (msg.type === "error") {
      clearErrors(["go-error"]);
      $("go-error").textContent = msg.error;
      setStatus("idle", "");
      S.liveId = null;
      return;
    }
    if (msg.type !== "partial" && msg.type !== "bestmove") return;
    const final = msg.type === "bestmove" || msg.finished;
    if (msg.type === "partial" && S.liveFinished) return;
    // Before the lead: every lead possible, its chance in the last column (the answer's).
    const leads = (msg.leads || []).map((l) => ({ name: `${l.tile} (seat ${l.seat})`,
      move: l.tile, value: l.value, stderr: l.stderr, chance: l.chance }));
    const rows = (leads.length ? leads : folded(msg.moves)).map((m) => {
      const tr = document.createElement("tr");
      tr.dataset.move = m.name;
      tr.dataset.value = m.value === null ? "" : m.value;
      tr.dataset.stderr = m.stderr === null || m.stderr === undefined ? "" : m.stderr;
      if (m.move === msg.best || m.twin === msg.best) tr.className = "best";
      const total = msg.moves.filter((x) => !x.twin).reduce((a, x) => a + (x.visits || 0), 0);
      const share = m.chance !== undefined ? (100 * m.chance).toFixed(1) + "%" :
        total && m.visits ? (100 * m.visits / total).toFixed(1) + "%" : "—";
      tr.innerHTML = `<td class="mono">${m.name}</td><td>${fmt(m.value, 3)}</td>` +
        `<td title="${m.stderr === null ? "no ± yet" : ""}">${fmt(m.stderr, 3).replace("+", "")}` +
        `</td><td>${share}</td>`;
      return tr;
    });
    $("moves").querySelector("tbody").replaceChildren(...rows);
    $("moves").dataset.state = msg.type === "bestmove" ? "bestmove" : final ? "finished" :
      "partial";
    $("moves").dataset.trees = msg.trees === undefined ? "" : msg.trees;
    if (msg.settled !== undefined) {
      $("settled").hidden = msg.settled !== false;
      $("more-time").hidden = S.liveInfinite && msg.type === "partial" && !msg.finished;
    }
    if (S.liveFirst && rows.length) {
      S.liveFirst = false;
      requestAnimationFrame(() => window.boardTimings.push(performance.now() - S.changedAt));
    }
    const best = folded(msg.moves).find((m) => m.move === msg.best || m.twin === msg.best);
    drawBoard(S.position.position, msg.best, best ? best.name : msg.best);
    const it = count(msg.iterations);
    if (msg.type === "partial" && !msg.finished) {
      setStatus("searching", `searching… ${liveWords(msg)} · ${it} iterations, ` +
        `${Number(msg.seconds).toFixed(1)} s`);
    } else if (msg.finished) {
      // It ended by itself (solved, or its most trees): the answer now; the engine holds
      // its final line until told, so tell it.
      S.liveFinished = true;
      setStatus("finished", `finished: ${liveWords(msg)} · ${it} iterations, ` +
        `${Number(msg.seconds).toFixed(1)} s`);
      stopLive();
    } else {
      const trees = msg.replicates ? `, ${count(msg.replicates)} trees` : "";
      const figures = `${it} iterations, ${Number(msg.seconds || 0).toFixed(1)} s${trees}` +
        (msg.exact ? ", exact (the endgame solved)" : "");
      if (msg.empty) setStatus("stopped", "stopped before measuring anything");
      else if (leads.length) setStatus("finished", `${liveWords(msg)} · ${it} playouts; ` +
        "the last column: each lead's chance");
      else if (S.liveFinished || !msg.stopped) setStatus("finished", `finished: ${figures}`);
      else setStatus("stopped", `stopped: ${figures}` + (msg.replicates >= 2 ?
        "; ± the spread of those trees" : "; no ± (fewer than 2 trees finished)"));
      if (msg.beliefs) drawBeliefs(msg.beliefs);
      S.liveId = null;
    }
    scrollHints();
  }

  // ---- beliefs ---------------------------------------------------------------------------------
  function onShow(msg) { if (msg.type === "show") drawBeliefs(msg); }
  function drawBeliefs(doc) {
    const holders = doc.seats.map((s) => ({ name: `seat ${s.seat} (${s.hand_size})`, p: s.p_hold }));
    holders.push({ name: `reserve (${doc.reserve.size})`, p: doc.reserve.p_hold });
    const tiles = new Set();
    for (const h of holders) for (const t of Object.keys(h.p || {})) tiles.add(t);
    const sorted = [...tiles].sort();
    let html = "<thead><tr><th>tile</th>" + holders.map((h) => `<th>${h.name}</th>`).join("") +
      "</tr></thead><tbody>";
    for (const t of sorted) {
      html += `<tr data-tile="${t}"><th class="mono">${t}</th>` + holders.map((h) => {
        const p = (h.p || {})[t] || 0;
        return `<td class="${p ? "" : "zero"}">${Math.round(100 * p)}%</td>`;
      }).join("") + "</tr>";
    }
    $("beliefs").innerHTML = html + "</tbody>";
  }

  // ---- setup by clicking ------------------------------------------------------------------------
  function drawPalette() {
    const pal = $("palette");
    pal.replaceChildren();
    for (let a = 0; a <= 6; a++) for (let b = a; b <= 6; b++) {
      const el = tileEl(a, b, "button");
      el.type = "button";
      el.addEventListener("click", () => clickTile(a, b));
      pal.appendChild(el);
    }
    refreshSetup();
  }
  function clickTile(a, b) {
    const name = tileName(a, b);
    $("setup-error").textContent = "";
    const inHand = S.hand.indexOf(name);
    if (inHand >= 0) { S.hand.splice(inHand, 1); refreshSetup(); return; }
    const onLine = S.line.findIndex(([x, y]) => tileName(x, y) === name);
    if (onLine >= 0) { S.line.splice(onLine, 1); refreshSetup(); return; }
    const where = document.querySelector('input[name="place"]:checked').value;
    if (where === "hand") S.hand.push(name);
    else if (!S.line.length) S.line.push([a, b]);
    else if (where === "left") {
      const end = S.line[0][0];
      S.line.unshift(b === end ? [a, b] : [b, a]);
    } else {
      const end = S.line[S.line.length - 1][1];
      S.line.push(a === end ? [a, b] : [b, a]);
    }
    refreshSetup();
  }
  function refreshSetup() {
    for (const el of $("palette").children) {
      const t = el.dataset.tile;
      el.classList.toggle("in-hand", S.hand.includes(t));
      el.classList.toggle("on-line", S.line.some(([x, y]) => tileName(x, y) === t));
    }
    $("setup-hand").textContent = S.hand.slice().sort().join(" ") || "(none)";
    $("setup-line").textContent = S.line.map(([a, b]) => a + "-" + b).join(" ") || "(empty)";
  }
  function setupString() {
    const v = (id) => $(id).value.trim();
    const line = S.line.length ? S.line.map(([a, b]) => a + "-" + b).join(",") : "-";
    return ["bergen1", v("setup-rules"), v("setup-scores"), v("setup-to-move"),
      S.hand.join(","), line, v("setup-sizes"), v("setup-reserve"), v("setup-voids") || "-"]
      .join("/");
  }
  // ---- voids by clicking: a row of the numbers 0-6 per seat, kept in step with the field ----
  function readVoids() {
    const out = {};
    for (const part of $("setup-voids").value.trim().split(",")) {
      const m = /^(\d):(\d+)$/.exec(part.trim());
      if (m) out[m[1]] = new Set(m[2].split("").map(Number));
    }
    return out;
  }
  function writeVoids(v) {
    $("setup-voids").value = Object.keys(v).sort().filter((s) => v[s].size)
      .map((s) => s + ":" + [...v[s]].sort().join("")).join(",");
  }
  function drawVoids() {
    const players = Math.min(4, Math.max(2, parseInt($("setup-rules").value, 10) || 2));
    const v = readVoids(), grid = $("void-grid");
    grid.replaceChildren();
    for (let seat = 0; seat < players; seat++) {
      const row = document.createElement("div");
      row.className = "row";
      row.dataset.seat = seat;
      row.append(`voids of seat ${seat}:`);
      for (let n = 0; n <= 6; n++) {
        const b = document.createElement("button");
        b.type = "button";
        b.className = "void";
        b.textContent = n;
        b.dataset.seat = seat;
        b.dataset.number = n;
        const on = !!(v[seat] && v[seat].has(n));
        b.setAttribute("aria-pressed", on);
        b.title = `seat ${seat} holds no ${n}` + (on ? " (click to unmark)" : " (click to mark)");
        b.addEventListener("click", () => {
          const w = readVoids();
          w[seat] = w[seat] || new Set();
          if (w[seat].has(n)) w[seat].delete(n); else w[seat].add(n);
          writeVoids(w);
          drawVoids();
        });
        row.appendChild(b);
      }
      grid.appendChild(row);
    }
  }
  function fillSetup(str) {
    const p = parts(str);
    $("setup-rules").value = p[1];
    $("setup-scores").value = p[2];
    $("setup-to-move").value = p[3];
    S.hand = p[4] ? p[4].split(",").filter(Boolean) : [];
    S.line = chainTiles(p[5]);
    $("setup-sizes").value = p[6] || "";
    $("setup-reserve").value = p[7] || "";
    $("setup-voids").value = p[8] && p[8] !== "-" ? p[8] : "";
    refreshSetup();
    drawVoids();
  }

  // ---- review ---------------------------------------------------------------------------------
  function startReview() {
    $("review-error").textContent = "";
    if (!$("record-file").files[0]) {
      $("review-error").textContent = "choose a record file first";
      return;
    }
    const takes = `reviews records up to ${megabytes(MAX_MESSAGE)} (bergen analyze reads any ` +
      "size)";
    readJson("record-file", "review-error", takes, (record, file) => {
      if (S.reviewId) send({ cmd: "terminate", queries: [S.reviewId], id: newId("terminate") });
      S.reviewId = newId("review");
      S.decisions = []; S.step = -1; S.graph = null;
      S.reviewRecord = record;
      $("decisions").replaceChildren(); $("step").replaceChildren(); $("graph").innerHTML = "";
      $("summary").innerHTML = "";
      const sent = send({ cmd: "analyze", record, id: S.reviewId,
        iterations: Number($("review-iterations").value), seed: Number($("review-seed").value) });
      if (!sent) {
        $("review-error").textContent = `${file.name} is too long to send: the board ${takes}`;
        return;
      }
      $("review-status").textContent = "analysing…";
    });
  }
  const MARK = { inaccuracy: "?!", mistake: "?", blunder: "??" };
  // The words of `bergen analyze` (views/report.py), written once here for the page: the
  // mark after a play (a borderline one in brackets, `[-]` when the loss is below every
  // threshold), the verdict, the move compared ("better" never names the play made) and
  // the loss with its interval.
  function markOf(d) {
    if (d.borderline) return `[${MARK[d.label] || "-"}]`;
    return MARK[d.label] || "";
  }
  function verdictOf(d) {
    if (d.borderline) return d.label ? `borderline ${d.label}` : "borderline (no label)";
    return d.label || "";
  }
  function rivalOf(d) {
    if (d.best !== d.played) return d.best;
    const mine = d.values[d.played];
    const others = Object.keys(d.values).filter((m) => m !== d.played &&
      !(m.split(":")[0] === d.played.split(":")[0] && d.values[m] === mine));
    // ties as the CLI's `rival` breaks them: the larger name first
    others.sort((a, b) => d.values[b] - d.values[a] || (a < b ? 1 : -1));
    return others.length ? others[0] : null;
  }
  const f2 = (v) => (v >= 0 ? "+" : "") + Number(v).toFixed(2);
  function comparedOf(d) {
    const other = rivalOf(d);
    if (d.best !== d.played) return `better ${other} ${f2(d.values[other])}`;
    if (other === null) return "the only choice";
    return `the search's best; ${other} ${f2(d.values[other])} may be better`;
  }
  function lossOf(d) {
    let out = `loss ${Number(d.loss).toFixed(2)} ± ${Number(d.loss_stderr).toFixed(2)}`;
    if (d.exact) return out + ", exact (± the two moves' bounds)";
    const iv = d.loss_interval;
    if (iv && iv[0] !== null && iv[1] !== null) out += `, 99% [${Number(iv[0]).toFixed(2)}, ` +
      `${Number(iv[1]).toFixed(2)}]`;
    if (d.rechecks) out += `, ${d.rechecks} recheck${d.rechecks > 1 ? "s" : ""}`;
    return out;
  }
  // Where a decision is, as the CLI says it: rounds counted from 1, the event its index in
  // the round (the JSON's `event`).
  const whereOf = (d) => `round ${d.round + 1}, event ${d.event}, seat ${d.seat}`;
  function onReview(msg) {
    if (msg.type === "error") { $("review-error").textContent = msg.error; return; }
    if (msg.type === "decision") {
      S.decisions[msg.index] = msg;
      if (msg.graph) S.graph = msg.graph;
      const li = document.createElement("li");
      li.dataset.index = msg.index;
      li.dataset.label = msg.label || "";
      li.dataset.mark = markOf(msg);
      const said = msg.label || msg.borderline ? ` <span class="verdict ${msg.label || ""}">` +
        `${verdictOf(msg)}</span>: ${comparedOf(msg)}` : msg.played !== msg.best ?
        `: ${comparedOf(msg)}` : "";
      li.innerHTML = `<span class="n">${msg.index + 1}.</span> ${whereOf(msg)}: ` +
        `<span class="mono">${msg.played}${markOf(msg)}</span>` +
        said + (msg.exact ? ' <span class="badge exact">exact</span>' : "");
      li.addEventListener("click", () => goTo(msg.index));
      $("decisions").appendChild(li);
      drawGraph();
      if (S.step < 0) goTo(0);
      $("review-status").textContent = `analysing: ${S.decisions.length} of ` +
        `${msg.decisions_total} decisions judged…`;
    } else if (msg.type === "analysis") {
      $("review-status").textContent = msg.interrupted ? "stopped" :
        `done: ${msg.decisions.length} decisions in ${msg.seconds} s`;
      drawSummary(msg.summary || []);
      $("decisions").dataset.done = "1";
      S.reviewId = null;
      scrollHints();
    }
  }
  function drawSummary(rows) {
    const head = "<thead><tr><th>seat</th><th>decisions</th><th>loss</th><th>?!</th><th>?</th>" +
      "<th>??</th><th title=\"borderline calls, as bergen analyze counts them\">[ ]</th><th>luck</th><th>of the deal</th><th>of the draws</th></tr></thead>";
    $("summary").innerHTML = rows.length ? head + "<tbody>" + rows.map((r) =>
      `<tr data-seat="${r.seat}"><td>${r.seat}</td><td>${r.decisions}</td><td>${fmt(r.total_loss, 3)
        .replace("+", "")}</td><td>${r.inaccuracies}</td><td>${r.mistakes}</td><td>${r.blunders}` +
      `</td><td>${r.borderline}</td><td data-luck="${r.luck}">${fmt(r.luck, 3)}</td>` +
      `<td>${fmt(r.luck_deal, 3)}</td><td>${fmt(r.luck_draws, 3)}</td></tr>`).join("") +
      "</tbody>" : "";
  }
  // The evaluation graph of the review, placed by the server as the HTML report's is
  // (views/graph.py: the domain, ticks, curves, dots, marks and round boundaries, sent with
  // each decision) and drawn with the report's drawing (the marks' symbols, the sides'
  // classes: views/drawing.py): each side's value of the play made at each of its
  // decisions, the labels' marks in a strip above the curves (joined by a dotted leader), a
  // ring round each exact decision; the current step highlighted, a click steps to it.
  function markerSvg(label, x, y) {
    return `<use href="#mark-${label}" x="${x - 8}" y="${y - 18}" width="16" height="16"/>` +
      `<text x="${x + 8}" y="${y - 8}">${MARK[label]}</text>`;
  }
  function drawGraph() {
    // Drawn from the placing the server sends with each decision (views/graph.py, the HTML
    // report's own): this only maps columns and values to pixels.
    const g = $("graph"), p = S.graph, ds = S.decisions;
    const n = p ? p.columns : 0;
    $("graph-title").hidden = $("graph-legend").hidden = !n;
    if (!n) { g.innerHTML = ""; return; }
    // which curve is which side: the curve's own stroke (the shared drawing's side classes)
    $("graph-legend").innerHTML = (p.sides || []).map((name, i) => `<span data-side="${i}">` +
      `<svg width="34" height="10" aria-hidden="true"><line class="curve side${i}" x1="0" ` +
      `y1="5" x2="34" y2="5"/></svg> ${name}</span>`).join("");
    const left = 40, right = 10, marksY = 34, top = 48, plotH = 150, H = top + plotH + 22;
    const width = Math.max(g.parentElement.clientWidth || 600, left + right + 22 * n);
    const step = (width - left - right) / n;
    const X = (i) => left + (i + 0.5) * step;
    const Y = (v) => top + plotH * (p.hi - Math.min(Math.max(v, p.lo), p.hi)) / (p.hi - p.lo);
    g.setAttribute("viewBox", `0 0 ${width} ${H}`);
    g.setAttribute("width", width);
    g.setAttribute("height", H);
    g.removeAttribute("preserveAspectRatio");
    let s = "";
    for (const [t, text] of p.ticks) {
      s += `<line class="grid" x1="${left}" y1="${Y(t)}" x2="${width - right}" y2="${Y(t)}"/>` +
        `<text x="${left - 5}" y="${Y(t) + 4}" text-anchor="end">${text}</text>`;
    }
    s += `<line class="axis" x1="${left}" y1="${Y(p.axis)}" x2="${width - right}" y2="${Y(p.axis)}"/>`;
    const current = p.dots.find((dot) => dot.decision === S.step);
    if (current) s += `<rect class="current" x="${X(current.column) - step / 2}" y="${top - 4}" ` +
      `width="${step}" height="${plotH + 8}"/>`;
    for (const [column, round] of p.boundaries) {
      const x = left + column * step;
      s += `<line class="boundary" x1="${x}" y1="${top - 6}" x2="${x}" y2="${top + plotH}"/>` +
        `<text x="${x + 3}" y="${top + plotH + 16}">round ${round + 1}</text>`;
    }
    for (const c of p.curves) {
      const pts = c.points.map(([i, v]) => `${X(i).toFixed(1)},${Y(v).toFixed(1)}`).join(" ");
      s += `<polyline class="curve side${c.side}" data-side="${c.side}" points="${pts}"/>`;
    }
    for (const dot of p.dots) {
      if (dot.value === null) continue;
      const i = dot.decision, x = X(dot.column), y = Y(dot.value);
      s += `<circle class="decision side${dot.side}" data-index="${i}" cx="${x}" cy="${y}" r="3.2"/>`;
      if (dot.exact) s += `<circle class="exact-ring" data-index="${i}" cx="${x}" cy="${y}" r="6.5"/>`;
      if (dot.mark === "marker") {
        s += `<line class="leader" x1="${x}" y1="${marksY + 1}" x2="${x}" y2="${y - 5}"/>` +
          `<g class="marker ${dot.label}" data-index="${i}">${markerSvg(dot.label, x, marksY)}</g>`;
      } else if (dot.mark === "borderline") {
        s += `<text class="borderline-mark" data-index="${i}" x="${x}" y="${marksY - 6}" ` +
          `text-anchor="middle">[${MARK[dot.label] || "-"}]</text>`;
      }
    }
    // the click targets, one column per decision, over everything
    for (const dot of p.dots) {
      const d = ds[dot.decision], i = dot.decision;
      if (!d) continue;
      s += `<rect class="hit" data-index="${i}" x="${X(dot.column) - step / 2}" y="0" width="${step}" ` +
        `height="${H}"><title>${whereOf(d)}: ${d.played}${markOf(d)} ${fmt(dot.value, 3)}` +
        `${d.exact ? ", exact" : ""}${d.label || d.borderline ? " — " + verdictOf(d) : ""}` +
        `</title></rect>`;
    }
    g.innerHTML = s;
  }
  function goTo(i) {
    if (!S.decisions.length) return;
    i = Math.max(0, Math.min(S.decisions.length - 1, i));
    S.step = i;
    const d = S.decisions[i];
    for (const li of $("decisions").children)
      li.classList.toggle("current", Number(li.dataset.index) === i);
    const cur = $("decisions").children[i];
    if (cur) cur.scrollIntoView({ block: "nearest" });
    const st = $("step");
    st.dataset.index = i;
    st.dataset.label = d.label || "";
    const verdict = verdictOf(d);
    st.innerHTML = `<div><b>Decision ${i + 1} of ${d.decisions_total || S.decisions.length}` +
      `</b>: ${whereOf(d)}` +
      (verdict ? ` · <span class="verdict ${d.label || ""}">${verdict}</span>` : "") +
      (d.exact ? ' <span class="badge exact">exact</span>' : "") + `</div><div>played ` +
      `<span class="mono">${d.played}${markOf(d)}</span> ${f2(d.values[d.played])}, ` +
      (d.best !== d.played || d.borderline ? `${comparedOf(d)} · ${lossOf(d)}` :
        "the best play · loss 0") + `</div><div class="row"><span class="mono small">` +
      `${d.position}</span> <button type="button" id="analyse-here">Analyse here</button></div>` +
      '<div class="board small"><div class="label">Line, the best move dashed</div>' +
      '<div id="step-line" class="tiles balanced"></div>' +
      `<div class="label">Hand of seat ${d.seat}</div><div id="step-hand" class="tiles balanced">` +
      "</div></div>";
    $("analyse-here").addEventListener("click", () => analyseHere(d));
    drawTiles(d.position, d.best, $("step-line"), $("step-hand"));
    drawGraph();
  }

  // "Analyse here": the reviewed record up to this decision, searched live from the seat to
  // move's view with everything the record proves (the lead, the draws, the passes).
  function recordUpTo(record, round, event) {
    const rounds = record.rounds.slice(0, round + 1).map((r, k) => k < round ? r :
      { ...r, events: r.events.slice(0, event) });
    return { ...record, rounds };
  }
  function analyseHere(d) {
    if (!S.reviewRecord) return;
    setPosition(recordUpTo(S.reviewRecord, d.round, d.event), "review");
    $("analysis-panel").scrollIntoView({ block: "start" });
  }

  // ---- a hint under a table or a graph wider than the screen --------------------------------
  function scrollHints() {
    for (const el of document.querySelectorAll(".scroll")) {
      el.classList.toggle("overflows", el.scrollWidth > el.clientWidth + 1);
    }
  }
  window.addEventListener("resize", scrollHints);

  // ---- wiring ---------------------------------------------------------------------------------
  $("paste-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    setPosition($("position-input").value.trim(), "paste");
  });
  $("setup-use").addEventListener("click", () => setPosition(setupString(), "setup"));
  $("setup-clear").addEventListener("click", () => { S.hand = []; S.line = []; refreshSetup(); });
  $("setup-voids").addEventListener("input", drawVoids);
  $("setup-rules").addEventListener("input", drawVoids);
  $("inference").addEventListener("change", () => {
    writeAddress();
    if (!S.position) return;
    startLive();
    showBeliefs();
  });
  $("go").addEventListener("click", startLive);
  $("more-time").addEventListener("click", () => {
    // A fixed budget four times over; until stopped, the search deepens of itself.
    const box = $("budget-iterations");
    box.value = Math.min(4 * Number(box.value), 100000000);
    writeAddress();
    startLive();
  });
  $("stop").addEventListener("click", stopClicked);
  function budgetLabels() {
    const fixed = $("budget-mode").value === "fixed";
    $("iterations-label").textContent = fixed ? "Iterations" : "Iterations, then deepening";
    $("budget-iterations").title = fixed ? "the search's budget: it finishes at it" :
      "the first search's budget: then searches of twice it, four times, ... until Stop; " +
      "the answer is the last finished one's (bergen best --iterations N for its N)";
  }
  for (const id of ["budget-mode", "budget-iterations", "budget-seed"]) {
    $(id).addEventListener("change", () => { budgetLabels(); writeAddress(); });
  }
  $("open-file").addEventListener("change", openDocument);
  $("review-go").addEventListener("click", startReview);
  $("record-file").addEventListener("change", startReview);
  $("graph").addEventListener("click", (ev) => {
    const i = ev.target.dataset && ev.target.dataset.index;
    if (i !== undefined) goTo(Number(i));
  });
  document.addEventListener("keydown", (ev) => {
    const tag = (ev.target.tagName || "").toLowerCase();
    if (tag === "input" || tag === "textarea" || tag === "select" || !S.decisions.length) return;
    const to = { ArrowLeft: S.step - 1, ArrowRight: S.step + 1, Home: 0,
      End: S.decisions.length - 1 }[ev.key];
    if (to === undefined) return;
    ev.preventDefault();
    goTo(to);
  });
  // ---- entering a game ----------------------------------------------------------------------------
  const G = { record: null, round: 0, id: null, drawing: false, legal: [], toMove: null, over: false };
  function newRecord() {
    const n = Number($("game-players").value);
    return { format: "bergen-record/1", rules: { players: n },
      start_scores: $("game-scores").value.split(",").map(Number), rounds: [] };
  }
  function gameRound() {
    if (!G.record) G.record = newRecord();
    if (!G.record.rounds.length) {
      const n = G.record.rules.players;
      G.record.rounds.push({ hands: Array.from({ length: n }, () => null), reserve: null, events: [] });
    }
    return G.record.rounds[G.record.rounds.length - 1];
  }
  function drawGamePalette() {
    const pal = $("game-palette");
    pal.replaceChildren();
    for (let a = 0; a <= 6; a++) for (let b = a; b <= 6; b++) {
      const el = tileEl(a, b, "button");
      el.type = "button";
      el.addEventListener("click", () => gameTile(tileName(a, b)));
      pal.appendChild(el);
    }
  }
  function gameTile(t) {
    $("game-error").textContent = "";
    const round = gameRound();
    if (G.drawing) {
      G.drawing = false;
      addEvent({ seat: G.toMove, draw: t });
      return;
    }
    if (round.events.length) {
      $("game-error").textContent = "the deal is done: undo every event to change it";
      return;
    }
    const seat = Number($("game-seat").value);
    const hand = round.hands[seat] || [];
    const i = hand.indexOf(t);
    if (i >= 0) hand.splice(i, 1); else hand.push(t);
    round.hands[seat] = hand.length ? hand : null;
    check();
  }
  function addEvent(ev) {
    gameRound().events.push(ev);
    check(true);
  }
  function check(undoOnError) {
    refreshGame();
    G.undoOnError = !!undoOnError;
    G.id = newId("game");
    // the engine's `moves`: what the seat to move may do next, its hand seen or not
    send({ cmd: "moves", record: G.record, id: G.id });
  }
  function onGame(msg) {
    const round = gameRound();
    G.legal = []; G.over = false; G.why = null;
    G.leads = [];
    if (msg.type === "moves") {
      G.toMove = msg.to_move;
      G.legal = msg.moves;
      G.seen = msg.seen;
      G.why = msg.why || null;
      // a round not yet led: the leads some deal allows, an unseen seat's too
      if (msg.to_move === null) G.leads = msg.leads || [];
      followGame(msg);
    } else if (/(round|match) is over/.test(msg.error)) {
      G.over = /match is over/.test(msg.error) ? "the match is over" : "the round is over";
      G.toMove = null;
    } else if (/not led yet/.test(msg.error)) {
      G.toMove = null;     // the deal: the lead is offered from the doubles dealt
    } else {
      if (G.undoOnError) round.events.pop();
      $("game-error").textContent = msg.error;
      if (G.undoOnError) { check(false); return; }
    }
    refreshGame();
  }
  // The live analysis following the game being entered (the toggle): each event's position,
  // sent as the record so far (what it proves is kept), when the seat to move's hand is seen.
  function followGame(msg) {
    if (!$("game-follow").checked || msg.to_move === null) return;
    if (!msg.seen) {
      if (S.liveId) stopLive();
      setStatus("idle", `seat ${msg.to_move}'s hand is not seen: the live analysis waits ` +
        "for a seat whose hand is");
      return;
    }
    setPosition(JSON.parse(JSON.stringify(G.record)), "game");
  }
  function refreshGame() {
    const round = gameRound();
    const seen = new Set();
    round.hands.forEach((h) => (h || []).forEach((t) => seen.add(t)));
    for (const el of $("game-palette").children) el.classList.toggle("dealt", seen.has(el.dataset.tile));
    $("game-palette").classList.toggle("drawing", G.drawing);
    $("game-hands").textContent = round.hands.map((h, i) =>
      `seat ${i}: ${h ? h.slice().sort().join(" ") : "(not seen)"}`).join(" · ");
    $("game-to-move").textContent = G.over ? G.over :
      G.toMove === null ? (round.events.length ? "—" : "the lead") :
      "seat " + G.toMove + (G.seen ? "" : " (hand not seen: every move it may have)");
    const box = $("game-legal");
    box.replaceChildren();
    const choices = [];
    if (!round.events.length) {     // the lead: the engine's `moves` lists those some deal allows
      for (const { seat, play } of G.leads || []) {
        choices.push({ label: `seat ${seat} leads ${play}`, move: play, seat, ev: { seat, play } });
      }
      if (!(G.leads || []).length && G.why) $("game-error").textContent = G.why;
    } else if (G.toMove !== null && !G.over) {
      for (const m of G.legal) {
        // a seen seat's draw asks for the tile drawn; an unseen seat's is recorded unseen
        if (m === "draw") choices.push({ label: "draw", move: "draw",
          ev: G.seen ? null : { seat: G.toMove, draw: null } });
        else if (m === "pass") choices.push({ label: "pass", move: "pass", ev: { seat: G.toMove, pass: true } });
        else choices.push({ label: m, move: m, ev: { seat: G.toMove, play: m } });
      }
      if (!G.legal.length && G.why) $("game-error").textContent = G.why;
    }
    for (const c of choices) {
      const btn = document.createElement("button");
      btn.type = "button";
      btn.textContent = c.label;
      btn.dataset.move = c.move;
      if (c.seat !== undefined) btn.dataset.seat = String(c.seat);
      btn.addEventListener("click", () => {
        if (c.ev) addEvent(c.ev);
        else { G.drawing = true; refreshGame(); }
      });
      box.appendChild(btn);
    }
    $("game-draw-hint").textContent = G.drawing ? `click the tile seat ${G.toMove} drew` : "";
    $("game-events").replaceChildren(...round.events.map((e, k) => {
      const li = document.createElement("li");
      li.innerHTML = `<span class="n">${k + 1}.</span> `;
      li.append(`seat ${e.seat}: ` + ("play" in e ? e.play : "draw" in e ?
        "draws " + (e.draw || "?") : "passes"));
      return li;
    }));
  }
  $("game-seat").addEventListener("focus", () => {
    const n = Number($("game-players").value), sel = $("game-seat"), cur = sel.value;
    sel.replaceChildren(...Array.from({ length: n }, (_, i) => new Option(String(i))));
    sel.value = Math.min(Number(cur), n - 1);
  });
  $("game-players").addEventListener("change", () => { G.record = null; G.drawing = false; refreshGame(); });
  $("game-scores").addEventListener("change", () => {
    if (G.record) G.record.start_scores = $("game-scores").value.split(",").map(Number);
  });
  $("game-undo").addEventListener("click", () => {
    const round = gameRound();
    G.drawing = false;
    if (round.events.length) round.events.pop();
    else if (G.record.rounds.length > 1) G.record.rounds.pop();
    check(false);
  });
  $("game-next-round").addEventListener("click", () => {
    const n = G.record ? G.record.rules.players : Number($("game-players").value);
    gameRound();
    G.record.rounds.push({ hands: Array.from({ length: n }, () => null), reserve: null, events: [] });
    G.toMove = null; G.over = false;
    refreshGame();
  });
  $("game-download").addEventListener("click", () => {
    const blob = new Blob([JSON.stringify(G.record || newRecord(), null, 1) + "\n"],
      { type: "application/json" });
    const a = document.createElement("a");
    a.href = URL.createObjectURL(blob);
    a.download = "game.json";
    document.body.appendChild(a); a.click(); a.remove();
  });
  $("game-file").addEventListener("change", () => {
    readJson("game-file", "game-error", `reads games up to ${megabytes(MAX_MESSAGE)}`, (doc) => {
      G.record = doc;
      $("game-players").value = G.record.rules && G.record.rules.players || 2;
      check(false);
    });
  });
  drawGamePalette();
  refreshGame();
  drawPalette();
  drawVoids();
  connect();
  // The address: the position and the budget; a document kept for the tab when its
  // position is the address's.
  const start = readAddress();
  if (start) {
    $("setup").open = false;
    let kept = null;
    try { kept = JSON.parse(sessionStorage.getItem(RECORD_KEY) || "null"); } catch (e) { kept = null; }
    if (kept && kept.position === start) setPosition(kept.game, kept.source || "file");
    else setPosition(start, "paste");
  } else if (window.matchMedia("(max-width: 700px)").matches) {
    $("setup").open = false;
  }
  scrollHints();
})();
