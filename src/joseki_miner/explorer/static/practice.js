// joseki explore: Practise (docs/explorer.md). The opponent's replies come from /api/practice/reply, drawn as the
// selected games play them; each of the player's moves is told (/api/practice/move) and reviewed on the schedule.
"use strict";

async function practiceApi(path, params, method = "GET") {
  for (const k of [...params.keys()]) if (k.startsWith("b_")) params.delete(k);  // one selection: the opponent's
  const response = await fetch(path + "?" + params.toString(), { method });
  const body = await response.json();
  if (!response.ok) throw new Error(body.error || response.statusText);
  return body;
}

function toPlay() { return state.at % 2 ? "white" : "black"; }  // the line's first move is Black's

function practiceStatus(text, ended = false) {
  $("practice-status").textContent = text;
  $("practice-status").classList.toggle("ended", ended);
  document.body.dataset.practice = ended ? "ended" : (state.practice ? (toPlay() === state.practice.colour ? "yours" : "waiting") : "off");
}

function startPractice(colour = $("practice-colour").value, line = null) {
  if (line) { state.line = line.slice(); state.at = line.length; }
  state.line = state.line.slice(0, state.at);
  leaveModes();
  state.practice = { colour, seed: $("practice-seed").value.trim() || "0", start: state.at, ended: false };
  $("practice-colour").value = colour;
  $("practice-start").hidden = true; $("practice-stop").hidden = false;
  document.body.classList.add("practising");
  $("practice-feedback").replaceChildren();
  refresh();
  if (toPlay() === colour) practiceStatus(`Your move (${colour}).`);
  else opponentMove();
}

function stopPractice() {
  state.practice = null;
  $("practice-start").hidden = false; $("practice-stop").hidden = true;
  document.body.classList.remove("practising");
  practiceStatus("");
  refresh();
  loadDue();
}

async function opponentMove() {
  const p = state.practice;
  practiceStatus("The opponent is thinking...");
  try {
    const answer = await practiceApi("/api/practice/reply", query({ seed: p.seed }));
    if (state.practice !== p) return;
    if (answer.move === null) {
      p.ended = true;
      practiceStatus(`End of the line: ${answer.end}.`, true);
      loadDue();
      return;
    }
    state.line.push(answer.move); state.at = state.line.length;
    refresh();
    practiceStatus(`The opponent played ${answer.move}. Your move (${p.colour}).`);
  } catch (err) { practiceStatus(err.message, true); }
}

function feedbackText(f) {
  const box = $("practice-feedback");
  box.replaceChildren();
  const played = f.played;
  const head = played
    ? `${f.move}: ${pct(played.share)} of the sequences here, ${played.games.toLocaleString("en")} games, ` +
      (played.win_rate === null ? "no decided game" : `wins ${pct(played.win_rate)}`)
    : `${f.move}: not in the tree here`;
  const line = el("p", { class: "told" + (f.mark ? " " + f.mark : "") }, head + (f.mark ? ` (${f.mark})` : ""));
  box.append(line);
  const list = el("ol", { class: "best" });
  for (const b of f.best) {
    list.append(el("li", { class: b.board === (played && played.board) ? "mine" : "" },
      `${b.board} ${pct(b.share)}, ${b.games.toLocaleString("en")} games, ` + (b.win_rate === null ? "-" : `wins ${pct(b.win_rate)}`)));
  }
  box.append(el("p", {}, `The most played here (${f.games.toLocaleString("en")} games):`), list);
}

async function practiceMove(name) {
  const p = state.practice;
  if (p.ended || toPlay() !== p.colour) return;
  try {
    const answer = await practiceApi("/api/practice/move", query({ move: name }), "POST");
    if (state.practice !== p) return;
    feedbackText(answer.feedback);
    state.line.push(name); state.at = state.line.length;
    refresh();
    if (answer.feedback.mark === "unknown") { p.ended = true; practiceStatus("End of the line: the tree does not know this move.", true); loadDue(); return; }
    opponentMove();
  } catch (err) { practiceStatus(err.message, true); }
}

async function loadDue() {
  const box = $("practice-due");
  try {
    const answer = await practiceApi("/api/practice/due", new URLSearchParams());
    box.replaceChildren();
    if (answer.practice === null) { box.textContent = "No practice file: reviews are not kept."; return; }
    box.append(el("p", { id: "due-count" }, `Due today: ${answer.due.toLocaleString("en")} cards`));
    const list = el("ol", { id: "due-cards" });
    for (const c of answer.cards.slice(0, 10)) {
      const a = el("a", { href: "#", "data-moves": c.line.join(","), "data-colour": c.colour, "data-due": c.due },
        `${c.line.join(" ") || "the empty corner"}, ${c.colour} to play (${c.games.toLocaleString("en")} games)`);
      a.addEventListener("click", (e) => { e.preventDefault(); state.practice = null; startPractice(c.colour, c.line); });
      list.append(el("li", {}, "")); list.lastChild.append(a);
    }
    box.append(list);
    document.body.dataset.due = String(answer.due);
  } catch (err) { box.textContent = err.message; }
}

$("practice-start").addEventListener("click", () => startPractice());
$("practice-stop").addEventListener("click", stopPractice);
loadDue();
