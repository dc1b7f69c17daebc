// Los 3 Pinguinos, the upper game's rounds shown: the reels landing, the winning lines with
// their prizes, the vertical lines and the accumulator filling, the mixed sevens rolling on the
// alpha display (the marquee), the minigames, Double or Bonuses, the payments, the WINNING
// SPIN and the end of the round; at once (instant) for a reload or a recall picture.  The
// upper game (./pinguinos-upper.js) extends this class.

import { t, tk } from "../../i18n.js";
import { countUp, h, wait } from "../../ui.js";
import { featureIntro, featureTotal } from "../../renderers/common.js";
import { minigameName } from "./pinguinos-minigames.js";

export class UpperShow {
  // -- the round -----------------------------------------------------------------------------

  reset() {
    this.closeDecision();
    this.clearWins();
    this.hideStage();
    this.double.clear();
    this.lamps.querySelectorAll(".l3pu-lamp").forEach((l) => l.classList.remove("is-on"));
    this.inRound = false;
    this.showLines(this.m.vlines > 0 ? 8 : 5);
    delete this.m.el.dataset.upperResult;
  }

  startSpin() {
    this.reset();
    this.inRound = true;
    this.m.setPhase("spin");
    this.m.setPrize(0);
    this.m.setMessage(t("GOOD LUCK!"), this.betLabel(this.bet()));
    this.reels.forEach((r, i) => r.spin(i * 70));
    this.ctx.sound?.play("spin");
  }

  abortSpin() {
    this.reels.forEach((r) => r.place(r.stop));
    this.inRound = false;
    this.m.setPhase("idle");
    this.idleMessage();
  }

  /** What the marquee says between games: PRESS PLAY, or why no game can be played here. */
  idleMessage() {
    if (this.bets.some((b) => this.covered(b))) this.m.setMessage(t("UPPER GAME"), t("{bet} · PRESS PLAY", { bet: this.betLabel(this.bet()) }));
    else this.m.setMessage(t("NOT ENOUGH BONUSES"), t("CHANGE GAME: win Bonuses in the lower game"));
  }

  async restore(round) {
    this.reset();
    await this.present(round.events, round, { instant: true });
  }

  paidIn(events) {
    return events.filter((e) => e.type === "paid").reduce((s, e) => s + e.cents, 0);
  }

  async present(events, round, opts = {}) {
    const instant = Boolean(opts.instant);
    this.round = round;
    this.inRound = true;
    this.m.presenting = true;
    const start = events.find((e) => e.type === "upper_start");
    if (start) this.selectStake(start.bet_value);
    else if (round?.state?.bet_value) this.selectStake(round.state.bet_value);
    // BALANCE: what the server holds, less a win not yet shown, plus what earlier steps paid.
    const balance = this.ctx.balance?.();
    const all = round?.events || events;
    const before = this.paidIn(all.slice(0, Math.max(0, all.length - events.length)));
    if (balance !== null && balance !== undefined) {
      this.shownBalance = balance - (round?.status === "complete" ? round.win : 0) + before;
      this.m.setBalanceDisplay(this.shownBalance);
    } else this.shownBalance = null;
    try {
      for (const ev of events) await this.presentEvent(ev, instant, round);
    } finally {
      this.m.presenting = false;
    }
    if (instant) this.summarize(events);
    if (round?.player_state) {
      this.m.touched = true;
      this.m.setBonuses(round.player_state.bonuses ?? this.m.bonuses);
      this.setState(round.player_state);
    }
    if (round?.status === "complete") {
      this.inRound = false;
      this.showLines(this.m.vlines > 0 ? 8 : 5); // armed for the next game
      if (balance !== null && balance !== undefined) this.m.setBalanceDisplay(balance);
    }
    this.reels.forEach((r) => r.spinning && r.place(r.stop));
    this.showWindow();
  }

  selectStake(stake) {
    const i = this.bets.findIndex((b) => b.stake === stake);
    if (i >= 0 && i !== this.index) {
      this.index = i;
      this.refreshBet();
      this.ctx.refreshControls?.();
    }
  }

  showWindow(ev = null) {
    this.window.dataset.window = JSON.stringify(this.reels.map((r) => r.window()));
    this.window.dataset.stops = JSON.stringify(this.reels.map((r) => r.stop));
    if (ev?.window) this.window.dataset.eventWindow = JSON.stringify(ev.window);
  }

