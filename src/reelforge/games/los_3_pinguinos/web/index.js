// Los 3 Pinguinos, the lower game: a Spanish arcade fruit machine.  Three reels of 16
// symbols behind glass with the red payline, the lit paytable (the payout scale, which is
// also the ladder of Sube-Bonos and Sube-Nada), the nudge lamps, the vertical-lines counter,
// the PRIZE / BONUSES / BALANCE displays, the MESSAGE / RISK GAME marquee, the Disco's five
// penguins, and the machine's own buttons: HOLD / ADVANCE under each reel, COLLECT, AUTO
// (auto-advance), AUTO-RISK and AUTO-PLAY; PLAY is the game screen's big button.  Art:
// ./pinguinos-art.js; look: ./pinguinos.css.
//
// Every decision is taken over from the generic panel (`decision`): the reel buttons hold or
// nudge, COLLECT collects (or ends the nudges), PLAY plays (the held game, the best nudge, a
// ladder step, the Disco stop).  AUTO and AUTO-RISK are the session's play settings on the
// server (PUT /settings), which the server's autoplay applies; in a game played by hand the
// client follows them too (the suggested nudge, PLAY on every ladder step).
//
// CHANGE GAME (Shift or 0) switches the cabinet to the upper game (./pinguinos-upper.js), when
// the machine's Bonuses cover its cheapest bet, and back; a round of the upper game (a reload,
// an autoplay, a replay) switches to it by itself.  The lamps that follow the session and the
// Bonuses (AUTO-PLAY where the profile forbids it, CHANGE GAME lit or dark, an autoplay paused
// for a decision) live in ./pinguinos-cabinet.js.
//
// The game's renderer (createRenderer, lobbyTile), served from this folder at
// js/games/los-3-pinguinos/index.js: ../../ is the shared client's js/ folder.

import { newKey } from "../../api.js";
import { locale, t, tk } from "../../i18n.js";
import { formatPercent } from "../../money.js";
import { countUp, h, topModal, wait } from "../../ui.js";
import { featureIntro, featureTotal } from "../../renderers/common.js";
import { TILE_ART } from "./pinguinos-art.js";
import { autoplayAllowed, autoplayPaused, endPause, refuseAutoplay, sayPaused, showAutoplayRule, showChangeGame } from "./pinguinos-cabinet.js";
import { ensureArt, Reel, STOPS, use } from "./pinguinos-parts.js";
import { pinguinosScene } from "./pinguinos-scene.js";
import { isUpper, UpperGame, upperRules } from "./pinguinos-upper.js";

const REELS = 3;
const NUDGE_LAMPS = 4;
const REEL_NAMES = [tk("left reel"), tk("center reel"), tk("right reel")];
const LADDER_NAMES = { sube_bonos: tk("Sube-Bonos"), sube_nada: tk("Sube-Nada") };
// The symbol names the server sends (data/rtp-*.toml [symbols]), for the key scan: shown with t(name).
const SYMBOL_NAMES = [
  tk("Cherries"), tk("Lemon"), tk("Orange"), tk("Plum"), tk("Bell"), tk("Melon"), tk("Seven"), tk("Penguin"),
  tk("Speaker (Disco)"), tk("Bonus"), tk("Wild (left and right reels)"),
];
// Big / Mega / Epic from these multiples of the stake (a line of Melons is 20×, Sevens 50×).
const WIN_TIERS = { big: 20, mega: 50, epic: 100 };

/** Reel numbers as a list: [1, 2] -> "1 and 2" / "1 y 2". */
function reelList(numbers) {
  return new Intl.ListFormat(locale(), { type: "conjunction" }).format(numbers.map(String));
}

/** A translated sentence with elements in it: its {name} placeholders become `nodes[name]`. */
function withNodes(text, nodes) {
  return text.split(/\{(\w+)\}/).map((s, i) => (i % 2 ? nodes[s] ?? `{${s}}` : s)).filter((s) => s !== "");
}

/** A translated sentence with marked words ("[Blue] prizes …"): each is drawn by make(k, words). */
function withMarks(text, make) {
  let k = 0;
  return text.split(/\[([^\]]*)\]/).map((s, i) => (i % 2 ? make(k++, s) : s)).filter((s) => s !== "");
}

export const sounds = () => import("./pinguinos-sounds.js"); // its sound set (js/sound.js loads it when sound is on)

export function createRenderer(ctx) {
  return new PinguinosRenderer(ctx);
}

/** The lobby tile's art. */
export function lobbyTile() {
  ensureArt();
  return h("div.tile-art.tile-art--l3p", { html: TILE_ART },
    h("div.tile-art__title.l3p-tile__title", h("span", "Los 3"), h("strong", "Pingüinos")));
}

// -- the renderer -----------------------------------------------------------------------------

class PinguinosRenderer {
  constructor(ctx) {
    ensureArt();
    this.ctx = ctx;
    this.game = ctx.game;
    const g = this.game;
    this.labels = { spin: t("Play"), autoplay: t("Auto-Play") };
    this.winTiers = WIN_TIERS;
    this.unit = g.unit || 20;
    this.scale = g.ladder || [];
    this.seesaw = g.seesaw_above ?? 0;
    this.seesawIndex = this.scale.indexOf(this.seesaw);
    this.blue = new Set(g.blue || []);
    this.yellow = new Set(g.yellow || []);
    this.settings = { auto_advance: false, auto_risk: false, ...(g.play_settings || g.settings || {}) };
    this.bonuses = 0;
    this.vlines = 0;
    this.round = null;
    this.dec = null; // the decision on offer: {phase, round, timers}
    this.choosers = {};
    this.mask = 0;
    this.heldMask = 0;
    this.prizeShown = 0; // minor units on the PRIZE display
    this.ladder = null; // {kind, level}
    this.discoTimer = null;
    this.discoLit = -1;

    this.build();
    if (!ctx.balance) this.el.classList.add("l3p--nobalance"); // recall and replay: no wallet to show
    this.refreshBet(this.levelFor(ctx.stake?.()) || g.bet_levels[0]);
    this.reels.forEach((r, i) => r.place([0, 4, 2][i] % STOPS));
    this.showWindow();
    this.setMessage(t("PRESS PLAY"), t("Good luck!"));
    this.setPrize(0);
    this.setBonuses(0);
    this.setVlines(0);
    this.setBalanceDisplay(ctx.balance?.() ?? null);
    this.loadMachine();
    this.loadSettings();
    if (ctx.api) {
      // Two of the machine's keys act on release: Shift alone (CHANGE GAME) and a held COLLECT.
      this.keyUp = (e) => this.onKeyUp(e);
      document.addEventListener("keyup", this.keyUp, true);
    }
  }

  // -- building ------------------------------------------------------------------------------

