// joseki explore: the page over the explorer's JSON API (docs/explorer.md). Plain JavaScript, no build step.
"use strict";

const COLUMNS = "ABCDEFGHJKLMNOPQRST";
const SIZE = 19, CELL = 20, EDGE = 20;
const FILTERS = ["years", "collections", "player", "color", "min_rank", "result"];
const B_FILTERS = ["b_years", "b_collections", "b_player", "b_min_rank"];
const PAGE = 10;

const state = {
  line: [], at: 0, sort: "games", offset: 0, filters: {}, answer: null, games: null,
  replay: null, edit: null, sgf: null, requested: 0, practice: null,
};

const $ = (id) => document.getElementById(id);
const svgNS = "http://www.w3.org/2000/svg";

function el(tag, attrs = {}, text = null) {
  const node = tag.includes(":") || ["svg", "rect", "circle", "line", "text", "g", "path"].includes(tag)
    ? document.createElementNS(svgNS, tag) : document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (text !== null) node.textContent = text;
  return node;
}

// -- points ---------------------------------------------------------------------------------------------------

function pointName(r, c) { return COLUMNS[c] + (SIZE - r); }
function pointOf(name) {
  const m = /^([A-HJ-T])(\d{1,2})$/.exec(name || "");
  if (!m) return null;
  const r = SIZE - Number(m[2]), c = COLUMNS.indexOf(m[1]);
  return r >= 0 && r < SIZE ? [r, c] : null;
}
function xy(r, c) { return [EDGE + c * CELL, EDGE + r * CELL]; }

// -- a board with captures ---------------------------------------------------------------------------------------

function emptyBoard() { return Array.from({ length: SIZE }, () => Array(SIZE).fill("")); }
function neighbours(r, c) {
  return [[r - 1, c], [r + 1, c], [r, c - 1], [r, c + 1]].filter(([a, b]) => a >= 0 && a < SIZE && b >= 0 && b < SIZE);
}
function group(board, r, c) {
  const colour = board[r][c], seen = new Set([r * SIZE + c]), stack = [[r, c]];
  let liberties = 0;
  while (stack.length) {
    const [a, b] = stack.pop();
    for (const [x, y] of neighbours(a, b)) {
      const k = x * SIZE + y;
      if (seen.has(k)) continue;
      if (board[x][y] === colour) { seen.add(k); stack.push([x, y]); }
      else if (board[x][y] === "") { seen.add(k); liberties++; }
    }
  }
  return { stones: [...seen].filter((k) => board[Math.floor(k / SIZE)][k % SIZE] === colour), liberties };
}
function play(board, colour, name) {
  const p = pointOf(name);
  if (!p) return;
  const [r, c] = p;
  board[r][c] = colour;
  const other = colour === "B" ? "W" : "B";
  for (const [x, y] of neighbours(r, c)) {
    if (board[x][y] !== other) continue;
    const g = group(board, x, y);
    if (g.liberties === 0) for (const k of g.stones) board[Math.floor(k / SIZE)][k % SIZE] = "";
  }
}

// -- the URL holds the moves and the filters ---------------------------------------------------------------------

function query(extra = {}) {
  const p = new URLSearchParams();
  p.set("moves", state.line.slice(0, state.at).join(","));
  for (const [k, v] of Object.entries(state.filters)) if (v) p.set(k, v);
  for (const [k, v] of Object.entries(extra)) p.set(k, v);
  return p;
}
function pageURL() {
  const p = query();
  if (!p.get("moves")) p.delete("moves");
  const text = p.toString().replace(/%2C/g, ",");
  return text ? "?" + text : location.pathname;
}
function fromURL() {
  const p = new URLSearchParams(location.search);
  const moves = (p.get("moves") || "").split(",").filter(Boolean);
  state.line = moves; state.at = moves.length; state.offset = 0; state.filters = {};
  for (const k of [...FILTERS, ...B_FILTERS]) if (p.get(k)) state.filters[k] = p.get(k);
  fillForm();
}
function fillForm() {
  const form = $("filters");
  for (const k of [...FILTERS, ...B_FILTERS]) {
    if (k === "collections") continue;
    if (form.elements[k]) form.elements[k].value = state.filters[k] || "";
  }
  const chosen = (state.filters.collections || "").split(",").filter(Boolean);
  for (const box of document.querySelectorAll("#collections input")) box.checked = chosen.includes(box.value);
  const comparing = B_FILTERS.some((k) => state.filters[k]);
  $("compare").checked = comparing; $("b-fields").hidden = !comparing;
}
function readForm() {
  const form = $("filters"), out = {};
  for (const k of FILTERS) {
    if (k === "collections") continue;
    const v = (form.elements[k].value || "").trim();
    if (v) out[k] = v;
  }
  const chosen = [...document.querySelectorAll("#collections input:checked")].map((b) => b.value);
  if (chosen.length) out.collections = chosen.join(",");
  if ($("compare").checked) {
    for (const k of B_FILTERS) { const v = (form.elements[k].value || "").trim(); if (v) out[k] = v; }
  }
  return out;
}

