// The Cartographers scorer page: upload a photo → /v1/read; correct cells → /v1/score-map and
// /v1/validate. No framework, no build step: the state object below is drawn by the render*
// functions after every change. The numbers written on the sheet are checked with /v1/check-written
// (written.js).

import { blankWritten, writtenChecker, writtenFromFields } from "/static/written.js";
import { languageHeader, languages, language, loadLanguage, t, tn } from "/static/i18n.js";

const SIZE = 11;
const ROWS = "ABCDEFGHIJK";
const EDICTS = ["A", "B", "C", "D"];
const BACK_NAMES = { "forest": "Forest", "farm-water": "Farm and water", "village": "Village", "placement": "Placement" };
const TERRAIN_COLOURS = {
  empty: "transparent", forest: "#2f7a34", village: "#c0392b", farm: "#d4a017",
  water: "#1f5fa8", monster: "#8e44ad", mountain: "#4b2319", wasteland: "#666",
};
/** Where the last edict cards and season are kept on this device. */
const CHOICE_KEY = "cartographers.edicts";

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
  toCheck: [],      // [r, c] of the cells the reader was unsure of (drawable ones, row by row)
  checked: new Set(), // keys of those the player has confirmed or corrected
  walking: false,   // stepping through the cells to check
  written: blankWritten(), // the numbers written in the season boxes and the shield
  writtenReport: null, // the last /v1/check-written answer: checks, checked total, winter on the map
  writtenError: "", // why the written numbers could not be checked
};

const $ = (id) => document.getElementById(id);
const cellName = ([r, c]) => `${ROWS[r]}${c + 1}`;
const key = ([r, c]) => `${r},${c}`;
const svgNS = "http://www.w3.org/2000/svg";
const cellsCount = (n) => tn("{n} cell", "{n} cells", n);
const unsureCount = (n) => tn("{n} unsure cell", "{n} unsure cells", n);
const cardName = (slug) => state.cards[slug]?.name || slug;
const backName = (back) => Object.values(state.cards).find((c) => c.back === back)?.back_name || BACK_NAMES[back] || back;
const seasonTitle = (name) => { const s = state.seasonTitles?.[name] || name; return s[0].toUpperCase() + s.slice(1); };

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

/** The status line under the photo buttons; ``detail`` is a smaller line (e.g. the server's own words). */
function setStatus(text, kind = "", detail = "") {
  const s = $("status");
  s.textContent = text;
  s.className = `status ${kind}`;
  $("status-detail").textContent = detail;
  $("status-detail").hidden = !detail;
}

// ---- talking to the service -------------------------------------------------------------------
async function api(path, options = {}) {
  let res;
  try {
    res = await fetch(path, { ...options, headers: { ...languageHeader(), ...(options.headers || {}) } });
  } catch (e) {
    if (e.name === "AbortError") throw e;
    throw Object.assign(new Error("the scorer could not be reached"), { code: "network" });
  }
  const body = await res.json().catch(() => ({ code: "bad-response", message: `HTTP ${res.status}` }));
  if (!res.ok) throw Object.assign(new Error(body.message || `HTTP ${res.status}`), body, { status: res.status });
  return body;
}

const postJson = (path, body, signal) =>
  api(path, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body), signal });

