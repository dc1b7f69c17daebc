// History (the last games, paged: a table on wide screens, cards on phones) and recall (one
// game step by step, as recorded, laid out to fit the screen with its controls in view).
// The replay is in replay.js.

import { t, tk } from "./i18n.js";
import {
  actionText, closeButton, eventText, fitInto, money, recallRenderer, resultChips, roundResult,
  sideText, stakeText,
} from "./record.js";
import { formatTime, h } from "./ui.js";

export { renderReplay } from "./replay.js";

// Who took a step or completed a round (the server's names), in words.
const WHO = {
  autoplay: tk("autoplay"),
  operator: tk("operator"),
  player: tk("player"),
  server: tk("server"),
  void: tk("void"),
};

function who(name) {
  return Object.hasOwn(WHO, name) ? t(WHO[name]) : name;
}

// -- history ---------------------------------------------------------------------------------

export async function renderHistory(app, view) {
  const body = h("tbody");
  const more = h("button.btn", { type: "button", "data-testid": "history-more", hidden: true }, t("Older games"));
  const empty = h("p.empty", { hidden: true }, t("No games yet."));
  let before = null;
  const load = async () => {
    const q = before ? `&before=${before}` : "";
    const page = await app.api.get(`/history?limit=10${q}`);
    for (const r of page.rounds) {
      const game = app.gamesById[r.game];
      const fmt = money(app);
      const res = roundResult(r, fmt);
      const open = () => (location.hash = `#/history/${r.id}`);
      // Every cell carries its label: the phone layout shows the rows as cards.
      body.append(h("tr.history__row", {
        tabindex: "0", role: "link", "data-testid": "history-row", "data-round": String(r.id), "data-kind": res.kind,
        "aria-label": t("Game #{id}, {game}, {time}: {result}", {
          id: r.id, game: game?.name || r.game, time: formatTime(r.started_at), result: res.text,
        }),
        onclick: open, onkeydown: (e) => e.key === "Enter" && open(),
      },
      h("td.h-time", formatTime(r.started_at)),
      h("td.h-game", game?.name || r.game),
      h("td.num.h-bet", { "data-label": t("Bet") }, stakeText(r, game, fmt)),
      h("td.num.h-win", { "data-label": t("Return") }, fmt(r.win)),
      h("td.h-result", resultChips(res, { auto: Boolean(r.autoplay_id) })),
      h("td.num.h-id", `#${r.id}`)));
    }
    before = page.next_before;
    more.hidden = !before;
    empty.hidden = body.children.length > 0;
  };
  more.addEventListener("click", () => load().catch((e) => app.handleError(e)));
  view.replaceChildren(h("div.page.history", { "data-testid": "history" },
    h("div.page__head", h("h1", t("Game history")), closeButton(app, "history-close")),
    h("div.table-wrap", h("table.table.table--history",
      h("thead", h("tr", h("th", t("Time")), h("th", t("Game")), h("th.num", t("Bet")), h("th.num", t("Return")), h("th", t("Result")), h("th.num", t("Round")))),
      body)),
    empty, more));
  view.scrollTop = 0;
  await load();
  body.querySelector("tr")?.focus({ preventScroll: true });
}

// -- recall ------------------------------------------------------------------------------------