// -- asking the API --------------------------------------------------------------------------------------------

async function api(path, params) {
  const response = await fetch(path + "?" + params.toString());
  const body = await response.json();
  if (!response.ok) throw new Error(body.error || response.statusText);
  return body;
}
function showError(message) { $("error").textContent = message; $("error").hidden = !message; }

async function refresh(push = true) {
  if (push && location.search !== pageURL().replace(location.pathname, "")) history.pushState(null, "", pageURL());
  const asked = ++state.requested;
  state.replay = null; $("replay-bar").hidden = true;
  try {
    const answer = await api("/api/explore", query());
    if (asked !== state.requested) return;
    state.answer = answer; showError("");
    drawAll();
    document.body.dataset.shown = query().toString();  // what the page shows now (the browser test waits for it)
    loadGames(); loadTrend();
  } catch (err) {
    if (asked !== state.requested) return;
    state.answer = null; showError(err.message); drawAll();
    document.body.dataset.shown = query().toString();
  }
}

async function loadGames() {
  const asked = state.requested;
  const tbody = $("games").querySelector("tbody");
  try {
    const params = query({ limit: PAGE, offset: state.offset });
    for (const k of B_FILTERS) params.delete(k);
    const found = await api("/api/games", params);
    if (asked !== state.requested) return;
    state.games = found;
    tbody.replaceChildren();
    for (const g of found.games) {
      const tr = el("tr", { "data-game": g.game });
      tr.append(
        el("td", {}, `${g.black}${g.black_rank ? " " + g.black_rank : ""}`),
        el("td", {}, `${g.white}${g.white_rank ? " " + g.white_rank : ""}`),
        el("td", {}, g.date || ""), el("td", {}, g.result || ""), el("td", { class: "wide" }, g.collection),
        el("td", {}, g.corner || ""),
      );
      tr.addEventListener("click", () => openGame(g.game));
      tbody.append(tr);
    }
    $("games-total").textContent = `(${found.total.toLocaleString("en")})`;
    const last = Math.min(found.total, state.offset + PAGE);
    $("games-page").textContent = found.total ? `${state.offset + 1}-${last} of ${found.total.toLocaleString("en")}` : "none";
    $("games-prev").disabled = state.offset === 0;
    $("games-next").disabled = last >= found.total;
    document.body.dataset.games = `${params.toString()}`;
  } catch (err) { tbody.replaceChildren(); $("games-page").textContent = err.message; }
}

async function loadTrend() {
  const box = $("trend");
  box.replaceChildren();
  if (!state.at || !state.answer || !state.answer.stored) return;
  const asked = state.requested;
  const params = query();
  for (const k of B_FILTERS) params.delete(k);
  let found;
  try { found = await api("/api/trend", params); } catch (err) { return; }
  if (asked !== state.requested || !found.years.length) return;
  const years = found.years, most = Math.max(...years.map((y) => y.share || 0)) || 1;
  const w = 400, h = 90, bar = w / years.length;
  const svg = el("svg", { viewBox: `0 0 ${w} ${h}`, "aria-label": "share of each year's games" });
  years.forEach((y, i) => {
    const height = ((y.share || 0) / most) * (h - 24);
    const held = y.held_by ? ` - ${Math.round(100 * y.held_share)}% of them ${y.held_by}'s: a collection, not a year` : "";
    const rect = el("rect", {
      class: y.held_by ? "bar held" : "bar", x: i * bar + 1, y: h - 14 - height, width: Math.max(1, bar - 2), height,
      "data-year": y.year, ...(y.held_by ? { "data-collection": y.held_by } : {}),
    });
    rect.append(el("title", {}, `${y.year}: ${y.games} of ${y.mined} games (${pct(y.share || 0)})${held}`));
    svg.append(rect);
    if (i === 0 || i === years.length - 1 || y.year % 5 === 0) svg.append(el("text", { x: i * bar + bar / 2, y: h - 3, "text-anchor": "middle" }, y.year));
  });
  svg.append(el("text", { x: 2, y: 9 }, `share of each year's games, most ${pct(most)}`));
  box.append(svg);
  const held = years.filter((y) => y.held_by);
  if (held.length) {
    box.append(el("p", { class: "held-note" }, "Outlined: years whose games are mostly one collection's ("
      + held.map((y) => `${y.year} ${y.held_by}`).join(", ") + "); their share says more of that collection than of the year."));
  }
}

