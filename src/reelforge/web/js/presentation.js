// Presentation every game shares, kept honest: a round is celebrated only when it returns
// more than the stake; wins above it count up for a time that grows with the win, and reach
// the Big / Mega / Epic screens at the game's multiples of the stake; features open with a
// full-stage intro and close with a total screen; a tap, a click or Space skips whatever is
// being shown straight to its end.  The game screen owns one Presenter; renderers reach it
// through ctx.feature (intro / total) and ctx.sound (celebration sounds are dropped for a
// return at or below the stake).

import { t, tk } from "./i18n.js";
import { formatMoney } from "./money.js";
import { countUp, h, paceNow, playerSpeed, setSkipping, wait } from "./ui.js";

/** Multiples of the stake where Big, Mega and Epic wins start, unless the game sets its own. */
export const DEFAULT_TIERS = Object.freeze({ big: 10, mega: 25, epic: 50 });
const TIER_ORDER = ["epic", "mega", "big"];
/** Sounds that celebrate: played only for a round that returns more than its stake. */
const CELEBRATION_SOUNDS = new Set(["win", "bigwin"]);

// The words this module shows (kept together for translation): keys, translated where shown.
export const TEXT = {
  tiers: { big: tk("Big win"), mega: tk("Mega win"), epic: tk("Epic win") },
  skipKeys: tk("Press Space to skip"),
  skipTouch: tk("Tap to skip"),
  total: tk("Total win"),
  returned: (amount, stake) => t("Returned {win} of {stake}", { win: amount, stake }),
  winLabel: tk("Win"),
  returnLabel: tk("Return"),
};

export function reducedMotion() {
  return typeof matchMedia === "function" && matchMedia("(prefers-reduced-motion: reduce)").matches;
}

/** The game's tiers: the renderer's `winTiers`, else the game info's `win_tiers`, else the defaults. */
export function tiersFor(renderer, game) {
  const own = renderer?.winTiers || game?.win_tiers || {};
  const tiers = { ...DEFAULT_TIERS };
  for (const k of Object.keys(tiers)) if (Number.isFinite(own[k]) && own[k] > 0) tiers[k] = own[k];
  return tiers;
}

/** "big" / "mega" / "epic" for a win of `win` on `stake`, or null below the Big multiple. */
export function tierFor(win, stake, tiers = DEFAULT_TIERS) {
  if (!(stake > 0) || !(win > stake)) return null;
  return TIER_ORDER.find((k) => win >= tiers[k] * stake) || null;
}

/** How long the win meter counts (ms at speed 1): nothing at or below the stake, then a
 *  little longer for each doubling of the multiple. */
export function meterMs(win, stake) {
  if (!(stake > 0) || !(win > stake) || reducedMotion()) return 0;
  return Math.min(2500, Math.round(400 + 600 * Math.log2(win / stake)));
}

/** How long a tier screen counts: from 2.5 s at the Big multiple, growing with the win. */
export function tierMs(win, stake, tiers = DEFAULT_TIERS) {
  if (reducedMotion()) return 0;
  return Math.min(9000, Math.round(2500 + 1500 * Math.log2(Math.max(1, win / (tiers.big * stake)))));
}

function hints() {
  return h("div.pres-screen__hint", { "aria-hidden": "true" },
    h("span.pres-hint--keys", t(TEXT.skipKeys)), h("span.pres-hint--touch", t(TEXT.skipTouch)));
}

