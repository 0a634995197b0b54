// The club evening's page: draws the snapshot its first HTML carries, then
// each one the server pushes (server-sent events on /events), with no
// reload. Plain DOM: every name is set as text, never as HTML. A value of the
// wrong shape is drawn as a marked gap, never a blank page. EventSource
// reconnects by itself; until it does, the page says the connection is lost
// and keeps the last snapshot shown. "live" only once a snapshot is drawn.
"use strict";

const seenHands = new Map();   // table -> hand numbers shown, to mark a new one
const chosenHands = new Map(); // table -> the hand whose reason shows under its sheet (hovered or tapped)
const WHY_HINT = "hover or tap a hand: why it scored";
let firstDraw = true;
let drawn = false;             // a snapshot is on the page
const GAP = "⚠ unreadable";    // a stored value of the wrong shape

function list(value) {
  return Array.isArray(value) ? value : [];
}

function text(value) {
  return value === null || value === undefined || typeof value === "object" ? GAP : value;
}

function el(tag, text, cls) {
  const node = document.createElement(tag);
  if (text !== undefined && text !== null) node.textContent = String(text);
  if (cls) node.className = cls;
  return node;
}

function row(cells, cls) {
  const tr = el("tr", null, cls);
  for (const cell of cells) tr.appendChild(cell);
  return tr;
}

function setStatus(kind, text) {
  const status = document.getElementById("status");
  status.className = "status " + kind;
  status.textContent = text;
}

function drawHeader(doc) {
  document.getElementById("event").textContent = doc.event || "Club evening";
  document.title = (doc.event || "Club evening") + " · tallyboard";
  const parts = [];
  if (doc.round) parts.push("round " + doc.round + " of " + doc.rounds + (doc.last_round && doc.state !== "finished" ? " (the last)" : ""));
  if (doc.hands) parts.push(doc.hands + "-hand games");
  if (doc.state === "finished") parts.push("finished");
  else if (doc.state === "created") parts.push("not started");
  if (doc.updated && doc.updated.indexOf("T") > 0) parts.push("updated " + doc.updated.split("T")[1].slice(0, 5));
  document.getElementById("round").textContent = parts.join(" · ");
}

function drawStandings(doc) {
  const body = document.querySelector("#standings tbody");
  body.replaceChildren();
  for (const s of list(doc.standings)) {
    if (!s || typeof s !== "object") { body.appendChild(row([el("td", GAP, "gap")])); continue; }
    body.appendChild(row([el("td", text(s.rank), "num"), el("td", text(s.name)), el("td", text(s.continuous), "num"),
                          el("td", text(s.games_won), "num"), el("td", s.table ? text(s.table) : "", "num")],
                         s.rank === 1 ? "first" : ""));
  }
  const winner = document.getElementById("winner");
  const top = list(doc.standings).filter((s) => s && s.rank === 1);
  winner.hidden = !(doc.state === "finished" && top.length);
  winner.textContent = top.map((s) => s.name).join(" and ") +
    (top.length > 1 ? " win the evening with " : " wins the evening with ") + (top.length ? top[0].continuous : "");
}

function drawTable(t, i) {
  try {
    return drawCard(t);
  } catch (err) {
    // one table's bad value: its card says so, the rest of the page stands
    const number = t && typeof t === "object" && Number.isInteger(t.table) ? t.table : i + 1;
    const card = el("article", null, "card gap");
    card.dataset.table = number;
    card.appendChild(el("h3", "Table " + number));
    card.appendChild(el("p", GAP + ": this table's game could not be shown (" + err.message + ")", "gap"));
    return card;
  }
}

// how the table's board reaches the director: on its USB, through a table host, or over Wi-Fi by itself;
// online or not, and when its last message came (docs/club-wifi.md, "The director's view")
function linkLine(link) {
  if (!link || typeof link !== "object") return null;
  const kinds = {"usb": "on the director's USB", "table host": "via table host ", "wireless board": "on Wi-Fi, board "};
  const kind = Object.prototype.hasOwnProperty.call(kinds, link.kind) ? kinds[link.kind] : GAP + " ";
  let words = kind + (link.kind === "usb" ? "" : text(link.via));
  words += link.online === false ? " · offline" : " · online";
  const seen = typeof link.seen === "string" ? new Date(link.seen) : null;
  if (seen && !isNaN(seen)) words += " · last message " + seen.toLocaleTimeString([], {hour: "2-digit", minute: "2-digit", second: "2-digit"});
  const line = el("p", words, link.online === false ? "link down" : "link");
  line.dataset.kind = text(link.kind);
  return line;
}