// -- drawing ----------------------------------------------------------------------------------------------------

function pct(x) { return x > 0 && x < 0.005 ? "<1%" : `${Math.round(100 * x)}%`; }
function stonesOfLine() {
  const board = emptyBoard();
  let last = null;
  state.line.slice(0, state.at).forEach((m, i) => {
    if (m !== "tenuki") { play(board, i % 2 ? "W" : "B", m); last = m; }
  });
  return { board, last };
}

function drawBoard() {
  const svg = $("board");
  svg.replaceChildren();
  const far = EDGE + (SIZE - 1) * CELL;
  for (let i = 0; i < SIZE; i++) {
    const [x] = xy(0, i);
    svg.append(el("line", { class: "line", x1: x, y1: EDGE, x2: x, y2: far }));
    svg.append(el("line", { class: "line", x1: EDGE, y1: x, x2: far, y2: x }));
    svg.append(el("text", { class: "coord", x, y: 8 }, COLUMNS[i]));
    svg.append(el("text", { class: "coord", x: 8, y: x }, String(SIZE - i)));
  }
  for (const r of [3, 9, 15]) for (const c of [3, 9, 15]) { const [x, y] = xy(r, c); svg.append(el("circle", { class: "star", cx: x, cy: y, r: 2.2 })); }
  let board, last = null, numbers = {};
  if (state.replay) {
    board = emptyBoard();
    const g = state.replay.game;
    for (const p of g.setup_black) play(board, "B", p);
    for (const p of g.setup_white) play(board, "W", p);
    g.moves.slice(0, state.replay.at).forEach(([colour, p]) => { if (p !== "pass") { play(board, colour, p); last = p; } });
  } else if (state.edit) {
    board = state.edit;
  } else if (state.sgf) {
    board = emptyBoard();
    state.sgf.moves.slice(0, state.sgf.at).forEach(([colour, p]) => { if (p) { play(board, colour, p); last = p; } });
  } else {
    ({ board, last } = stonesOfLine());
    state.line.slice(0, state.at).forEach((m, i) => { if (m !== "tenuki") numbers[m] = i + 1; });
  }
  for (let r = 0; r < SIZE; r++) for (let c = 0; c < SIZE; c++) {
    const colour = board[r][c];
    if (!colour) continue;
    const [x, y] = xy(r, c), name = pointName(r, c);
    svg.append(el("circle", { class: `stone-${colour}`, cx: x, cy: y, r: CELL * 0.47 }));
    if (numbers[name]) svg.append(el("text", { class: `number number-${colour}`, x, y }, numbers[name]));
    else if (name === last) svg.append(el("circle", { class: "last", cx: x, cy: y, r: CELL * 0.22 }));
  }
  const plain = !state.replay && !state.edit && !state.sgf && !state.practice;  // practising: no answers shown
  if (plain && state.answer && state.answer.stored) {
    state.answer.continuations.forEach((c, i) => {
      const p = pointOf(c.board);
      if (!p || board[p[0]][p[1]]) return;
      const [x, y] = xy(p[0], p[1]);
      const labelled = c.share >= 0.01;
      svg.append(el("circle", { class: i === 0 ? "mark top" : "mark", cx: x, cy: y, r: CELL * (labelled ? 0.46 : 0.18), "data-move": c.board }));
      if (labelled) svg.append(el("text", { class: "label", x, y }, pct(c.share)));
    });
  }
  for (let r = 0; r < SIZE; r++) for (let c = 0; c < SIZE; c++) {
    const [x, y] = xy(r, c);
    const hit = el("rect", { class: "hit", x: x - CELL / 2, y: y - CELL / 2, width: CELL, height: CELL, "data-point": pointName(r, c) });
    svg.append(hit);
  }
}