  async presentEvent(ev, instant, round) {
    switch (ev.type) {
      case "upper_start":
        this.lines = ev.lines;
        this.showLines(ev.lines);
        this.m.touched = true;
        this.m.setBonuses(ev.bonuses_left, !instant);
        this.setCounter(ev.counter);
        if (!instant) this.m.setMessage(t("GOOD LUCK!"), t("{n} lines · {bet}", { n: ev.lines, bet: this.betLabel(this.bet()) }));
        return undefined;
      case "upper_spin":
        return this.presentSpin(ev, instant);
      case "vertical_lines":
        return this.verticalLines(ev, instant);
      case "accumulator":
        return this.accumulator(ev, instant);
      case "mixed":
        return this.mixed(ev, instant);
      case "minigame_not_offered":
        if (!instant) {
          this.m.setMessage(t("NO {name} THIS TIME", { name: minigameName(ev.minigame).toUpperCase() }), t("The line prize stands"));
          await wait(400);
        }
        return undefined;
      case "minigame_start":
        return this.minigameStart(ev, instant);
      case "minigame_end":
        return this.minigameEnd(ev, instant);
      case "double_start":
        return this.doubleStart(ev, instant);
      case "double_play":
        return this.doublePlay(ev, instant);
      case "double_collect":
        this.double.collect(ev);
        this.m.setPrize(ev.remaining + this.double.state.secured);
        if (!instant) {
          this.ctx.sound?.play("collect");
          this.m.setMessage(t("COLLECTED {cents}", { cents: this.fmt(ev.cents) }), ev.remaining ? t("{remaining} still in play", { remaining: this.fmt(ev.remaining) }) : "");
          await wait(300);
        }
        return undefined;
      case "double_collect_all":
        this.double.collectAll(ev);
        if (!instant) {
          this.ctx.sound?.play("collect");
          this.m.setMessage(ev.reason === "bonus_cap" ? t("BONUS LIMIT REACHED") : t("COLLECT ALL"), t("{cents} collected", { cents: this.fmt(ev.cents) }));
          await wait(300);
        }
        return undefined;
      case "paid":
        return this.paid(ev, instant);
      case "winning_spin":
        return this.winningSpin(ev, instant);
      case "no_prize":
        this.m.el.dataset.upperResult = "none";
        if (!instant) this.m.setMessage(t("NO PRIZE"), ev.game === "winning" ? "" : t("Press PLAY"));
        return undefined;
      case "round_end":
        return this.roundEnd(ev, instant, round);
      default:
        return undefined;
    }
  }

  async presentSpin(ev, instant) {
    this.clearWins();
    this.hideStage();
    this.m.setPhase("spin");
    const winning = ev.game === "winning";
    this.lamps.querySelector("[data-lamp=winning]").classList.toggle("is-on", winning);
    this.showLines(ev.lines);
    if (instant) {
      ev.stops.forEach((s, r) => this.reels[r].place(s));
    } else {
      if (winning) this.m.setMessage(t("WINNING SPIN"), ev.tries > 1 ? t("Until it pays: {n} spins", { n: ev.tries }) : "");
      this.reels.forEach((r, i) => !r.spinning && r.spin(i * 60));
      await Promise.all(this.reels.map((r, i) => wait(380 + i * 240).then(() => r.land(ev.stops[i]))));
    }
    this.showWindow(ev);
    const total = ev.wins.reduce((s, w) => s + w.cents, 0);
    this.showWins(ev.wins);
    this.m.el.dataset.upperResult = ev.wins.length ? "win" : "none";
    if (!ev.wins.length) return;
    if (instant) {
      this.m.setPrize(total);
      return;
    }
    this.ctx.sound?.play(total >= 20 * this.bet().stake ? "bigwin" : "win");
    const first = ev.wins[0];
    const what = first.symbol === "mixed" ? t("mixed sevens") : `3 × ${this.symbolName(first.symbol)}`;
    this.m.setMessage(t("LINE {lines}: {total}", { lines: ev.wins.map((w) => w.line).join(" + "), total: this.fmt(total) }),
      ev.wins.length > 1 ? t("{n} winning lines", { n: ev.wins.length }) : `${what}${first.cents ? ` ${this.fmt(first.cents)}` : ""}`);
    await this.m.countPrize(total);
    await wait(350);
  }

