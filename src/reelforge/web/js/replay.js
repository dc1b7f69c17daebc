// The replay: a finished round re-dealt from its stored draws and presented again by the
// game's renderer, clearly marked as a replay, at 1×, 2× or 4× (the tempo divides every
// animation the renderer plays), with a skip to the end that presents the rest at once.

import { t } from "./i18n.js";
import { actionText, closeButton, money, recallRenderer, resultChips, resultWords, roundResult } from "./record.js";
import { h, setSkipping, setTempo, speed, svg, wait } from "./ui.js";

const SPEEDS = [1, 2, 4];
const SPEED_KEY = "reelforge.replaySpeed";

export async function renderReplay(app, view, roundId) {
  const data = await app.api.get(`/rounds/${roundId}/replay`);
  const game = app.gamesById[data.game];
  const fmt = money(app);
  const level = game?.bet_levels.find((l) => l.stake === data.stake);
  const coin = level ? level.coin : 1;
  const meter = h("span.winmeter__value", { "data-testid": "replay-win" }, fmt(0));
  const renderer = await recallRenderer(app, data.game, coin, data.stake, meter);
  const list = h("ol.recall__events.rep-steps", { "data-testid": "replay-steps" });
  const status = h("p.replay__status", { "data-testid": "replay-status", role: "status" });
  let tempo = SPEEDS.includes(Number(localStorage.getItem(SPEED_KEY))) ? Number(localStorage.getItem(SPEED_KEY)) : 1;
  let skipping = false;
  let running = false;
  let run = 0;

  const speedButtons = SPEEDS.map((s) => h("button.btn.rep-speed__btn", {
    type: "button", "data-testid": `replay-speed-${s}`, "data-speed": String(s),
    "aria-label": t("Replay at {n} times speed", { n: s }), onclick: () => chooseSpeed(s),
  }, `${s}×`));
  const skip = h("button.btn", { type: "button", "data-testid": "replay-skip", disabled: true, onclick: () => skipToEnd() },
    svg('<svg class="rep-icon" viewBox="0 0 24 24" aria-hidden="true"><path d="M4 5l9 7-9 7zM13 5l9 7-9 7z" fill="currentColor"/><rect x="19" y="5" width="2.5" height="14" fill="currentColor"/></svg>'),
    t("Skip to end"));
  const again = h("button.btn.btn--gold", { type: "button", "data-testid": "replay-again", disabled: true, onclick: () => play() }, `↻ ${t("Play again")}`);

  const page = h("div.page.replay.rec-screen", { "data-testid": "replay", "data-speed": String(tempo) });
  const applyTempo = () => {
    setTempo(skipping ? Infinity : tempo);
    page.style.setProperty("--speed", String(speed())); // CSS animations follow the tempo too
    page.dataset.speed = String(tempo);
    speedButtons.forEach((b) => b.setAttribute("aria-pressed", String(Number(b.dataset.speed) === tempo)));
  };
  const chooseSpeed = (s) => {
    tempo = s;
    localStorage.setItem(SPEED_KEY, String(s));
    applyTempo();
  };
  const skipToEnd = () => {
    if (!running) return;
    skipping = true;
    skip.disabled = true;
    applyTempo();
    setSkipping(true); // the waits already running end now
    // What is already moving ends now too (a wheel turning, a reel landing).
    for (const a of page.getAnimations({ subtree: true })) {
      if (Number.isFinite(a.effect?.getComputedTiming().endTime)) a.finish();
    }
  };
  // The tempo is the whole client's: leaving the replay puts it back.
  window.addEventListener("hashchange", () => {
    run++;
    setTempo(1);
    setSkipping(false);
  }, { once: true });

  const play = async () => {
    const mine = ++run;
    running = true;
    skipping = false;
    applyTempo();
    again.disabled = true;
    skip.disabled = false;
    delete page.dataset.done;
    list.replaceChildren();
    meter.textContent = fmt(0);
    if (!renderer) return void (running = false);
    renderer.reset();
    renderer.resetWin?.();
    const t0 = performance.now();
    const round = { id: data.round_id, stake: data.stake, coin, events: [], state: {}, status: "pending" };
    for (const step of data.steps) {
      if (mine !== run || !page.isConnected) return;
      list.querySelectorAll("li").forEach((x) => x.classList.remove("is-current"));
      const li = h("li.is-current", t("Step {step}: {action}", { step: step.step, action: actionText(step, fmt, renderer) }));
      list.append(li);
      li.scrollIntoView({ block: "nearest" });
      status.textContent = t("Replaying step {step} of {total}…", { step: step.step, total: data.steps.length });
      round.events = round.events.concat(step.events);
      if (step.action?.name === "start") renderer.startSpin();
      await renderer.present(step.events, round);
      await wait(300);
    }
    if (mine !== run) return;
    const end = round.events.findLast((ev) => ev.type === "round_end");
    meter.textContent = fmt(data.win);
    const words = end ? resultWords(end, renderer, data.stake, fmt) : fmt(data.win);
    status.textContent = t("Replay finished: {result} (recorded: {recorded}).", { result: words, recorded: fmt(data.recorded_win) });
    page.dataset.ms = String(Math.round(performance.now() - t0));
    page.dataset.skipped = skipping ? "1" : "0";
    page.dataset.done = "1";
    running = false;
    skipping = false;
    setSkipping(false);
    applyTempo();
    skip.disabled = true;
    again.disabled = false;
  };

  const res = roundResult({ status: "complete", win: data.win, stake: data.stake }, fmt);
  page.append(
    h("div.replay__ribbon", { "data-testid": "replay-marker", role: "note" }, t("REPLAY")),
    h("div.rec-head",
      h("h1", t("Replay of game #{id}", { id: data.round_id })),
      h("div.rec-head__chips",
        h("span.chip-status" + (data.matches_record ? ".chip-status--won" : ".chip-status--void"), { "data-testid": "replay-match" },
          data.matches_record ? `✓ ${t("Matches the record")}` : `✗ ${t("Does not match the record")}`),
        resultChips(res)),
      h("div.rec-head__buttons",
        h("button.btn", { type: "button", "data-testid": "replay-record", onclick: () => (location.hash = `#/history/${data.round_id}`) }, t("The record")),
        closeButton(app, "replay-close"))),
    h("p.replay__note", t("A replay, re-dealt from the game's recorded draws. Nothing is staked or won.")),
    h("div.rec-body",
      h("div.replay__screen", { "data-testid": "replay-screen" }, renderer ? renderer.el : h("p", t("This game cannot be shown here."))),
      h("div.rec-side", list)),
    h("div.rec-bar.replay__bar", { "data-testid": "replay-controls" },
      h("div.winmeter", h("span.winmeter__label", t("Replay paid")), meter),
      h("div.rep-speed", { role: "group", "aria-label": t("Replay speed") }, speedButtons),
      skip, again),
    status);
  view.replaceChildren(page);
  view.scrollTop = 0;
  view.onKey = (e) => {
    const s = { 1: 1, 2: 2, 4: 4 }[e.key];
    if (s) return chooseSpeed(s), true;
    if (e.key === "End") return skipToEnd(), true;
    return false;
  };
  applyTempo();
  play();
}