function drawCard(t) {
  const card = el("article", null, "card");
  card.dataset.table = t.table;
  // the public page names a table by its number and its players; the board's device is the director's
  const title = el("h3", "Table " + text(t.table));
  if (t.status && t.status !== "ok") title.appendChild(el("span", "board " + text(t.status), "note bad"));
  else if (t.complete) title.appendChild(el("span", "game over", "note done"));
  card.appendChild(title);
  const players = list(t.names).map(text).join(", ");
  if (players) card.appendChild(el("p", players, "players"));
  const link = linkLine(t.link);
  if (link) card.appendChild(link);

  // why a hand scored (its rules' words): in a line of fixed height under the sheet, so that
  // hovering or tapping a row moves nothing
  const why = el("div", WHY_HINT, "why");
  why.setAttribute("aria-live", "polite");
  const sheet = el("table", null, "sheet");
  const head = [el("th", "#", "num")];
  list(t.names).forEach((name) => { const th = el("th", text(name), "name"); th.title = text(name); head.push(th); });
  sheet.appendChild(el("thead")).appendChild(row(head));
  const body = sheet.appendChild(el("tbody"));
  const seen = seenHands.get(t.table) || new Set();
  const now = new Set();
  for (const hand of list(t.hands)) {
    if (!hand || typeof hand !== "object") { body.appendChild(row([el("td", GAP, "gap")])); continue; }
    const cells = [el("td", text(hand.hand), "num")];
    list(hand.scores).forEach((score, seat) => {
      // dealer: an event player number; a column is the player in that seat at the round's start
      cells.push(el("td", text(score), list(t.seats)[seat] === hand.dealer ? "num dealer" : "num"));
    });
    now.add(hand.hand);
    const tr = body.appendChild(row(cells, !firstDraw && !seen.has(hand.hand) ? "fresh" : ""));
    whyOf(tr, t.table, hand, why);
  }
  seenHands.set(t.table, now);
  const pending = t.pending && typeof t.pending === "object" ? t.pending : null;
  if (pending) {
    const cells = [el("td", text(pending.hand), "num")];
    for (const score of list(pending.scores)) cells.push(el("td", text(score), "num"));
    body.appendChild(row(cells, "held"));
  }
  const totals = [el("td", "Total")];
  for (const total of list(t.totals)) totals.push(el("td", text(total), "num"));
  sheet.appendChild(el("tfoot")).appendChild(row(totals));
  card.appendChild(sheet);
  card.appendChild(why);
  const chosen = chosenHands.get(t.table);
  const again = chosen === undefined ? null : body.querySelector('tr[data-hand="' + CSS.escape(String(chosen)) + '"]');
  if (again) show(again, why);
  if (t.pending && !pending) card.appendChild(el("p", "a held hand: " + GAP, "waiting gap"));
  if (pending) {
    const names = Array.isArray(pending.waiting_for) ? pending.waiting_for : [];
    // the seat button each presses (the seats pivot in Skicket, SK5); an older table host sends none
    const buttons = Array.isArray(pending.buttons) && pending.buttons.length === names.length
      && pending.buttons.every((b) => typeof b === "string" && /^[A-Z0-9]$/.test(b)) ? pending.buttons : null;
    const who = names.length
      ? names.map((name, i) => text(name) + (buttons ? " (button " + buttons[i] + ")" : "")).join(" or ") : GAP;
    card.appendChild(el("p", "hand " + text(pending.hand) + ": " + who + " to accept", "waiting"));
  }
  return card;
}

function whyOf(tr, table, hand, why) {
  // a row whose hand has its reason: hovering, focusing or tapping it shows that reason
  const lines = list(hand.why).map(text);
  if (!lines.length) return;
  tr.dataset.hand = String(hand.hand);
  tr.whyLines = lines;
  tr.tabIndex = 0;
  const choose = () => { chosenHands.set(table, hand.hand); show(tr, why); };
  tr.addEventListener("mouseenter", choose);
  tr.addEventListener("focus", choose);
  tr.addEventListener("click", choose);
}

function show(tr, why) {
  for (const other of tr.parentNode.querySelectorAll("tr.chosen")) other.classList.remove("chosen");
  tr.classList.add("chosen");
  why.replaceChildren(el("b", "hand " + tr.dataset.hand + ": "), ...tr.whyLines.map((line) => el("span", line)));
}

function drawNext(doc) {
  // no next round in the last round, nor after finish
  const moves = doc.last_round || doc.state === "finished" ? [] : list(doc.moves).filter((m) => m && typeof m === "object");
  document.getElementById("next-title").textContent =
    moves.length ? (doc.moves_final ? "Next round" : "Next round, so far") : "";
  const box = document.getElementById("moves");
  box.replaceChildren();
  for (const m of moves) {
    box.appendChild(el("li", text(m.name) + ": table " + text(m.from) + " → table " + text(m.to) + ", seat " + text(m.seat)));
  }
  const seating = document.getElementById("next-seating");
  seating.replaceChildren();
  const names = list(doc.players);
  (moves.length ? list(doc.next_seating) : []).forEach((seats, i) => {
    seating.appendChild(el("li", "table " + (i + 1) + ": " + list(seats).map((p) => text(names[p])).join(", ")));
  });
}

function draw(doc) {
  if (!doc || typeof doc !== "object") return false;
  for (const part of [drawHeader, drawStandings, drawNext, drawSeasons, drawBoards]) {
    try { part(doc); } catch (err) { console.error(err); }
  }
  const tables = document.getElementById("tables");
  tables.replaceChildren(...list(doc.tables).map(drawTable));
  firstDraw = false;
  drawn = true;
  return true;
}

