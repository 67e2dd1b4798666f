// The scorer page's result, drawn from the state after every change: the map, the photo overlay,
// the edict card pickers, the score table with its evidence, the legality verdict and the picker's
// close-up of a cell. What a tap on it does is app.js's (``actions``).

import { t, tn } from "/static/i18n.js";
import {
  $, EDICTS, ROWS, SIZE, TERRAIN_COLOURS, backName, cardName, cardProblem, cellName, cellsCount, el,
  highlighted, icon, key, remaining, seasonTitle, state, unsureCount, uprightTransform,
} from "/static/page.js";

/** What the drawn result does when the player acts on it; app.js fills these in before drawing. */
export const actions = {
  openCell: (cell) => {}, // a cell of the map or the photo tapped: [r, c]
  cardsChanged: () => {}, // an edict card chosen
  changed: () => {}, // a score row selected or unselected: everything drawn again
};

export function renderMap() {
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
        onclick: () => actions.openCell([r, c]),
      }, icon(`t-${t}`));
      if (ruins.has(k)) button.append(icon("ruins", "icon ruins"));
      row.append(button);
    }
    map.append(row);
  }
  const title = { Wilderness: t("Wilderness"), Wastelands: t("Wastelands") }[layout.title] || layout.title;
  $("map-side").textContent = t("side {side} · {title}", { side, title });
  $("coins").value = state.sheet.coins;
  renderCheckBar();
}

/** The "Check N cells" bar above the map: how many unsure cells are left, and the walkthrough's start. */
export function renderCheckBar() {
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

export function renderOverlay() {
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
      onclick: () => { if (t !== "mountain" && t !== "wasteland") actions.openCell([r, c]); },
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

export function renderCardPickers() {
  const box = $("card-pickers");
  if (box.childElementCount) return;
  EDICTS.forEach((edict) => {
    const select = el("select", { id: `edict-${edict}`, onchange: () => actions.cardsChanged() });
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
  const select = () => { state.selected = selected ? null : slug; actions.changed(); };
  return el("tr", {
    class: `row ${cls} ${counts ? "" : "idle"} ${selected ? "selected" : ""}`, tabindex: "0",
    "aria-selected": selected ? "true" : "false", "data-row": slug,
    onclick: select, onkeydown: (e) => { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); select(); } },
  },
  el("td", { text: edict }),
  el("th", { scope: "row" }, label, counts ? "" : el("span", { class: "muted small", text: " " + t("not this season") })),
  el("td", { class: "num", text: stars }));
}

export function renderScore() {
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

export function renderVerdict() {
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

/** A close-up of one cell in the photo, upright, for the picker (null without a photo grid). */
export function photoCloseUp([r, c]) {
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