/** What to do after a failed upload, in a player's words, per error code of the service. */
function photoTip(e) {
  const small = /only (\d+)×(\d+) px/.exec(e.detail || e.message || "");
  if (e.code === "no-grid" && small) {
    return t("That photo is too small ({width} × {height} pixels) to read a map: take the photo at the camera's full size, or choose the original photo rather than a thumbnail or screenshot.", { width: small[1], height: small[2] });
  }
  const tips = {
    "no-grid": () => t("No map grid found: photograph the whole sheet from above, flat, in even light, without glare, with the coin track in the frame."),
    "unreadable-photo": () => t("The map could not be read from this photo: retake it from straight above, with the sheet flat and filling most of the frame, in even light without glare."),
    "wrong-side": () => t("This photo shows the other side of the sheet: turn the sheet over, or photograph the side you played."),
    "not-an-image": () => t("That file is not a photo: choose a JPEG or PNG photo of your map sheet."),
    "empty-file": () => t("That file is empty: take the photo again, or choose another JPEG or PNG photo."),
    "heic-unsupported": () => t("This server cannot open HEIC photos (the iPhone's default format): set the camera to “Most Compatible”, or send the photo as a JPEG."),
    "too-many-pixels": () => t("That photo has more pixels than this server accepts: take it at a lower resolution (12 megapixels is plenty) or send a smaller copy."),
    "too-large": () => t("That photo file is too large for this server: take it at a lower resolution or send a smaller JPEG."),
    "timeout": () => t("Reading the photo took too long (the server may be busy): wait a moment and try again."),
    "reader-unavailable": () => t("This server cannot read photos at the moment: start from a blank sheet (Side A or Side B) and tap in your map instead."),
    "internal-error": () => t("Something went wrong on the server. Try again; if it happens again, report it with the code {code}.", { code: e.error_id || t("shown below") }),
    "network": () => t("The scorer could not be reached: check that this device is still connected to it, then try again."),
  };
  return tips[e.code]?.() || t("The photo could not be read. Try again with a sharp photo of the whole sheet, taken from above in even light.");
}

// ---- the edict cards: chosen by the player, remembered on this device -------------------------
function chosenCards() {
  return EDICTS.map((e) => $(`edict-${e}`)?.value || "");
}

/** Why there is no score for the chosen cards yet ("" when the four are chosen and differ). */
function cardProblem() {
  const cards = chosenCards();
  const missing = EDICTS.filter((_, i) => !cards[i]);
  if (missing.length === 4) return t("Choose the four edict cards to see the score.");
  if (missing.length) {
    return tn("Choose the four edict cards to see the score (edict {edicts} still to choose).",
      "Choose the four edict cards to see the score (edicts {edicts} still to choose).",
      missing.length, { edicts: missing.join(", ") });
  }
  const twice = cards.find((c, i) => cards.indexOf(c) !== i);
  if (twice) return t("{card} is chosen twice: each edict has its own card.", { card: cardName(twice) });
  return "";
}

function saveChoice() {
  try {
    localStorage.setItem(CHOICE_KEY, JSON.stringify({ cards: chosenCards(), season: $("season").value }));
  } catch { /* storage off (private browsing): nothing is remembered */ }
}

function restoreChoice() {
  let saved = null;
  try {
    saved = JSON.parse(localStorage.getItem(CHOICE_KEY) || "null");
  } catch { return; }
  if (!saved || typeof saved !== "object") return;
  (Array.isArray(saved.cards) ? saved.cards : []).slice(0, 4).forEach((slug, i) => {
    if (state.cards[slug]) $(`edict-${EDICTS[i]}`).value = slug;
  });
  if ([...$("season").options].some((o) => o.value === saved.season)) $("season").value = saved.season;
}

let scoring = null; // AbortController of the score request in flight
let checking = null; // AbortController of the legality check in flight
let scoreSeq = 0;
let uploadSeq = 0;

// The score comes back in milliseconds and is drawn at once; the legality check can take a few
// seconds and is drawn when it arrives. No score is asked for until the four edict cards are chosen.
async function rescore({ legality = true } = {}) {
  if (!state.sheet) { renderAll(); return; }
  scoring?.abort();
  const seq = ++scoreSeq;
  if (legality) checkLegality();
  written.recheck();
  if (cardProblem()) {
    state.report = null;
    state.selected = null;
    document.body.classList.remove("busy");
    renderAll();
    return;
  }
  scoring = new AbortController();
  const season = $("season").value || null;
  document.body.classList.add("busy");
  renderScore();
  try {
    const report = await postJson("/v1/score-map", { sheet: state.sheet, cards: chosenCards(), season }, scoring.signal);
    if (seq !== scoreSeq) return;
    state.report = report;
    renderAll();
  } catch (e) {
    if (e.name !== "AbortError") setStatus(`The score could not be worked out: ${e.message}`, "error");
  } finally {
    if (seq === scoreSeq) document.body.classList.remove("busy");
  }
}