  build() {
    const g = this.game;
    const vertical = (g.vertical_lines || [[], [], []]).map((v) => new Set(v));
    this.reels = (g.strips || []).map((s, r) => new Reel(this, r, s, vertical[r] || new Set()));

    // MESSAGE / RISK GAME marquee
    this.msgMain = h("span.l3p-marquee__main", { "data-testid": "message" });
    this.msgSub = h("span.l3p-marquee__sub", { "data-testid": "message-sub" });
    this.marquee = h("div.l3p-marquee", { "data-testid": "marquee", "aria-live": "polite" },
      h("span.l3p-marquee__label", t("Message · Risk game")),
      h("div.l3p-marquee__screen", this.msgMain, this.msgSub));

    // LED displays
    const led = (label, testid) => {
      const value = h("span.l3p-led__value", { "data-testid": testid });
      return { value, el: h("div.l3p-led", { dataset: { led: testid } }, h("span.l3p-led__label", label), value) };
    };
    this.prizeLed = led(t("Prize"), "prize-display");
    this.bonusLed = led(t("Bonuses"), "bonuses-display");
    this.balanceLed = led(t("Balance"), "balance-display");

    // the paytable: the payout scale (top first), the Bonus and Disco prizes
    this.rungs = this.scale.map((credits, level) => {
      const code = Object.keys(g.pays || {}).find((c) => g.pays[c] === credits) || null;
      const kind = code && this.blue.has(code) ? "blue" : code && this.yellow.has(code) ? "yellow" : "plain";
      const value = h("span.l3p-rung__value", { dataset: { credits: String(credits) } });
      const el = h("div.l3p-rung", { dataset: { level: String(level), credits: String(credits), kind, symbol: code || "" }, "data-testid": `rung-${level}` },
        h("span.l3p-rung__lamp"),
        h("span.l3p-rung__syms", code ? [use(code), use(code), use(code)] : h("span.l3p-rung__ladder", t("Ladder"))),
        value);
      return { el, value, level, credits, code, kind };
    });
    const rungEls = this.rungs.slice().reverse().flatMap((r) => {
      const out = [r.el];
      if (r.level === this.seesawIndex + 1) {
        out.push(h("div.l3p-seesaw", { "data-testid": "seesaw-mark" }, h("span", t("▲▼ Seesaw above 3 Bells"))));
      }
      return out;
    });
    this.bonusRows = [1, 2, 3].map((n) => {
      const value = h("span.l3p-rung__value");
      const el = h("div.l3p-brow", { dataset: { n: String(n) }, "data-testid": `bonus-row-${n}` },
        h("span.l3p-rung__lamp"),
        h("span.l3p-rung__syms", Array.from({ length: n }, () => use(g.bonus || "BO"))), value);
      return { el, value, n };
    });
    this.discoRow = h("div.l3p-brow.l3p-brow--disco", { "data-testid": "disco-row" },
      h("span.l3p-rung__lamp"), h("span.l3p-rung__syms", [use("SP"), use("SP"), use("SP")]), h("span.l3p-rung__value", t("DISCO")));
    this.payTitle = h("div.l3p-pay__title", { "data-testid": "paytable-bet" });
    this.pay = h("div.l3p-pay", { "data-testid": "paytable-lamps" },
      this.payTitle,
      h("div.l3p-pay__scale", rungEls),
      h("div.l3p-pay__bonus", this.bonusRows.map((b) => b.el), this.discoRow),
      h("div.l3p-pay__key", h("span.l3p-key.l3p-key--blue", t("Sube-Bonos")), h("span.l3p-key.l3p-key--yellow", t("Sube-Nada"))));

    // the nudge lamps and the vertical-lines counter
    this.nudgeLamps = Array.from({ length: NUDGE_LAMPS }, (_, i) => h("span.l3p-lamp", { dataset: { n: String(NUDGE_LAMPS - i) } }, String(NUDGE_LAMPS - i)));
    this.nudgeBox = h("div.l3p-nudges", { "data-testid": "nudge-lamps", dataset: { left: "0" } },
      h("span.l3p-side__label", t("Nudges")), h("div.l3p-nudges__lamps", this.nudgeLamps));
    this.vlDigit = h("span.l3p-vl__digit", { "data-testid": "vertical-lines-value" }, "0");
    this.vlPips = Array.from({ length: 9 }, (_, i) => h("span.l3p-vl__pip", { dataset: { n: String(9 - i) } }));
    this.vlBox = h("div.l3p-vl", { "data-testid": "vertical-lines", dataset: { counter: "0" }, title: t("Vertical lines for the upper game (0-9)") },
      h("span.l3p-side__label", t("V-lines")), use("vl", "l3p-vl__icon"), this.vlDigit, h("div.l3p-vl__pips", this.vlPips));

    // the reels behind glass, with the red payline
    this.window = h("div.l3p-window", { "data-testid": "reels" },
      h("div.l3p-window__reels", this.reels.map((r) => r.el)),
      h("div.l3p-payline", { "aria-hidden": "true" }),
      h("span.l3p-payline__tip.l3p-payline__tip--l", { "aria-hidden": "true" }),
      h("span.l3p-payline__tip.l3p-payline__tip--r", { "aria-hidden": "true" }));

    // HOLD / ADVANCE under each reel
    this.reelBtns = this.reels.map((_, r) => {
      const b = h("button.l3p-btn.l3p-btn--reel", {
        type: "button", "data-testid": `reel-btn-${r}`, dataset: { reel: String(r) }, disabled: true,
        title: t("Hold / advance the {reel} ({key} or {n})", { reel: t(REEL_NAMES[r]), key: ["←", "↓", "→"][r], n: r + 1 }),
        onclick: () => this.reelButton(r),
      }, h("span.l3p-btn__top", t("Hold")), h("span.l3p-btn__bottom", t("Advance")), h("kbd.l3p-btn__key", String(r + 1)));
      return b;
    });
    this.holds = h("div.l3p-holds", this.reelBtns);
    this.machine = h("div.l3p-machine", this.nudgeBox, h("div.l3p-wcol", this.window, this.holds), this.vlBox);

    // the button deck
    const lampBtn = (cls, label, testid, title, onclick) => h(`button.l3p-btn.${cls}`, { type: "button", "data-testid": testid, title, onclick },
      h("span.l3p-btn__light"), h("span.l3p-btn__label", label));
    this.collectBtn = lampBtn("l3p-btn--collect", t("Collect"), "collect", t("Collect the prize (Backspace or +)"), () => this.collect());
    this.collectBtn.disabled = true;
    this.autoBtn = lampBtn("l3p-btn--auto", t("Auto"), "auto-advance", t("AUTO: the machine plays your nudges (Delete or /)"), () => this.toggleSetting("auto_advance"));
    this.riskBtn = lampBtn("l3p-btn--risk", t("Auto-risk"), "auto-risk", t("AUTO-RISK: every ladder prize is risked (*)"), () => this.toggleSetting("auto_risk"));
    this.playBtn = lampBtn("l3p-btn--autoplay", t("Auto-play"), "machine-autoplay", t("AUTO-PLAY: games start by themselves (−)"), () => this.autoPlay());
    this.playNote = h("span.l3p-btn__note", { "data-testid": "machine-autoplay-note", hidden: true });
    this.playBtn.append(this.playNote); // where the profile forbids autoplay: why (./pinguinos-cabinet.js)
    this.changeBtn = lampBtn("l3p-btn--change", t("Change game"), "change-game", t("CHANGE GAME: the upper game and back (Shift or 0)"), () => this.changeGame());
    this.deck = h("div.l3p-deck", this.collectBtn, this.autoBtn, this.riskBtn, this.playBtn, this.changeBtn);

    // the Disco: five penguins on the dance floor
    this.penguins = Array.from({ length: 5 }, (_, i) => {
      const prize = h("span.l3p-peng__prize");
      const el = h("div.l3p-peng", { dataset: { i: String(i) }, "data-testid": `penguin-${i}` },
        h("div.l3p-peng__spot"), use("dancer", "l3p-peng__art"), prize);
      return { el, prize };
    });
    this.disco = h("div.l3p-disco", { "data-testid": "disco", dataset: { lit: "-1" } },
      h("span.l3p-disco__sign", t("Disco")), h("div.l3p-disco__floor", this.penguins.map((p) => p.el)));

    // the bets the operator offers, lit for the chosen one
    const stakes = [...new Set([...(g.bet_levels || []).map((l) => l.stake), ...(g.bets_disabled || [])])].sort((a, b) => a - b);
    this.betChips = stakes.map((stake) => {
      const i = g.bet_levels.findIndex((l) => l.stake === stake);
      return h("button.l3p-chip", {
        type: "button", dataset: { stake: String(stake) }, disabled: i < 0, "data-testid": `bet-lamp-${stake}`,
        title: i < 0 ? t("Not offered") : t("Bet {stake}", { stake: this.ctx.format(stake) }),
        onclick: () => this.ctx.setBet?.(i),
      }, this.ctx.format(stake).replace(/[.,]00(?=\D*$)/, "")); // €1.00 -> €1, 1,00 € -> 1 €
    });
    this.bets = h("div.l3p-bets", { "data-testid": "bet-lamps" }, h("span.l3p-side__label", t("Bet")), h("div.l3p-bets__chips", this.betChips));

    this.fx = h("div.l3p-fx");
    this.center = h("div.l3p-center", this.disco, this.machine, this.deck);
    const keys = [[t("Space"), t("Play")], ["← ↓ →", t("Hold / advance")], ["⌫  +", t("Collect (hold: all)")], [t("Del  /"), t("Auto")], ["*", t("Auto-risk")],
      ["−", t("Auto-play")], ["↑  .", t("Bet")], ["⇧  0", t("Change game")]];
    const legend = keys.map(([k, what]) => ({ key: h("kbd", k), text: h("span", what) }));
    this.autoplayKey = legend[5];
    this.autoplayKey.text.dataset.testid = "key-autoplay";
    this.keys = h("div.l3p-keys", { "aria-hidden": "true" }, legend.flatMap((l) => [l.key, l.text]));
    this.side = h("div.l3p-side", this.prizeLed.el, this.bonusLed.el, this.balanceLed.el, this.keys, this.bets);
    this.el = h("div.l3p", { "data-testid": "renderer-los-3-pinguinos", dataset: { phase: "idle" } },
      pinguinosScene(),
      h("div.l3p-logo", h("span.l3p-logo__top", "Los 3"), h("span.l3p-logo__main", "Pingüinos")),
      this.marquee,
      this.pay, this.center, this.side, this.fx);
    this.el.dataset.screen = "lower";
    this.screen = "lower";
    this.upper = new UpperGame(this);
    this.el.insertBefore(this.upper.pay, this.side);
    this.el.insertBefore(this.upper.center, this.side);
    this.side.insertBefore(this.upper.chipBox, this.bets);
    // COLLECT on the upper screen: a tap takes a fraction, held it takes the whole prize.
    const up = () => {
      if (this.screen !== "upper") return;
      this.upper.swallowClick = true; // the click that follows was this press
      this.upper.collectUp();
    };
    this.collectBtn.addEventListener("pointerdown", () => this.screen === "upper" && this.upper.collectDown());
    this.collectBtn.addEventListener("pointerup", up);
    this.collectBtn.addEventListener("pointerleave", () => this.upper.cancelHold());
    this.collectBtn.addEventListener("pointercancel", () => this.upper.cancelHold());
    this.syncSettings();
    showAutoplayRule(this);
    showChangeGame(this);
  }

