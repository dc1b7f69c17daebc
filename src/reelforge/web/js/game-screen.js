// The game screen every game shares: stage (the game's renderer), decision panel, bet
// selector, spin / stop button, win meter, autoplay, paytable and rules.  It runs a round
// against the server step by step and hands each step's new events to the renderer.
//
// Honest presentation: while a round is shown the top bar's balance stays at the balance
// before it less the stake, and moves to the final figure only when the presentation ends
// or is skipped; a return at or below the stake is not celebrated (./presentation.js).

import { ApiError, Intent } from "./api.js";
import { autoplayMethods } from "./autoplay-run.js";
import { chooseFeature } from "./buy-menu.js";
import { DecisionPanel } from "./decision-panel.js";
import { t } from "./i18n.js";
import { formatMoney, formatNumber, formatPercent } from "./money.js";
import { BalanceHold, Presenter, tiersFor, WinMeter } from "./presentation.js";
import { loadRenderer } from "./renderers/index.js";
import { h, modal, speed, toast, wait, waitReal } from "./ui.js";

/** Test deployments only: a script of draws for the next request (see docs/web-client.md). */
function takeScript() {
  const queue = window.__reelforgeScripts;
  if (Array.isArray(queue) && queue.length) return queue.shift();
  const one = window.__reelforgeScript;
  if (Array.isArray(one)) {
    window.__reelforgeScript = undefined;
    return one;
  }
  return null;
}

export class GameScreen {
  constructor(app, game) {
    this.app = app;
    this.game = game;
    this.api = app.api;
    this.tasks = 0; // rounds, restores and autoplay runs in progress
    this.round = null;
    this.autoplay = null;
    this.stopRequested = false;
    this.lastStart = 0;
    this.presenting = false; // a step's events (or the round's win) are being shown
    this.destroyed = false;
    const saved = Number(localStorage.getItem(`reelforge.bet.${game.id}`));
    const levels = game.bet_levels;
    this.levelIndex = Math.max(0, levels.findIndex((l) => l.stake === saved));
  }

  get busy() {
    return this.tasks > 0;
  }

  /** Run `fn` as a task: the controls stay locked until it ends; errors are shown. */
  async task(fn) {
    this.tasks++;
    this.updateControls();
    try {
      await fn();
    } catch (err) {
      this.breakOff();
      await this.fail(err);
    } finally {
      this.tasks--;
      if (!this.tasks) this.breakOff();
      if (!this.destroyed) this.updateControls();
    }
  }

  get level() {
    return this.game.bet_levels[this.levelIndex];
  }

  get rules() {
    return this.app.session?.rules || {};
  }

  format(minor) {
    return formatMoney(minor, this.app.currency); // the player's wallet currency: one everywhere
  }

  // -- building ----------------------------------------------------------------------------

  async mount(view) {
    const mod = await loadRenderer(this.game);
    this.app.sound.useGame(this.game.id, mod.sounds); // its sound set: loaded in the background, never awaited
    this.stage = h("div.game__stage");
    this.balance = new BalanceHold(this.app);
    this.pres = new Presenter({
      host: this.stage,
      format: (m) => this.format(m),
      sound: this.app.sound,
      round: () => this.round,
      stake: (round) => round.stake,
      onSkip: () => this.skip(),
    });
    const ctx = {
      game: this.game,
      format: (m) => this.format(m),
      credits: (c) => this.format(c * (this.round?.coin ?? this.level.coin)),
      coin: () => this.round?.coin ?? this.level.coin,
      stake: () => this.round?.stake ?? this.level.stake,
      addWin: (credits) => this.addWin(credits),
      speed: () => speed(),
      // Celebration sounds ("win", "bigwin") only for a round returning more than its stake.
      sound: this.pres.sound,
      // Full-stage feature intro and total screens: feature.intro({title, sub, kind, testid}),
      // feature.total({title, amount, kind, testid}).
      feature: this.pres.feature,
      // The player's stored state for this game, per state key (e.g. piggy banks per bet level).
      playerState: () => this.api.get(`/state?game=${encodeURIComponent(this.game.id)}`),
      // For renderers that draw a whole machine (Los 3 Pinguinos): its own buttons and displays.
      api: this.api,
      balance: () => this.app.balance,
      busy: () => this.busy || Boolean(this.autoplay?.running),
      autoplayRunning: () => Boolean(this.autoplay?.running),
      play: () => this.primary(),
      autoplay: () => (this.autoplay?.running ? this.stopAutoplay() : this.openAutoplay()),
      setBet: (i) => {
        if (!this.busy && !this.autoplay?.running && this.game.bet_levels[i]) this.setLevel(i);
      },
      nextBet: () => {
        if (!this.busy && !this.autoplay?.running) this.setLevel((this.levelIndex + 1) % this.game.bet_levels.length);
      },
      betIndex: () => this.levelIndex,
      refreshControls: () => this.updateControls(),
      // What the session's profile allows (autoplay, buys, the game cycle) and its name ("gb").
      rules: () => this.rules,
      profile: () => this.app.session?.profile ?? null,
    };
    this.renderer = mod.createRenderer(ctx);
    this.pres.tiers = tiersFor(this.renderer, this.game);
    this.build(view);
    this.updateControls();
    await this.resume();
  }

