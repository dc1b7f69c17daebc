// What history, recall and replay share: how a round's outcome is worded (a return above
// the stake is a win; one at or below it is not, under every profile), side-balance moves
// (Los 3 Pinguinos' Bonuses), the words for a step's action, a renderer set up to draw a
// recorded round, and scaling a still picture to fit the space it is given.

import { actionWord } from "./decision-panel.js";
import { t } from "./i18n.js";
import { formatMoney } from "./money.js";
import { loadRenderer } from "./renderers/index.js";
import { countUp, h, speed, titleCase } from "./ui.js";

/** A round's money: always in the player's wallet currency (the server plays a round in no
 *  other), whatever game it was. */
export function money(app) {
  return (v) => formatMoney(v, app.currency);
}

/** Side balances a round moved: [{name, before, after, delta}] (from the server's `side`). */
export function sideMoves(side) {
  return Object.entries(side || {})
    .map(([name, v]) => ({ name, before: v.before, after: v.after, delta: v.after - v.before }))
    .filter((m) => m.delta !== 0);
}

/** A side balance's name: "Bonuses". */
function unitName(name) {
  if (name === "bonuses") return t("Bonuses");
  return titleCase(name);
}

/** A count of a side balance: "2 Bonuses" / "1 Bonus". */
function unitCount(name, n) {
  if (name === "bonuses") return t("{n} Bonuses", { n });
  return `${n} ${titleCase(name)}`;
}

/** "+2 Bonuses" / "−1 Bonus". */
export function sideText(name, delta) {
  return `${delta > 0 ? "+" : "−"}${unitCount(name, Math.abs(delta))}`;
}

/**
 * The outcome of a round in words.  kind: won (a return above the stake), returned (some
 * money back, at most the stake: not a win), none, pending, void.
 */
export function roundResult(r, fmt) {
  const moves = sideMoves(r.side);
  if (r.status === "pending") return { kind: "pending", text: t("In play"), moves };
  if (r.status === "voided") return { kind: "void", text: t("Voided"), moves };
  return { ...outcome(r.win, r.stake, fmt, moves.some((m) => m.delta > 0)), moves };
}

/** kind, text (a label: "Won £1.00 on £0.40") and inner (inside a sentence: "won £1.00 on £0.40"). */
function outcome(win, stake, fmt, sideGained = false) {
  const amounts = { win: fmt(win), stake: fmt(stake) };
  if (win > stake) return { kind: "won", text: t("Won {win} on {stake}", amounts), inner: t("won {win} on {stake}", amounts) };
  if (win > 0) {
    return { kind: "returned", text: t("Returned {win} of {stake}", amounts), inner: t("returned {win} of {stake}", amounts) };
  }
  if (sideGained) return { kind: "none", text: t("No cash win"), inner: t("no cash win") };
  return { kind: "none", text: t("No win"), inner: t("no win") };
}

/** The chips that say a round's outcome: the cash result, then each side balance it moved. */
export function resultChips(res, { auto = false } = {}) {
  return [
    h(`span.chip-status.chip-status--${res.kind}`, { "data-testid": "round-result", "data-kind": res.kind }, res.text),
    ...res.moves.map((m) => h("span.chip-status.chip-status--side", {
      "data-testid": "round-side", "data-side": m.name, "data-delta": String(m.delta),
      title: `${unitName(m.name)}: ${m.before} → ${m.after}`,
    }, sideText(m.name, m.delta))),
    auto ? h("span.chip-status.chip-status--auto", t("Auto")) : null,
  ];
}

/** A bet as the player chose it: an upper bet of Los 3 Pinguinos is cash and Bonuses. */
export function stakeText(r, game, fmt) {
  const bet = r.mode === "upper" ? game?.upper?.bets?.find((b) => b.cash === r.stake) : null;
  return bet ? `${fmt(bet.cash)} + ${unitCount("bonuses", bet.bonuses)}` : fmt(r.stake);
}

/** A step's action in words.  Indexes (a stone, a platform, a reel) are numbered from 1, as
 *  the game screens and the renderers' own words number them. */
