// The Cartographers scorer page: upload a photo → /v1/score; correct cells → /v1/score-map and
// /v1/validate. No framework, no build step: the state object below is drawn by the render*
// functions after every change.

const SIZE = 11;
const ROWS = "ABCDEFGHIJK";
const BACK_NAMES = { "forest": "Forest", "farm-water": "Farm and water", "village": "Village", "placement": "Placement" };
const TERRAIN_COLOURS = {
  empty: "transparent", forest: "#2f7a34", village: "#c0392b", farm: "#d4a017",
  water: "#1f5fa8", monster: "#8e44ad", mountain: "#4b2319", wasteland: "#666",
};
const DEFAULT_CARDS = ["sentinel-wood", "canal-lake", "wildholds", "borderlands"];

const state = {
  sides: {},        // name → layout from /v1/sides
  drawable: [],     // terrains a player can draw
  cards: {},        // slug → card from /v1/cards
  backs: [],
  sheet: null,      // {side, cells, coins}: what is scored
  reading: null,    // the last photo reading (for the overlay)
  report: null,     // the last score report
  verdict: null,    // the last legality verdict (null: none / not available)
  selected: null,   // selected score row: a card slug or "monsters"
  picking: null,    // [r, c] of the cell whose terrain is being chosen
  photo: null,      // {url, size: [w, h]} of the uploaded photo
  zoomed: true,     // show the map's part of the photo, upright, not the whole photo
};

const $ = (id) => document.getElementById(id);
const cellName = ([r, c]) => `${ROWS[r]}${c + 1}`;
const key = ([r, c]) => `${r},${c}`;
const svgNS = "http://www.w3.org/2000/svg";

function el(tag, attrs = {}, ...children) {
  const node = tag.startsWith("svg:") ? document.createElementNS(svgNS, tag.slice(4)) : document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === false || v == null) continue;
    if (k === "text") node.textContent = v;
    else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, v === true ? "" : v);
  }
  node.append(...children);
  return node;
}

function icon(name, cls = "icon") {
  const svg = el("svg:svg", { viewBox: "0 0 20 20", class: cls, "aria-hidden": "true", focusable: "false" });
  svg.append(el("svg:use", { href: `#${name}` }));
  return svg;
}

function setStatus(text, kind = "") {
  const s = $("status");
  s.textContent = text;
  s.className = `status ${kind}`;
}

// ---- talking to the service -------------------------------------------------------------------
async function api(path, options = {}) {
  const res = await fetch(path, options);
  const body = await res.json().catch(() => ({ code: "bad-response", message: `HTTP ${res.status}` }));
  if (!res.ok) throw Object.assign(new Error(body.message || `HTTP ${res.status}`), { code: body.code, status: res.status });
  return body;
}

const postJson = (path, body, signal) =>
  api(path, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body), signal });

function chosenCards() {
  return [...document.querySelectorAll("#card-pickers select")].map((s) => s.value);
}

let scoring = null; // AbortController of the score request in flight
let checking = null; // AbortController of the legality check in flight
let scoreSeq = 0;

// The score comes back in milliseconds and is drawn at once; the legality check can take a few
// seconds and is drawn when it arrives.
async function rescore({ legality = true } = {}) {
  if (!state.sheet) return;
  scoring?.abort();
  scoring = new AbortController();
  const seq = ++scoreSeq;
  const season = $("season").value || null;
  if (legality) checkLegality();
  document.body.classList.add("busy");
  try {
    const report = await postJson("/v1/score-map", { sheet: state.sheet, cards: chosenCards(), season }, scoring.signal);
    if (seq !== scoreSeq) return;
    state.report = report;
    renderAll();
  } catch (e) {
    if (e.name !== "AbortError") setStatus(e.message, "error");
  } finally {
    if (seq === scoreSeq) document.body.classList.remove("busy");
  }
}

async function checkLegality() {
  checking?.abort();
  const mine = (checking = new AbortController());
  state.verdict = { checking: true };
  renderVerdict();
  try {
    state.verdict = await postJson("/v1/validate", { sheet: state.sheet }, mine.signal);
  } catch (e) {
    if (e.name === "AbortError") return;
    state.verdict = { unavailable: e.message };
  }
  if (checking === mine) renderVerdict();
}