  clearWins() {
    this.lineEls.forEach((el) => el.classList.remove("is-win"));
    this.window.querySelectorAll(".l3pu-badge.is-win").forEach((b) => b.classList.remove("is-win"));
    this.payRows.forEach((r) => r.el.classList.remove("is-hit"));
    this.mixedRow.classList.remove("is-hit");
    this.cellLayer.replaceChildren();
    this.tags.replaceChildren();
    delete this.window.dataset.wins;
  }

  /** Each winning line lit, its cells framed, its prize on a tag in the middle of it. */
  showWins(wins) {
    const lines = this.info.lines || [];
    const cells = (n) => (n <= lines.length ? lines[n - 1].map((row, r) => [r, row]) : [0, 1, 2].map((row) => [n - lines.length - 1, row]));
    const seen = {};
    const frames = [];
    for (const w of wins) {
      this.lineEls[w.line - 1]?.classList.add("is-win");
      this.window.querySelectorAll(`.l3pu-badge[data-line="${w.line}"]`).forEach((b) => b.classList.add("is-win"));
      (w.symbol === "mixed" ? this.mixedRow : this.payRows.find((r) => r.code === w.symbol)?.el)?.classList.add("is-hit");
      for (const [r, row] of cells(w.line)) frames.push(`<rect x="${r * 100 + 4}" y="${row * 100 + 4}" width="92" height="92" rx="10"/>`);
      const [r, row] = cells(w.line)[1];
      const key = `${r}:${row}`;
      const k = (seen[key] = (seen[key] ?? -1) + 1);
      this.tags.append(h("span.l3pu-tag", {
        dataset: { line: String(w.line) }, "data-testid": `win-tag-${w.line}`,
        style: { left: `${((r + 0.5) / 3) * 100}%`, top: `calc(${((row + 0.5) / 3) * 100}% + ${k * 1.5}em)` },
      }, `${w.line}: ${w.symbol === "mixed" ? t("MIXED") : this.short(w.cents)}`));
    }
    this.cellLayer.innerHTML = frames.join("");
    this.window.dataset.wins = JSON.stringify(wins.map((w) => w.line));
  }

  async verticalLines(ev, instant) {
    this.m.touched = true;
    if (instant) {
      this.setCounter(ev.counter);
      return;
    }
    this.ctx.sound?.play("feature");
    this.m.setMessage(t("VERTICAL LINES +{gained}", { gained: ev.gained }), t("Counter {counter}", { counter: ev.counter }));
    for (let n = ev.before + 1; n <= ev.counter; n++) {
      this.setCounter(n, true);
      await wait(160);
    }
    this.setCounter(ev.counter, true);
  }

  async accumulator(ev, instant) {
    const key = String(ev.bet_value);
    this.accumulators[key] = ev.full ? 0 : ev.pieces;
    if (instant) {
      this.showAccumulator(ev.full ? ev.pieces : ev.pieces);
      if (ev.full) this.lamps.querySelector("[data-lamp=winning]").classList.add("is-on");
      return;
    }
    this.ctx.sound?.play("feature");
    this.m.setMessage(t("ACCUMULATOR +{gained}", { gained: ev.gained }), t("{pieces} of {n} pieces", { pieces: ev.pieces, n: this.info.accumulator_pieces || 8 }));
    for (let n = ev.before + 1; n <= ev.pieces; n++) {
      this.showAccumulator(n);
      this.m.pulse(this.acc);
      await wait(200);
    }
    if (ev.full) {
      this.acc.classList.add("is-full");
      this.lamps.querySelector("[data-lamp=winning]").classList.add("is-on");
      this.m.setMessage(t("ACCUMULATOR FULL!"), t("A WINNING SPIN follows this game"));
      this.ctx.sound?.play("bigwin");
      await wait(700);
    }
  }

  /** Mixed sevens: the prize rolls on the alpha display (the marquee) and stops on the draw. */
  async mixed(ev, instant) {
    const lamp = this.lamps.querySelector("[data-lamp=mixed]");
    lamp.classList.add("is-on");
    this.m.setPrize(this.m.prizeShown + ev.cents);
    if (instant) return;
    const table = this.bet().mixed || [ev.cents];
    this.ctx.sound?.play("feature");
    for (let k = 0; k < 10; k++) {
      this.m.setMessage(t("MIXED SEVENS"), this.fmt(table[(k * 3) % table.length]));
      await wait(90);
    }
    this.ctx.sound?.play("win");
    this.m.setMessage(t("MIXED SEVENS {prize}", { prize: this.fmt(ev.cents) }), "");
    await wait(500);
  }