/** The written numbers: checked against each other, the map, and the cards once the four are chosen. */
const written = writtenChecker({ state, postJson, cards: () => (cardProblem() ? null : chosenCards()) });

async function checkLegality() {
  checking?.abort();
  const mine = (checking = new AbortController());
  state.verdict = { checking: true };
  renderVerdict();
  try {
    state.verdict = await postJson("/v1/validate", { sheet: state.sheet }, mine.signal);
  } catch (e) {
    if (e.name === "AbortError") return;
    state.verdict = { unavailable: e.code === "validator-unavailable" ? "the legality check is not installed on this server" : e.message };
  }
  if (checking === mine) renderVerdict();
}

/** Forget the sheet on screen (map, score, photo, verdict): a new one is on its way, or none. */
function clearResult() {
  scoring?.abort();
  checking?.abort();
  written.abort();
  scoreSeq++;
  if (state.picking) closePicker();
  Object.assign(state, { sheet: null, reading: null, report: null, verdict: null, selected: null, toCheck: [],
    checked: new Set(), walking: false, written: blankWritten(), writtenReport: null, writtenError: "" });
  if (state.photo) URL.revokeObjectURL(state.photo.url);
  state.photo = null;
  renderAll();
}

async function uploadPhoto(file) {
  if (!file) return;
  const mine = ++uploadSeq;
  clearResult();
  const name = file.name || t("the photo");
  setStatus(t("Reading {name}… this takes a few seconds.", { name }), "busy");
  document.body.classList.add("busy", "reading");
  const form = new FormData();
  form.append("photo", file);
  try {
    const reading = await api("/v1/read", { method: "POST", body: form });
    if (mine !== uploadSeq) return;
    const url = URL.createObjectURL(file);
    state.photo = { url, size: reading.photo_size || await naturalSize(url) };
    state.reading = reading;
    state.written = writtenFromFields(reading);
    state.writtenReport = { checks: reading.checks || [] }; // the card-free checks, until the recheck
    state.sheet = { side: reading.side, cells: reading.cells.map((row) => [...row]), coins: reading.coins };
    const layout = state.sides[reading.side];
    const printed = new Set([...(layout?.mountains || []), ...(layout?.wasteland || [])].map(key));
    state.toCheck = (reading.low_confidence_cells || []).filter((c) => !printed.has(key(c)))
      .sort(([r1, c1], [r2, c2]) => r1 - r2 || c1 - c2);
    const unsure = state.toCheck.length;
    const coinsUnsure = reading.coin_confidence < 0.8 ? " " + t("Check the coin count too.") : "";
    const notes = (reading.warnings || []).filter((w) => !/(^|\s)[A-K](1[01]|[1-9])(\s|$)/.test(w)) // any language: the warning naming cells; the map marks them
      .map((w) => " " + t("Note: {warning}.", { warning: w })).join("");
    const next = unsure ? tn("{n} cell to check, marked in red on the map.", "{n} cells to check, marked in red on the map.", unsure)
      : t("Check the map against your sheet; tap a cell to correct it.");
    const read = t("Read side {side}.", { side: state.sheet.side });
    setStatus([read, next].join(" ") + coinsUnsure + notes, "ok");
    rescore();
  } catch (e) {
    if (mine !== uploadSeq) return;
    const said = e.detail || e.message;
    const detail = said && e.code !== "network" ? t("Details: {message}.", { message: said.replace(/\.$/, "") }) : "";
    setStatus(photoTip(e), "error", detail);
  } finally {
    if (mine === uploadSeq) document.body.classList.remove("busy", "reading");
  }
}

