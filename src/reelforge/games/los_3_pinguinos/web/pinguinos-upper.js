// Los 3 Pinguinos, the upper game (mode "upper"), drawn inside the same cabinet as the lower
// game (./index.js, which switches to it on CHANGE GAME): three reels in a 3 × 3
// window with the five paylines drawn and the three vertical lines lit while the shared
// counter is above zero, the accumulator of the chosen bet (8 pieces), the paytable of the
// chosen bet (mixed sevens only where the bet has them), the six bets (cash + Bonuses), the
// minigames (./pinguinos-minigames.js) and the Double-or-Bonuses (./pinguinos-double.js).
//
// The MESSAGE marquee, the PRIZE / BONUSES / BALANCE displays and the button deck are the
// lower game's, shared.  Decisions: PLAY spins the wheel, sends the penguins fishing, takes
// the platform under the cursor (the first unless moved) or plays a fraction; COLLECT takes
// one fraction and, held, the whole prize; AUTO-RISK plays every fraction.

import { t, tk } from "../../i18n.js";
import { h } from "../../ui.js";
import { cheapestUpperBet } from "./pinguinos-cabinet.js";
import { BetOffer } from "./pinguinos-bet-offer.js";
import { shortMoney } from "./pinguinos-minigames.js";
import { buildBoard, describeUpper, upperPaytable } from "./pinguinos-upper-board.js";
import { UpperShow } from "./pinguinos-upper-show.js";

export { upperRules } from "./pinguinos-upper-board.js";

/** Events only an upper round has: a batch with one of them is the upper game's. */
const UPPER_TYPES = new Set(["upper_start", "upper_spin", "accumulator", "mixed", "minigame_start",
  "minigame_end", "minigame_not_offered", "double_start", "double_play", "double_collect",
  "double_collect_all", "paid", "winning_spin"]);
export const isUpper = (events) => (events || []).some((e) => UPPER_TYPES.has(e.type));

const HOLD_MS = 650; // COLLECT held this long (real time) collects the whole prize
// Before the first upper game: stops whose 3 × 3 window pays on no line and shows no two
// feature symbols together (stop 0 everywhere would show three Cherries on the middle line).
const IDLE_STOPS = [7, 3, 2];
const BET_KEY = "reelforge.l3p.upper-bet";
// The symbol names the server sends (data/upper.toml's [symbols]): these are translated.
const SYMBOL_NAMES = new Set([tk("Cherries"), tk("Lemon"), tk("Plum"), tk("Bell"), tk("Red seven"), tk("Blue seven"),
  tk("Green seven"), tk("Ice Cube (Roulette)"), tk("Cocktail (Fishing)"), tk("Touch Disc (Slides)"),
  tk("Accumulator piece"), tk("Vertical lines")]);

export class UpperGame extends UpperShow {
  constructor(m) {
    super();
    this.m = m; // the machine (the lower game's renderer): marquee, displays, deck
    this.ctx = m.ctx;
    this.game = m.game;
    this.info = m.game.upper || {};
    this.bets = this.enabledBets();
    const saved = Number(localStorage.getItem(BET_KEY));
    this.index = Math.max(0, this.bets.findIndex((b) => b.stake === saved));
    this.accumulators = {};
    this.lines = 5; // the lines of the game on the reels
    this.dec = null;
    this.choosers = {};
    this.holdTimer = null;
    this.swallowClick = false;
    this.offer = new BetOffer(this); // a refused bet's alternatives
    buildBoard(this);
    this.reels.forEach((r, i) => r.place((IDLE_STOPS[i] ?? 0) % Math.max(1, r.codes.length)));
    this.refreshBet();
  }

  enabledBets() {
    const all = this.info.bets || [];
    const listed = this.game.bet_levels_by_mode?.upper;
    if (Array.isArray(listed)) {
      const on = new Set(listed.map((l) => l.stake));
      return all.filter((b) => on.has(b.stake));
    }
    const off = new Set(this.game.bets_disabled_by_mode?.upper || []);
    return all.filter((b) => !off.has(b.stake));
  }

  // -- helpers -----------------------------------------------------------------------------

  speed() {
    return this.m.speed();
  }