export function actionText(step, fmt, renderer = null) {
  const a = step.action;
  if (!a) return t("Voided by the operator");
  const own = a.name === "start" ? renderer?.startText?.(a) : null; // a game's own words (an upper bet)
  if (own) return own;
  if (a.name === "start") {
    if (a.mode && a.mode !== "base") return t("Start: bet {stake} ({mode})", { stake: fmt(a.stake), mode: a.mode });
    return t("Start: bet {stake}", { stake: fmt(a.stake) });
  }
  const has = a.choice !== null && a.choice !== undefined;
  if (a.name === "pick" && has) return t("Pick {n}", { n: a.choice + 1 });
  if (a.name === "nudge" && has) return t("Nudge reel {n}", { n: a.choice + 1 });
  if (a.name === "hold" && has) {
    const reels = [0, 1, 2, 3, 4].filter((r) => (a.choice >> r) & 1).map((r) => r + 1);
    if (!reels.length) return t("Hold no reel");
    const list = reels.map(String).reduce((x, y) => t("{first} and {second}", { first: x, second: y }));
    return t("Hold reels {reels}", { reels: list, n: reels.length });
  }
  return has ? t("{action} {choice}", { action: actionWord(a.name), choice: a.choice }) : actionWord(a.name);
}

/** A round's end inside a sentence: "won £1.00 on £0.40; +1 Bonus". */
function endWords(ev, stake, fmt) {
  const inner = outcome(ev.win, stake, fmt, ev.bonuses_won > 0).inner;
  return ev.bonuses_won ? t("{result}; {bonuses}", { result: inner, bonuses: sideText("bonuses", ev.bonuses_won) }) : inner;
}

/** One recorded event in words; the round's end is worded here, the same for every game. */
export function eventText(ev, renderer, stake, fmt) {
  if (ev.type === "round_end" && Number.isInteger(ev.win)) return t("Round over: {result}", { result: endWords(ev, stake, fmt) });
  return renderer ? renderer.describe(ev) : ev.type;
}

/** What a round came to, inside a sentence ("won £1.00 on £0.40"): the replay's last words. */
export function resultWords(ev, renderer, stake, fmt) {
  if (ev.type === "round_end" && Number.isInteger(ev.win)) return endWords(ev, stake, fmt);
  return eventText(ev, renderer, stake, fmt).replace(/^Round over: /, "");
}

/** A renderer for showing a recorded round (coin fixed by the round). */
export async function recallRenderer(app, gameId, coin, stake, meter) {
  const game = app.gamesById[gameId];
  if (!game) return null;
  const mod = await loadRenderer(game);
  app.sound?.useGame?.(game.id, mod.sounds); // replay sounds like the game (never awaited)
  const fmt = money(app);
  let shown = 0;
  return mod.createRenderer({
    game,
    format: fmt,
    credits: (c) => fmt(c * coin),
    coin: () => coin,
    stake: () => stake,
    speed: () => speed(), // the replay's tempo is part of it
    sound: app.sound,
    addWin: (credits) => {
      const from = shown;
      shown += credits * coin;
      return meter ? countUp(meter, from, shown, 600, fmt) : Promise.resolve();
    },
    resetWin: () => (shown = 0),
  });
}

export function backButton(app, label = null) {
  const game = app.lastGame && app.gamesById[app.lastGame];
  return h("button.btn", {
    type: "button", "data-testid": "back",
    onclick: () => (location.hash = game ? `#/game/${game.id}` : "#/"),
  }, label || (game ? t("Back to {game}", { game: game.name }) : t("Back to the lobby")));
}

/** A round icon button that leaves the screen (to the game, or the lobby). */
export function closeButton(app, testid) {
  const game = app.lastGame && app.gamesById[app.lastGame];
  return h("button.icon-btn.rec-close", {
    type: "button", "data-testid": testid,
    "aria-label": game ? t("Close: back to {game}", { game: game.name }) : t("Close: back to the lobby"),
    title: t("Close (Esc)"),
    onclick: () => (location.hash = game ? `#/game/${game.id}` : "#/"),
  }, "✕");
}

/**
 * Scale `item` (laid out at its own width) to fit inside `box`, centred, never above
 * `most`.  Follows both sizes (a phone turned, a picture drawn late).  Returns a stop.
 */
export function fitInto(box, item, most = 1.3) {
  const apply = () => {
    const w = item.offsetWidth;
    const ht = item.offsetHeight;
    if (!w || !ht || !box.clientWidth || !box.clientHeight) return;
    const s = Math.min(box.clientWidth / w, box.clientHeight / ht, most);
    item.style.transform = `translate(-50%, -50%) scale(${s})`;
    box.dataset.scale = s.toFixed(3);
  };
  const watch = new ResizeObserver(apply);
  watch.observe(box);
  watch.observe(item);
  apply();
  return () => watch.disconnect();
}