async function uploadPhoto(file) {
  if (!file) return;
  setStatus(`Reading ${file.name || "the photo"}…`, "busy");
  document.body.classList.add("busy");
  const form = new FormData();
  form.append("photo", file);
  form.append("cards", chosenCards().join(","));
  const season = $("season").value;
  if (season) form.append("season", season);
  try {
    const result = await api("/v1/score", { method: "POST", body: form });
    state.reading = result.reading;
    state.sheet = { side: result.reading.side, cells: result.reading.cells.map((row) => [...row]), coins: result.reading.coins };
    state.report = result.score;
    state.verdict = result.legality ?? { unavailable: "the legality check is not installed on this server" };
    state.selected = null;
    if (state.photo) URL.revokeObjectURL(state.photo.url);
    const url = URL.createObjectURL(file);
    state.photo = { url, size: result.reading.photo_size || await naturalSize(url) };
    const unsure = result.reading.low_confidence_cells?.length ?? 0;
    const coinsUnsure = result.reading.coin_confidence < 0.8 ? " Check the coin count too." : "";
    const warnings = coinsUnsure + (result.reading.warnings || []).map((w) => ` Note: ${w}.`).join("");
    setStatus(`Read side ${state.sheet.side}. ${unsure ? `${unsure} cell${unsure > 1 ? "s" : ""} to check (outlined in red).`
      : "Check the map against your sheet; tap a cell to correct it."}${warnings}`, "ok");
    renderAll();
  } catch (e) {
    setStatus(`Could not read that photo: ${e.message}`, "error");
  } finally {
    document.body.classList.remove("busy");
  }
}

function startBlank(side) {
  const layout = state.sides[side];
  const special = (list) => new Set(list.map(key));
  const mountains = special(layout.mountains), waste = special(layout.wasteland);
  const cells = [...Array(SIZE)].map((_, r) => [...Array(SIZE)].map((_, c) =>
    mountains.has(key([r, c])) ? "mountain" : waste.has(key([r, c])) ? "wasteland" : "empty"));
  state.sheet = { side, cells, coins: 0 };
  state.reading = null;
  state.selected = null;
  if (state.photo) URL.revokeObjectURL(state.photo.url);
  state.photo = null;
  setStatus(`Blank side ${side}: tap cells to draw your map.`, "ok");
  rescore();
}

// ---- drawing ----------------------------------------------------------------------------------
function highlighted() {
  const r = state.report;
  if (!r || !state.selected) return new Set();
  if (state.selected === "monsters") return new Set(r.monster_cells.map(key));
  return new Set((r.evidence[state.selected] || []).flatMap((e) => e.cells.map(key)));
}

function renderMap() {
  const { side, cells } = state.sheet;
  const layout = state.sides[side];
  const ruins = new Set(layout.ruins.map(key));
  const lit = highlighted();
  const unsure = new Set((state.reading?.low_confidence_cells || []).map(key));
  const edited = state.reading ? state.reading.cells : null;
  const map = $("map");
  map.replaceChildren();
  map.classList.toggle("lighting", lit.size > 0);
  const head = el("div", { role: "row", class: "map-row" }, el("span", { class: "label corner", "aria-hidden": "true" }));
  for (let c = 0; c < SIZE; c++) head.append(el("span", { class: "label", role: "columnheader", text: c + 1 }));
  map.append(head);
  for (let r = 0; r < SIZE; r++) {
    const row = el("div", { role: "row", class: "map-row" }, el("span", { class: "label", role: "rowheader", text: ROWS[r] }));
    for (let c = 0; c < SIZE; c++) {
      const t = cells[r][c];
      const fixed = t === "mountain" || t === "wasteland";
      const k = key([r, c]);
      const classes = ["cell", `t-${t}`, lit.has(k) && "lit", unsure.has(k) && "unsure",
        edited && edited[r][c] !== t && "edited", state.picking && key(state.picking) === k && "picking"];
      const label = `${cellName([r, c])}: ${t}${ruins.has(k) ? ", ruins" : ""}${fixed ? " (printed)" : ""}`
        + `${unsure.has(k) ? ", reader unsure" : ""}${lit.has(k) ? ", scores for the selected row" : ""}`;
      const button = el("button", {
        type: "button", role: "gridcell", class: classes.filter(Boolean).join(" "), "aria-label": label,
        "data-r": r, "data-c": c, "data-terrain": t, disabled: fixed,
        onclick: () => openPicker([r, c]),
      }, icon(`t-${t}`));
      if (ruins.has(k)) button.append(icon("ruins", "icon ruins"));
      row.append(button);
    }
    map.append(row);
  }
  $("map-side").textContent = `side ${side} · ${layout.title}`;
  $("coins").value = state.sheet.coins;
}