  symbolName(code) {
    const name = this.info.symbols?.[code] || code;
    return SYMBOL_NAMES.has(name) ? t(name) : name;
  }

  bet() {
    return this.bets[this.index] || this.info.bets?.[0] || { stake: 0, cash: 0, bonuses: 0, multiplier: 1, fraction: 1, max_prize: 0, minigame_floor: 0, mixed: [] };
  }

  multiplier() {
    return this.bet().multiplier || 1;
  }

  fmt(cents) {
    return this.ctx.format(cents);
  }

  short(cents) {
    return shortMoney(this.ctx.format, cents);
  }

  betLabel(b) {
    return t("{cash} + {n} Bonuses", { cash: this.short(b.cash), n: b.bonuses });
  }

  labelFor(stake) {
    const b = (this.info.bets || []).find((x) => x.stake === stake);
    return b ? this.betLabel(b) : this.fmt(stake);
  }

  covered(b) {
    const balance = this.ctx.balance?.();
    return this.m.bonuses >= b.bonuses && (balance === null || balance === undefined || balance >= b.cash);
  }

  /** The Bonuses the cheapest upper bet on offer takes (null: none is offered). */
  lowestBonuses() {
    return cheapestUpperBet(this)?.bonuses ?? null;
  }

  // -- the bet -----------------------------------------------------------------------------

  /** Choose bet `i`: refused (and said why) when cash or Bonuses do not cover it. */
  setBet(i, loud = false) {
    const b = this.bets[i];
    if (!b || this.m.ctx.busy?.()) return false;
    if (!this.covered(b)) {
      if (loud) this.refuse(b);
      return false;
    }
    this.index = i;
    localStorage.setItem(BET_KEY, String(b.stake));
    this.ctx.sound?.play("click");
    this.refreshBet();
    this.ctx.refreshControls?.();
    return true;
  }

  /** The next bet the machine covers (↑ or .). */
  nextBet() {
    for (let k = 1; k <= this.bets.length; k++) {
      const i = (this.index + k) % this.bets.length;
      if (this.covered(this.bets[i])) return this.setBet(i);
    }
    return false;
  }

  /** On entering: the chosen bet if covered, else the largest covered one below it, else the lowest. */
  fitBet() {
    if (this.covered(this.bet())) return;
    for (let i = this.index - 1; i >= 0; i--) {
      if (this.covered(this.bets[i])) {
        this.index = i;
        break;
      }
    }
    this.refreshBet();
  }

  refuse(b) {
    const balance = this.ctx.balance?.();
    if (this.m.bonuses < b.bonuses) {
      this.m.setMessage(t("NOT ENOUGH BONUSES"), t("{bet} · the machine holds {n} Bonuses", { bet: this.betLabel(b), n: this.m.bonuses }));
    } else if (balance !== null && balance !== undefined && balance < b.cash) {
      this.m.setMessage(t("INSUFFICIENT BALANCE"), t("{bet} takes {cash}", { bet: this.betLabel(b), cash: this.fmt(b.cash) }));
    }
    this.m.el.dataset.refused = "bet";
    this.ctx.sound?.play("error");
    this.offer.show(b); // no dead end: the cheaper bets covered, or back to the lower game
  }

  refreshBet() {
    const b = this.bet();
    const m = b.multiplier || 1;
    this.payTitle.textContent = t("Prizes at {bet}", { bet: this.betLabel(b) });
    this.payRows.forEach((r) => {
      r.value.textContent = this.short((this.info.pays[r.code] || 0) * m);
      r.value.dataset.cents = String((this.info.pays[r.code] || 0) * m);
    });
    const mixed = b.mixed || [];
    this.mixedRow.hidden = !mixed.length;
    this.mixedValue.textContent = mixed.length ? `${this.short(Math.min(...mixed))}–${this.short(Math.max(...mixed))}` : "";
    this.payFoot.replaceChildren(
      h("span", t("Minigames {min}–{max}", { min: this.short(b.minigame_floor), max: this.short(b.max_prize) })),
      h("span", t("Double: fractions of {fraction}", { fraction: this.short(b.fraction) })),
      h("span", t("Maximum {max}", { max: this.short(b.max_prize) })));
    this.chips.forEach((c) => c.classList.toggle("is-on", Number(c.dataset.stake) === b.stake));
    this.m.el.dataset.upperBet = String(b.stake);
    this.showAccumulator();
    this.m.pulse(this.pay, "l3p-pay--lit");
  }