export class Presenter {
  /**
   * @param {object} o
   *   host: the element the screens cover (the game's stage)
   *   format(minor) -> text; sound: the app's Sound
   *   round() -> the round being shown (null between rounds)
   *   stake(round) -> what the round cost (minor units); onSkip(): a screen was tapped
   * `tiers` ({big, mega, epic}) is the game's, set once its renderer is known.
   */
  constructor(o) {
    this.o = o;
    this.tiers = DEFAULT_TIERS;
    this.skipping = false;
    this.active = false;
    this.featureName = null; // a feature total left to the tier screen
    this.screens = new Set();
    this.fading = new Set(); // screens fading out
    const sound = o.sound;
    // What renderers get as ctx.sound: the app's sounds, less celebration at or below stake.
    this.sound = {
      play: (name, opts) => {
        if (CELEBRATION_SOUNDS.has(name) && !this.celebrated()) return;
        sound?.play(name, { x: this.stakeOf() ? (this.round?.win ?? 0) / this.stakeOf() : 0, tiers: this.tiers, ...opts });
      },
    };
    // What renderers get as ctx.feature.
    this.feature = {
      intro: (opts) => this.intro(opts),
      total: (opts) => this.total(opts),
    };
  }

  get round() {
    return this.o.round();
  }

  stakeOf(round = this.round) {
    return round ? this.o.stake(round) : 0;
  }

  /** Does the round (as far as it has been dealt) return more than it cost? */
  celebrated(round = this.round) {
    return Boolean(round) && round.win > this.stakeOf(round);
  }

  tier(round = this.round) {
    return round ? tierFor(round.win, this.stakeOf(round), this.tiers) : null;
  }

  // -- the round -------------------------------------------------------------------------

  /** A new round (or a restored one) starts being shown. */
  begin() {
    this.active = true;
    this.featureName = null;
    this.setSkip(false);
    this.pace = { from: paceNow(), skipped: false };
  }

  /**
   * The round's presentation time at the player's speed (ui.js's pace clock: every wait,
   * count-up and animation, side by side counted once; no network, no player's time), kept
   * for the tests in window.__reelforgePace: [{round, game, mode, ms, quick, skipped}].
   */
  notePace() {
    const pace = this.pace;
    const round = this.round;
    this.pace = null;
    if (!pace || !round || typeof window === "undefined") return;
    (window.__reelforgePace ||= []).push({
      round: round.id, game: round.game, mode: round.mode || "base", ms: Math.round(paceNow() - pace.from),
      quick: playerSpeed() < 1, skipped: pace.skipped,
    });
  }

  /** The round's presentation is over (or a decision waits for the player). */
  pause() {
    this.setSkip(false);
  }

  end() {
    this.notePace();
    this.active = false;
    this.featureName = null;
    this.setSkip(false);
    for (const s of [...this.screens, ...this.fading]) s.remove();
    this.screens.clear();
    this.fading.clear();
  }

  /** Skip everything being shown: waits end now, animations jump to their end. */
  skip() {
    if (this.skipping) return;
    this.setSkip(true);
    if (this.pace) this.pace.skipped = true;
    for (const s of this.screens) s.dataset.skipped = "1";
    const root = this.o.host;
    for (const a of root.getAnimations?.({ subtree: true }) || []) {
      const timing = a.effect?.getComputedTiming?.();
      if (timing && Number.isFinite(timing.endTime)) {
        try {
          a.finish();
        } catch {
          /* an animation that cannot finish (already cancelled) is left alone */
        }
      }
    }
  }

  setSkip(on) {
    this.skipping = on;
    setSkipping(on);
    this.o.host.dataset.skipping = on ? "1" : "0";
  }

  /** Count-ups started on this screen (the browser tests read it: none for a plain return). */
  noteCountUp() {
    this.o.host.dataset.countups = String(Number(this.o.host.dataset.countups || 0) + 1);
  }

  // -- screens ---------------------------------------------------------------------------

  /** Put a full-stage screen up; resolves after `ms` (scaled), or at once when skipped. */
  async showScreen(el, ms) {
    this.o.host.append(el);
    this.screens.add(el);
    el.addEventListener("click", () => this.o.onSkip?.());
    try {
      if (!this.skipping) await wait(reducedMotion() ? Math.min(ms, 900) : ms);
    } finally {
      el.classList.add("pres-screen--out");
      this.screens.delete(el);
      if (reducedMotion() || this.skipping) el.remove();
      else {
        // Fades out, unless the round ends first: end() takes it at once, before the
        // balance moves, so no screen of the round is up beside the final figure.
        this.fading.add(el);
        setTimeout(() => {
          this.fading.delete(el);
          el.remove();
        }, 250);
      }
    }
  }