  // -- helpers -------------------------------------------------------------------------------

  speed() {
    return this.ctx.speed?.() ?? 1;
  }

  symbolName(code) {
    const name = this.game.symbols?.[code];
    return name ? t(name) : code;
  }

  levelFor(stake) {
    return this.game.bet_levels.find((l) => l.stake === stake) || null;
  }

  coin() {
    return this.ctx.coin?.() ?? this.level?.coin ?? 1;
  }

  money(credits) {
    return this.ctx.format(credits * this.coin());
  }

  bonusText(n) {
    return t("{n} Bonuses", { n });
  }

  setPhase(phase) {
    this.el.dataset.phase = phase;
  }

  setMessage(main, sub = "") {
    this.msgMain.textContent = main;
    this.msgSub.textContent = sub;
    this.el.dataset.message = main;
    this.marquee.classList.remove("l3p-marquee--flash");
    void this.marquee.offsetWidth;
    this.marquee.classList.add("l3p-marquee--flash");
  }

  setPrize(minor) {
    this.prizeShown = minor;
    this.prizeLed.value.textContent = this.ctx.format(minor);
    this.prizeLed.value.dataset.minor = String(minor);
    this.prizeLed.el.classList.toggle("is-on", minor > 0);
  }

  async countPrize(minor) {
    const from = this.prizeShown;
    this.prizeShown = minor;
    this.prizeLed.value.dataset.minor = String(minor);
    this.prizeLed.el.classList.toggle("is-on", minor > 0);
    const d = 500 * this.speed();
    if (d < 16 || from === minor) {
      this.prizeLed.value.textContent = this.ctx.format(minor);
      return;
    }
    const t0 = performance.now();
    await new Promise((resolve) => {
      const step = (now) => {
        const k = Math.min(1, (now - t0) / d);
        this.prizeLed.value.textContent = this.ctx.format(k >= 1 ? minor : from + Math.floor((minor - from) * k));
        if (k < 1) requestAnimationFrame(step);
        else resolve();
      };
      requestAnimationFrame(step);
    });
  }

  setBonuses(n, flash = false) {
    this.bonuses = n;
    this.bonusLed.value.textContent = String(n);
    this.bonusLed.value.dataset.bonuses = String(n);
    if (flash) this.pulse(this.bonusLed.el);
    if (this.upper) showChangeGame(this); // CHANGE GAME lights when the Bonuses cover the cheapest upper bet
  }

  setBalanceDisplay(minor) {
    if (minor === null || minor === undefined) {
      this.balanceLed.value.textContent = "–";
      return;
    }
    this.balanceLed.value.textContent = this.ctx.format(minor);
    this.balanceLed.value.dataset.minor = String(minor);
  }

  setVlines(n, flash = false) {
    this.vlines = n;
    this.vlBox.dataset.counter = String(n);
    this.vlDigit.textContent = String(n);
    this.vlPips.forEach((p) => p.classList.toggle("is-on", Number(p.dataset.n) <= n));
    if (flash) this.pulse(this.vlBox);
  }

  setNudges(n) {
    this.nudgeBox.dataset.left = String(n);
    this.nudgeLamps.forEach((l) => l.classList.toggle("is-on", Number(l.dataset.n) <= n));
  }

  pulse(el, cls = "l3p-pulse") {
    el.classList.remove(cls);
    void el.offsetWidth;
    el.classList.add(cls);
  }

  showWindow(ev = null) {
    const win = this.reels.map((r) => r.window());
    this.window.dataset.window = JSON.stringify(win);
    this.window.dataset.stops = JSON.stringify(this.reels.map((r) => r.stop));
    this.window.dataset.line = JSON.stringify(this.reels.map((r) => r.line()));
    if (ev?.window) this.window.dataset.eventWindow = JSON.stringify(ev.window);
  }

  // -- the player's machine state and play settings ----------------------------------------

  async loadMachine() {
    if (!this.ctx.playerState) return;
    let data;
    try {
      data = await this.ctx.playerState();
    } catch {
      return; // the displays stay as the rounds show them
    }
    const state = (data?.states || []).find((s) => s.state_key === "machine")?.state;
    if (state && !this.touched) {
      this.setBonuses(state.bonuses ?? 0);
      this.setVlines(state.vertical_lines ?? 0);
      this.upper.setState(state);
    }
    this.el.dataset.machineLoaded = "1";
  }

  async loadSettings() {
    if (!this.ctx.api) return;
    try {
      const reply = await this.ctx.api.get(`/settings?game=${encodeURIComponent(this.game.id)}`);
      if (!this.settingsTouched) Object.assign(this.settings, reply.settings || {});
    } catch {
      /* the defaults stand */
    }
    this.syncSettings();
    this.el.dataset.settingsLoaded = "1";
  }

  syncSettings() {
    this.autoBtn.setAttribute("aria-pressed", String(Boolean(this.settings.auto_advance)));
    this.riskBtn.setAttribute("aria-pressed", String(Boolean(this.settings.auto_risk)));
    this.el.dataset.autoAdvance = this.settings.auto_advance ? "1" : "0";
    this.el.dataset.autoRisk = this.settings.auto_risk ? "1" : "0";
  }

  /** AUTO or AUTO-RISK pressed: kept on the server for this session (autoplay follows it). */
  async toggleSetting(name) {
    this.settings[name] = !this.settings[name];
    this.settingsTouched = true;
    this.syncSettings();
    this.ctx.sound?.play("click");
    const risked = this.screen === "upper" ? t("Every fraction is played") : t("Every ladder prize is risked");
    const on = this.settings[name];
    this.setMessage(name === "auto_advance" ? (on ? t("AUTO ON") : t("AUTO OFF")) : on ? t("AUTO-RISK ON") : t("AUTO-RISK OFF"),
      name === "auto_advance" ? t("The machine plays your nudges") : risked);
    if (this.dec) this.maybeAuto();
    if (this.upper.dec) this.upper.maybeAuto();
    if (!this.ctx.api) return;
    const want = this.settings[name];
    try {
      const reply = await this.ctx.api.request("PUT", `/settings?game=${encodeURIComponent(this.game.id)}`, { [name]: want }, newKey());
      // Only this switch: another one may have been pressed while this reply was on its way.
      if (reply?.settings && name in reply.settings && this.settings[name] === want) this.settings[name] = reply.settings[name];
    } catch (err) {
      console.warn("reelforge: the play setting was not saved", err);
    }
    this.syncSettings();
    this.el.dataset.settingsSaved = String(Number(this.el.dataset.settingsSaved || 0) + 1);
  }

  // -- the bet -----------------------------------------------------------------------------

  refreshBet(level) {
    if (!level) return;
    this.level = level;
    const fmt = (credits) => this.ctx.format(credits * level.coin);
    this.payTitle.textContent = t("Prizes at {stake}", { stake: this.ctx.format(level.stake) });
    this.rungs.forEach((r) => {
      r.value.textContent = fmt(r.credits);
    });
    const bp = this.game.bonus_pays || {};
    this.bonusRows.forEach((b) => {
      const n = (bp[b.n] ?? bp[String(b.n)] ?? 0) * level.coin;
      b.value.textContent = this.bonusText(n);
      b.value.dataset.bonuses = String(n);
    });
    this.betChips.forEach((c) => c.classList.toggle("is-on", Number(c.dataset.stake) === level.stake));
    this.el.dataset.bet = String(level.stake);
    this.pulse(this.pay, "l3p-pay--lit");
  }

  betChanged(level) {
    this.refreshBet(level);
  }

  controlsChanged({ locked, autoplay }) {
    this.betChips.forEach((c) => {
      const i = this.game.bet_levels.findIndex((l) => l.stake === Number(c.dataset.stake));
      c.disabled = i < 0 || locked;
    });
    this.playBtn.setAttribute("aria-pressed", String(Boolean(autoplay)));
    this.el.dataset.autoplay = autoplay ? "1" : "0";
    this.changeBtn.disabled = locked || this.switching;
    showChangeGame(this);
    showAutoplayRule(this);
    this.upper.controlsChanged({ locked });
    if (!locked && !this.presenting) this.setBalanceDisplay(this.ctx.balance?.() ?? null);
  }

  // -- the keyboard (section 4.1 of the machine's manual) ---------------------------------