  /** The control bar's bet (the game screen's hook while the upper game is on). */
  betChoice() {
    return {
      labels: this.bets.map((b) => this.betLabel(b)),
      index: this.index,
      set: (i) => this.setBet(i, true),
    };
  }

  /** The next round's request, or false after saying why it cannot be played. */
  request() {
    const b = this.bets[this.index];
    if (!b) {
      this.m.setMessage(t("NO UPPER BET"), t("The operator offers none"));
      return false;
    }
    if (!this.covered(b)) {
      this.refuse(b);
      return false;
    }
    return { stake: b.stake, mode: "upper", cost: b.cash };
  }

  controlsChanged({ locked }) {
    this.chips.forEach((c, i) => {
      const b = this.bets[i];
      const ok = this.covered(b);
      c.disabled = locked || !ok;
      c.classList.toggle("is-short", !ok);
    });
  }

  // -- the machine's state -------------------------------------------------------------------

  setState(state) {
    if (!state) return;
    this.accumulators = { ...(state.accumulators || {}) };
    this.showAccumulator();
    this.setCounter(state.vertical_lines ?? 0);
  }

  showAccumulator(pieces = null) {
    const b = this.bet();
    const n = pieces ?? Number(this.accumulators[String(b.stake)] || 0);
    this.acc.dataset.pieces = String(n);
    this.acc.dataset.bet = String(b.stake);
    this.accRing.querySelectorAll(".l3pu-acc__piece").forEach((p) => p.classList.toggle("is-on", Number(p.dataset.n) <= n));
    this.accCount.textContent = `${n} / ${this.info.accumulator_pieces || 8}`;
    this.accBet.textContent = this.betLabel(b);
  }

  setCounter(n, flash = false) {
    this.vl.dataset.counter = String(n);
    this.vlDigit.textContent = String(n);
    this.vlPips.forEach((p) => p.classList.toggle("is-on", Number(p.dataset.n) <= n));
    if (flash) this.m.pulse(this.vl);
    if (this.m.vlines !== n) this.m.setVlines(n);
    if (!this.inRound) this.showLines(n > 0 ? 8 : 5);
  }

  /** The paylines of the game: the vertical ones lit with 8. */
  showLines(n) {
    this.window.dataset.lines = String(n);
    this.vlLamp.classList.toggle("is-on", n === 8);
    this.lineEls.forEach((el) => el.classList.toggle("is-off", Number(el.dataset.line) > n));
  }

  // -- decisions -----------------------------------------------------------------------------

  decision(spec, round, choose) {
    this.choosers[spec.name] = choose;
    if (!this.dec) this.openDecision(round);
    return {
      primary: () => {
        this.primary();
        return true;
      },
      destroy: () => this.closeDecision(),
    };
  }

  openDecision(round) {
    const phase = round.state?.phase;
    this.dec = { phase, round, timers: [] };
    this.m.setPhase(phase);
    this.m.el.dataset.decision = phase;
    this.m.el.dataset.step = String(round.step);
    this.m.collectBtn.disabled = phase !== "double";
    if (phase === "slides" && this.view?.kind === "slides") {
      if (!this.view.el.dataset.ready) this.view.hide();
      this.m.setMessage(t("SLIDES"), t("Pick a platform: tap it, or ← → and PLAY"));
    }
    if (phase === "double") this.m.setMessage(t("DOUBLE OR BONUSES {prize}", { prize: this.fmt(this.m.prizeShown) }), this.doubleSub());
    this.maybeAuto();
  }

  closeDecision() {
    if (!this.dec) return;
    this.dec.timers.forEach(clearTimeout);
    this.dec = null;
    this.cancelHold();
    delete this.m.el.dataset.decision;
    this.choosers = {};
    this.m.collectBtn.disabled = true;
  }

  /** AUTO-RISK: every fraction is played. */
  maybeAuto() {
    const d = this.dec;
    if (d?.phase === "double" && this.m.settings.auto_risk) {
      d.timers.push(setTimeout(() => this.dec === d && this.take("play"), 650 * this.speed()));
    }
  }