  // -- minigames ---------------------------------------------------------------------------

  hideStage() {
    this.stage.hidden = true;
    delete this.stage.dataset.kind;
    this.stage.querySelectorAll(".l3pm").forEach((el) => el.remove());
    this.view = null;
  }

  async minigameStart(ev, instant) {
    const view = this.minigames[ev.minigame];
    this.view = view;
    this.minigameEvent = ev;
    this.minigameResult = null;
    this.m.setPhase(ev.minigame);
    this.lamps.querySelector(`[data-lamp=${ev.minigame}]`)?.classList.add("is-on");
    view.show(ev.minigame === "roulette" ? this.multiplier() : ev, instant);
    this.stage.querySelectorAll(".l3pm").forEach((el) => el.remove());
    this.stage.append(view.el);
    this.stage.dataset.kind = ev.minigame;
    this.stage.hidden = false;
    const name = minigameName(ev.minigame).toUpperCase();
    this.stageTitle.textContent = t("{name} · at least {min}", { name, min: this.short(Math.max(this.bet().minigame_floor, ev.replaces)) });
    this.stageHint.textContent = ev.minigame === "slides" ? t("Pick a platform · ← → and PLAY") : ev.minigame === "roulette" ? t("PLAY spins the wheel") : t("PLAY: the penguins fish");
    this.m.setPrize(0);
    if (instant) return;
    await featureIntro(this.ctx, this.m.fx, { title: t("{name}!", { name }), sub: t("Replaces the line prize of {prize}", { prize: this.fmt(ev.replaces) }), kind: ev.minigame, testid: `banner-${ev.minigame}` });
    if (ev.minigame === "slides") await view.shuffle();
    if (this.ctx.autoplayRunning?.()) {
      this.stageHint.textContent = t("AUTO-PLAY: it plays itself");
      await wait(1200); // the minigame plays itself after a short delay
    } else {
      this.m.setMessage(name, ev.minigame === "slides" ? t("Pick a platform") : t("Press PLAY"));
    }
  }

  async minigameEnd(ev, instant) {
    const view = this.view || this.minigames[ev.minigame];
    if (!this.view) await this.minigameStart({ minigame: ev.minigame, replaces: 0, platforms: ev.order?.map(() => 0) || [] }, true);
    this.stageHint.textContent = "";
    this.minigameResult = ev;
    await view.play(ev, instant);
    this.m.el.dataset.minigamePrize = String(ev.prize);
    if (instant) {
      this.m.setPrize(ev.prize);
      return;
    }
    const why = ev.prize > ev.result ? tk("Prize {prize} (at least {prize})") : ev.prize < ev.result ? tk("Prize {prize} (the bet's maximum)") : tk("Prize {prize}");
    this.m.setMessage(`${minigameName(ev.minigame).toUpperCase()} ${this.fmt(ev.result)}`, t(why, { prize: this.fmt(ev.prize) }));
    await this.m.countPrize(ev.prize);
    await wait(700);
    await featureTotal(this.ctx, this.m.fx, { title: minigameName(ev.minigame), amount: ev.prize, kind: ev.minigame, testid: `banner-${ev.minigame}-total` });
  }

  pickPlatform(i) {
    if (this.dec?.phase !== "slides" || !this.view?.el.dataset.ready) return;
    this.view.setCursor(i);
    this.take("pick", i);
  }

  // -- Double-or-Bonuses ---------------------------------------------------------------------

  async doubleStart(ev, instant) {
    this.m.setPhase("double"); // a minigame's result stays in view until the next game
    this.double.start(ev);
    this.m.setPrize(ev.prize);
    if (instant) return;
    this.ctx.sound?.play("feature");
    this.m.setMessage(t("DOUBLE OR BONUSES {prize}", { prize: this.fmt(ev.prize) }), this.doubleSub());
  }

  doubleSub() {
    const st = this.double.state;
    const frac = st?.parts[st.index];
    if (frac === undefined) return "";
    return t("PLAY: {double} or {bonuses} · COLLECT {fraction} · hold: all", { double: this.fmt(2 * frac), bonuses: this.double.bonusText(frac), fraction: this.fmt(frac) });
  }

