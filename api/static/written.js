// The numbers written on the sheet: the season boxes and the final-total shield as a small table of
// inputs, beside winter as the map scores it, with the checks of /v1/check-written marked on the
// numbers they are about. The table is built once; a render only sets values, marks and messages,
// so an answer arriving while the player types never moves the focus.

import { t, tn } from "/static/i18n.js";

export const SEASON_EDICTS = { spring: ["A", "B"], summer: ["B", "C"], fall: ["C", "D"], winter: ["D", "A"] };
const SEASONS = Object.keys(SEASON_EDICTS);
const PARTS = ["edict1", "edict2", "coins", "monsters", "total"];
const SEASON_WORDS = { spring: () => t("Spring"), summer: () => t("Summer"), fall: () => t("Fall"), winter: () => t("Winter") };
const PART_WORDS = { coins: () => t("coins"), monsters: () => t("monster penalty"), total: () => t("total") };
/** The written number each check code is about (winter-edicts: see winterEdictsOff). */
const CHECK_PART = {
  "season-sum": "total", "winter-coins": "coins", "coins-decrease": "coins", "coins-exceed": "coins",
  "winter-monsters": "monsters", "monsters-exceed": "monsters",
};

/** A number read with less confidence than this is dashed for checking (scoring.written_checks.WRITTEN_UNSURE_BELOW). */
const UNSURE_BELOW = 0.9;

const $ = (id) => document.getElementById(id);

/** Four blank boxes and a blank shield. */
export function blankWritten() {
  const boxes = {};
  for (const s of SEASONS) boxes[s] = Object.fromEntries(PARTS.map((p) => [p, null]));
  return { boxes, final: null, confidence: {} };
}

/** The page's form of the JSON fields ``seasons_written`` / ``final_total_written``. */
export function writtenFromFields(fields) {
  const written = blankWritten();
  for (const box of fields?.seasons_written || []) {
    if (!written.boxes[box.season]) continue;
    const [edict1, edict2] = box.edicts || [null, null];
    Object.assign(written.boxes[box.season], { edict1, edict2, coins: box.coins, monsters: box.monsters, total: box.total });
  }
  written.final = fields?.final_total_written ?? null;
  written.confidence = fields?.written_confidence || {};
  return written;
}

/** The request fields for /v1/check-written (``seasons_written`` null when nothing is written). */
export function writtenRequest(written) {
  const seasons = SEASONS.map((season) => {
    const b = written.boxes[season];
    return { season, edicts: [b.edict1, b.edict2], coins: b.coins, monsters: b.monsters, total: b.total };
  });
  const blank = seasons.every((b) => [...b.edicts, b.coins, b.monsters, b.total].every((v) => v === null));
  return { seasons_written: blank ? null : seasons, final_total_written: written.final };
}

export function isBlank(written) {
  return writtenRequest(written).seasons_written === null && written.final === null;
}

/** The winter edicts written otherwise than the map scores them ("edict1", "edict2"), from the
 * numbers and the map's winter of one answer: its winter-edicts checks come in this order. The
 * messages are in the player's language, so they are not read for it. */
function winterEdictsOff(report) {
  const ours = report?.winter_on_map?.edicts || [];
  const box = (report?.seasons_written || []).find((b) => b.season === "winter");
  return ["edict1", "edict2"].filter((_, i) => box && ours[i] && box.edicts[i] !== null && box.edicts[i] !== ours[i].stars);
}

/** The input's key for the written number a check is about ("summer.coins", "final");
 * ``winterOff`` (winterEdictsOff) is taken from in order by the winter-edicts checks. */
function checkedKeys(check, winterOff) {
  if (check.code === "final-sum") return ["final"];
  if (check.code === "winter-edicts") {
    const part = winterOff.shift();
    return part ? [`winter.${part}`] : [];
  }
  const part = CHECK_PART[check.code];
  return part && check.season ? [`${check.season}.${part}`] : [];
}

function numberInput(name, label, placeholder, onChange, onLeave) {
  const input = document.createElement("input");
  Object.assign(input, { type: "text", inputMode: "numeric", placeholder, autocomplete: "off", name });
  input.dataset.written = name;
  input.setAttribute("aria-label", label);
  input.setAttribute("pattern", "-?[0-9]*");
  input.addEventListener("change", () => onChange(name, input));
  input.addEventListener("blur", () => onLeave(name));
  return input;
}

/** Build the table's inputs once; ``onChange(key, value)`` gets a whole number or null (blank),
 * ``onLeave(key)`` says the player has looked at that number (tapped it and left it). */