function naturalSize(url) {
  return new Promise((resolve) => {
    const img = new Image();
    img.onload = () => resolve([img.naturalWidth, img.naturalHeight]);
    img.onerror = () => resolve([1, 1]);
    img.src = url;
  });
}

/** The SVG transform that turns the photo so the map's grid stands upright in a 1000-unit square
 * (an affine fit to the grid's top-left, top-right and bottom-left corners). */
function uprightTransform([tl, tr, , bl]) {
  const W = 1000, ux = tr[0] - tl[0], uy = tr[1] - tl[1], vx = bl[0] - tl[0], vy = bl[1] - tl[1];
  const det = ux * vy - vx * uy;
  const a = W * vy / det, c = -W * vx / det, b = -W * uy / det, d = W * ux / det;
  return [a, b, c, d, -(a * tl[0] + c * tl[1]), -(b * tl[0] + d * tl[1])];
}

function renderOverlay() {
  const reading = state.reading;
  $("photo-panel").hidden = !reading;
  document.body.classList.toggle("has-photo", !!reading);
  const svg = $("overlay");
  svg.replaceChildren();
  if (!reading || !state.photo || !reading.cell_outlines?.length) return;
  const [w, h] = state.photo.size;
  const corners = reading.grid_corners || [];
  const upright = state.zoomed && corners.length === 4;
  // Upright: the map's part of the photo and the coin track below it (1 u = 1000 / 11), turned to match
  // the map beside it; else the whole photo.
  svg.setAttribute("viewBox", upright ? "-60 -60 1120 1250" : `0 0 ${w} ${h}`);
  const layer = el("svg:g", upright ? { transform: `matrix(${uprightTransform(corners).join(" ")})` } : {});
  svg.append(layer);
  layer.append(el("svg:image", { href: state.photo.url, x: 0, y: 0, width: w, height: h }));
  $("zoom").textContent = state.zoomed ? "Show the whole photo" : "Close-up, map upright";
  $("zoom").setAttribute("aria-pressed", state.zoomed ? "true" : "false");
  const lit = highlighted();
  const unsure = new Set((reading.low_confidence_cells || []).map(key));
  reading.cell_outlines.forEach((row, r) => row.forEach((quad, c) => {
    const t = state.sheet.cells[r][c];
    const k = key([r, c]);
    const poly = el("svg:polygon", {
      points: quad.map(([x, y]) => `${x},${y}`).join(" "),
      class: ["cell-outline", lit.has(k) && "lit", unsure.has(k) && "unsure"].filter(Boolean).join(" "),
      fill: TERRAIN_COLOURS[t], "data-r": r, "data-c": c,
      onclick: () => { if (t !== "mountain" && t !== "wasteland") openPicker([r, c]); },
    });
    poly.append(el("svg:title", { text: `${cellName([r, c])}: ${t}` }));
    layer.append(poly);
  }));
  // A ring round each printed coin where the reader looked; the counted ones (as now edited) stand out.
  const top = reading.cell_outlines[0][0];
  const cellPx = Math.hypot(top[1][0] - top[0][0], top[1][1] - top[0][1]);
  (reading.coin_centres || []).forEach(([x, y], i) => {
    const ring = el("svg:circle", { cx: x, cy: y, r: 0.27 * cellPx, class: i < state.sheet.coins ? "coin-ring counted" : "coin-ring" });
    ring.append(el("svg:title", { text: `coin ${i + 1}: ${i < state.sheet.coins ? "counted" : "not counted"}` }));
    layer.append(ring);
  });
}