  async doublePlay(ev, instant) {
    this.double.play(ev);
    if (ev.result === "bonuses") {
      this.m.touched = true;
      this.m.setBonuses(ev.balance, !instant);
    }
    this.m.setPrize(this.double.state.secured + ev.remaining);
    if (instant) return;
    if (ev.result === "double") {
      this.ctx.sound?.play("win");
      this.m.setMessage(ev.maximum ? t("MAXIMUM PRIZE!") : t("DOUBLE! {cents}", { cents: this.fmt(ev.cents) }), ev.remaining ? this.doubleSub() : "");
    } else {
      this.ctx.sound?.play("diamond");
      const from = this.fmt(ev.from_cents);
      this.m.setMessage(t("{n} BONUSES", { n: ev.bonuses }), ev.remaining ? t("{from} turned into Bonuses · {next}", { from, next: this.doubleSub() }) : t("{from} turned into Bonuses", { from }));
    }
    await wait(450);
  }

  async paid(ev, instant) {
    this.double.paid(ev);
    this.m.setPrize(ev.cents);
    if (this.shownBalance !== null && this.shownBalance !== undefined) {
      const from = this.shownBalance;
      this.shownBalance += ev.cents;
      if (instant) this.m.setBalanceDisplay(this.shownBalance);
      else await countUp(this.m.balanceLed.value, from, this.shownBalance, 500, (v) => this.fmt(v));
      this.m.balanceLed.value.dataset.minor = String(this.shownBalance);
    }
    if (instant) return;
    const how = { maximum: tk("MAXIMUM PRIZE {cents}"), bonus_cap: tk("BONUS LIMIT: PAID {cents}") }[ev.how] || tk("PAID {cents}");
    this.ctx.sound?.play("win");
    this.m.setMessage(t(how, { cents: this.fmt(ev.cents) }), ev.game === "winning" ? t("Winning spin") : "");
    await wait(400);
  }

  async winningSpin(ev, instant) {
    this.double.clear();
    this.clearWins();
    this.lamps.querySelectorAll(".l3pu-lamp").forEach((l) => l.classList.toggle("is-on", l.dataset.lamp === "winning"));
    this.acc.classList.remove("is-full");
    this.showAccumulator(0);
    this.m.el.dataset.winningSpin = "1";
    if (instant) return;
    await featureIntro(this.ctx, this.m.fx, { title: t("WINNING SPIN"), sub: t("The accumulator of {bet} pays", { bet: this.betLabel(this.bet()) }), kind: "winning-spin", testid: "banner-winning-spin" });
  }

  async roundEnd(ev, instant, round) {
    this.m.setPhase("done");
    this.inRound = false;
    this.m.setPrize(ev.win);
    this.m.el.dataset.roundWin = String(ev.win);
    this.m.el.dataset.bonusesWon = String(ev.bonuses_won);
    if (instant) return;
    if (ev.win > 0) this.m.setMessage(t("YOU WIN {win}", { win: this.fmt(ev.win) }), ev.bonuses_won ? t("and {n} Bonuses", { n: ev.bonuses_won }) : t("Press PLAY"));
    else if (ev.bonuses_won > 0) this.m.setMessage(t("{n} BONUSES WON", { n: ev.bonuses_won }), t("Press PLAY"));
  }

  summarize(events) {
    const end = events.find((e) => e.type === "round_end");
    const phase = this.m.el.dataset.phase;
    if (end) {
      if (end.win > 0) this.m.setMessage(t("YOU WIN {win}", { win: this.fmt(end.win) }), end.bonuses_won ? t("and {n} Bonuses", { n: end.bonuses_won }) : "");
      else if (end.bonuses_won > 0) this.m.setMessage(t("{n} BONUSES WON", { n: end.bonuses_won }), "");
      else this.m.setMessage(t("NO PRIZE"), "");
    } else if (phase === "double") {
      this.m.setMessage(t("DOUBLE OR BONUSES"), this.doubleSub());
    } else if (this.view) {
      this.m.setMessage(minigameName(this.view.kind).toUpperCase(), this.view.kind === "slides" ? t("Pick a platform") : t("Press PLAY"));
    }
  }
}