// ---- the season's standings beside the evening (the snapshot's `seasons`, docs/events.md) ----
// each season the evening is in: rank, name and the rule's figure, the rule in words, the tie-break that
// placed a player, and how far this evening counts; absent when the evening is in no season
function drawSeasons(doc) {
  const box = document.getElementById("seasons");
  const seasons = list(doc.seasons);
  box.hidden = !seasons.length;
  box.replaceChildren(...seasons.map(drawSeason));
}

function drawSeason(s) {
  const part = el("article", null, "season");
  if (!s || typeof s !== "object") { part.appendChild(el("p", GAP, "gap")); return part; }
  part.appendChild(el("h2", "Season · " + text(s.season)));
  if (s.problem !== undefined) {
    part.appendChild(el("p", "its standings cannot be worked out just now: " + text(s.problem), "gap"));
    return part;
  }
  part.appendChild(el("p", text(s.rule_words), "rule"));
  const table = el("table", null, "season-standings");
  table.appendChild(el("thead")).appendChild(
    row([el("th", "#", "num"), el("th", "Player"), el("th", text(s.figure), "num")]));
  const body = table.appendChild(el("tbody"));
  for (const r of list(s.standings)) {
    if (!r || typeof r !== "object") { body.appendChild(row([el("td", GAP, "gap")])); continue; }
    const name = el("td", text(r.name));
    if (typeof r.decided_by === "string") name.appendChild(el("span", "tie: " + r.decided_by.replace("_", " "), "tie"));
    body.appendChild(row([el("td", text(r.rank), "num"), name, el("td", text(r.value), "num")],
                         r.rank === 1 ? "first" : ""));
  }
  for (const r of list(s.unranked)) {
    if (!r || typeof r !== "object") { body.appendChild(row([el("td", GAP, "gap")])); continue; }
    const name = el("td", text(r.name));
    name.appendChild(el("span", text(r.evenings) + (r.evenings === 1 ? " evening" : " evenings") + ": not ranked", "tie"));
    body.appendChild(row([el("td", "–", "num"), name, el("td", text(r.value), "num")], "unranked"));
  }
  part.appendChild(table);
  part.appendChild(el("p", text(s.note), "note"));
  return part;
}
// ---- end of the season's standings ----

// ---- each board's health (the snapshot's `boards`, docs/club-mqtt.md "The director's view of the boards") ----
// a row a board: the host's cells as text (the same as `tallyboard event boards`), an old release and each
// warning marked; absent when no board has reported its health
function drawBoards(doc) {
  const box = document.getElementById("boards-box");
  const boards = doc.boards && typeof doc.boards === "object" ? doc.boards : null;
  const columns = boards ? list(boards.columns).filter((c) => c && typeof c === "object") : [];
  const rows = boards ? list(boards.rows) : [];
  box.hidden = !rows.length;
  const head = document.querySelector("#boards thead");
  head.replaceChildren(row(columns.map((c) => el("th", text(c.head)))));
  const body = document.querySelector("#boards tbody");
  body.replaceChildren();
  for (const r of rows) {
    if (!r || typeof r !== "object" || !r.shown || typeof r.shown !== "object") {
      body.appendChild(row([el("td", GAP, "gap")]));
      continue;
    }
    const warnings = list(r.warnings).filter((w) => w && typeof w === "object");
    const cells = columns.map((c) => {
      if (c.key === "warnings") {
        const cell = el("td", warnings.length ? null : "ok", warnings.length ? "warnings" : "fine");
        for (const w of warnings) {
          const one = el("span", text(w.text), "warning");
          one.dataset.warning = text(w.warning);
          cell.appendChild(one);
        }
        cell.dataset.key = "warnings";
        return cell;
      }
      const cell = el("td", text(r.shown[c.key]), c.key === "release" && r.old === true ? "old" : "");
      cell.dataset.key = text(c.key);
      return cell;
    });
    const tr = row(cells, warnings.length ? "warn" : "");
    tr.dataset.table = text(r.table);
    body.appendChild(tr);
  }
}
// ---- end of the boards ----

function start() {
  // the snapshot the first HTML carries: the page is whole before the stream opens
  const first = document.getElementById("snapshot");
  if (first) {
    try { draw(JSON.parse(first.textContent)); } catch (err) { console.error(err); }
  }
  setStatus(drawn ? "live" : "waiting", drawn ? "live" : "waiting for the evening…");
  const source = new EventSource("/events");
  source.onopen = () => setStatus(drawn ? "live" : "waiting", drawn ? "live" : "waiting for the evening…");
  source.onerror = () => setStatus("lost", "connection lost · reconnecting…");
  source.onmessage = (message) => {
    if (draw(JSON.parse(message.data))) setStatus("live", "live");
  };
  source.addEventListener("problem", (message) => {
    const problem = JSON.parse(message.data).problem;
    const box = document.getElementById("problem");
    box.hidden = !problem;
    box.textContent = problem ? "The host cannot read the evening just now: " + problem : "";
  });
}

start();
