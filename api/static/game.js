// The "game" view: create or open a tracked game, upload season sheets, follow the standings.
// Talks only to /v1/games and /v1/cards on this server.

import { languageHeader, loadLanguage, t } from "/static/i18n.js";

const $ = (id) => document.getElementById(id);
const state = { game: null, cards: [], backs: [] };
const BACK_NAMES = { "forest": "Forest", "farm-water": "Farm and water", "village": "Village", "placement": "Placement" };
/** A card's printed name (the API speaks in slugs). */
const cardName = (slug) => state.cards.find((c) => c.slug === slug)?.name || slug;
/** A season's name in the page's language, capitalised. */
const seasonTitle = (name) => { const s = state.seasonTitles?.[name] || name; return s[0].toUpperCase() + s.slice(1); };

async function api(path, options = {}) {
  const r = await fetch(path, { ...options, headers: { ...languageHeader(), ...(options.headers || {}) } });
  const body = await r.json().catch(() => ({ code: "bad-json", message: `HTTP ${r.status}` }));
  if (!r.ok) throw Object.assign(new Error(body.message || `HTTP ${r.status}`), body);
  return body;
}

function say(el, text, kind = "") {
  el.textContent = text;
  el.className = `status ${kind}`;
}

// Any card can lie under any edict (one of each back in a real game): every select offers all
// sixteen, grouped by back, and starts on "choose a card".
function cardPickers() {
  const box = $("card-pickers");
  const backs = state.backs.length ? state.backs : [...new Set(state.cards.map((c) => c.back))];
  ["A", "B", "C", "D"].forEach((edict) => {
    const wrap = document.createElement("div");
    wrap.className = "card-picker";
    const label = document.createElement("label");
    label.htmlFor = `edict-${edict}`;
    label.textContent = t("Edict {edict}", { edict });
    const select = document.createElement("select");
    select.id = `edict-${edict}`;
    select.required = true;
    const placeholder = new Option(t("choose a card"), "", true, true);
    placeholder.disabled = true;
    select.append(placeholder);
    for (const back of backs) {
      const group = document.createElement("optgroup");
      group.label = state.cards.find((c) => c.back === back)?.back_name || BACK_NAMES[back] || back;
      for (const c of state.cards.filter((c) => c.back === back)) group.append(new Option(c.name, c.slug));
      select.append(group);
    }
    wrap.append(label, select);
    box.append(wrap);
  });
}

async function listGames(selected) {
  const { games } = await api("/v1/games");
  const select = $("open-id");
  select.replaceChildren(...games.map((g) => new Option(`${g.name || g.id} — ${g.players.join(", ")}`, g.id)));
  if (selected) select.value = selected;
}

async function openGame(id) {
  state.game = await api(`/v1/games/${encodeURIComponent(id)}`);
  history.replaceState(null, "", `?id=${state.game.id}`);
  $("game-label").textContent = t("({game}, side {side})", { game: state.game.name || state.game.id, side: state.game.side });
  $("player").replaceChildren(...state.game.players.map((p) => new Option(`${p.seat + 1}. ${p.name}`, p.name)));
  $("upload-panel").hidden = false;
  $("standings-panel").hidden = false;
  const game = state.game.name || t("Game {id}", { id: state.game.id });
  const edicts = Object.entries(state.game.edicts).map(([e, c]) => `${e} ${cardName(c)}`).join(", ");
  say($("status"), t("{game}: edicts {edicts}", { game, edicts }), "ok");
  await showStandings();
}

function cell(tag, text, cls = "") {
  const el = document.createElement(tag);
  el.textContent = text;
  if (cls) el.className = cls;
  return el;
}