function drawMoves() {
  const list = $("moves");
  list.replaceChildren();
  state.line.forEach((m, i) => {
    const li = el("li", { class: i < state.at ? "" : "ahead", "data-index": i + 1 }, `${i + 1} ${i % 2 ? "W" : "B"} ${m}`);
    li.addEventListener("click", () => { state.at = i + 1; state.offset = 0; refresh(); });
    list.append(li);
  });
  $("back").disabled = state.at === 0; $("first").disabled = state.at === 0;
  $("forward").disabled = state.at >= state.line.length;
  const also = $("also");
  also.replaceChildren();
  const orders = (state.answer && state.answer.transpositions) || [];
  if (orders.length) {
    also.append("Also reached by ");
    for (const o of orders) {
      const a = el("a", { href: "?moves=" + o.moves.join(",") }, `${o.moves.join(" ")} (${o.games.toLocaleString("en")} games)`);
      a.addEventListener("click", (e) => { e.preventDefault(); state.line = o.moves.slice(); state.at = o.moves.length; state.offset = 0; refresh(); });
      also.append(a);
    }
  }
}

function drawSummary() {
  const box = $("summary");
  box.replaceChildren();
  const a = state.answer;
  if (!a) return;
  if (!a.stored) {
    box.textContent = `The tree does not hold this line: it holds its first ${a.held} moves; rarer lines are not stored (they were played once).`;
    return;
  }
  const w = a.win_rate;
  const where = state.at ? `${a.board}` : "the empty corner";
  const parts = [`${where}: ${a.games.toLocaleString("en")} games, ${a.count.toLocaleString("en")} sequences`];
  if (w && w.decided) parts.push(`Black wins ${pct(w.black)} (${pct(w.low)}-${pct(w.high)})`);
  if (a.first_year) parts.push(a.first_year === a.last_year ? `${a.first_year}` : `${a.first_year}-${a.last_year}`);
  if (state.at) parts.push(a.book === "below the book's threshold" ? "below the book's threshold" : `in the book: ${a.book}`);
  if (state.at && a.context) parts.push(`another stone near in ${pct(a.context.near_share)} of its games, played around move ${a.context.move_number}`);
  const sources = Object.entries(a.sources || {}).map(([k, v]) => `${k.split("/").pop()} ${v.toLocaleString("en")}`);
  if (sources.length) parts.push(sources.join(", "));
  box.textContent = parts.join("; ");
  if (a.b) box.append(el("br"), `B: ${a.b.games ? a.b.games.toLocaleString("en") : 0} games, ${a.b.count.toLocaleString("en")} sequences`);
}

function drawTable() {
  const table = $("continuations");
  const tbody = table.querySelector("tbody");
  tbody.replaceChildren();
  for (const th of table.querySelectorAll("th.sort")) th.classList.toggle("sorted", th.dataset.sort === state.sort);
  const a = state.answer;
  table.classList.toggle("comparing", Boolean(a && a.compared));
  if (!a || !a.stored) return;
  const b = {};
  for (const c of a.compared || []) b[c.board] = c;
  const rows = a.continuations.slice().sort((x, y) => (state.sort === "share" ? y.share - x.share : y.games - x.games) || y.count - x.count);
  for (const c of rows) {
    const w = c.win_rate;
    const kind = c.book === "below the book's threshold" ? "below the book's threshold" : c.book;
    const tr = el("tr", { "data-move": c.board, class: c.book === "below the book's threshold" ? "below" : "" });
    if (c.context) tr.title = `another stone near in ${pct(c.context.near_share)} of its games, played around move ${c.context.move_number}`;
    const cmp = b[c.board];
    tr.append(
      el("td", {}, c.board),
      el("td", { "data-games": c.games }, c.games.toLocaleString("en")),
      el("td", { "data-share": c.share }, pct(c.share)),
      bCell(cmp),
      el("td", {}, w.decided ? `${pct(w.black)} (${pct(w.low)}-${pct(w.high)})` : "-"),
      el("td", {}, c.last_year || ""),
      el("td", { class: "kind" }, kind),
    );
    tr.addEventListener("click", () => playMove(c.board));
    tbody.append(tr);
  }
  if (a.ended_or_rarer > 0) {
    const tr = el("tr", { class: "below" });
    tr.append(el("td", { colspan: 7 }, `${a.ended_or_rarer.toLocaleString("en")} sequences end here or go on by a move played once`));
    tbody.append(tr);
  }
}

function bCell(cmp) {
  // B's share, and its difference from A's in points where it is real (compare's test)
  if (!cmp) return el("td", { class: "b-col" }, "");
  const points = Math.round(100 * cmp.difference);
  const text = cmp.real ? `${pct(cmp.b.share)} (${points > 0 ? "+" : ""}${points || (cmp.difference > 0 ? "+<1" : "-<1")})` : pct(cmp.b.share);
  const cell = el("td", { class: "b-col" + (cmp.real ? " real" : ""), title: cmp.real ? "a real difference from A" : "no real difference from A" }, text);
  return cell;
}