function startBlank(side) {
  uploadSeq++; // a photo still being read is no longer wanted
  document.body.classList.remove("reading");
  clearResult();
  const layout = state.sides[side];
  const special = (list) => new Set(list.map(key));
  const mountains = special(layout.mountains), waste = special(layout.wasteland);
  const cells = [...Array(SIZE)].map((_, r) => [...Array(SIZE)].map((_, c) =>
    mountains.has(key([r, c])) ? "mountain" : waste.has(key([r, c])) ? "wasteland" : "empty"));
  state.sheet = { side, cells, coins: 0 };
  setStatus(t("Blank side {side}: tap cells to draw your map.", { side }), "ok");
  rescore();
}

// ---- drawing ----------------------------------------------------------------------------------
function highlighted() {
  const r = state.report;
  if (!r || !state.selected) return new Set();
  if (state.selected === "monsters") return new Set(r.monster_cells.map(key));
  return new Set((r.evidence[state.selected] || []).flatMap((e) => e.cells.map(key)));
}

/** The cells still to check: unsure, and neither confirmed nor corrected yet. */
function remaining() {
  return state.toCheck.filter((c) => !state.checked.has(key(c)));
}

function renderMap() {
  const { side, cells } = state.sheet;
  const layout = state.sides[side];
  const ruins = new Set(layout.ruins.map(key));
  const lit = highlighted();
  const unsure = new Set(remaining().map(key));
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
        + `${unsure.has(k) ? ", to check: the reader was unsure" : ""}${lit.has(k) ? ", scores for the selected row" : ""}`;
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
  renderCheckBar();
}