async function showStandings() {
  const data = await api(`/v1/games/${state.game.id}/standings`);
  const out = $("standings");
  out.replaceChildren();
  if (!data.seasons.length) out.append(cell("p", t("No season sheets yet."), "hint"));
  for (const season of data.seasons) {
    const table = document.createElement("table");
    table.className = "score";
    const title = seasonTitle(season.season);
    const caption = cell("caption", season.complete ? t("After {season}", { season: title })
      : t("After {season} (not every sheet in yet)", { season: title }));
    const head = document.createElement("thead");
    const hr = document.createElement("tr");
    for (const h of [t("Place"), t("Player"), t("Season"), t("Total"), t("Monster stars lost")]) hr.append(cell("th", h));
    head.append(hr);
    const body = document.createElement("tbody");
    const seasonTotal = Object.fromEntries(season.scores.map((s) => [s.player, s.season_total]));
    for (const st of season.standings) {
      const tr = document.createElement("tr");
      tr.append(cell("td", st.place), cell("td", st.player), cell("td", seasonTotal[st.player] ?? "–", "num"),
        cell("td", st.total, "num"), cell("td", st.monster_stars_lost, "num"));
      body.append(tr);
    }
    table.append(caption, head, body);
    out.append(table);
  }
  const ranking = (data.final || []).map((s) => `${s.place}. ${s.player} (${s.total})`).join(", ");
  if (data.final) out.append(cell("p", t("Final: {ranking}", { ranking }), "verdict legal"));
}

async function upload(file) {
  const form = new FormData();
  const isSheet = /\.(json|txt)$/i.test(file.name);
  if (isSheet) form.append("sheet", await file.text());
  else form.append("photo", file);
  form.append("replace", $("replace").checked ? "true" : "false");
  const player = $("player").value;
  const season = $("season").value;
  say($("upload-status"), t("Reading and checking {player}'s {season} sheet…", { player, season: seasonTitle(season) }));
  $("upload-reasons").replaceChildren();
  try {
    const r = await api(`/v1/games/${state.game.id}/players/${encodeURIComponent(player)}/seasons/${season}`,
      { method: "POST", body: form });
    const s = r.score;
    const legal = { legal: t("it can come from a real game"), illegal: t("it breaks the rules"),
      "cannot-tell": t("cannot tell whether it breaks the rules") };
    const edicts = s.edicts.map((e) => `${cardName(e.card)} ${e.stars}`).join(" + ");
    say($("upload-status"), t("{player}, {season}: {total} stars ({edicts} + {coins} coins − {monsters} for monsters); {verdict}.", {
      player, season: seasonTitle(season), total: s.total, edicts, coins: s.coins, monsters: s.monster_penalty,
      verdict: legal[r.checks.legality.verdict] || r.checks.legality.verdict,
    }), "ok");
    await showStandings();
  } catch (e) {
    say($("upload-status"), e.message || t("The sheet could not be stored."), "error");
    for (const reason of e.reasons || []) $("upload-reasons").append(cell("li", reason.message));
  }
}

async function create(event) {
  event.preventDefault();
  const players = $("players").value.split("\n").map((s) => s.trim()).filter(Boolean);
  const cards = ["A", "B", "C", "D"].map((e) => $(`edict-${e}`).value);
  try {
    const game = await api("/v1/games", {
      method: "POST", headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ name: $("name").value, players, side: $("side").value, cards }),
    });
    await listGames(game.id);
    await openGame(game.id);
  } catch (e) {
    say($("status"), e.message || t("The game could not be created."), "error");
  }
}

async function start() {
  await loadLanguage();
  say($("status"), t("Open a game, or create one."));
  try {
    const cards = await api("/v1/cards");
    ({ cards: state.cards, backs: state.backs } = cards);
    state.seasonTitles = Object.fromEntries(cards.seasons.map((s) => [s.name, s.title || s.name]));
    cardPickers();
    const id = new URLSearchParams(location.search).get("id");
    await listGames(id);
    if (id) await openGame(id);
  } catch (e) {
    say($("status"), e.message || t("The service is not answering."), "error");
  }
  $("create").addEventListener("submit", create);
  $("open").addEventListener("click", () => openGame($("open-id").value).catch((e) => say($("status"), e.message, "error")));
  $("sheet-file").addEventListener("change", (ev) => { if (ev.target.files[0]) upload(ev.target.files[0]); ev.target.value = ""; });
  document.body.classList.add("ready");
}

start();