  build(view) {
    const g = this.game;
    this.stage.append(this.renderer.el);
    // A tap or click on the stage skips a presentation straight to its end.
    this.stage.addEventListener("click", () => this.skip(), true);
    this.panel = new DecisionPanel(this.stage, this.renderer);
    this.betValue = h("button.bet__value", { type: "button", "data-testid": "bet-value", "aria-label": t("Choose the bet"), onclick: () => this.chooseBet() });
    this.betDown = h("button.round-btn.bet__down", { type: "button", "aria-label": t("Lower bet"), "data-testid": "bet-down", onclick: () => this.changeBet(-1) }, "−");
    this.betUp = h("button.round-btn.bet__up", { type: "button", "aria-label": t("Raise bet"), "data-testid": "bet-up", onclick: () => this.changeBet(1) }, "+");
    this.labels = { spin: t("Spin"), autoplay: t("Auto"), ...(this.renderer.labels || {}) };
    this.spinLabel = h("span.spin-btn__label", this.labels.spin);
    this.spinSub = h("span.spin-btn__sub", { "data-testid": "spin-sub" });
    this.spinBtn = h("button.spin-btn", { type: "button", "data-testid": "spin", "aria-label": t("Spin (Space)"), onclick: () => this.primary() },
      h("span.spin-btn__icon", { "aria-hidden": "true", html: '<svg viewBox="0 0 24 24"><path d="M12 4a8 8 0 0 1 7.4 5H17v2h6V5h-2v2.6A10 10 0 1 0 22 13h-2a8 8 0 1 1-8-9z"/></svg>' }),
      this.spinLabel, this.spinSub);
    this.autoBtn = h("button.pill-btn.auto-btn", { type: "button", "data-testid": "autoplay", title: t("Autoplay (A)"), onclick: () => this.openAutoplay() }, this.labels.autoplay);
    // Feature buys: modes named buy…, offered by the server only where the profile allows them.
    this.buyModes = (g.modes || []).filter((m) => m.startsWith("buy"));
    this.buyBtn = h("button.pill-btn.buy-btn", { type: "button", "data-testid": "buy", title: t("Buy a feature"), onclick: () => this.openBuy() }, t("Buy"));
    this.quickBtn = h("button.pill-btn.quick-btn", {
      type: "button", "data-testid": "quick-spin", title: t("Quick spin (Q)"), "aria-pressed": String(this.app.quick),
      onclick: () => this.toggleQuick(),
    }, `⚡ ${t("Quick")}`);
    this.meter = new WinMeter(this.pres, (m) => this.format(m));
    const info = h("button.icon-btn.info-btn", { type: "button", "data-testid": "open-paytable", title: t("Paytable (I)"), "aria-label": t("Paytable"), onclick: () => this.openPaytable() }, "i");
    const rules = h("button.icon-btn.info-btn", { type: "button", "data-testid": "open-rules", title: t("Rules (R)"), "aria-label": t("Game rules"), onclick: () => this.openRules() }, "?");
    this.rtp = h("span.rtp", { "data-testid": "rtp-badge", title: t("Theoretical return to player") }, t("RTP {rtp}", { rtp: formatPercent(g.rtp, 2) }));
    this.controls = h("div.controls",
      h("div.controls__info", info, rules, this.rtp),
      h("div.bet", h("span.bet__label", t("Bet")), h("div.bet__row", this.betDown, this.betValue, this.betUp)),
      h("div.controls__main", this.buyBtn, this.autoBtn, this.spinBtn, this.quickBtn),
      this.meter.el);
    this.root = h("section.game", { "data-game": g.id, "data-testid": "game-screen", "aria-label": g.name }, this.stage, this.controls);
    this.meter.root = this.root;
    view.replaceChildren(this.root);
  }