  onKey(e) {
    const k = e.key;
    if (this.upper.offer.onKey(e)) return true; // a refused upper bet's alternatives
    if (k === "Shift") {
      this.shiftAlone = !e.repeat || this.shiftAlone;
      return true; // CHANGE GAME on release, when no other key was pressed with it (Shift + 8 = *)
    }
    this.shiftAlone = false;
    if (k === "0") {
      this.changeGame();
      return true;
    }
    if (this.screen === "upper" && k !== "Escape") return this.upper.onKey(e);
    if (this.ctx.autoplayRunning?.()) {
      if (k === "-") this.ctx.autoplay?.(); // stops it
      else if (k === "Delete" || k === "/") this.toggleSetting("auto_advance");
      else if (k === "*") this.toggleSetting("auto_risk");
      else return false; // Space, Enter and Escape stop the autoplay (the game screen)
      return true;
    }
    switch (k) {
      case "Backspace":
      case "+":
        this.collect();
        return true;
      case "Delete":
      case "/":
        this.toggleSetting("auto_advance");
        return true;
      case "*":
        this.toggleSetting("auto_risk");
        return true;
      case "-":
        this.autoPlay();
        return true;
      case "ArrowLeft":
      case "1":
        this.reelButton(0);
        return true;
      case "ArrowDown":
      case "2":
        this.reelButton(1);
        return true;
      case "ArrowRight":
      case "3":
        this.reelButton(2);
        return true;
      case "ArrowUp":
      case ".":
        this.ctx.nextBet?.();
        return true;
      case " ":
      case "Enter":
        if (k === "Enter" && e.target instanceof HTMLButtonElement && !e.target.matches("[data-testid=spin]")) return false;
        if (this.dec) {
          this.primaryAction();
          return true;
        }
        return false; // PLAY: the game screen starts a game
      case "Escape":
        if (!this.ctx.busy?.()) {
          location.hash = "#/";
          return true;
        }
        return false;
      default:
        return false;
    }
  }

  onKeyUp(e) {
    if (!this.el.isConnected) {
      document.removeEventListener("keyup", this.keyUp, true);
      return;
    }
    const target = e.target;
    if (topModal() || (target instanceof HTMLElement && target.closest("input, textarea, select"))) return;
    if (e.key === "Shift") {
      if (this.shiftAlone) this.changeGame();
      this.shiftAlone = false;
    } else if (this.screen === "upper") {
      this.upper.onKeyUp(e);
    }
  }

  /** AUTO-PLAY (the button or −): the autoplay dialog, or stop it; where forbidden, why. */
  autoPlay() {
    if (!autoplayAllowed(this.ctx)) refuseAutoplay(this);
    else this.ctx.autoplay?.();
  }

  /** The game screen: the autoplay stopped; true when the machine shows it (a paused decision). */
  autoplayStopped(reason, round) {
    return autoplayPaused(this, reason, round);
  }

  // -- CHANGE GAME: the upper game and back ----------------------------------------------

  /** The game screen's hook: the next round's bet and mode (null: the lower game's own). */
  roundRequest() {
    if (this.switching) return false;
    return this.screen === "upper" ? this.upper.request() : null;
  }

  /** The game screen's hook: the control bar's bet while the upper game is on. */
  betChoice() {
    return this.screen === "upper" ? this.upper.betChoice() : null;
  }

  async changeGame() {
    if (this.switching) return;
    if (this.ctx.busy?.() || this.dec || this.upper.dec) {
      this.refuseChange("busy", t("FINISH THE GAME FIRST"), t("Then CHANGE GAME"));
      return;
    }
    if (this.screen === "lower") {
      const need = this.upper.lowestBonuses();
      if (need === null) {
        this.refuseChange("closed", t("NO UPPER GAME"), t("No upper bet is on offer"));
        return;
      }
      if (this.bonuses < need) {
        this.refuseChange("bonuses", t("NOT ENOUGH BONUSES"), t("The upper game needs {n} Bonuses: win them down here", { n: need }));
        return;
      }
    }
    await this.switchTo(this.screen === "lower" ? "upper" : "lower");
  }

  refuseChange(why, main, sub) {
    this.setMessage(main, sub);
    this.el.dataset.refused = `change-game-${why}`;
    this.pulse(this.changeBtn, "l3p-refuse");
    this.ctx.sound?.play("error");
  }

  /** The screens swap behind a shutter (at once for a restored round or a recall picture). */
  async switchTo(screen, instant = false) {
    if (this.screen === screen) return;
    delete this.el.dataset.refused;
    this.upper.offer.close();
    const swap = () => {
      this.screen = screen;
      this.el.dataset.screen = screen;
      (screen === "upper" ? this.upper.center : this.center).append(this.deck);
      this.setPrize(0);
      if (screen === "upper") {
        this.upper.fitBet();
        this.upper.reset();
        this.upper.setCounter(this.vlines);
        this.upper.idleMessage();
      } else {
        this.setMessage(t("LOWER GAME"), t("PRESS PLAY"));
      }
      this.ctx.refreshControls?.();
    };
    if (instant) {
      swap();
      return;
    }
    this.switching = true;
    this.changeBtn.disabled = true;
    this.ctx.sound?.play("feature");
    const shutter = h("div.l3p-shutter", { "data-testid": "switch", "aria-hidden": "true" },
      h("span.l3p-shutter__sign", screen === "upper" ? t("Upper game") : t("Lower game")));
    this.el.append(shutter);
    const d = 420 * this.speed();
    const run = (frames) => (d < 16 ? Promise.resolve() : shutter.animate(frames, { duration: d, easing: "ease-in-out", fill: "forwards" }).finished.catch(() => {}));
    await run([{ clipPath: "inset(0 0 100% 0)" }, { clipPath: "inset(0 0 0 0)" }]);
    swap();
    await wait(260);
    await run([{ clipPath: "inset(0 0 0 0)" }, { clipPath: "inset(100% 0 0 0)" }]);
    shutter.remove();
    this.switching = false;
    this.el.dataset.switched = String(Number(this.el.dataset.switched || 0) + 1);
    this.ctx.refreshControls?.();
  }

  // -- decisions: the machine's buttons ----------------------------------------------------

  decision(spec, round, choose) {
    if (round.mode === "upper" || this.screen === "upper") return this.upper.decision(spec, round, choose);
    this.choosers[spec.name] = choose;
    if (!this.dec) this.openDecision(round);
    return {
      primary: () => {
        this.primaryAction();
        return true;
      },
      destroy: () => this.closeDecision(),
    };
  }

  choiceStyle() {
    return { kind: "list" };
  }

  decisionPrompt() {
    return "";
  }

  openDecision(round) {
    const st = round.state || {};
    const phase = st.phase;
    this.dec = { phase, round, timers: [] };
    this.round = round;
    this.setPhase(phase);
    this.el.dataset.decision = phase;
    this.el.dataset.step = String(round.step);
    this.reelBtns.forEach((b) => (b.disabled = true));
    this.collectBtn.disabled = true;
    if (phase === "nudge") {
      this.setNudges(st.nudges_left ?? 0);
      this.reelBtns.forEach((b) => (b.disabled = false));
      this.collectBtn.disabled = false;
      this.setMessage(t("{n} NUDGES LEFT", { n: st.nudges_left }), t("Advance a reel · PLAY: best move · COLLECT: keep the line"));
    } else if (phase === "hold") {
      const spec = round.actions.find((a) => a.name === "hold");
      this.mask = spec?.default ?? st.suggested_hold ?? 0;
      this.allowedMasks = new Set(spec?.choices || []);
      this.reelBtns.forEach((b) => (b.disabled = false));
      this.showMask();
      this.setMessage(t("HOLD?"), t("Change the holds, then PLAY the held game"));
    } else if (phase === "ladder") {
      this.collectBtn.disabled = false;
      this.ladderMessage();
    } else if (phase === "disco") {
      this.setMessage(t("DISCO!"), t("PLAY stops the lights"));
      this.startDisco();
    }
    sayPaused(this); // an autoplay stopped for this decision: the marquee says so
    this.maybeAuto();
  }

  closeDecision() {
    if (!this.dec) return;
    this.dec.timers.forEach(clearTimeout);
    this.dec = null;
    delete this.el.dataset.decision;
    this.choosers = {};
    this.reelBtns.forEach((b) => (b.disabled = true));
    this.collectBtn.disabled = true;
    this.stopDisco();
    endPause(this);
  }

  /** AUTO plays the suggested nudge; AUTO-RISK plays every ladder step. */
  maybeAuto() {
    const d = this.dec;
    if (!d) return;
    const run = (ms) => d.timers.push(setTimeout(() => this.dec === d && this.primaryAction(), ms * this.speed()));
    if (d.phase === "nudge" && this.settings.auto_advance) run(550);
    if (d.phase === "ladder" && this.settings.auto_risk) run(650);
  }

  take(name, choice = null) {
    const choose = this.choosers[name];
    if (!choose) return false;
    this.ctx.sound?.play("click");
    choose(choice);
    return true;
  }