export async function renderRecall(app, view, roundId) {
  const data = await app.api.get(`/rounds/${roundId}`);
  const game = app.gamesById[data.game];
  const fmt = money(app);
  const renderer = await recallRenderer(app, data.game, data.round.coin, data.stake, null);
  const steps = data.steps;
  const res = roundResult(data, fmt);
  let index = 0;
  let unfit = null;
  const stepHead = h("div.recall__stephead", { "data-testid": "recall-step", "aria-live": "polite" });
  const stage = h("div.recall__stage", { "data-testid": "recall-stage" });
  const events = h("ol.recall__events", { "data-testid": "recall-events" });
  const where = h("span.recall__pos", { "data-testid": "recall-pos" });
  const prev = h("button.btn", { type: "button", "data-testid": "recall-prev", "aria-label": t("Previous step"), onclick: () => show(index - 1) }, "◀", h("span.rec-word", ` ${t("Previous")}`));
  const next = h("button.btn", { type: "button", "data-testid": "recall-next", "aria-label": t("Next step"), onclick: () => show(index + 1) }, h("span.rec-word", `${t("Next")} `), "▶");
  const show = (i) => {
    index = Math.max(0, Math.min(steps.length - 1, i));
    const s = steps[index];
    const moved = Object.entries(s.side || {}).filter(([, m]) => m.amount);
    stepHead.replaceChildren(
      h("strong", t("Step {step} of {total}", { step: s.step, total: steps.length })),
      h("span.recall__action", actionText(s, fmt, renderer)),
      h("span", t("by {actor}", { actor: who(s.actor) })),
      h("span", formatTime(s.at)),
      h("span", t("paid so far {amount}", { amount: fmt(s.win_after) })),
      ...moved.map(([name, m]) => h("span.chip-status.chip-status--side",
        t("{change} (now {balance})", { change: sideText(name, m.amount), balance: m.balance_after }))));
    // The picture: a step carries on from the steps before it (a pick board shows the
    // stones picked earlier), so the renderer gets those too.
    const earlier = steps.slice(0, index).flatMap((x) => x.events);
    const picture = renderer ? renderer.snapshot(s.events, earlier) : h("p", t("This game cannot be shown here."));
    unfit?.();
    stage.replaceChildren(picture);
    unfit = fitInto(stage, picture);
    events.replaceChildren(...s.events.map((ev) => h("li", eventText(ev, renderer, data.stake, fmt))));
    events.scrollTop = 0;
    where.textContent = `${index + 1} / ${steps.length}`;
    prev.disabled = index === 0;
    next.disabled = index === steps.length - 1;
  };
  const side = Object.entries(data.side || {}).map(([name, v]) =>
    [name === "bonuses" ? t("Bonuses") : name, `${v.before} → ${v.after}`]);
  const facts = [
    [t("Game"), `${game?.name || data.game} v${data.game_version}`],
    [t("RTP variant"), data.variant],
    [t("Round"), `#${data.id}`],
    [t("Started"), formatTime(data.started_at)],
    [t("Finished"), data.completed_at ? formatTime(data.completed_at) : t("in play")],
    [t("Bet"), stakeText(data, game, fmt)],
    [t("Return"), fmt(data.win)],
    [t("Result"), res.text],
    ...side,
    [t("Balance before"), fmt(data.balance_before)],
    [t("Balance after"), data.balance_after === null ? "–" : fmt(data.balance_after)],
    [t("Completed by"), data.completed_by ? who(data.completed_by) : "–"],
  ];
  const replay = data.status === "pending" ? null : h("button.btn.btn--gold", {
    type: "button", "data-testid": "open-replay", "aria-label": t("Replay this game"),
    onclick: () => (location.hash = `#/replay/${data.id}`),
  }, `▶ ${t("Replay")}`);
  const page = h("div.page.recall.rec-screen", { "data-testid": "recall" },
    h("div.rec-head",
      h("h1", t("Game #{id}", { id: data.id })),
      h("div.rec-head__chips", { "data-testid": "recall-result" }, resultChips(res)),
      h("div.rec-head__buttons",
        h("button.btn", { type: "button", onclick: () => (location.hash = "#/history"), "data-testid": "back-history" }, t("All games")),
        closeButton(app, "recall-close"))),
    h("details.rec-facts", { "data-testid": "recall-facts" },
      h("summary", h("span", game?.name || data.game), h("span", formatTime(data.started_at)),
        h("span", t("Bet {bet}", { bet: stakeText(data, game, fmt) })), h("span.rec-facts__more", t("Details"))),
      h("dl.facts", facts.map(([k, v]) => h("div.facts__item", h("dt", k), h("dd", v))))),
    h("div.rec-body", stage, h("div.rec-side", stepHead, events)),
    h("div.rec-bar", { "data-testid": "recall-controls" },
      h("div.rec-bar__steps", prev, where, next), replay));
  view.replaceChildren(page);
  view.scrollTop = 0;
  view.onKey = (e) => {
    if (e.key === "ArrowLeft") return show(index - 1), true;
    if (e.key === "ArrowRight") return show(index + 1), true;
    return false;
  };
  show(0);
}