export function createWrittenTable(onChange, onLeave) {
  const changed = (name, input) => {
    const text = input.value.trim().replace(/^−/, "-");
    if (text !== "" && !/^-?\d{1,3}$/.test(text)) { input.value = ""; onChange(name, null); return; }
    const n = text === "" ? null : Number(text);
    onChange(name, name.endsWith(".monsters") && n !== null ? Math.abs(n) : n);
  };
  const rows = $("written-rows");
  for (const season of SEASONS) {
    const tr = document.createElement("tr");
    tr.dataset.season = season;
    const th = document.createElement("th");
    th.scope = "row";
    th.textContent = SEASON_WORDS[season]();
    tr.append(th);
    for (const part of PARTS) {
      const edict = part.startsWith("edict") ? SEASON_EDICTS[season][Number(part.at(-1)) - 1] : null;
      const what = edict ? t("edict {edict} stars", { edict }) : PART_WORDS[part]();
      const label = t("{season} {what}, as written", { season: th.textContent, what });
      const td = document.createElement("td");
      td.className = "num";
      td.append(numberInput(`${season}.${part}`, label, edict || "", changed, onLeave));
      tr.append(td);
    }
    rows.append(tr);
    if (season === "winter") {
      const ours = document.createElement("tr");
      ours.id = "winter-on-map";
      ours.className = "ours";
      rows.append(ours);
    }
  }
  $("written-final-cell").append(numberInput("final", t("Final total, as written"), "", changed, onLeave));
}

/** Winter as the map scores it, under the written winter box (the cards are needed for it). */
function renderOurs(winter) {
  const row = $("winter-on-map");
  row.hidden = !winter;
  if (!winter) return;
  const cells = [...winter.edicts.map((e) => e.stars), winter.coins,
    winter.monster_penalty ? `−${winter.monster_penalty}` : 0, winter.total];
  row.replaceChildren();
  const th = document.createElement("th");
  th.scope = "row";
  th.textContent = t("on the map");
  row.append(th, ...cells.map((v) => Object.assign(document.createElement("td"), { className: "num", textContent: v })));
}

/** Draw the written numbers, the checks' marks and messages, and the checked total. */
export function renderWritten({ visible, written, report, error }) {
  $("written-panel").hidden = !visible;
  if (!visible) return;
  const off = new Map();
  const winterOff = winterEdictsOff(report);
  for (const check of report?.checks || []) for (const k of checkedKeys(check, winterOff)) off.set(k, check.message);
  for (const input of document.querySelectorAll("#written-table input[data-written]")) {
    const name = input.dataset.written;
    const [season, part] = name.split(".");
    const value = name === "final" ? written.final : written.boxes[season][part];
    if (document.activeElement !== input) input.value = value ?? "";
    input.classList.toggle("off", off.has(name));
    input.classList.toggle("unsure", (written.confidence[name] ?? 1) < UNSURE_BELOW);
    input.setAttribute("aria-invalid", off.has(name) ? "true" : "false");
    if (off.has(name)) input.title = off.get(name); else input.removeAttribute("title");
  }
  renderOurs(report?.winter_on_map);
  $("checked-total").textContent = report?.checked_total ?? "–";
  const checks = report?.checks || [];
  const unsure = Object.values(written.confidence).filter((v) => v < UNSURE_BELOW).length;
  const verdict = $("written-verdict");
  verdict.textContent = error ? t("The written numbers could not be checked: {reason}", { reason: error })
    : isBlank(written) ? t("Nothing written yet: type the numbers from your sheet to check them.")
      : checks.length ? tn("{n} number does not add up:", "{n} numbers do not add up:", checks.length)
        : t("The written numbers add up, and agree with the map.");
  if (unsure && !error) { // first what to look at again, then what does not add up
    const hard = tn("{n} number was hard to read (dashed): check it against your sheet.",
      "{n} numbers were hard to read (dashed): check them against your sheet.", unsure);
    verdict.textContent = [hard, verdict.textContent].join(" ");
  }
  verdict.className = `written-verdict ${error || checks.length ? "bad" : isBlank(written) ? "" : "ok"}`;
  $("written-checks").replaceChildren(...checks.map((c) => Object.assign(document.createElement("li"), { textContent: c.message })));
}

/** The page's written-number checks: ``state`` holds ``sheet``, ``written``, ``writtenReport`` and
 * ``writtenError``; ``cards()`` gives the four chosen cards or null. */
export function writtenChecker({ state, postJson, cards }) {
  let inFlight = null; // AbortController of the check in flight
  const render = () => renderWritten({ visible: !!state.sheet, written: state.written, report: state.writtenReport,
    error: state.writtenError });
  async function recheck() {
    inFlight?.abort();
    if (!state.sheet) return;
    const mine = (inFlight = new AbortController());
    const body = { sheet: state.sheet, cards: cards(), ...writtenRequest(state.written) };
    try {
      state.writtenReport = await postJson("/v1/check-written", body, mine.signal);
      state.writtenError = "";
    } catch (e) {
      if (e.name === "AbortError") return;
      state.writtenError = e.message;
    }
    if (inFlight === mine) render();
  }
  const changed = (name, value) => {
    const [season, part] = name.split(".");
    if (name === "final") state.written.final = value;
    else state.written.boxes[season][part] = value;
    delete state.written.confidence[name]; // typed by the player: no longer a doubtful reading
    recheck();
  };
  const looked = (name) => { // tapped and left as it was: confirmed, as a map cell is
    if (!(name in state.written.confidence)) return;
    delete state.written.confidence[name];
    render();
  };
  const createTable = () => createWrittenTable(changed, looked);
  return { recheck, render, createTable, abort: () => inFlight?.abort() };
}