  /** PLAY during a decision. */
  primaryAction() {
    const d = this.dec;
    if (!d) return;
    if (d.phase === "nudge") {
      const first = d.round.actions[0];
      if (first.name === "nudge") this.take("nudge", first.default ?? 0);
      else this.take("done");
    } else if (d.phase === "hold") {
      this.take("hold", this.mask);
    } else if (d.phase === "ladder") {
      this.take("play");
    } else if (d.phase === "disco") {
      this.take("stop");
    }
  }

  reelButton(r) {
    const d = this.dec;
    if (!d) return;
    if (d.phase === "nudge") {
      this.take("nudge", r);
    } else if (d.phase === "hold") {
      const next = this.mask ^ (1 << r);
      if (!this.allowedMasks.has(next)) {
        this.setMessage(t("TWO REELS AT MOST"), t("Release a reel first"));
        this.pulse(this.reelBtns[r], "l3p-refuse");
        return;
      }
      this.mask = next;
      this.ctx.sound?.play("hold");
      this.showMask();
    }
  }

  showMask() {
    this.reels.forEach((reel, r) => {
      const on = Boolean(this.mask >> r & 1);
      reel.setHeld(on);
      this.reelBtns[r].setAttribute("aria-pressed", String(on));
    });
    this.window.dataset.mask = String(this.mask);
  }

  collect() {
    if (this.screen === "upper") {
      // A press of the pointer was handled on release; a click without one is the keyboard's.
      if (this.upper.swallowClick) this.upper.swallowClick = false;
      else if (this.upper.dec?.phase === "double") this.upper.take("collect");
      return;
    }
    const d = this.dec;
    if (!d) return;
    if (d.phase === "ladder") this.take("collect");
    else if (d.phase === "nudge") this.take("done");
  }

  // -- the round ---------------------------------------------------------------------------

  reset() {
    this.closeDecision();
    this.round = null;
    this.ladder = null;
    this.heldMask = 0;
    this.setPhase("idle");
    this.setNudges(0);
    this.setPrize(0);
    this.clearLine();
    this.clearLadder();
    this.clearDisco();
    this.reels.forEach((r) => {
      r.setHeld(false);
      r.el.classList.remove("l3p-reel--win");
    });
    this.reelBtns.forEach((b) => b.removeAttribute("aria-pressed"));
    this.upper.offer.close();
    this.fx.replaceChildren();
    delete this.el.dataset.result;
    delete this.window.dataset.mask;
    delete this.el.dataset.winningSpin;
    delete this.el.dataset.minigamePrize;
    this.upper.reset();
  }

  startSpin() {
    this.reset();
    if (this.screen === "upper") {
      this.upper.startSpin();
      return;
    }
    this.setPhase("spin");
    this.setMessage(t("GOOD LUCK!"), "");
    this.reels.forEach((r, i) => r.spin(i * 70));
    this.ctx.sound?.play("spin");
  }

  abortSpin() {
    if (this.screen === "upper") {
      this.upper.abortSpin();
      return;
    }
    this.reels.forEach((r) => r.place(r.stop));
    this.setPhase("idle");
    this.setMessage(t("PRESS PLAY"), "");
  }

  async restore(round) {
    this.reset();
    await this.present(round.events, round, { instant: true });
  }

  async present(events, round, opts = {}) {
    if (round?.mode === "upper" || isUpper(events)) {
      await this.switchTo("upper", true);
      return this.upper.present(events, round, opts);
    }
    if (this.screen === "upper" && (round?.mode === "base" || events.some((e) => e.type === "spin"))) await this.switchTo("lower", true);
    const instant = Boolean(opts.instant);
    this.round = round;
    this.presenting = true;
    if (round?.coin && this.level?.coin !== round.coin) this.refreshBet(this.levelFor(round.stake) || this.level);
    const pendingWin = round && round.status === "complete" ? round.win : 0;
    const balance = this.ctx.balance?.();
    if (balance !== null && balance !== undefined) this.setBalanceDisplay(balance - pendingWin);
    try {
      for (const ev of events) await this.presentEvent(ev, instant, round);
    } finally {
      this.presenting = false;
    }
    if (instant) this.summarize(events);
    if (round?.player_state) {
      this.touched = true;
      this.setBonuses(round.player_state.bonuses ?? this.bonuses);
      this.setVlines(round.player_state.vertical_lines ?? this.vlines);
    }
    if (round?.status === "complete" && balance !== null && balance !== undefined) this.setBalanceDisplay(balance);
    this.reels.forEach((r) => r.spinning && r.place(r.stop));
    this.showWindow();
  }

  async presentEvent(ev, instant, round) {
    switch (ev.type) {
      case "spin":
        return this.presentSpin(ev, instant);
      case "nudge_offer":
        return this.nudgeOffer(ev, instant);
      case "nudge":
        return this.presentNudge(ev, instant);
      case "nudges_done":
        this.setNudges(0);
        if (!instant) this.setMessage(t("NUDGES OVER"), "");
        return undefined;
      case "hold_offer":
        return this.holdOffer(ev, instant);
      case "hold":
        return this.presentHold(ev, instant);
      case "vertical_lines":
        return this.verticalLines(ev, instant);
      case "prize":
        return this.presentPrize(ev, instant);
      case "bonuses":
        this.touched = true;
        this.setBonuses(ev.balance, !instant);
        if (!instant) {
          this.ctx.sound?.play("diamond");
          this.setMessage(`+${this.bonusText(ev.won)}`, t("Bonuses: {count}", { count: ev.balance }));
          await wait(500);
        }
        return undefined;
      case "disco_start":
        return this.discoStart(ev, instant);
      case "disco_stop":
        return this.discoStop(ev, instant);
      case "ladder_start":
        return this.ladderStart(ev, instant);
      case "ladder_step":
        return this.ladderStep(ev, instant);
      case "ladder_end":
        return this.ladderEnd(ev, instant);
      case "no_prize":
        if (!instant) this.setMessage(t("NO PRIZE"), t("Press PLAY"));
        this.el.dataset.result = "none";
        return undefined;
      case "round_end":
        return this.roundEnd(ev, instant, round);
      default:
        return undefined; // an event this client does not know: nothing to draw
    }
  }

  // -- spins and nudges ----------------------------------------------------------------------

  async presentSpin(ev, instant) {
    this.clearLine();
    this.setPhase("spin");
    const spinning = new Set(ev.spinning || [0, 1, 2]);
    if (ev.game === "held") {
      this.el.dataset.held = "1";
      if (!instant) this.setMessage(t("HELD GAME"), t("Free: the other reels spin"));
    }
    if (instant) {
      ev.stops.forEach((s, r) => this.reels[r].place(s));
      this.showWindow(ev);
      return;
    }
    this.reels.forEach((r, i) => {
      if (spinning.has(i) && !r.spinning) r.spin(i * 60);
      if (!spinning.has(i)) r.place(r.stop);
    });
    let clock = 380;
    const landing = [];
    for (let i = 0; i < REELS; i++) {
      if (!spinning.has(i)) continue;
      const at = clock;
      landing.push(wait(at).then(() => this.reels[i].land(ev.stops[i])));
      clock += 240;
    }
    await Promise.all(landing);
    this.showWindow(ev);
  }

  async nudgeOffer(ev, instant) {
    this.setPhase("nudge");
    if (instant) {
      this.setNudges(ev.nudges);
      return;
    }
    this.ctx.sound?.play("feature");
    this.setMessage(t("{n} NUDGES!", { n: ev.nudges }), t("Advance the reels"));
    for (let n = 1; n <= ev.nudges; n++) {
      this.setNudges(n);
      await wait(110);
    }
    this.pulse(this.nudgeBox);
  }

  async presentNudge(ev, instant) {
    const reel = this.reels[ev.reel];
    this.setNudges(ev.left);
    if (instant) reel.place(ev.to);
    else {
      this.setMessage(t("{n} NUDGES LEFT", { n: ev.left }), t("The {reel} advances", { reel: t(REEL_NAMES[ev.reel]) }));
      await reel.nudge(ev.to);
    }
    this.showWindow(ev);
  }

  holdOffer(ev, instant) {
    this.setPhase("hold");
    this.mask = ev.suggested;
    this.showMask();
    if (!instant) {
      this.ctx.sound?.play("feature");
      this.setMessage(t("HOLD?"), t("Change the holds, then PLAY the held game"));
    }
  }

  async presentHold(ev, instant) {
    this.mask = ev.mask;
    this.heldMask = ev.mask;
    this.showMask();
    if (!instant) {
      this.setMessage(ev.held.length ? t("HOLDING {reels}", { reels: ev.held.map((r) => r + 1).join(" + ") }) : t("NO HOLD"), t("Free held game"));
      await wait(250);
    }
  }