  /** A feature starts: free spins, Lock & Spin, Ice Diamonds, the Disco, a minigame. */
  async intro({ title, sub = "", kind = "feature", testid = "feature-intro", ms = 2000 }) {
    if (this.skipping) return;
    this.o.sound?.play("feature");
    const el = h("div.pres-screen.pres-screen--intro", { dataset: { kind }, "data-testid": testid, role: "status", "aria-live": "assertive" },
      h("div.pres-screen__glow"),
      h("div.pres-screen__title", title), sub ? h("div.pres-screen__sub", sub) : null, hints());
    this.o.host.dataset.lastIntro = title;
    await this.showScreen(el, ms);
  }

  /**
   * A feature ends with `amount` won in it.  When the round's win reaches a tier, the tier
   * screen at the round's end shows it instead (named after the feature).
   */
  async total({ title, amount, sub = "", kind = "feature", testid = "feature-total", ms = 1500 }) {
    const round = this.round;
    if (round?.status === "complete" && this.tier(round)) {
      this.featureName = title;
      return;
    }
    if (this.skipping) return;
    const stake = this.stakeOf(round);
    const happy = amount > stake;
    const value = h("div.pres-screen__amount", { "data-testid": "feature-total-amount" }, this.o.format(happy ? 0 : amount));
    const el = h("div.pres-screen.pres-screen--total", {
      dataset: { kind, celebrated: happy ? "1" : "0" }, "data-testid": testid, role: "status", "aria-live": "assertive",
    }, h("div.pres-screen__glow"), h("div.pres-screen__title", title), sub ? h("div.pres-screen__sub", sub) : null,
    h("div.pres-screen__sub", happy ? t(TEXT.total) : TEXT.returned(this.o.format(amount), this.o.format(stake))), value, hints());
    this.o.host.dataset.lastTotal = String(amount);
    if (happy) {
      this.o.sound?.play("win");
      this.noteCountUp();
      const shown = this.showScreen(el, ms + meterMs(amount, stake));
      await countUp(value, 0, amount, meterMs(amount, stake), this.o.format);
      await shown;
    } else {
      await this.showScreen(el, ms);
    }
  }

  /** The round is over: its tier screen, counting up to the win, when it reaches one. */
  async celebrate(round) {
    const tier = this.tier(round);
    this.o.host.dataset.lastTier = tier || "";
    if (!tier || this.skipping) return;
    const stake = this.stakeOf(round);
    const tiers = this.tiers;
    const title = h("div.pres-screen__title", t(TEXT.tiers.big));
    const value = h("div.pres-screen__amount", { "data-testid": "win-tier-amount" }, this.o.format(0));
    const el = h("div.pres-screen.pres-screen--tier", {
      dataset: { tier, shown: "big" }, "data-testid": "win-tier", role: "status", "aria-live": "assertive",
    }, h("div.pres-screen__rays"), title,
    this.featureName ? h("div.pres-screen__sub", this.featureName) : null, value, hints());
    this.o.sound?.play("bigwin", { tier });
    this.noteCountUp();
    // The title climbs Big -> Mega -> Epic as the count passes each multiple.
    const fmt = (v) => {
      const now = tierFor(v, stake, tiers) || "big";
      if (el.dataset.shown !== now) {
        el.dataset.shown = now;
        title.textContent = t(TEXT.tiers[now]);
      }
      return this.o.format(v);
    };
    const ms = tierMs(round.win, stake, tiers);
    const shown = this.showScreen(el, ms + 1000);
    await countUp(value, 0, round.win, ms, fmt);
    fmt(round.win);
    await shown;
  }
}