  destroy() {
    this.destroyed = true;
    this.pres?.end();
    this.balance.release();
    this.panel?.close();
    clearInterval(this.countdownTimer);
  }

  // -- controls ----------------------------------------------------------------------------

  /** A machine's own bets (Los 3 Pinguinos' upper game): {labels, index, set(i)}, or null. */
  ownBets() {
    return this.renderer.betChoice?.() || null;
  }

  updateControls() {
    const own = this.ownBets();
    const count = own ? own.labels.length : this.game.bet_levels.length;
    const at = own ? own.index : this.levelIndex;
    this.betValue.textContent = own ? own.labels[at] : this.format(this.level.stake);
    const locked = this.busy || Boolean(this.autoplay?.running);
    this.betDown.disabled = locked || at === 0;
    this.betUp.disabled = locked || at === count - 1;
    this.betValue.disabled = locked;
    const allowAuto = Number.isInteger(this.rules.autoplay_max_spins) && this.rules.autoplay_max_spins > 0;
    this.autoBtn.hidden = !allowAuto;
    this.autoBtn.disabled = locked;
    this.buyBtn.hidden = !this.buyModes.length || this.rules.bonus_buy !== true;
    this.buyBtn.disabled = locked;
    this.quickBtn.hidden = Boolean(this.rules.min_cycle_seconds); // no turbo where cycles are timed (GB)
    this.quickBtn.setAttribute("aria-pressed", String(this.app.quick));
    this.root.dataset.state = this.autoplay?.running ? "autoplay" : this.busy ? "busy" : "idle";
    if (this.autoplay?.running) {
      this.spinBtn.disabled = false;
      this.spinBtn.classList.add("spin-btn--stop");
      this.spinLabel.textContent = t("Stop");
      this.spinSub.textContent = t("{n} left", { n: this.autoplay.spins_left });
      this.spinSub.dataset.testid = "spins-left";
      this.spinBtn.setAttribute("aria-label", t("Stop autoplay, {n} spins left", { n: this.autoplay.spins_left }));
    } else {
      this.spinBtn.classList.remove("spin-btn--stop");
      this.spinSub.dataset.testid = "spin-sub";
      this.spinLabel.textContent = this.labels.spin;
      if (!this.countingDown) this.spinSub.textContent = "";
      // While a round is presented the button skips to its end.
      this.spinBtn.classList.toggle("spin-btn--skip", this.presenting);
      this.spinBtn.setAttribute("aria-label", this.presenting ? t("Skip to the result (Space)") : t("Spin (Space)"));
      this.spinBtn.disabled = this.busy && !this.panel.open && !this.presenting;
    }
    this.renderer.controlsChanged?.({ busy: this.busy, autoplay: Boolean(this.autoplay?.running), locked });
  }

  changeBet(delta) {
    if (this.busy || this.autoplay?.running) return;
    const own = this.ownBets();
    if (own) {
      own.set(Math.min(own.labels.length - 1, Math.max(0, own.index + delta)));
      this.updateControls();
      return;
    }
    const n = this.game.bet_levels.length;
    this.setLevel(Math.min(n - 1, Math.max(0, this.levelIndex + delta)));
  }

  setLevel(i) {
    this.levelIndex = i;
    localStorage.setItem(`reelforge.bet.${this.game.id}`, String(this.level.stake));
    this.app.sound.play("click");
    this.updateControls();
    this.renderer.betChanged?.(this.level);
  }