function renderCardPickers() {
  const box = $("card-pickers");
  if (box.childElementCount) return;
  ["A", "B", "C", "D"].forEach((edict, i) => {
    const select = el("select", { id: `edict-${edict}`, onchange: () => rescore({ legality: false }) });
    for (const back of state.backs) {
      const group = el("optgroup", { label: BACK_NAMES[back] || back });
      for (const card of Object.values(state.cards).filter((c) => c.back === back)) {
        group.append(el("option", { value: card.slug, text: card.name, selected: card.slug === DEFAULT_CARDS[i] }));
      }
      select.append(group);
    }
    box.append(el("div", { class: "card-picker" }, el("label", { for: `edict-${edict}`, text: `Edict ${edict}` }), select));
  });
}

function scoreRow(slug, { edict, stars, counts, label, cls = "" }) {
  const selected = state.selected === slug;
  const select = () => { state.selected = selected ? null : slug; renderAll(); };
  return el("tr", {
    class: `row ${cls} ${counts ? "" : "idle"} ${selected ? "selected" : ""}`, tabindex: "0",
    "aria-selected": selected ? "true" : "false", "data-row": slug,
    onclick: select, onkeydown: (e) => { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); select(); } },
  },
  el("td", { text: edict }),
  el("th", { scope: "row" }, label, counts ? "" : el("span", { class: "muted small", text: " not this season" })),
  el("td", { class: "num", text: stars }));
}

function renderScore() {
  const r = state.report;
  const rows = $("score-rows");
  rows.replaceChildren();
  if (!r) return;
  const season = r.seasons?.length === 1 ? r.seasons[0] : null;
  const scoring = new Set(season ? season.edicts.map((e) => e.card) : Object.keys(r.cards));
  for (const [edict, slug] of Object.entries(r.edicts || {})) {
    rows.append(scoreRow(slug, { edict, stars: r.cards[slug], counts: scoring.has(slug), label: state.cards[slug]?.name || slug }));
  }
  rows.append(el("tr", { class: "plain" }, el("td"), el("th", { scope: "row", text: "Coins" }), el("td", { class: "num", text: `+${r.coins}` })));
  rows.append(scoreRow("monsters", { edict: "", stars: r.monster_penalty ? `−${r.monster_penalty}` : "0", counts: true, label: "Monster penalty", cls: "monsters" }));
  $("total-label").textContent = season ? `${season.season[0].toUpperCase()}${season.season.slice(1)} total` : "Total of the four seasons";
  $("total").textContent = r.total;

  const ev = $("evidence");
  ev.replaceChildren();
  if (state.selected) {
    const items = state.selected === "monsters"
      ? r.monster_cells.map((c) => ({ cells: [c], stars: -1, note: "empty cell beside a monster" }))
      : r.evidence[state.selected] || [];
    const title = state.selected === "monsters" ? "Monster penalty" : state.cards[state.selected]?.name;
    const rule = state.selected === "monsters" ? "−1 star per empty cell beside a monster." : state.cards[state.selected]?.rule;
    ev.append(el("h3", { text: title }), el("p", { class: "rule", text: rule }));
    const list = el("ul");
    for (const item of items) {
      const where = item.cells.length > 6 ? `${item.cells.length} cells` : item.cells.map(cellName).join(" ");
      list.append(el("li", {}, el("b", { text: `${item.stars > 0 ? "+" : ""}${item.stars}★ ` }), `${item.note} · ${where}`));
    }
    if (!items.length) list.append(el("li", { text: "Nothing scores for this card yet." }));
    ev.append(list);
  }
  $("warnings").textContent = (r.warnings || []).join(" · ");
}