function drawAll() { drawBoard(); drawMoves(); drawSummary(); drawTable(); }

// -- playing ----------------------------------------------------------------------------------------------------

function playMove(name) {
  if (state.practice) { practiceMove(name); return; }  // practice.js: the player's move, then the reply
  state.line = state.line.slice(0, state.at);
  state.line.push(name);
  state.at = state.line.length; state.offset = 0;
  refresh();
}

function clickPoint(name) {
  if (state.edit) {
    const [r, c] = pointOf(name);
    const chosen = document.querySelector("input[name=stone]:checked").value;
    state.edit[r][c] = state.edit[r][c] === chosen ? "" : chosen;
    drawBoard();
    return;
  }
  if (state.replay || state.sgf) return;
  const { board } = stonesOfLine();
  const [r, c] = pointOf(name);
  if (board[r][c]) return;
  playMove(name);
}

async function openGame(id) {
  const params = new URLSearchParams({ moves: state.line.slice(0, state.at).join(",") });
  try {
    const game = await api(`/api/games/${id}`, params);
    state.replay = { game, at: Math.max(0, (game.start || 1) - 1) };
    for (const tr of $("games").querySelectorAll("tr")) tr.classList.toggle("playing", tr.dataset.game === String(id));
    $("replay-title").textContent = `${game.PB} ${game.BR || ""} - ${game.PW} ${game.WR || ""}, ${game.date || ""} ${game.RE || ""}`;
    $("replay-sgf").href = `/api/games/${id}.sgf?${params.toString()}`;
    $("replay-sgf").setAttribute("download", `game-${id}.sgf`);
    $("replay-bar").hidden = false;
    drawReplay();
  } catch (err) { showError(err.message); }
}
function drawReplay() {
  $("replay-at").textContent = `${state.replay.at} of ${state.replay.game.moves.length}`;
  drawBoard();
}
function stepReplay(by) {
  if (!state.replay) return;
  state.replay.at = Math.min(state.replay.game.moves.length, Math.max(0, state.replay.at + by));
  drawReplay();
}

// -- position search: set up stones, or open an SGF file and step to a move ------------------------------------------------

function stonesText(board, colour, rows = null) {
  const out = [];
  for (let r = 0; r < SIZE; r++) for (let c = 0; c < SIZE; c++) if (board[r][c] === colour && (!rows || rows(r, c))) out.push(pointName(r, c));
  return out.join(",");
}
async function searchPosition(board, near = null) {
  const corner = near ? ((r, c) => (r < 10) === (near[0] < 10) && (c < 10) === (near[1] < 10)) : null;
  const params = new URLSearchParams({ black: stonesText(board, "B", corner), white: stonesText(board, "W", corner) });
  for (const [k, v] of Object.entries(state.filters)) if (FILTERS.includes(k) && v && k !== "color") params.set(k, v);
  const box = $("summary");
  try {
    const found = await api("/api/position", new URLSearchParams({ black: params.get("black"), white: params.get("white") }));
    showError("");
    box.replaceChildren(`This position: ${found.games.toLocaleString("en")} games, ${found.sequences.toLocaleString("en")} sequences. `);
    for (const o of found.orders || []) {
      const moves = o.board.split(" ");
      const a = el("a", { href: "?moves=" + moves.join(",") }, `${o.board} (${o.games.toLocaleString("en")} games)`);
      a.addEventListener("click", (e) => { e.preventDefault(); leaveModes(); state.line = moves; state.at = moves.length; refresh(); });
      box.append(a, " ");
    }
    const next = (found.moves || []).slice(0, 8).map((m) => `${m.colour} ${m.move} ${m.games.toLocaleString("en")}`);
    if (next.length) box.append(el("br"), "Played next: " + next.join(", "));
  } catch (err) { showError(err.message); }
}
function parseSGF(text) {
  const moves = [];
  const re = /;\s*([BW])\s*\[([a-s]{0,2})\]/g;
  let m;
  const main = text.replace(/\)\s*\(/, "))");  // the main line: up to the first variation
  while ((m = re.exec(main)) !== null) {
    const p = m[2];
    moves.push([m[1], p.length === 2 && p !== "tt" ? pointName(p.charCodeAt(1) - 97, p.charCodeAt(0) - 97) : null]);
  }
  return moves;
}
function leaveModes() {
  state.edit = null; state.sgf = null;
  $("edit-bar").hidden = true; $("sgf-bar").hidden = true; $("edit").classList.remove("on");
}