  chooseBet() {
    if (this.busy) return;
    const own = this.ownBets();
    if (own) {
      const pick = modal({ title: t("Choose your bet"), testid: "dialog-bet", body: h("div.betgrid", own.labels.map((label, i) => h("button.chip", {
        type: "button", "aria-pressed": String(i === own.index), onclick: () => own.set(i) && (pick.close(i), this.updateControls()),
      }, label))) });
      return;
    }
    const grid = h("div.betgrid", this.game.bet_levels.map((l, i) => h("button.chip", {
      type: "button", "aria-pressed": String(i === this.levelIndex), "data-stake": String(l.stake),
      onclick: () => {
        this.setLevel(i);
        dlg.close(i);
      },
    }, this.format(l.stake))));
    const dlg = modal({ title: t("Choose your bet"), body: h("div", grid, h("p.field__hint", t("{n} credits × coin value", { n: this.level.credits }))), testid: "dialog-bet" });
  }

  toggleQuick() {
    this.app.setQuick(!this.app.quick);
    this.updateControls();
  }

  /** The big button: spin, the primary decision, stop autoplay, or skip a presentation. */
  primary() {
    if (this.autoplay?.running) {
      this.stopAutoplay();
      return;
    }
    if (this.presenting) {
      this.skip();
      return;
    }
    if (this.panel.open) {
      this.panel.primary();
      return;
    }
    if (!this.busy) this.spin();
  }

  onKey(e) {
    // Space (or Enter) skips a presentation, before a machine's own keys see it.
    if (this.presenting && !this.autoplay?.running && (e.key === " " || e.key === "Enter")) {
      this.skip();
      return true;
    }
    if (this.renderer.onKey?.(e)) return true; // a machine's own keys first (Los 3 Pinguinos)
    if (this.panel.open && this.panel.handleKey(e)) return true;
    switch (e.key) {
      case " ":
      case "Enter":
        if (e.target instanceof HTMLButtonElement && e.key === "Enter" && e.target !== this.spinBtn) return false;
        this.primary();
        return true;
      case "Escape":
        if (this.autoplay?.running) {
          this.stopAutoplay();
          return true;
        }
        return false;
      case "ArrowUp":
      case "+":
      case "=":
        this.changeBet(1);
        return true;
      case "ArrowDown":
      case "-":
        this.changeBet(-1);
        return true;
      case "a":
      case "A":
        if (!this.autoBtn.hidden) this.openAutoplay();
        return true;
      case "i":
      case "I":
      case "p":
      case "P":
        this.openPaytable();
        return true;
      case "r":
      case "R":
        this.openRules();
        return true;
      case "q":
      case "Q":
        if (!this.quickBtn.hidden) this.toggleQuick();
        return true;
      default:
        return false;
    }
  }

  // -- win meter -----------------------------------------------------------------------------

  setWin(minor) {
    this.meter.set(minor, this.round);
  }

  addWin(credits) {
    return this.meter.add(credits * (this.round?.coin ?? this.level.coin), this.round);
  }

  // -- presenting ----------------------------------------------------------------------------

  setPresenting(on) {
    this.presenting = on;
    if (on) this.root.dataset.presenting = "1";
    else delete this.root.dataset.presenting;
    this.updateControls();
  }

  /** Show a step's new events. */
  async presentStep(events, round) {
    this.setPresenting(true);
    try {
      await this.renderer.present(events, round);
      this.setWin(round.win);
    } finally {
      this.setPresenting(false);
    }
  }

  /** Tap, click or Space while a round is shown: straight to its end. */
  skip() {
    if (!this.presenting) return;
    this.pres.skip();
    this.root.dataset.skipped = "1";
  }

  // -- game cycle timing (GB: at least min_cycle_seconds between round starts) ------------

  async waitCycle() {
    const min = (this.rules.min_cycle_seconds || 0) * 1000;
    if (!min || !this.lastStart) return;
    const until = this.lastStart + min + 30;
    await this.countdown(until);
  }