function renderVerdict() {
  const v = state.verdict;
  const panel = $("legal-panel");
  panel.hidden = !v;
  if (!v) return;
  const reasons = $("reasons");
  reasons.replaceChildren();
  if (v.checking) {
    $("verdict").textContent = "Checking…";
    $("verdict").className = "verdict cannot-tell";
    return;
  }
  if (v.unavailable) {
    $("verdict").textContent = `Not checked: ${v.unavailable}`;
    $("verdict").className = "verdict cannot-tell";
    return;
  }
  const words = { legal: "Yes — this sheet can come from a real game.", illegal: "No — this sheet breaks the rules.",
    "cannot-tell": "Cannot tell for sure." };
  $("verdict").textContent = words[v.verdict] || v.verdict;
  $("verdict").className = `verdict ${v.verdict}`;
  for (const reason of v.reasons || []) {
    const where = (reason.cells || []).map(cellName).join(" ");
    reasons.append(el("li", { text: where ? `${reason.message} (${where})` : reason.message }));
  }
}

function renderAll() {
  const ready = !!state.sheet;
  $("map-panel").hidden = !ready;
  $("score-panel").hidden = !ready;
  if (!ready) return;
  renderMap();
  renderOverlay();
  renderScore();
  renderVerdict();
}

// ---- correcting a cell ------------------------------------------------------------------------
function openPicker(cell) {
  state.picking = cell;
  const [r, c] = cell;
  const current = state.sheet.cells[r][c];
  const options = $("picker-options");
  options.replaceChildren();
  for (const t of ["empty", ...state.drawable]) {
    options.append(el("button", {
      type: "button", class: `pick t-${t} ${t === current ? "current" : ""}`, "aria-label": `Set ${cellName(cell)} to ${t}`,
      "aria-pressed": t === current ? "true" : "false", "data-terrain": t,
      onclick: () => setCell(cell, t),
    }, icon(`t-${t}`), el("span", { text: t })));
  }
  options.append(el("button", { type: "button", class: "pick cancel", "aria-label": "Cancel", onclick: closePicker, text: "✕" }));
  $("picker-title").textContent = `${cellName(cell)} is ${current}. Change to:`;
  $("picker").hidden = false;
  renderMap();
  options.querySelector(".current")?.focus();
}

function closePicker() {
  const was = state.picking;
  state.picking = null;
  $("picker").hidden = true;
  if (state.sheet) renderMap();
  if (was) document.querySelector(`#map .cell[data-r="${was[0]}"][data-c="${was[1]}"]`)?.focus();
}

function setCell([r, c], terrain) {
  const changed = state.sheet.cells[r][c] !== terrain;
  state.sheet.cells[r][c] = terrain;
  closePicker();
  if (changed) {
    setStatus(`${cellName([r, c])} set to ${terrain}.`, "ok");
    rescore();
  }
}

function setCoins(n) {
  if (!state.sheet || !Number.isFinite(n)) return;
  state.sheet.coins = Math.max(0, Math.min(30, Math.round(n)));
  rescore();
}

// ---- start ------------------------------------------------------------------------------------
async function init() {
  try {
    const [sides, cards] = await Promise.all([api("/v1/sides"), api("/v1/cards")]);
    for (const s of sides.sides) state.sides[s.name] = s;
    state.drawable = sides.drawable;
    for (const c of cards.cards) state.cards[c.slug] = c;
    state.backs = cards.backs;
  } catch (e) {
    setStatus(`The service is not answering: ${e.message}`, "error");
    return;
  }
  renderCardPickers();
  for (const id of ["camera", "photo"]) $(id).addEventListener("change", (e) => uploadPhoto(e.target.files[0]));
  $("zoom").addEventListener("click", () => { state.zoomed = !state.zoomed; renderOverlay(); });
  $("blank-a").addEventListener("click", () => startBlank("A"));
  $("blank-b").addEventListener("click", () => startBlank("B"));
  $("season").addEventListener("change", () => rescore({ legality: false }));
  $("coins").addEventListener("change", (e) => setCoins(Number(e.target.value)));
  $("coins-minus").addEventListener("click", () => setCoins((state.sheet?.coins ?? 0) - 1));
  $("coins-plus").addEventListener("click", () => setCoins((state.sheet?.coins ?? 0) + 1));
  document.addEventListener("keydown", (e) => { if (e.key === "Escape" && state.picking) closePicker(); });
  document.body.classList.add("ready");
}

init();
