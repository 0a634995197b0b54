// The club evening's page: draws each snapshot the server pushes (server-sent
// events on /events), with no reload. Plain DOM: every name is set as text,
// never as HTML. EventSource reconnects by itself; until it does, the page
// says the connection is lost and keeps the last snapshot shown.
"use strict";

const seenHands = new Map();   // table -> hand numbers shown, to mark a new one
let firstDraw = true;

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
  if (doc.round) parts.push("round " + doc.round + " of " + doc.rounds);
  if (doc.hands) parts.push(doc.hands + "-hand games");
  if (doc.state === "finished") parts.push("finished");
  else if (doc.state === "created") parts.push("not started");
  if (doc.updated && doc.updated.indexOf("T") > 0) parts.push("updated " + doc.updated.split("T")[1].slice(0, 5));
  document.getElementById("round").textContent = parts.join(" · ");
}

function drawStandings(doc) {
  const body = document.querySelector("#standings tbody");
  body.replaceChildren();
  for (const s of doc.standings || []) {
    body.appendChild(row([el("td", s.rank, "num"), el("td", s.name), el("td", s.continuous, "num"),
                          el("td", s.games_won, "num"), el("td", s.table || "", "num")],
                         s.rank === 1 ? "first" : ""));
  }
  const winner = document.getElementById("winner");
  const top = (doc.standings || []).filter((s) => s.rank === 1);
  winner.hidden = !(doc.state === "finished" && top.length);
  winner.textContent = top.map((s) => s.name).join(" and ") +
    (top.length > 1 ? " win the evening with " : " wins the evening with ") + (top.length ? top[0].continuous : "");
}

function drawTable(t) {
  const card = el("article", null, "card");
  card.dataset.table = t.table;
  const title = el("h3", "Table " + t.table);
  if (t.status && t.status !== "ok") title.appendChild(el("span", "board " + t.status, "note bad"));
  else if (t.complete) title.appendChild(el("span", "game over", "note done"));
  if (t.board) title.appendChild(el("span", t.board, "note"));
  card.appendChild(title);

  const sheet = el("table", null, "sheet");
  const head = [el("th", "#", "num")];
  (t.names || []).forEach((name) => { const th = el("th", name, "name"); th.title = name; head.push(th); });
  sheet.appendChild(el("thead")).appendChild(row(head));
  const body = sheet.appendChild(el("tbody"));
  const seen = seenHands.get(t.table) || new Set();
  const now = new Set();
  for (const hand of t.hands || []) {
    const cells = [el("td", hand.hand, "num")];
    (hand.scores || []).forEach((score, seat) => {
      // dealer: an event player number; a column is the player in that seat at the round's start
      cells.push(el("td", score, (t.seats || [])[seat] === hand.dealer ? "num dealer" : "num"));
    });
    now.add(hand.hand);
    body.appendChild(row(cells, !firstDraw && !seen.has(hand.hand) ? "fresh" : ""));
  }
  seenHands.set(t.table, now);
  if (t.pending) {
    const cells = [el("td", t.pending.hand, "num")];
    for (const score of t.pending.scores || []) cells.push(el("td", score, "num"));
    body.appendChild(row(cells, "held"));
  }
  const totals = [el("td", "Total")];
  for (const total of t.totals || []) totals.push(el("td", total, "num"));
  sheet.appendChild(el("tfoot")).appendChild(row(totals));
  card.appendChild(sheet);
  if (t.pending) {
    const who = (t.pending.waiting_for || []).join(" or ");
    card.appendChild(el("p", "hand " + t.pending.hand + " waits for " + who + " to accept", "waiting"));
  }
  return card;
}

function drawNext(doc) {
  const moves = doc.moves || [];
  document.getElementById("next-title").textContent =
    moves.length ? (doc.moves_final ? "Next round" : "Next round, so far") : "";
  const list = document.getElementById("moves");
  list.replaceChildren();
  for (const m of moves) {
    list.appendChild(el("li", m.name + ": table " + m.from + " → table " + m.to + ", seat " + m.seat));
  }
  const seating = document.getElementById("next-seating");
  seating.replaceChildren();
  const names = doc.players || [];
  (moves.length ? doc.next_seating || [] : []).forEach((seats, i) => {
    seating.appendChild(el("li", "table " + (i + 1) + ": " + seats.map((p) => names[p]).join(", ")));
  });
}

function draw(doc) {
  drawHeader(doc);
  drawStandings(doc);
  const tables = document.getElementById("tables");
  tables.replaceChildren(...(doc.tables || []).map(drawTable));
  drawNext(doc);
  firstDraw = false;
}

function start() {
  const source = new EventSource("/events");
  source.onopen = () => setStatus("live", "live");
  source.onerror = () => setStatus("lost", "connection lost · reconnecting…");
  source.onmessage = (message) => {
    setStatus("live", "live");
    draw(JSON.parse(message.data));
  };
  source.addEventListener("problem", (message) => {
    const problem = JSON.parse(message.data).problem;
    const box = document.getElementById("problem");
    box.hidden = !problem;
    box.textContent = problem ? "The host cannot read the evening just now: " + problem : "";
  });
}

start();