  async verticalLines(ev, instant) {
    this.touched = true;
    if (instant) {
      this.setVlines(ev.counter);
      return;
    }
    this.reels.forEach((r) => {
      const cell = r.strip.querySelector(`.l3p-cell[data-stop="${r.stop}"] .l3p-cell__vl`);
      if (cell) this.pulse(r.el, "l3p-reel--vl");
    });
    this.ctx.sound?.play("tick");
    for (let n = ev.before + 1; n <= ev.counter; n++) {
      this.setVlines(n, true);
      await wait(160);
    }
    if (ev.counter === ev.before) this.setVlines(ev.counter, true);
  }

  clearLine() {
    this.window.classList.remove("l3p-window--win", "l3p-window--bonus", "l3p-window--disco");
    this.rungs.forEach((r) => r.el.classList.remove("is-hit"));
    this.bonusRows.forEach((b) => b.el.classList.remove("is-hit"));
    this.discoRow.classList.remove("is-hit");
  }

  // -- prizes --------------------------------------------------------------------------------

  async presentPrize(ev, instant) {
    const cls = ev.kind === "bonus" ? "l3p-window--bonus" : ev.kind === "disco" ? "l3p-window--disco" : "l3p-window--win";
    this.window.classList.add(cls);
    this.el.dataset.result = ev.kind;
    if (ev.kind === "cash") {
      const rung = this.rungs.find((r) => r.credits === ev.credits);
      rung?.el.classList.add("is-hit");
    } else if (ev.kind === "bonus") {
      const n = Object.entries(this.game.bonus_pays || {}).find(([, v]) => v * this.coin() === ev.bonuses)?.[0];
      this.bonusRows.find((b) => String(b.n) === String(n))?.el.classList.add("is-hit");
    } else if (ev.kind === "disco") {
      this.discoRow.classList.add("is-hit");
    }
    const name = this.symbolName(ev.symbol);
    if (ev.kind === "cash" && !ev.ladder) {
      // Paid at once.
      if (instant) {
        this.setPrize(ev.credits * this.coin());
        return;
      }
      this.ctx.sound?.play(ev.credits >= 1000 ? "bigwin" : "win");
      this.setMessage(t("PRIZE {amount}", { amount: this.money(ev.credits) }), `3 × ${name}`);
      await Promise.all([this.countPrize(ev.credits * this.coin()), this.ctx.addWin?.(ev.credits)]);
      await wait(350);
      return;
    }
    if (instant) return;
    if (ev.kind === "bonus") {
      this.setMessage(t("{n} Bonuses!", { n: ev.bonuses }), t("Bonuses are for the upper game"));
      this.ctx.sound?.play("win");
      await wait(400);
    } else if (ev.kind === "disco") {
      this.setMessage(t("DISCO!"), t("3 × Speaker"));
      this.ctx.sound?.play("disco");
      await wait(300);
    } else {
      this.setMessage(t("PRIZE {amount}", { amount: this.money(ev.credits) }), `3 × ${name}: ${t(LADDER_NAMES[ev.ladder])}`);
      this.ctx.sound?.play("win");
      await wait(350);
    }
  }

  async roundEnd(ev, instant, round) {
    this.setPhase("done");
    this.setNudges(0);
    this.reels.forEach((r) => r.setHeld(false));
    this.reelBtns.forEach((b) => b.removeAttribute("aria-pressed"));
    if (!this.ladder) this.clearLadder();
    this.setPrize(ev.win);
    this.el.dataset.roundWin = String(ev.win);
    this.el.dataset.bonusesWon = String(ev.bonuses_won);
    if (instant) return;
    if (ev.win > 0) {
      this.setMessage(t("YOU WIN {amount}", { amount: this.ctx.format(ev.win) }), ev.bonuses_won ? t("and {n} Bonuses", { n: ev.bonuses_won }) : t("Press PLAY"));
    } else if (ev.bonuses_won > 0) {
      this.setMessage(t("{n} Bonuses WON", { n: ev.bonuses_won }), t("Press PLAY"));
    }
    const balance = this.ctx.balance?.();
    if (ev.win > 0 && Number.isSafeInteger(balance)) {
      await countUp(this.balanceLed.value, balance - ev.win, balance, 600, (v) => this.ctx.format(v));
    }
  }

  // -- the ladders ---------------------------------------------------------------------------

  clearLadder() {
    delete this.el.dataset.ladder;
    delete this.el.dataset.ladderLevel;
    this.rungs.forEach((r) => r.el.classList.remove("is-lit", "is-current", "is-next", "is-down"));
  }

  showLadder() {
    const lad = this.ladder;
    this.clearLadder();
    if (!lad) return;
    this.el.dataset.ladder = lad.kind;
    this.el.dataset.ladderLevel = String(lad.level);
    this.rungs.forEach((r) => {
      r.el.classList.toggle("is-lit", r.level < lad.level);
      r.el.classList.toggle("is-current", r.level === lad.level);
      r.el.classList.toggle("is-next", r.level === lad.level + 1);
      r.el.classList.toggle("is-down", lad.kind === "sube_bonos" && lad.level > this.seesawIndex && r.level === lad.level - 1);
    });
  }

  ladderMessage() {
    const lad = this.ladder;
    if (!lad) return;
    const now = this.money(this.scale[lad.level]);
    const up = this.scale[lad.level + 1];
    const upText = up !== undefined ? t("UP {amount}", { amount: this.money(up) }) : "";
    let sub;
    if (lad.kind === "sube_nada") sub = t("{up} or NOTHING", { up: upText });
    else if (lad.level > this.seesawIndex) sub = t("SEESAW: {up} or DOWN {down}", { up: upText, down: this.money(this.scale[lad.level - 1]) });
    else sub = t("{up} or BONUSES", { up: upText });
    this.setMessage(`${t(LADDER_NAMES[lad.kind]).toUpperCase()} ${now}`, t("COLLECT or PLAY · {choices}", { choices: sub }));
  }

  async ladderStart(ev, instant) {
    this.setPhase("ladder");
    this.ladder = { kind: ev.kind, level: this.scale.indexOf(ev.credits) };
    this.showLadder();
    this.setPrize(ev.credits * this.coin());
    if (instant) {
      this.rungs.forEach((r) => r.el.classList.remove("is-hit"));
      return;
    }
    this.ctx.sound?.play("feature");
    // The lamps run up the scale to the prize.
    for (let i = 0; i <= this.ladder.level; i++) {
      this.rungs[i].el.classList.add("is-flash");
      await wait(60);
      this.rungs[i].el.classList.remove("is-flash");
    }
    this.rungs.forEach((r) => r.el.classList.remove("is-hit"));
    this.ladderMessage();
  }

  async ladderStep(ev, instant) {
    const lad = this.ladder;
    if (!lad) return;
    if (ev.result === "up" || ev.result === "down") {
      lad.level = this.scale.indexOf(ev.credits);
      this.showLadder();
      this.setPrize(ev.credits * this.coin());
      if (!instant) {
        this.ctx.sound?.play(ev.result === "up" ? "ladder-step" : "crack");
        this.pulse(this.rungs[lad.level].el, "l3p-pulse");
        this.ladderMessage();
        this.msgMain.textContent = ev.result === "up" ? t("UP! {amount}", { amount: this.money(ev.credits) }) : t("DOWN {amount}", { amount: this.money(ev.credits) });
        await wait(420);
        this.ladderMessage();
      }
      return;
    }
    this.ladder = null;
    this.clearLadder();
    this.setPrize(0);
    if (ev.result === "nothing") {
      this.el.dataset.result = "nothing";
      if (!instant) {
        this.ctx.sound?.play("crack");
        this.setMessage(t("NOTHING"), t("Sube-Nada lost the prize"));
        await wait(600);
      }
    } else if (ev.result === "bonuses") {
      this.el.dataset.result = "ladder-bonuses";
      if (!instant) {
        this.setMessage(t("BONUSES {count}", { count: ev.bonuses }), t("{amount} turned into {n} Bonuses", { amount: this.money(ev.from_credits), n: ev.bonuses }));
        await wait(500);
      }
    }
  }

  async ladderEnd(ev, instant) {
    this.ladder = null;
    this.clearLadder();
    this.rungs[this.scale.indexOf(ev.credits)]?.el.classList.add("is-hit");
    if (instant) {
      this.setPrize(ev.credits * this.coin());
      return;
    }
    this.ctx.sound?.play(ev.how === "maximum" ? "bigwin" : "win");
    this.setMessage(ev.how === "maximum" ? t("MAXIMUM PRIZE!") : t("COLLECTED {amount}", { amount: this.money(ev.credits) }), "");
    await Promise.all([this.countPrize(ev.credits * this.coin()), this.ctx.addWin?.(ev.credits)]);
  }

  // -- the Disco -----------------------------------------------------------------------------

  /** A penguin's prize: amounts at the bet (`atBet`, the per-bet tables) or, in rounds recorded
   * before them, the unit bet's, scaled. */
  discoText(prize, atBet) {
    const n = Number(prize.slice(1));
    if (atBet) return prize[0] === "B" ? this.bonusText(n) : this.ctx.format(n);
    return prize[0] === "B" ? this.bonusText(n * this.coin()) : this.money(n);
  }

