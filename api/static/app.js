// The Cartographers scorer page: upload a photo → /v1/read; correct cells → /v1/score-map and
// /v1/validate. No framework, no build step: the state object (page.js) is drawn by the render*
// functions (result.js) after every change; this file talks to the service, takes the photo or the
// blank sheet, corrects cells and starts the page. The numbers written on the sheet are checked
// with /v1/check-written (written.js).

import { blankWritten, writtenChecker, writtenFromFields } from "/static/written.js";
import { languageHeader, languages, language, loadLanguage, t, tn } from "/static/i18n.js";
import {
  $, EDICTS, SIZE, cardProblem, cellName, chosenCards, el, icon, key, remaining, setStatus, state, unsureCount,
} from "/static/page.js";
import {
  actions, photoCloseUp, renderCardPickers, renderCheckBar, renderMap, renderOverlay, renderScore, renderVerdict,
} from "/static/result.js";

/** Where the last edict cards and season are kept on this device. */
const CHOICE_KEY = "cartographers.edicts";

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

// ---- the edict cards: remembered on this device ------------------------------------------------
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

// ---- scoring, the photo and the blank sheet ----------------------------------------------------
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

function naturalSize(url) {
  return new Promise((resolve) => {
    const img = new Image();
    img.onload = () => resolve([img.naturalWidth, img.naturalHeight]);
    img.onerror = () => resolve([1, 1]);
    img.src = url;
  });
}

/** Everything drawn again from the state: the result (result.js) and the written numbers. */
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

// What the drawn result does when the player taps a cell, chooses a card or selects a score row.
Object.assign(actions, {
  openCell: openPicker,
  cardsChanged: () => { saveChoice(); rescore({ legality: false }); },
  changed: renderAll,
});

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