  /** Show "next game in 1.2 s" on the spin button until `until` (ms since epoch). */
  async countdown(until) {
    if (Date.now() >= until) return;
    this.countingDown = true;
    this.root.dataset.waiting = "1";
    const tick = () => {
      const left = Math.max(0, until - Date.now());
      this.spinSub.textContent = t("next game in {seconds} s", { seconds: formatNumber(left / 1000, 1) });
    };
    tick();
    this.countdownTimer = setInterval(tick, 100);
    await waitReal(until - Date.now());
    clearInterval(this.countdownTimer);
    this.countingDown = false;
    delete this.root.dataset.waiting;
    this.spinSub.textContent = "";
  }

  // -- playing -----------------------------------------------------------------------------

  async spin(mode = "base") {
    if (this.busy || this.destroyed) return;
    // A machine's own request (its bet and mode), or false: it refused and said why.
    const own = mode === "base" ? this.renderer.roundRequest?.() : null;
    if (own === false) return;
    this.dismissStopNote();
    await this.task(async () => {
      await this.waitCycle();
      const body = { game: this.game.id, stake: own ? own.stake : this.level.stake };
      const m = own?.mode ?? mode;
      if (m !== "base") body.mode = m;
      const script = takeScript();
      if (script) body.script = script;
      const intent = new Intent("/rounds", body);
      this.round = null;
      this.pres.begin();
      this.renderer.reset();
      this.setWin(0);
      this.renderer.startSpin();
      let reply;
      try {
        reply = await this.sendStart(intent);
      } catch (err) {
        this.renderer.abortSpin();
        throw err;
      }
      const before = this.app.balance;
      this.app.setBalance(reply.balance);
      this.balance.hold(reply, before);
      await this.playRound(reply.round, 0, false, reply);
    });
  }

  /** Whatever stopped a round's presentation (an error, the task's end): nothing stays held. */
  breakOff() {
    if (this.presenting) this.setPresenting(false);
    this.pres.end();
    this.balance.release();
  }

  /** POST /rounds; a 429 too_soon (GB cycle) waits and sends the same intent again. */
  async sendStart(intent) {
    for (;;) {
      try {
        const reply = await this.api.post(intent);
        // The server times the cycle from its own start of the round, which lies between the
        // request and its reply: counted from the reply, the wait is never short (a loaded
        // server answering late once made the next start come 429 too_soon).
        this.lastStart = Date.now();
        return reply;
      } catch (err) {
        if (err instanceof ApiError && err.code === "too_soon") {
          await this.countdown(Date.now() + (err.retryAfter || 1) * 1000);
          continue;
        }
        throw err;
      }
    }
  }

  /**
   * Present a round from event `from` on, then take its decisions until it completes.
   * `restored`: the round was found in play (reload): the first decision always waits.
   */
  async playRound(round, from, restored = false, reply = null) {
    this.round = round;
    if (from < round.events.length) await this.presentStep(round.events.slice(from), round);
    while (round.status === "pending" && !this.destroyed) {
      const choice = await this.nextDecision(round, restored);
      if (this.destroyed || !choice) return;
      restored = false;
      this.dismissStopNote(); // "your decision is needed" goes once the decision is taken
      const body = { action: choice.name, expected_step: round.step };
      if (choice.choice !== null && choice.choice !== undefined) body.choice = choice.choice;
      const script = takeScript();
      if (script) body.script = script;
      reply = await this.api.post(new Intent(`/rounds/${round.id}/actions`, body));
      const known = round.events.length;
      round = reply.round;
      this.round = round;
      const before = this.app.balance;
      this.app.setBalance(reply.balance);
      this.balance.hold(reply, before);
      await this.presentStep(round.events.slice(known), round);
    }
    if (round.status === "complete") await this.roundDone(round, reply);
  }

  /** The round is over: its Big / Mega / Epic screen where it reaches one, then the real
   *  balance, the session meters and an idle screen. */
  async roundDone(round, reply) {
    this.setPresenting(true);
    try {
      await this.pres.celebrate(round);
    } finally {
      this.setPresenting(false);
    }
    this.pres.end();
    this.setWin(round.win);
    this.balance.release();
    this.root.dataset.lastRound = String(round.id);
    // The session meters (net position, spend) are part of the round's result: the screen is
    // not idle until they show it.
    await this.app.refreshSession();
    if (reply?.session_closed) this.app.sessionClosed(reply.session_closed);
  }

