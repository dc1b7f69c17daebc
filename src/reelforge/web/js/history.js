// History (last games, paged), recall (one game step by step, as recorded) and replay (the
// round re-dealt from its stored draws, clearly marked as a replay).

import { formatMoney } from "./money.js";
import { loadRenderer } from "./renderers/index.js";
import { countUp, formatTime, h, titleCase, wait } from "./ui.js";

function statusChip(r) {
  if (r.status === "pending") return h("span.chip-status.chip-status--pending", "In play");
  if (r.status === "voided") return h("span.chip-status.chip-status--void", "Voided");
  return r.win > 0 ? h("span.chip-status.chip-status--won", "Won") : h("span.chip-status", "No win");
}

// -- history ---------------------------------------------------------------------------------

export async function renderHistory(app, view) {
  const body = h("tbody");
  const more = h("button.btn", { type: "button", "data-testid": "history-more", hidden: true }, "Older games");
  const empty = h("p.empty", { hidden: true }, "No games yet.");
  let before = null;
  const load = async () => {
    const q = before ? `&before=${before}` : "";
    const page = await app.api.get(`/history?limit=10${q}`);
    for (const r of page.rounds) {
      const game = app.gamesById[r.game];
      const fmt = (v) => formatMoney(v, game?.currency || app.currency);
      const open = () => (location.hash = `#/history/${r.id}`);
      body.append(h("tr.history__row", {
        tabindex: "0", role: "link", "data-testid": "history-row", "data-round": String(r.id),
        onclick: open, onkeydown: (e) => e.key === "Enter" && open(),
      },
      h("td", formatTime(r.started_at)),
      h("td", game?.name || r.game),
      h("td.num", fmt(r.stake)),
      h("td.num", fmt(r.win)),
      h("td", statusChip(r), r.autoplay_id ? h("span.chip-status.chip-status--auto", "Auto") : null),
      h("td.num", `#${r.id}`)));
    }
    before = page.next_before;
    more.hidden = !before;
    empty.hidden = body.children.length > 0;
  };
  more.addEventListener("click", () => load().catch((e) => app.handleError(e)));
  view.replaceChildren(h("div.page.history", { "data-testid": "history" },
    h("div.page__head", h("h1", "Game history"), backButton(app)),
    h("div.table-wrap", h("table.table.table--history",
      h("thead", h("tr", h("th", "Time"), h("th", "Game"), h("th.num", "Bet"), h("th.num", "Win"), h("th", "Result"), h("th.num", "Round"))),
      body)),
    empty, more));
  await load();
  body.querySelector("tr")?.focus();
}

function backButton(app, label = null) {
  const game = app.lastGame && app.gamesById[app.lastGame];
  return h("button.btn", {
    type: "button", "data-testid": "back",
    onclick: () => (location.hash = game ? `#/game/${game.id}` : "#/"),
  }, label || (game ? `Back to ${game.name}` : "Back to the lobby"));
}

/** A renderer for showing a recorded round (coin fixed by the round). */
async function recallRenderer(app, gameId, coin, stake, meter) {
  const game = app.gamesById[gameId];
  if (!game) return null;
  const mod = await loadRenderer(gameId);
  const fmt = (v) => formatMoney(v, game.currency);
  let shown = 0;
  return mod.createRenderer({
    game,
    format: fmt,
    credits: (c) => fmt(c * coin),
    coin: () => coin,
    stake: () => stake,
    speed: () => (app.quick ? 0.4 : 1) * (typeof window.__reelforgeSpeed === "number" ? window.__reelforgeSpeed : 1),
    sound: app.sound,
    addWin: (credits) => {
      const from = shown;
      shown += credits * coin;
      return meter ? countUp(meter, from, shown, 600, fmt) : Promise.resolve();
    },
    resetWin: () => (shown = 0),
  });
}

function actionText(step, fmt, renderer = null) {
  const a = step.action;
  if (!a) return "Voided by the operator";
  const own = a.name === "start" ? renderer?.startText?.(a) : null; // a game's own words (an upper bet)
  if (own) return own;
  if (a.name === "start") return `Start: bet ${fmt(a.stake)}${a.mode && a.mode !== "base" ? ` (${a.mode})` : ""}`;
  return `${titleCase(a.name)}${a.choice !== null && a.choice !== undefined ? ` ${a.choice}` : ""}`;
}

// -- recall ------------------------------------------------------------------------------------

