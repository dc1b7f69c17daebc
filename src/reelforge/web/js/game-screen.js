// The game screen every game shares: stage (the game's renderer), decision panel, bet
// selector, spin / stop button, win meter, autoplay, paytable and rules.  It runs a round
// against the server step by step and hands each step's new events to the renderer.

import { ApiError, Intent } from "./api.js";
import { autoplayDialog, STOP_REASONS } from "./autoplay.js";
import { DecisionPanel } from "./decision-panel.js";
import { formatMoney } from "./money.js";
import { loadRenderer } from "./renderers/index.js";
import { countUp, h, modal, speed, titleCase, toast, wait, waitReal } from "./ui.js";

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
    this.winShown = 0;
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
      await this.fail(err);
    } finally {
      this.tasks--;
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
    return formatMoney(minor, this.game.currency || this.app.currency);
  }

  // -- building ----------------------------------------------------------------------------

  async mount(view) {
    const mod = await loadRenderer(this.game.id);
    const ctx = {
      game: this.game,
      format: (m) => this.format(m),
      credits: (c) => this.format(c * (this.round?.coin ?? this.level.coin)),
      coin: () => this.round?.coin ?? this.level.coin,
      stake: () => this.round?.stake ?? this.level.stake,
      addWin: (credits) => this.addWin(credits),
      speed: () => speed(),
      sound: this.app.sound,
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
    };
    this.renderer = mod.createRenderer(ctx);
    this.build(view);
    this.updateControls();
    await this.resume();
  }

  build(view) {
    const g = this.game;
    this.stage = h("div.game__stage", this.renderer.el);
    this.panel = new DecisionPanel(this.stage, this.renderer);
    this.betValue = h("button.bet__value", { type: "button", "data-testid": "bet-value", "aria-label": "Choose the bet", onclick: () => this.chooseBet() });
    this.betDown = h("button.round-btn.bet__down", { type: "button", "aria-label": "Lower bet", "data-testid": "bet-down", onclick: () => this.changeBet(-1) }, "−");
    this.betUp = h("button.round-btn.bet__up", { type: "button", "aria-label": "Raise bet", "data-testid": "bet-up", onclick: () => this.changeBet(1) }, "+");
    this.labels = { spin: "Spin", autoplay: "Auto", ...(this.renderer.labels || {}) };
    this.spinLabel = h("span.spin-btn__label", this.labels.spin);
    this.spinSub = h("span.spin-btn__sub", { "data-testid": "spin-sub" });
    this.spinBtn = h("button.spin-btn", { type: "button", "data-testid": "spin", "aria-label": "Spin (Space)", onclick: () => this.primary() },
      h("span.spin-btn__icon", { "aria-hidden": "true", html: '<svg viewBox="0 0 24 24"><path d="M12 4a8 8 0 0 1 7.4 5H17v2h6V5h-2v2.6A10 10 0 1 0 22 13h-2a8 8 0 1 1-8-9z"/></svg>' }),
      this.spinLabel, this.spinSub);
    this.autoBtn = h("button.pill-btn.auto-btn", { type: "button", "data-testid": "autoplay", title: "Autoplay (A)", onclick: () => this.openAutoplay() }, this.labels.autoplay);
    // Feature buys: modes named buy…, offered by the server only where the profile allows them.
    this.buyModes = (g.modes || []).filter((m) => m.startsWith("buy"));
    this.buyBtn = h("button.pill-btn.buy-btn", { type: "button", "data-testid": "buy", title: "Buy a feature", onclick: () => this.openBuy() }, "Buy");
    this.quickBtn = h("button.pill-btn.quick-btn", {
      type: "button", "data-testid": "quick-spin", title: "Quick spin (Q)", "aria-pressed": String(this.app.quick),
      onclick: () => this.toggleQuick(),
    }, "⚡ Quick");
    this.winValue = h("span.winmeter__value", { "data-testid": "win" }, this.format(0));
    this.winLabel = h("span.winmeter__label", "Win");
    const info = h("button.icon-btn.info-btn", { type: "button", "data-testid": "open-paytable", title: "Paytable (I)", "aria-label": "Paytable", onclick: () => this.openPaytable() }, "i");
    const rules = h("button.icon-btn.info-btn", { type: "button", "data-testid": "open-rules", title: "Rules (R)", "aria-label": "Game rules", onclick: () => this.openRules() }, "?");
    this.rtp = h("span.rtp", { "data-testid": "rtp-badge", title: "Theoretical return to player" }, `RTP ${(g.rtp * 100).toFixed(2)}%`);
    this.controls = h("div.controls",
      h("div.controls__info", info, rules, this.rtp),
      h("div.bet", h("span.bet__label", "Bet"), h("div.bet__row", this.betDown, this.betValue, this.betUp)),
      h("div.controls__main", this.buyBtn, this.autoBtn, this.spinBtn, this.quickBtn),
      h("div.winmeter", this.winLabel, this.winValue));
    this.root = h("section.game", { "data-game": g.id, "data-testid": "game-screen", "aria-label": g.name }, this.stage, this.controls);
    view.replaceChildren(this.root);
  }

  destroy() {
    this.destroyed = true;
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
      this.spinLabel.textContent = "Stop";
      this.spinSub.textContent = `${this.autoplay.spins_left} left`;
      this.spinSub.dataset.testid = "spins-left";
      this.spinBtn.setAttribute("aria-label", `Stop autoplay, ${this.autoplay.spins_left} spins left`);
    } else {
      this.spinBtn.classList.remove("spin-btn--stop");
      this.spinSub.dataset.testid = "spin-sub";
      this.spinLabel.textContent = this.labels.spin;
      if (!this.countingDown) this.spinSub.textContent = "";
      this.spinBtn.setAttribute("aria-label", "Spin (Space)");
      this.spinBtn.disabled = this.busy && !this.panel.open;
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
      const pick = modal({ title: "Choose your bet", testid: "dialog-bet", body: h("div.betgrid", own.labels.map((label, i) => h("button.chip", {
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
    const dlg = modal({ title: "Choose your bet", body: h("div", grid, h("p.field__hint", `${this.level.credits} credits × coin value`)), testid: "dialog-bet" });
  }

  toggleQuick() {
    this.app.setQuick(!this.app.quick);
    this.updateControls();
  }

  /** The big button: spin, the primary decision, or stop autoplay. */
  primary() {
    if (this.autoplay?.running) {
      this.stopAutoplay();
      return;
    }
    if (this.panel.open) {
      this.panel.primary();
      return;
    }
    if (!this.busy) this.spin();
  }

  onKey(e) {
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

  // -- win meter ---------------------------------------------------------------------------

  setWin(minor) {
    this.winShown = minor;
    this.winValue.textContent = this.format(minor);
    this.root.classList.toggle("game--won", minor > 0);
  }

  addWin(credits) {
    const coin = this.round?.coin ?? this.level.coin;
    const from = this.winShown;
    const to = from + credits * coin;
    this.winShown = to;
    this.root.classList.toggle("game--won", to > 0);
    return countUp(this.winValue, from, to, 700, (v) => this.format(v));
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
      this.spinSub.textContent = `next game in ${(left / 1000).toFixed(1)} s`;
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
    await this.task(async () => {
      await this.waitCycle();
      const body = { game: this.game.id, stake: own ? own.stake : this.level.stake };
      const m = own?.mode ?? mode;
      if (m !== "base") body.mode = m;
      const script = takeScript();
      if (script) body.script = script;
      const intent = new Intent("/rounds", body);
      this.round = null;
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
      this.app.setBalance(reply.balance);
      await this.playRound(reply.round, 0, false, reply);
    });
  }

  /** POST /rounds; a 429 too_soon (GB cycle) waits and sends the same intent again. */
  async sendStart(intent) {
    for (;;) {
      try {
        this.lastStart = Date.now();
        return await this.api.post(intent);
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
    if (from < round.events.length) {
      await this.renderer.present(round.events.slice(from), round);
      this.setWin(round.win);
    }
    while (round.status === "pending" && !this.destroyed) {
      const choice = await this.nextDecision(round, restored);
      if (this.destroyed || !choice) return;
      restored = false;
      const body = { action: choice.name, expected_step: round.step };
      if (choice.choice !== null && choice.choice !== undefined) body.choice = choice.choice;
      const script = takeScript();
      if (script) body.script = script;
      reply = await this.api.post(new Intent(`/rounds/${round.id}/actions`, body));
      const known = round.events.length;
      round = reply.round;
      this.round = round;
      this.app.setBalance(reply.balance);
      await this.renderer.present(round.events.slice(known), round);
      this.setWin(round.win);
    }
    if (round.status === "complete") await this.roundDone(round, reply);
  }

  async roundDone(round, reply) {
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
      wait(700).then(() => {
        if (this.panel.open && this.round === round) this.panel.choose(spec.name, null);
      });
    } else {
      this.panel.el.classList.remove("decision--auto");
      this.app.sound.play("feature");
    }
    return asked.finally(() => this.updateControls());
  }

  async fail(err) {
    if (this.destroyed) return;
    if (err instanceof ApiError && ["step_mismatch", "round_not_pending", "action_not_allowed", "round_pending"].includes(err.code)) {
      toast("The game was brought up to date from the server.", "info");
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
      await this.renderer.restore(round);
      this.setWin(round.win);
      this.root.dataset.restored = String(round.id);
      toast("Your unfinished game has been restored.", "info");
      this.task(() => this.playRound(round, round.events.length, true));
      return;
    }
    if (ap.autoplay?.running && ap.autoplay.game === this.game.id) {
      const go = await modal({
        title: "Autoplay is running",
        body: h("p", `Your autoplay has ${ap.autoplay.spins_left} spins left.`),
        testid: "dialog-autoplay-resume",
        buttons: [{ label: "Stop it", value: false }, { label: "Continue", value: true, primary: true }],
      });
      this.autoplay = ap.autoplay;
      if (go) this.task(() => this.autoplayLoop());
      else await this.stopAutoplay();
    }
  }

  // -- autoplay ----------------------------------------------------------------------------

  async openAutoplay() {
    if (this.busy || this.autoplay?.running || this.autoBtn.hidden) return;
    const own = this.renderer.roundRequest?.();
    if (own === false) return;
    const limits = await autoplayDialog({
      stake: own ? own.cost : this.level.stake,
      currency: this.game.currency,
      // The game's own cap (GET /games: the smaller of the game's and the profile's) wins.
      maxSpins: this.game.autoplay_max_spins ?? this.rules.autoplay_max_spins ?? null,
      balance: this.app.balance,
    });
    if (!limits) return;
    try {
      const body = { game: this.game.id, stake: own ? own.stake : this.level.stake, ...limits };
      if (own?.mode && own.mode !== "base") body.mode = own.mode;
      const reply = await this.api.post(new Intent("/autoplay", body));
      this.autoplay = reply.autoplay;
    } catch (err) {
      await this.app.handleError(err, this);
      return;
    }
    await this.task(() => this.autoplayLoop());
  }

  async autoplayLoop() {
    this.stopRequested = false;
    delete this.root.dataset.autoplayStop;
    this.updateControls();
    try {
      while (this.autoplay?.running && !this.stopRequested && !this.destroyed) {
        this.round = null;
        this.renderer.reset();
        this.setWin(0);
        this.renderer.startSpin();
        let reply;
        try {
          reply = await this.api.post(new Intent("/autoplay/next"));
        } catch (err) {
          this.renderer.abortSpin();
          throw err;
        }
        this.autoplay = reply.autoplay;
        this.app.setBalance(reply.balance);
        this.updateControls();
        if (!reply.round) {
          this.renderer.abortSpin();
          break;
        }
        await this.playRoundAutoplay(reply);
        await wait(250);
      }
    } finally {
      const reason = this.stopRequested ? "cancelled" : this.autoplay?.stop_reason;
      if (this.autoplay) this.autoplay.running = false;
      if (!this.destroyed) {
        this.updateControls();
        if (reason) this.showStopReason(reason);
      }
    }
    // A round autoplay left for the player (an Ice Diamonds pick) is played by hand.
    if (this.round && this.round.status === "pending" && !this.destroyed) {
      await this.playRound(this.round, this.round.events.length);
    }
  }

  async playRoundAutoplay(reply) {
    const round = reply.round;
    this.round = round;
    await this.renderer.present(round.events, round);
    this.setWin(round.win);
    if (round.status === "complete") await this.roundDone(round, reply);
  }

  showStopReason(reason) {
    const text = STOP_REASONS[reason] || `Autoplay stopped (${reason})`;
    this.root.dataset.autoplayStop = reason;
    toast(text, reason === "spins_done" || reason === "cancelled" ? "info" : "warn", 5000).dataset.testid = "autoplay-stopped";
  }

  async stopAutoplay() {
    if (this.stopRequested) return;
    this.stopRequested = true;
    this.spinSub.textContent = "stopping…";
    try {
      await this.api.post(new Intent("/autoplay/stop"));
    } catch (err) {
      if (!(err instanceof ApiError && err.code === "autoplay_not_running")) await this.app.handleError(err, this);
    }
    if (!this.busy && this.autoplay) {
      this.autoplay.running = false;
      this.updateControls();
      this.showStopReason("cancelled");
    }
  }

  /**
   * The features on sale at the chosen bet: the renderer's own list (`buyOptions(level)`:
   * [{mode, title, text, price}]) or, without one, each buy… mode priced from the game
   * info's `buy` multiples (`buy-lock-spin` -> `buy.lock_spin` × the bet) where it has them.
   */
  buyOptions() {
    const own = this.renderer.buyOptions?.(this.level);
    if (own) return own.filter((o) => this.buyModes.includes(o.mode));
    return this.buyModes.map((m) => {
      const times = this.game.buy?.[m.replace(/^buy-?/, "").replace(/-/g, "_")];
      return { mode: m, title: titleCase(m.replace(/^buy-?/, "")) || "Feature", text: "", price: Number.isInteger(times) ? times * this.level.stake : null };
    });
  }

  async openBuy() {
    if (this.busy || this.buyBtn.hidden) return;
    const options = this.buyOptions();
    const balance = this.app.balance;
    let dlg = null;
    const cards = options.map((o) => {
      const short = o.price !== null && balance !== null && balance < o.price;
      return h("div.buy-option", { "data-mode": o.mode },
        h("div.buy-option__text", h("h3.buy-option__title", o.title), o.text ? h("p.buy-option__desc", o.text) : null,
          short ? h("p.buy-option__short", "Your balance does not cover this price.") : null),
        h("button.btn.btn--gold.buy-option__btn", {
          type: "button", "data-testid": "buy-option", "data-mode": o.mode, disabled: short,
          onclick: () => dlg.close(o),
        }, o.price === null ? "Buy" : `Buy for ${this.format(o.price)}`));
    });
    dlg = modal({
      title: "Buy a feature",
      body: h("div.buy-menu", h("p.buy-menu__bet", `Your bet: ${this.format(this.level.stake)}. A bought feature starts at once.`), cards),
      testid: "dialog-buy",
      buttons: [{ label: "Cancel", value: null }],
    });
    const chosen = await dlg;
    if (!chosen) return;
    const price = chosen.price === null ? "" : ` for ${this.format(chosen.price)}`;
    const ok = await modal({
      title: `Buy ${chosen.title}?`,
      body: h("p", `${chosen.title}${price}, at your bet of ${this.format(this.level.stake)}. The price is taken from your balance now.`),
      testid: "dialog-buy-confirm",
      buttons: [{ label: "Cancel", value: false }, { label: `Buy${price}`, value: true, primary: true, testid: "buy-confirm" }],
    });
    if (ok) await this.spin(chosen.mode);
  }

  // -- information -------------------------------------------------------------------------

  openPaytable() {
    modal({ title: `${this.game.name} — Paytable`, body: this.renderer.paytable(this.level), testid: "dialog-paytable", className: "modal--wide" });
  }

  openRules() {
    modal({ title: `${this.game.name} — Rules`, body: this.renderer.rules(), testid: "dialog-rules", className: "modal--wide" });
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