  /** The player's decision, or (free spins) the next step taken automatically. */
  nextDecision(round, restored) {
    this.updateControls();
    const asked = this.panel.ask(round);
    this.updateControls();
    const spec = round.actions[0];
    if (!restored && round.actions.length === 1 && !spec.choices && !spec.needs_player
        && this.renderer.autoContinue?.(spec, round)) {
      this.panel.el.classList.add("decision--auto");
      wait(300).then(() => { // a brisk beat between a feature's steps (counted in its pace)
        if (this.panel.open && this.round === round) this.panel.choose(spec.name, null);
      });
    } else {
      // The player decides: a skip of what came before ends here.
      this.pres.pause();
      this.panel.el.classList.remove("decision--auto");
      this.app.sound.play("feature");
    }
    return asked.finally(() => this.updateControls());
  }

  async fail(err) {
    if (this.destroyed) return;
    if (err instanceof ApiError && ["step_mismatch", "round_not_pending", "action_not_allowed", "round_pending"].includes(err.code)) {
      toast(t("The game was brought up to date from the server."), "info");
      await this.resume();
      return;
    }
    await this.app.handleError(err, this);
  }

  /** On opening (and after a conflict): a round in play is restored where it stood. */
  async resume() {
    let pending;
    let ap;
    try {
      [pending, ap] = await Promise.all([
        this.api.get(`/rounds/pending?game=${encodeURIComponent(this.game.id)}`),
        this.api.get("/autoplay"),
      ]);
    } catch (err) {
      await this.app.handleError(err, this);
      return;
    }
    const round = pending.rounds[pending.rounds.length - 1];
    if (round) {
      // A bought feature's stake is its price; such games keep the bet level in state.bet.
      const bet = round.state?.bet ?? round.stake;
      const i = this.game.bet_levels.findIndex((l) => l.stake === bet);
      if (i >= 0) this.levelIndex = i;
      this.round = round;
      this.pres.begin();
      // The server pays a round's win when it completes: the balance is already the held one.
      if (this.app.balance !== null) this.balance.hold({ balance: this.app.balance, round });
      await this.renderer.restore(round);
      this.setWin(round.win);
      this.root.dataset.restored = String(round.id);
      toast(t("Your unfinished game has been restored."), "info");
      this.task(() => this.playRound(round, round.events.length, true));
      return;
    }
    if (ap.autoplay?.running && ap.autoplay.game === this.game.id) {
      const go = await modal({
        title: t("Autoplay is running"),
        body: h("p", t("Your autoplay has {n} spins left.", { n: ap.autoplay.spins_left })),
        testid: "dialog-autoplay-resume",
        buttons: [{ label: t("Stop it"), value: false }, { label: t("Continue"), value: true, primary: true }],
      });
      this.autoplay = ap.autoplay;
      if (go) this.task(() => this.autoplayLoop());
      else await this.stopAutoplay();
    }
  }

  async openBuy() {
    if (this.busy || this.buyBtn.hidden) return;
    const mode = await chooseFeature(this);
    if (mode) await this.spin(mode);
  }

  // -- information -------------------------------------------------------------------------

  openPaytable() {
    modal({ title: t("{game} — Paytable", { game: this.game.name }), body: this.renderer.paytable(this.level), testid: "dialog-paytable", className: "modal--wide" });
  }

  openRules() {
    modal({ title: t("{game} — Rules", { game: this.game.name }), body: this.renderer.rules(), testid: "dialog-rules", className: "modal--wide" });
  }

  /** After insufficient funds: the highest bet the balance covers, if any. */
  fitBet(balance) {
    const levels = this.game.bet_levels;
    let best = -1;
    levels.forEach((l, i) => {
      if (l.stake <= balance) best = i;
    });
    if (best >= 0) this.setLevel(best);
    return best >= 0;
  }
}

Object.assign(GameScreen.prototype, autoplayMethods);