export async function renderRecall(app, view, roundId) {
  const data = await app.api.get(`/rounds/${roundId}`);
  const game = app.gamesById[data.game];
  const fmt = (v) => formatMoney(v, game?.currency || app.currency);
  const renderer = await recallRenderer(app, data.game, data.round.coin, data.stake, null);
  const steps = data.steps;
  let index = 0;
  const stepHead = h("div.recall__stephead", { "data-testid": "recall-step" });
  const stage = h("div.recall__stage");
  const events = h("ol.recall__events", { "data-testid": "recall-events" });
  const prev = h("button.btn", { type: "button", "data-testid": "recall-prev", onclick: () => show(index - 1) }, "◀ Previous step");
  const next = h("button.btn", { type: "button", "data-testid": "recall-next", onclick: () => show(index + 1) }, "Next step ▶");
  const show = (i) => {
    index = Math.max(0, Math.min(steps.length - 1, i));
    const s = steps[index];
    stepHead.replaceChildren(
      h("strong", `Step ${s.step} of ${steps.length}`),
      h("span", actionText(s, fmt, renderer)),
      h("span", `by ${s.actor}`),
      h("span", formatTime(s.at)),
      h("span", `win so far ${fmt(s.win_after)}`));
    stage.replaceChildren(renderer ? renderer.snapshot(s.events) : "");
    events.replaceChildren(...s.events.map((ev) => h("li", renderer ? renderer.describe(ev) : ev.type)));
    prev.disabled = index === 0;
    next.disabled = index === steps.length - 1;
  };
  const facts = [
    ["Game", `${game?.name || data.game} v${data.game_version}`],
    ["RTP variant", data.variant],
    ["Round", `#${data.id}`],
    ["Started", formatTime(data.started_at)],
    ["Finished", data.completed_at ? formatTime(data.completed_at) : "in play"],
    ["Bet", fmt(data.stake)],
    ["Win", fmt(data.win)],
    ["Balance before", fmt(data.balance_before)],
    ["Balance after", data.balance_after === null ? "–" : fmt(data.balance_after)],
    ["Completed by", data.completed_by || "–"],
  ];
  const replay = data.status === "pending" ? null : h("button.btn.btn--gold", {
    type: "button", "data-testid": "open-replay", onclick: () => (location.hash = `#/replay/${data.id}`),
  }, "▶ Replay this game");
  view.replaceChildren(h("div.page.recall", { "data-testid": "recall" },
    h("div.page__head", h("h1", `Game #${data.id}`),
      h("button.btn", { type: "button", onclick: () => (location.hash = "#/history"), "data-testid": "back-history" }, "All games"),
      backButton(app)),
    h("dl.facts", facts.map(([k, v]) => h("div.facts__item", h("dt", k), h("dd", v)))),
    h("div.recall__viewer", stepHead, stage, events, h("div.recall__nav", prev, next, replay))));
  view.onKey = (e) => {
    if (e.key === "ArrowLeft") return show(index - 1), true;
    if (e.key === "ArrowRight") return show(index + 1), true;
    return false;
  };
  show(0);
}

// -- replay ------------------------------------------------------------------------------------

export async function renderReplay(app, view, roundId) {
  const data = await app.api.get(`/rounds/${roundId}/replay`);
  const game = app.gamesById[data.game];
  const fmt = (v) => formatMoney(v, game?.currency || app.currency);
  const level = game?.bet_levels.find((l) => l.stake === data.stake);
  const coin = level ? level.coin : 1;
  const meter = h("span.winmeter__value", { "data-testid": "replay-win" }, fmt(0));
  const renderer = await recallRenderer(app, data.game, coin, data.stake, meter);
  const list = h("ol.recall__events", { "data-testid": "replay-steps" });
  const again = h("button.btn.btn--gold", { type: "button", "data-testid": "replay-again", disabled: true }, "↻ Play the replay again");
  const status = h("p.replay__status", { "data-testid": "replay-status" });
  let run = 0;
  const play = async () => {
    const mine = ++run;
    again.disabled = true;
    list.replaceChildren();
    meter.textContent = fmt(0);
    if (!renderer) return;
    renderer.reset();
    renderer.resetWin?.();
    const round = { id: data.round_id, stake: data.stake, coin, events: [], state: {}, status: "pending" };
    for (const step of data.steps) {
      if (mine !== run || !view.isConnected) return;
      const li = h("li.is-current", `Step ${step.step}: ${actionText(step, fmt, renderer)}`);
      list.querySelectorAll("li").forEach((x) => x.classList.remove("is-current"));
      list.append(li);
      status.textContent = `Replaying step ${step.step} of ${data.steps.length}…`;
      round.events = round.events.concat(step.events);
      if (step.action?.name === "start") renderer.startSpin();
      await renderer.present(step.events, round);
      await wait(300);
    }
    meter.textContent = fmt(data.win);
    status.textContent = `Replay finished: win ${fmt(data.win)} (recorded ${fmt(data.recorded_win)}).`;
    view.querySelector(".replay")?.setAttribute("data-done", "1");
    again.disabled = false;
  };
  again.addEventListener("click", () => play());
  view.replaceChildren(h("div.page.replay", { "data-testid": "replay" },
    h("div.replay__ribbon", { "data-testid": "replay-marker", role: "note" }, "REPLAY"),
    h("div.page__head", h("h1", `Replay of game #${data.round_id}`),
      h("button.btn", { type: "button", onclick: () => (location.hash = `#/history/${data.round_id}`) }, "Back to the record"),
      backButton(app)),
    h("p.replay__note", "This is a replay, re-dealt from the game's recorded draws. Nothing is staked or won."),
    h("p", h("span.chip-status" + (data.matches_record ? ".chip-status--won" : ".chip-status--void"), { "data-testid": "replay-match" },
      data.matches_record ? "✓ Matches the record" : "✗ Does not match the record")),
    h("div.replay__stage", renderer ? renderer.el : h("p", "This game cannot be shown here.")),
    h("div.replay__bar", h("div.winmeter", h("span.winmeter__label", "Replay win"), meter), again),
    status, list));
  play();
}