  take(name, choice = null) {
    const choose = this.choosers[name];
    if (!choose) return false;
    this.ctx.sound?.play("click");
    choose(choice);
    return true;
  }

  primary() {
    const d = this.dec;
    if (!d) return;
    if (d.phase === "roulette") this.take("spin");
    else if (d.phase === "fishing") this.take("fish");
    else if (d.phase === "slides") this.pickPlatform(this.view?.cursor ?? 0);
    else if (d.phase === "double") this.take("play");
  }

  // COLLECT: a tap takes one fraction; held for HOLD_MS it takes the whole prize.
  collectDown() {
    if (this.dec?.phase !== "double" || this.holdTimer) return;
    this.m.collectBtn.classList.add("is-holding");
    this.holdTimer = setTimeout(() => {
      this.holdTimer = null;
      this.m.collectBtn.classList.remove("is-holding");
      this.take("collect_all");
    }, HOLD_MS);
  }

  collectUp() {
    if (!this.holdTimer) return;
    this.cancelHold();
    this.take("collect");
  }

  cancelHold() {
    clearTimeout(this.holdTimer);
    this.holdTimer = null;
    this.m.collectBtn.classList.remove("is-holding");
  }

  /** The machine's keys on the upper screen (section 4.1); true when used. */
  onKey(e) {
    const k = e.key;
    if (this.offer.onKey(e)) return true;
    if (this.ctx.autoplayRunning?.()) {
      if (k === "-") this.ctx.autoplay?.();
      else if (k === "*") this.m.toggleSetting("auto_risk");
      else return false;
      return true;
    }
    switch (k) {
      case "Backspace":
      case "+":
        if (!e.repeat) this.collectDown();
        return true;
      case "*":
        this.m.toggleSetting("auto_risk");
        return true;
      case "-":
        this.m.autoPlay();
        return true;
      case "ArrowLeft":
      case "1":
        if (this.dec?.phase === "slides") this.view.setCursor(this.view.cursor - 1);
        return true;
      case "ArrowRight":
      case "3":
        if (this.dec?.phase === "slides") this.view.setCursor(this.view.cursor + 1);
        return true;
      case "ArrowDown":
      case "2":
        if (this.dec?.phase === "slides") this.pickPlatform(this.view.cursor);
        return true;
      case "ArrowUp":
      case ".":
        if (!this.ctx.busy?.()) this.nextBet();
        return true;
      case "Delete":
      case "/":
      case "=":
        return true; // AUTO (nudges) and the bet keys of the lower game do nothing here
      case " ":
      case "Enter":
        if (k === "Enter" && e.target instanceof HTMLButtonElement && !e.target.matches("[data-testid=spin]")) return false;
        if (this.dec) {
          this.primary();
          return true;
        }
        return false; // PLAY: the game screen starts a game (at this screen's bet)
      default:
        return false;
    }
  }

  onKeyUp(e) {
    if (e.key === "Backspace" || e.key === "+") this.collectUp();
  }

  // -- recall and information ----------------------------------------------------------------

  describe(ev) {
    return describeUpper(this, ev);
  }

  /** What a later step's recall picture needs from this one (see the lower game's snapshot). */
  memory() {
    return {
      stops: this.reels.map((r) => r.stop),
      lines: this.lines,
      bet: this.bet().stake,
      minigame: this.view ? [this.minigameEvent, this.minigameResult].filter(Boolean) : null,
      double: this.double.state && !this.double.el.classList.contains("is-over") ? structuredClone(this.double.state) : null,
      prize: this.m.prizeShown,
    };
  }

  applyMemory(mem) {
    mem.stops.forEach((s, r) => this.reels[r]?.place(s));
    this.selectStake(mem.bet);
    this.showLines(mem.lines);
    this.showWindow();
    if (mem.minigame) {
      const [start, end] = mem.minigame;
      this.minigameStart(start, true);
      if (end) this.minigameEnd(end, true);
    }
    if (mem.double) this.double.restore(mem.double);
    this.m.setPrize(mem.prize || 0);
  }

  paytable() {
    return upperPaytable(this);
  }
}