/**
 * Anticipation: the extra wait (ms) before each reel lands, once `need - 1` trigger symbols
 * have landed on the reels before it (the feature is one symbol away).  `columns`: the
 * symbols of each reel in landing order; `isTrigger(code)`.
 */
export function anticipation(columns, isTrigger, need, ms = 700) {
  const extra = reducedMotion() ? Math.min(ms, 250) : ms;
  const delays = [];
  let seen = 0;
  for (const col of columns) {
    delays.push(seen >= need - 1 ? extra : 0);
    seen += col.filter(isTrigger).length;
  }
  return delays;
}

/**
 * The top bar's balance and net position while a round is presented: the balance before the
 * round less its stake (the net position likewise), until the presentation ends (or is
 * skipped, or broken off), when both show the win.  The app keeps the real balance
 * (`app.balance`, from the server's replies); only what the top bar shows is held.
 */
export class BalanceHold {
  constructor(app) {
    this.app = app;
    this.held = null;
    this.before = null; // the balance before the round: the net position moves as it does
  }

  /** A reply's balance already holds the win of a round that completed.  `before`: the
   *  balance the round started from (null: a restored round, already staked). */
  hold(reply, before = null) {
    const round = reply.round;
    if (this.held === null) this.before = before ?? reply.balance;
    this.held = reply.balance - (round?.status === "complete" ? round.win : 0);
    this.app.protection?.holdNet(this.held - this.before);
    const el = document.getElementById("balance");
    if (!el) return;
    el.textContent = formatMoney(this.held, this.app.currency);
    el.dataset.held = "1";
    el.dataset.minor = String(this.held);
  }

  release() {
    if (this.held === null) return;
    this.held = null;
    const el = document.getElementById("balance");
    if (el) {
      delete el.dataset.held;
      delete el.dataset.minor;
    }
    if (this.app.balance !== null) {
      this.app.protection?.holdNet(this.app.balance - this.before);
      this.app.setBalance(this.app.balance);
    }
  }
}

/**
 * The win meter: gold, and counting up for a time that grows with the win, only while the
 * round returns more than its stake; a smaller return shows at once as a plain "Return".
 * `root` (the game screen) carries the look: game--won / game--returned.
 */
export class WinMeter {
  constructor(pres, format) {
    this.pres = pres;
    this.format = format;
    this.shown = 0;
    this.root = null;
    this.value = h("span.winmeter__value", { "data-testid": "win" }, format(0));
    this.label = h("span.winmeter__label", t(TEXT.winLabel));
    this.el = h("div.winmeter", this.label, this.value);
  }

  mark(minor, round) {
    const won = minor > 0 && this.pres.celebrated(round);
    this.root?.classList.toggle("game--won", won);
    this.root?.classList.toggle("game--returned", minor > 0 && !won);
    this.label.textContent = minor > 0 && !won ? t(TEXT.returnLabel) : t(TEXT.winLabel);
  }

  set(minor, round) {
    this.shown = minor;
    this.value.textContent = this.format(minor);
    this.mark(minor, round);
  }

  /** `minor` more paid in `round`; resolves when the meter shows it.  It counts for as long
   *  as what it adds is worth (a feature's spin: that spin's win, not the feature's so far),
   *  at most 1 s after the first win: the feature's total screen counts the whole. */
  add(minor, round) {
    const from = this.shown;
    const to = from + minor;
    this.shown = to;
    this.mark(to, round);
    const ms = this.pres.celebrated(round) ? Math.min(from > 0 ? 1000 : 2500, meterMs(minor, this.pres.stakeOf(round))) : 0;
    if (!ms || this.pres.skipping) {
      this.value.textContent = this.format(to);
      return Promise.resolve();
    }
    this.pres.noteCountUp();
    this.el.classList.add("winmeter--counting");
    return countUp(this.value, from, to, ms, this.format).finally(() => this.el.classList.remove("winmeter--counting"));
  }
}