/** The "Check N cells" bar above the map: how many unsure cells are left, and the walkthrough's start. */
function renderCheckBar() {
  const total = state.toCheck.length;
  const left = remaining().length;
  const bar = $("check-bar");
  bar.hidden = !state.sheet || !total;
  if (bar.hidden) return;
  bar.classList.toggle("done", left === 0);
  $("check-count").textContent = left;
  $("check-text").textContent = left === 0 ? t("All {cells} checked.", { cells: unsureCount(total) })
    : state.walking ? t("Checking: {cells} left.", { cells: cellsCount(left) })
      : t("The reader was unsure of {cells}, marked in red.", { cells: cellsCount(left) });
  $("check-cells").hidden = left === 0 || state.walking;
  $("check-cells").textContent = tn("Check {n} cell", "Check {n} cells", left);
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
  const shown = !!(reading && state.photo && reading.cell_outlines?.length);
  $("photo-panel").hidden = !shown;
  document.body.classList.toggle("has-photo", shown);
  const svg = $("overlay");
  svg.replaceChildren();
  if (!shown) return;
  const [w, h] = state.photo.size;
  const corners = reading.grid_corners || [];
  const upright = state.zoomed && corners.length === 4;
  // Upright: the map's part of the photo and the coin track below it (1 u = 1000 / 11), turned to match
  // the map beside it; else the whole photo.
  svg.setAttribute("viewBox", upright ? "-60 -60 1120 1250" : `0 0 ${w} ${h}`);
  const layer = el("svg:g", upright ? { transform: `matrix(${uprightTransform(corners).join(" ")})` } : {});
  svg.append(layer);
  layer.append(el("svg:image", { href: state.photo.url, x: 0, y: 0, width: w, height: h }));
  $("zoom").textContent = state.zoomed ? t("Show the whole photo") : t("Close-up, map upright");
  $("zoom").setAttribute("aria-pressed", state.zoomed ? "true" : "false");
  const lit = highlighted();
  const unsure = new Set(remaining().map(key));
  const picking = state.picking ? key(state.picking) : null;
  reading.cell_outlines.forEach((row, r) => row.forEach((quad, c) => {
    const t = state.sheet.cells[r][c];
    const k = key([r, c]);
    const poly = el("svg:polygon", {
      points: quad.map(([x, y]) => `${x},${y}`).join(" "),
      class: ["cell-outline", lit.has(k) && "lit", unsure.has(k) && "unsure", picking === k && "picking"].filter(Boolean).join(" "),
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
  EDICTS.forEach((edict) => {
    const select = el("select", { id: `edict-${edict}`, onchange: () => { saveChoice(); rescore({ legality: false }); } });
    select.append(el("option", { value: "", text: t("choose a card"), disabled: true, selected: true }));
    for (const back of state.backs) {
      const group = el("optgroup", { label: backName(back) });
      for (const card of Object.values(state.cards).filter((c) => c.back === back)) {
        group.append(el("option", { value: card.slug, text: card.name }));
      }
      select.append(group);
    }
    box.append(el("div", { class: "card-picker" }, el("label", { for: `edict-${edict}`, text: t("Edict {edict}", { edict }) }), select));
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
  el("th", { scope: "row" }, label, counts ? "" : el("span", { class: "muted small", text: " " + t("not this season") })),
  el("td", { class: "num", text: stars }));
}

function renderScore() {
  const r = state.report;
  const problem = cardProblem();
  const waiting = problem || (!state.sheet ? t("The score appears here once your sheet is read.")
    : !r ? t("Scoring…") : "");
  $("score-needs").textContent = waiting;
  $("score-needs").hidden = !waiting;
  $("score-needs").classList.toggle("todo", !!problem);
  $("score-table").hidden = !!waiting;
  $("score-hint").hidden = !!waiting;
  const rows = $("score-rows");
  rows.replaceChildren();
  $("total").textContent = "–";
  $("evidence").replaceChildren();
  $("warnings").textContent = "";
  if (waiting) return;
  const season = r.seasons?.length === 1 ? r.seasons[0] : null;
  const scoring = new Set(season ? season.edicts.map((e) => e.card) : Object.keys(r.cards));
  for (const [edict, slug] of Object.entries(r.edicts || {})) {
    rows.append(scoreRow(slug, { edict, stars: r.cards[slug], counts: scoring.has(slug), label: cardName(slug) }));
  }
  rows.append(el("tr", { class: "plain" }, el("td"), el("th", { scope: "row", text: t("Coins") }), el("td", { class: "num", text: `+${r.coins}` })));
  rows.append(scoreRow("monsters", { edict: "", stars: r.monster_penalty ? `−${r.monster_penalty}` : "0", counts: true, label: t("Monster penalty"), cls: "monsters" }));
  $("total-label").textContent = season ? t("{season} total", { season: seasonTitle(season.season) }) : t("Total of the four seasons");
  $("total").textContent = r.total;

  const ev = $("evidence");
  if (state.selected) {
    const items = state.selected === "monsters"
      ? r.monster_cells.map((c) => ({ cells: [c], stars: -1, note: "empty cell beside a monster" }))
      : r.evidence[state.selected] || [];
    const title = state.selected === "monsters" ? t("Monster penalty") : cardName(state.selected);
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
    $("verdict").textContent = t("Checking…");
    $("verdict").className = "verdict cannot-tell";
    return;
  }
  if (v.unavailable) {
    $("verdict").textContent = t("Not checked: {reason}", { reason: v.unavailable });
    $("verdict").className = "verdict cannot-tell";
    return;
  }
  const words = { legal: t("Yes — this sheet can come from a real game."), illegal: t("No — this sheet breaks the rules."),
    "cannot-tell": t("Cannot tell for sure.") };
  $("verdict").textContent = words[v.verdict] || v.verdict;
  $("verdict").className = `verdict ${v.verdict}`;
  for (const reason of v.reasons || []) {
    const where = (reason.cells || []).map(cellName).join(" ");
    reasons.append(el("li", { text: where ? `${reason.message} (${where})` : reason.message }));
  }
}

function renderAll() {
  const ready = !!state.sheet;
  document.body.classList.toggle("has-sheet", ready);
  $("map-panel").hidden = !ready;
  if (ready) renderMap();
  else { $("map").replaceChildren(); renderCheckBar(); }
  renderOverlay();
  renderScore();
  written.render();
  renderVerdict();
}

// ---- correcting a cell, and checking the unsure ones in turn -----------------------------------
/** A close-up of one cell in the photo, upright, for the picker (null without a photo grid). */
function photoCloseUp([r, c]) {
  const corners = state.reading?.grid_corners || [];
  if (!state.photo || corners.length !== 4) return null;
  const u = 1000 / SIZE, pad = 0.7 * u;
  const svg = el("svg:svg", { class: "closeup", viewBox: `${c * u - pad} ${r * u - pad} ${u + 2 * pad} ${u + 2 * pad}`,
    role: "img", "aria-label": `${cellName([r, c])} in your photo` });
  const layer = el("svg:g", { transform: `matrix(${uprightTransform(corners).join(" ")})` });
  const [w, h] = state.photo.size;
  layer.append(el("svg:image", { href: state.photo.url, x: 0, y: 0, width: w, height: h }));
  svg.append(layer, el("svg:rect", { x: c * u, y: r * u, width: u, height: u, class: "closeup-cell" }));
  return svg;
}

function openPicker(cell) {
  state.picking = cell;
  const [r, c] = cell;
  const current = state.sheet.cells[r][c];
  const unsure = remaining().some((x) => key(x) === key(cell));
  const options = $("picker-options");
  options.replaceChildren();
  for (const t of ["empty", ...state.drawable]) {
    options.append(el("button", {
      type: "button", class: `pick t-${t} ${t === current ? "current" : ""}`, "aria-label": `Set ${cellName(cell)} to ${t}`,
      "aria-pressed": t === current ? "true" : "false", "data-terrain": t,
      onclick: () => setCell(cell, t),
    }, icon(`t-${t}`), el("span", { text: t })));
  }
  if (!state.walking) options.append(el("button", { type: "button", class: "pick cancel", "aria-label": "Cancel", onclick: closePicker, text: "✕" }));
  const left = remaining().length;
  $("picker-title").textContent = state.walking
    ? `${cellName(cell)}: read as ${current}. If your sheet shows something else, tap it:`
    : unsure ? `${cellName(cell)} is ${current} (the reader was unsure). Tap the terrain on your sheet:`
      : `${cellName(cell)} is ${current}. Change to:`;
  $("picker-count").hidden = !state.walking;
  $("picker-count").textContent = tn("{n} cell left to check", "{n} cells left to check", left);
  $("picker-walk").hidden = !state.walking;
  const closeUp = photoCloseUp(cell);
  $("picker-photo").replaceChildren(...(closeUp ? [closeUp] : []));
  $("picker-photo").hidden = !closeUp;
  $("picker").hidden = false;
  renderMap();
  renderOverlay();
  const mapCell = document.querySelector(`#map .cell[data-r="${r}"][data-c="${c}"]`);
  if (state.walking) mapCell?.scrollIntoView({ block: "center", inline: "nearest" });
  (state.walking ? $("picker-next") : options.querySelector(".current"))?.focus({ preventScroll: true });
}

function closePicker() {
  const was = state.picking;
  state.picking = null;
  state.walking = false;
  $("picker").hidden = true;
  if (state.sheet) { renderMap(); renderOverlay(); }
  if (was) document.querySelector(`#map .cell[data-r="${was[0]}"][data-c="${was[1]}"]`)?.focus({ preventScroll: true });
}

function startWalk() {
  const first = remaining()[0];
  if (!first) return;
  state.walking = true;
  openPicker(first);
}

/** After a cell of the walkthrough is confirmed or corrected: the next unsure cell, or the end. */
function walkOn(from) {
  const left = remaining();
  const next = left.find(([r, c]) => r > from[0] || (r === from[0] && c > from[1])) || left[0];
  if (next) { openPicker(next); return; }
  closePicker();
  setStatus(t("All {cells} checked. Check the coins, then the score.", { cells: unsureCount(state.toCheck.length) }), "ok");
  $("check-text").focus({ preventScroll: true });
}

function confirmCell(cell) {
  state.checked.add(key(cell));
}

function setCell(cell, terrain) {
  const [r, c] = cell;
  const changed = state.sheet.cells[r][c] !== terrain;
  state.sheet.cells[r][c] = terrain;
  confirmCell(cell);
  if (changed) setStatus(`${cellName(cell)} set to ${terrain}.`, "ok");
  if (state.walking) walkOn(cell);
  else closePicker();
  if (changed) rescore();
}

function setCoins(n) {
  if (!state.sheet || !Number.isFinite(n)) return;
  state.sheet.coins = Math.max(0, Math.min(30, Math.round(n)));
  rescore();
}

// ---- start ------------------------------------------------------------------------------------
/** The cards, backs and season titles in the page's language (/v1/cards answers in it). */
async function loadCards() {
  const cards = await api("/v1/cards");
  for (const c of cards.cards) state.cards[c.slug] = c;
  state.backs = cards.backs;
  state.seasonTitles = Object.fromEntries(cards.seasons.map((s) => [s.name, s.title || s.name]));
}

/** The language picker: every catalog, named in itself; a choice is kept on this device. */
function renderLanguagePicker() {
  const select = $("language");
  select.replaceChildren(...Object.entries(languages()).map(([code, name]) =>
    el("option", { value: code, text: name, selected: code === language() })));
  select.onchange = async () => {
    await loadLanguage(select.value);
    await loadCards();
    $("card-pickers").replaceChildren();
    renderCardPickers();
    restoreChoice();
    if (!state.sheet) setStatus(t("Take or choose a photo of a filled-in map sheet."));
    renderAll();
  };
}

async function init() {
  await loadLanguage();
  renderLanguagePicker();
  setStatus(t("Take or choose a photo of a filled-in map sheet."));
  try {
    const [sides] = await Promise.all([api("/v1/sides"), loadCards()]);
    for (const s of sides.sides) state.sides[s.name] = s;
    state.drawable = sides.drawable;
  } catch (e) {
    setStatus(t("The service is not answering: {reason}", { reason: e.message }), "error");
    return;
  }
  renderCardPickers();
  restoreChoice();
  written.createTable();
  for (const id of ["camera", "photo"]) {
    $(id).addEventListener("change", (e) => { uploadPhoto(e.target.files[0]); e.target.value = ""; });
  }
  $("zoom").addEventListener("click", () => { state.zoomed = !state.zoomed; renderOverlay(); });
  $("blank-a").addEventListener("click", () => startBlank("A"));
  $("blank-b").addEventListener("click", () => startBlank("B"));
  $("season").addEventListener("change", () => { saveChoice(); rescore({ legality: false }); });
  $("coins").addEventListener("change", (e) => setCoins(Number(e.target.value)));
  $("coins-minus").addEventListener("click", () => setCoins((state.sheet?.coins ?? 0) - 1));
  $("coins-plus").addEventListener("click", () => setCoins((state.sheet?.coins ?? 0) + 1));
  $("check-cells").addEventListener("click", startWalk);
  $("picker-next").addEventListener("click", () => { const cell = state.picking; confirmCell(cell); walkOn(cell); });
  $("picker-done").addEventListener("click", closePicker);
  document.addEventListener("keydown", (e) => { if (e.key === "Escape" && state.picking) closePicker(); });
  renderAll();
  document.body.classList.add("ready");
}

init();