  clearDisco() {
    this.stopDisco();
    this.disco.removeAttribute("data-active");
    this.disco.dataset.lit = "-1";
    delete this.disco.dataset.stopped;
    this.penguins.forEach((p) => {
      p.el.classList.remove("is-lit", "is-won", "is-out");
      p.prize.textContent = "";
      delete p.el.dataset.prize;
    });
  }

  light(i) {
    this.discoLit = i;
    this.disco.dataset.lit = String(i);
    this.penguins.forEach((p, k) => p.el.classList.toggle("is-lit", k === i));
  }

  startDisco() {
    this.stopDisco();
    this.disco.dataset.active = "1";
    const tick = () => {
      let next = Math.floor(Math.random() * (this.discoLit < 0 ? 5 : 4));
      if (this.discoLit >= 0 && next >= this.discoLit) next += 1; // another penguin each time
      this.light(next);
      this.ctx.sound?.play("disco-tick");
    };
    tick();
    this.discoTimer = setInterval(tick, Math.max(60, 260 * this.speed()));
  }

  stopDisco() {
    clearInterval(this.discoTimer);
    this.discoTimer = null;
  }

  async discoStart(ev, instant) {
    this.setPhase("disco");
    this.disco.dataset.active = "1";
    this.disco.dataset.penguins = JSON.stringify(ev.penguins);
    ev.penguins.forEach((prize, i) => {
      this.penguins[i].prize.textContent = this.discoText(prize, ev.at_bet);
      this.penguins[i].el.dataset.prize = prize;
    });
    if (instant) return;
    await featureIntro(this.ctx, this.fx, { title: t("DISCO!"), sub: t("Five penguins · PLAY stops the lights"), kind: "disco", testid: "banner-disco" });
  }

  async discoStop(ev, instant) {
    this.stopDisco();
    if (!instant) {
      // The lights slow down and stop on the penguin the machine drew.
      let i = this.discoLit < 0 ? 0 : this.discoLit;
      const steps = 5 + ((((ev.penguin - i) % 5) + 5) % 5);
      for (let k = 0; k < steps; k++) {
        i = (i + 1) % 5;
        this.light(i);
        this.ctx.sound?.play("disco-tick");
        await wait(90 + k * 35);
      }
    }
    this.light(ev.penguin);
    this.disco.dataset.stopped = String(ev.penguin);
    this.penguins.forEach((p, k) => {
      p.el.classList.toggle("is-won", k === ev.penguin);
      p.el.classList.toggle("is-out", k !== ev.penguin);
    });
    const cash = ev.prize[0] === "C";
    const amount = Number(ev.prize.slice(1));
    const credits = ev.at_bet ? amount / this.coin() : amount; // the unit bet's, as the scale is
    if (instant) {
      if (cash && credits > this.seesaw) this.setPrize(credits * this.coin());
      return;
    }
    this.ctx.sound?.play("bigwin");
    this.setMessage(t("PENGUIN {number}: {prize}", { number: ev.penguin + 1, prize: this.discoText(ev.prize, ev.at_bet) }), cash && credits <= this.seesaw ? t("Into Sube-Bonos") : "");
    if (cash && credits > this.seesaw) {
      await Promise.all([this.countPrize(credits * this.coin()), this.ctx.addWin?.(credits)]);
      await featureTotal(this.ctx, this.fx, { title: t("Disco"), amount: credits * this.coin(), kind: "disco", testid: "banner-disco-total" });
    }
    await wait(500);
  }

  // -- recall ----------------------------------------------------------------------------------

  /** The recall's line for a round's start: an upper bet is cash and Bonuses. */
  startText(action) {
    return action.mode === "upper" ? t("Start: upper game, bet {bet}", { bet: this.upper.labelFor(action.stake) }) : null;
  }

  describe(ev) {
    if (isUpper([ev]) || ev.gained !== undefined) return this.upper.describe(ev);
    const money = (c) => this.money(c);
    const line = (syms) => syms.map((c) => this.symbolName(c)).join(" · ");
    switch (ev.type) {
      case "spin":
        return ev.game === "held"
          ? t("Held game: {line} on the line (reels {reels} spun)", { line: line(ev.line), reels: ev.spinning.map((r) => r + 1).join(", ") })
          : t("Game: {line} on the line", { line: line(ev.line) });
      case "nudge_offer":
        return t("{n} nudges offered", { n: ev.nudges });
      case "nudge":
        return t("Nudge: the {reel} advanced ({n} nudges left): {line}", { reel: t(REEL_NAMES[ev.reel]), n: ev.left, line: line(ev.line) });
      case "nudges_done":
        return ev.left ? t("Nudges ended with {count} unused", { count: ev.left }) : t("Nudges over");
      case "hold_offer": {
        const reels = this.maskText(ev.suggested);
        return reels ? t("Hold offered: reels {reels} suggested", { reels }) : t("Hold offered: reels none suggested");
      }
      case "hold": {
        if (!ev.held.length) return t("No reel held");
        const reels = reelList(ev.held.map((r) => r + 1));
        return ev.mask !== ev.suggested ? t("Held reels {reels} (changed by the player)", { reels }) : t("Held reels {reels}", { reels });
      }
      case "vertical_lines":
        return t("Vertical lines: +{hits}, counter {before} → {counter}", { hits: ev.hits, before: ev.before, counter: ev.counter });
      case "prize":
        if (ev.kind === "bonus") return t("Prize: {n} Bonuses", { n: ev.bonuses });
        if (ev.kind === "disco") return t("Prize: the Disco (3 Speakers)");
        return ev.ladder
          ? t("Prize: 3 × {symbol} {amount} into {ladder}", { symbol: this.symbolName(ev.symbol), amount: money(ev.credits), ladder: t(LADDER_NAMES[ev.ladder]) })
          : t("Prize: 3 × {symbol} {amount}", { symbol: this.symbolName(ev.symbol), amount: money(ev.credits) });
      case "bonuses":
        return t("{n} Bonuses won; Bonuses {count}", { n: ev.won, count: ev.balance });
      case "disco_start":
        return t("Disco: the penguins hold {prizes}", { prizes: ev.penguins.map((p) => this.discoText(p, ev.at_bet)).join(", ") });
      case "disco_stop":
        return t("Disco stopped on penguin {number}: {prize}", { number: ev.penguin + 1, prize: this.discoText(ev.prize, ev.at_bet) });
      case "ladder_start":
        return t("{ladder} starts at {amount}", { ladder: t(LADDER_NAMES[ev.kind]), amount: money(ev.credits) });
      case "ladder_step":
        if (ev.result === "up") return t("PLAY: up to {amount}", { amount: money(ev.credits) });
        if (ev.result === "down") return t("PLAY: down to {amount}", { amount: money(ev.credits) });
        if (ev.result === "nothing") return t("PLAY: nothing (the prize is lost)");
        return t("PLAY: {amount} turned into {n} Bonuses", { amount: money(ev.from_credits), n: ev.bonuses });
      case "ladder_end":
        return ev.how === "maximum" ? t("Maximum prize {amount}", { amount: money(ev.credits) }) : t("Collected {amount}", { amount: money(ev.credits) });
      case "no_prize":
        return t("No prize");
      case "round_end":
        return ev.bonuses_won
          ? t("Round over: {amount} won and {n} Bonuses", { amount: this.ctx.format(ev.win), n: ev.bonuses_won })
          : t("Round over: {amount} won", { amount: this.ctx.format(ev.win) });
      default:
        return ev.type;
    }
  }

  /** The reels of a hold mask as a list ("1 and 2"); "" for none. */
  maskText(mask) {
    return reelList([0, 1, 2].filter((r) => mask >> r & 1).map((r) => r + 1));
  }

  /**
   * A still picture of a step: the machine as that step left it.  A step without a game of its
   * own (a ladder PLAY, a nudge) starts from the machine as the step before left it: recall
   * shows the steps one after another, and each picture remembers the one before.
   */
  snapshot(events) {
    this.snapBefore ??= new WeakMap();
    let before = this.snapBefore.get(events);
    if (before === undefined) {
      before = this.snapLast ?? null;
      this.snapBefore.set(events, before);
    }
    const view = new PinguinosRenderer({ ...this.ctx, playerState: null, api: null, balance: null, sound: null, speed: () => 0, addWin: null });
    view.el.classList.add("l3p--snapshot");
    if (before) view.applyMemory(before);
    const wrap = h("div.snapshot.l3p-snapshot", view.el);
    view.present(events, null, { instant: true }).then(() => {
      this.snapLast = view.memory();
      wrap.dataset.ready = "1";
    });
    return wrap;
  }