// -- wiring -----------------------------------------------------------------------------------------------------

function wire() {
  $("board").addEventListener("click", (e) => {
    const p = e.target.getAttribute && e.target.getAttribute("data-point");
    if (p) clickPoint(p);
  });
  $("back").addEventListener("click", () => { if (state.at > 0) { state.at--; state.offset = 0; refresh(); } });
  $("first").addEventListener("click", () => { state.at = 0; state.offset = 0; refresh(); });
  $("forward").addEventListener("click", () => { if (state.at < state.line.length) { state.at++; state.offset = 0; refresh(); } });
  $("tenuki").addEventListener("click", () => { if (!state.edit && !state.sgf) playMove("tenuki"); });
  $("filters").addEventListener("submit", (e) => { e.preventDefault(); state.filters = readForm(); state.offset = 0; refresh(); });
  $("reset").addEventListener("click", () => { state.filters = {}; fillForm(); state.offset = 0; refresh(); });
  $("compare").addEventListener("change", () => { $("b-fields").hidden = !$("compare").checked; });
  for (const th of document.querySelectorAll("#continuations th.sort")) th.addEventListener("click", () => { state.sort = th.dataset.sort; drawTable(); });
  $("games-prev").addEventListener("click", () => { state.offset = Math.max(0, state.offset - PAGE); loadGames(); });
  $("games-next").addEventListener("click", () => { state.offset += PAGE; loadGames(); });
  $("replay-start").addEventListener("click", () => { state.replay.at = Math.max(0, (state.replay.game.start || 1) - 1); drawReplay(); });
  $("replay-back").addEventListener("click", () => stepReplay(-1));
  $("replay-forward").addEventListener("click", () => stepReplay(1));
  $("replay-close").addEventListener("click", () => { state.replay = null; $("replay-bar").hidden = true; drawBoard(); });
  $("edit").addEventListener("click", () => {
    if (state.edit) { leaveModes(); drawAll(); return; }
    leaveModes(); state.edit = stonesOfLine().board; state.replay = null;
    $("edit-bar").hidden = false; $("edit").classList.add("on"); drawBoard();
  });
  $("clear").addEventListener("click", () => { state.edit = emptyBoard(); drawBoard(); });
  $("search").addEventListener("click", () => searchPosition(state.edit));
  $("sgf-file").addEventListener("change", async (e) => {
    const file = e.target.files[0];
    if (!file) return;
    const moves = parseSGF(await file.text());
    leaveModes(); state.sgf = { moves, at: moves.length };
    $("sgf-bar").hidden = false; $("sgf-of").textContent = moves.length; $("sgf-at").textContent = moves.length; drawBoard();
  });
  const stepSGF = (by) => { state.sgf.at = Math.min(state.sgf.moves.length, Math.max(0, state.sgf.at + by)); $("sgf-at").textContent = state.sgf.at; drawBoard(); };
  $("sgf-back").addEventListener("click", () => stepSGF(-1));
  $("sgf-forward").addEventListener("click", () => stepSGF(1));
  $("sgf-search").addEventListener("click", () => {
    const board = emptyBoard();
    let last = null;
    state.sgf.moves.slice(0, state.sgf.at).forEach(([colour, p]) => { if (p) { play(board, colour, p); last = pointOf(p); } });
    if (last) searchPosition(board, last);
  });
  $("reload").addEventListener("click", (e) => { e.preventDefault(); location.reload(); });
  window.addEventListener("popstate", () => { fromURL(); leaveModes(); refresh(false); });
}

async function loadRun() {
  try {
    const run = await api("/api/run", new URLSearchParams());
    $("run").textContent = `${run.games.toLocaleString("en")} games, ${run.nodes.toLocaleString("en")} stored nodes, ${run.years ? run.years.join("-") : ""}`;
    $("newer").hidden = !run.newer;
    const box = $("collections");
    if (!box.childElementCount) {
      for (const name of run.collections) {
        const label = el("label");
        label.append(el("input", { type: "checkbox", value: name }), " " + name);
        box.append(label);
      }
      fillForm();
    }
  } catch (err) { /* the next poll tries again */ }
}

wire();
fromURL();
loadRun();
refresh(false);
setInterval(loadRun, 20000);
