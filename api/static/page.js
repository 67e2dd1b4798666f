// The scorer page's shared parts: what is on screen (the state object every render* function draws),
// the sheet's fixed words, the edict cards chosen, and small DOM helpers. app.js runs the page and
// result.js draws it; both import from here.

import { blankWritten } from "/static/written.js";
import { t, tn } from "/static/i18n.js";

export const SIZE = 11;
export const ROWS = "ABCDEFGHIJK";
export const EDICTS = ["A", "B", "C", "D"];
const BACK_NAMES = { "forest": "Forest", "farm-water": "Farm and water", "village": "Village", "placement": "Placement" };
export const TERRAIN_COLOURS = {
  empty: "transparent", forest: "#2f7a34", village: "#c0392b", farm: "#d4a017",
  water: "#1f5fa8", monster: "#8e44ad", mountain: "#4b2319", wasteland: "#666",
};

export const state = {
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

export const $ = (id) => document.getElementById(id);
export const cellName = ([r, c]) => `${ROWS[r]}${c + 1}`;
export const key = ([r, c]) => `${r},${c}`;
const svgNS = "http://www.w3.org/2000/svg";
export const cellsCount = (n) => tn("{n} cell", "{n} cells", n);
export const unsureCount = (n) => tn("{n} unsure cell", "{n} unsure cells", n);
export const cardName = (slug) => state.cards[slug]?.name || slug;
export const backName = (back) => Object.values(state.cards).find((c) => c.back === back)?.back_name || BACK_NAMES[back] || back;
export const seasonTitle = (name) => { const s = state.seasonTitles?.[name] || name; return s[0].toUpperCase() + s.slice(1); };

export function el(tag, attrs = {}, ...children) {
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

export function icon(name, cls = "icon") {
  const svg = el("svg:svg", { viewBox: "0 0 20 20", class: cls, "aria-hidden": "true", focusable: "false" });
  svg.append(el("svg:use", { href: `#${name}` }));
  return svg;
}

/** The status line under the photo buttons; ``detail`` is a smaller line (e.g. the server's own words). */
export function setStatus(text, kind = "", detail = "") {
  const s = $("status");
  s.textContent = text;
  s.className = `status ${kind}`;
  $("status-detail").textContent = detail;
  $("status-detail").hidden = !detail;
}

// ---- the edict cards the player chose ---------------------------------------------------------
export function chosenCards() {
  return EDICTS.map((e) => $(`edict-${e}`)?.value || "");
}

/** Why there is no score for the chosen cards yet ("" when the four are chosen and differ). */
export function cardProblem() {
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

// ---- the cells in question -------------------------------------------------------------------
export function highlighted() {
  const r = state.report;
  if (!r || !state.selected) return new Set();
  if (state.selected === "monsters") return new Set(r.monster_cells.map(key));
  return new Set((r.evidence[state.selected] || []).flatMap((e) => e.cells.map(key)));
}

/** The cells still to check: unsure, and neither confirmed nor corrected yet. */
export function remaining() {
  return state.toCheck.filter((c) => !state.checked.has(key(c)));
}

/** The SVG transform that turns the photo so the map's grid stands upright in a 1000-unit square
 * (an affine fit to the grid's top-left, top-right and bottom-left corners). */
export function uprightTransform([tl, tr, , bl]) {
  const W = 1000, ux = tr[0] - tl[0], uy = tr[1] - tl[1], vx = bl[0] - tl[0], vy = bl[1] - tl[1];
  const det = ux * vy - vx * uy;
  const a = W * vy / det, c = -W * vx / det, b = -W * uy / det, d = W * ux / det;
  return [a, b, c, d, -(a * tl[0] + c * tl[1]), -(b * tl[0] + d * tl[1])];
}