  /** What a later step's picture needs from this one. */
  memory() {
    const disco = this.disco.dataset.active && this.disco.dataset.stopped === undefined ? this.disco.dataset.penguins : null;
    return {
      stops: this.reels.map((r) => r.stop),
      ladder: this.ladder ? { ...this.ladder } : null,
      nudges: Number(this.nudgeBox.dataset.left || 0),
      phase: this.el.dataset.phase,
      penguins: disco ? JSON.parse(disco) : null,
      screen: this.screen,
      upper: this.upper.memory(),
    };
  }

  applyMemory(m) {
    if (m.screen === "upper") {
      this.switchTo("upper", true);
      this.upper.applyMemory(m.upper);
      this.setPhase(m.phase);
      return;
    }
    m.stops.forEach((stop, r) => this.reels[r]?.place(stop));
    this.showWindow();
    this.setNudges(m.nudges);
    this.setPhase(m.phase);
    if (m.ladder) {
      this.ladder = { ...m.ladder };
      this.showLadder();
      this.setPrize(this.scale[m.ladder.level] * this.coin());
    }
    if (m.penguins) this.discoStart({ penguins: m.penguins }, true);
  }

  /** Without animation (a reload, a recall picture) the marquee says how the machine stands. */
  summarize(events) {
    const end = events.find((e) => e.type === "round_end");
    const phase = this.el.dataset.phase;
    if (end) {
      if (end.win > 0) this.setMessage(t("YOU WIN {amount}", { amount: this.ctx.format(end.win) }), end.bonuses_won ? t("and {n} Bonuses", { n: end.bonuses_won }) : "");
      else if (end.bonuses_won > 0) this.setMessage(t("{n} Bonuses WON", { n: end.bonuses_won }), "");
      else if (this.el.dataset.result === "nothing") this.setMessage(t("NOTHING"), t("Sube-Nada lost the prize"));
      else this.setMessage(t("NO PRIZE"), "");
    } else if (this.ladder) {
      this.ladderMessage();
    } else if (phase === "nudge") {
      this.setMessage(t("{n} NUDGES LEFT", { n: Number(this.nudgeBox.dataset.left || 0) }), "");
    } else if (phase === "hold") {
      this.setMessage(t("HOLD?"), "");
    } else if (phase === "disco") {
      this.setMessage(t("DISCO!"), "");
    }
  }

  // -- paytable and rules --------------------------------------------------------------------

  paytable(level) {
    if (this.screen === "upper") return this.upper.paytable();
    const g = this.game;
    const fmt = (credits) => this.ctx.format(credits * level.coin);
    const rows = Object.entries(g.pays).sort((a, b) => b[1] - a[1]).map(([code, credits]) => {
      const kind = this.blue.has(code) ? "blue" : this.yellow.has(code) ? "yellow" : "plain";
      const note = kind === "blue" ? (credits <= this.seesaw ? t("Sube-Bonos") : "") : kind === "yellow" ? t("Sube-Nada") : "";
      return h("tr", { dataset: { symbol: code, kind } },
        h("td", h("span.l3p-pt__syms", [use(code), use(code), use(code)])),
        h("td", this.symbolName(code)),
        h("td.l3p-pt__value", fmt(credits)),
        h("td", note));
    });
    const bp = g.bonus_pays || {};
    const bonusRows = [1, 2, 3].map((n) => h("tr", { dataset: { bonus: String(n) } },
      h("td", h("span.l3p-pt__syms", Array.from({ length: n }, () => use(g.bonus || "BO")))),
      h("td", t("{n} Bonus symbols (wilds join them)", { n })),
      h("td.l3p-pt__value", this.bonusText((bp[n] ?? bp[String(n)]) * level.coin)), h("td", "")));
    // the bet's own Disco table (amounts at the bet), as the seed gives one per bet
    const atBet = g.disco_prizes_at_bet?.[String(level.stake)];
    const discoPrizes = atBet || (g.disco_prizes || []);
    const scaled = atBet ? 1 : level.coin;
    const discoCash = discoPrizes.filter((p) => p[0] === "C").map((p) => Number(p.slice(1)) * scaled);
    const discoBonus = discoPrizes.filter((p) => p[0] === "B").map((p) => Number(p.slice(1)) * scaled);
    const range = (list, f) => (list.length ? `${f(Math.min(...list))} – ${f(Math.max(...list))}` : "–");
    const ladder = this.scale.slice().reverse().map((credits, k) => {
      const level_ = this.scale.length - 1 - k;
      return h("li", { dataset: { level: String(level_) } }, fmt(credits),
        level_ === this.scale.length - 1 ? ` ${t("(maximum)")}` : "", credits === this.seesaw ? ` ${t("← 3 Bells: seesaw above")}` : "");
    });
    return h("div.paytable.l3p-paytable", { "data-testid": "paytable" },
      h("p.paytable__intro", t("Prizes for three on the red center line at your bet of {stake}. The wild (left and right reels) joins any pair; with a Bonus symbol on the line it always joins the Bonus.", { stake: this.ctx.format(level.stake) })),
      h("table.table.l3p-pt", h("tbody", rows, h("tr", { dataset: { symbol: "SP" } },
        h("td", h("span.l3p-pt__syms", [use("SP"), use("SP"), use("SP")])), h("td", t("Speaker")), h("td.l3p-pt__value", t("DISCO")), h("td", "")), bonusRows)),
      h("p", withMarks(t("[Blue] prizes up to 3 Bells may be risked in Sube-Bonos; [yellow] prizes in Sube-Nada."),
        (k, words) => h(k === 0 ? "span.l3p-key.l3p-key--blue" : "span.l3p-key.l3p-key--yellow", words))),
      h("h3", t("The Disco")),
      h("p", t("Five penguins, each with a prize: {cash} or {bonuses}. PLAY stops the lights on one penguin; a cash prize up to 3 Bells goes into Sube-Bonos.",
        { cash: range(discoCash, (c) => this.ctx.format(c)), bonuses: range(discoBonus, (n) => this.bonusText(n)) })),
      h("h3", t("The payout scale")),
      h("ol.l3p-pt__ladder", { reversed: true }, ladder),
      h("p", t("1 Bonus counts as {value} when a prize turns into Bonuses (the rest is rounded at random).", { value: this.ctx.format(g.bonus_value) })));
  }

  rules() {
    const g = this.game;
    const levels = g.bet_levels;
    const fmt = this.ctx.format;
    return h("div.rules", { "data-testid": "rules" },
      h("p.rules__rtp", withNodes(t("Theoretical return to player (RTP): {rtp}, the whole machine's cash return (lower and upper games together) with the best play, which AUTO plays. Bonuses have no cash value outside the upper game."),
        { rtp: h("strong", { "data-testid": "rtp" }, formatPercent(g.rtp, 2)) })),
      h("ul",
        h("li", t("Three reels of 16 symbols; prizes on the red center line. Bets: {bets}. Every prize is scaled to the bet.", { bets: levels.map((l) => fmt(l.stake)).join(", ") })),
        h("li", t("Wild: on the left and right reels, it joins any other symbol; with a Bonus symbol on the line it always joins the Bonus.")),
        h("li", t("Hold: two matching symbols without a prize may offer a free held game: the machine suggests the pair; HOLD / ADVANCE under each reel holds or releases it (two reels at most), and PLAY spins the others.")),
        h("li", t("Nudges: after a near miss the machine may offer 1 to 4 nudges (the lamps beside the reels). Each moves a reel one stop down, bringing the symbol above onto the line. PLAY plays the best move, COLLECT keeps the line. AUTO (lit) plays every nudge for you.")),
        h("li", t("Sube-Bonos: a blue prize up to 3 Bells (and a Disco prize up to 3 Bells) may be collected or played. PLAY goes up the payout scale or turns the prize into Bonuses; above 3 Bells it is a seesaw: up or one step down. The top of the scale is paid at once.")),
        h("li", t("Sube-Nada: a yellow prize may be collected or played: up the scale, or nothing.")),
        h("li", t("AUTO-RISK (lit) plays every ladder to its end.")),
        h("li", t("The Disco: three Speakers. Five penguins light in turn until PLAY stops them; the lit penguin's prize is won.")),
        h("li", t("Vertical lines: a symbol with the vertical-lines sign on the line adds one to the counter (up to {max}), used in the upper game.", { max: 9 })),
        h("li", t("Bonuses are only for the upper game; the BONUSES display shows your balance of them.")),
        ...upperRules(g, fmt),
        h("li", t("Keys: Space / Enter PLAY · ← ↓ → or 1 2 3 HOLD / ADVANCE (the Slides: ← → choose, ↓ takes) · Backspace or + COLLECT (held: COLLECT ALL) · Delete or / AUTO · * AUTO-RISK · − AUTO-PLAY · ↑ or . BET · Shift or 0 CHANGE GAME · H history · Esc exit.")),
        h("li", t("A game left unfinished is restored when you come back. A malfunction voids all pays and plays."))),
      h("p.rules__meta", t("Game {game} version {version}, RTP variant {variant}.", { game: g.name, version: g.version, variant: g.variant })));
  }
}
