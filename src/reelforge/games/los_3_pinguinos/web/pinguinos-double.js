// Los 3 Pinguinos, the upper game's Double-or-Bonuses: the prize split into fractions of the
// bet's `fraction` (the last one may be smaller), one lamp per fraction; the fraction in play
// with what PLAY/ACCUMULATE may make of it (double, or its value in Bonuses); what each
// fraction became (doubled, Bonuses, collected); and the money secured so far, paid when the
// prize is played out.  The decisions are the upper game's (./pinguinos-upper.js).

import { t } from "../../i18n.js";
import { h } from "../../ui.js";
import { wholeMoney } from "./pinguinos-minigames.js";

/** The fractions a prize is played in: `fraction` each, the last one what is left. */
export function fractions(prize, fraction) {
  const out = [];
  for (let left = prize; left > 0; left -= Math.min(fraction, left)) out.push(Math.min(fraction, left));
  return out;
}

export class DoublePanel {
  constructor(u) {
    this.u = u;
    this.now = h("span.l3pd-now__value", { "data-testid": "double-fraction" });
    this.offer = h("span.l3pd-now__offer", { "data-testid": "double-offer" });
    this.pips = h("div.l3pd-pips", { "data-testid": "double-pips" });
    this.secured = h("span.l3pd-secured__value", { "data-testid": "double-secured" });
    this.bonuses = h("span.l3pd-secured__bonuses", { "data-testid": "double-bonuses" });
    this.el = h("div.l3pd", { "data-testid": "double", "aria-live": "polite" },
      h("span.l3pd-title", h("span", t("Double")), h("small", t("or")), h("span", t("Bonuses"))),
      h("div.l3pd-now", h("span.l3pd-now__label", t("Fraction")), this.now, this.offer),
      this.pips,
      h("div.l3pd-secured", h("span.l3pd-now__label", t("Secured")), this.secured, this.bonuses));
    this.clear();
  }

  fmt(cents) {
    return this.u.ctx.format(cents);
  }

  clear() {
    this.state = null;
    this.el.classList.remove("is-active", "is-over");
    delete this.el.dataset.fractions;
    delete this.el.dataset.index;
    this.now.textContent = "–";
    this.offer.textContent = t("PLAY: ×2 or Bonuses");
    this.secured.textContent = this.fmt(0);
    this.bonuses.textContent = "";
    this.pips.replaceChildren();
  }

  /** The value of a fraction in Bonuses (the rest is rounded at random). */
  bonusText(cents) {
    const bv = this.u.game.bonus_value || 80;
    const whole = Math.floor(cents / bv);
    return cents % bv ? t("{a} or {b} Bonuses", { a: whole, b: whole + 1 }) : t("{n} Bonuses", { n: whole });
  }

  start(ev) {
    const parts = fractions(ev.prize, this.u.bet().fraction);
    this.restore({ parts, index: 0, secured: 0, bonuses: 0, results: parts.map(() => null) });
  }

  /** Show a state: a new Double, or one a recall picture carries over from the step before. */
  restore(state) {
    const parts = state.parts;
    this.state = state;
    this.el.classList.add("is-active");
    this.el.classList.remove("is-over");
    this.el.dataset.fractions = JSON.stringify(parts);
    this.pips.replaceChildren(...parts.map((cents, i) => h("span.l3pd-pip", {
      dataset: { i: String(i), cents: String(cents) }, "data-testid": `fraction-${i}`, title: this.fmt(cents),
    }, h("span.l3pd-pip__value", wholeMoney(this.fmt(cents))))));
    this.show();
  }

  /** A step of a round whose start this panel did not see (a recall picture): begin from it. */
  ensure(ev) {
    if (this.state) return;
    const left = (ev.remaining ?? 0) + (ev.cents ?? ev.from_cents ?? 0);
    this.start({ prize: Math.max(left, 1) });
  }

  show() {
    const st = this.state;
    if (!st) return;
    const frac = st.parts[st.index];
    this.el.dataset.index = String(st.index);
    this.now.textContent = frac === undefined ? "–" : this.fmt(frac);
    this.offer.textContent = frac === undefined ? "" : t("×2 = {double} or {bonuses}", { double: this.fmt(2 * frac), bonuses: this.bonusText(frac) });
    this.secured.textContent = this.fmt(st.secured);
    this.secured.dataset.cents = String(st.secured);
    this.bonuses.textContent = st.bonuses ? t("+{n} Bonuses", { n: st.bonuses }) : "";
    [...this.pips.children].forEach((p, i) => {
      p.classList.toggle("is-current", i === st.index && !this.el.classList.contains("is-over"));
      if (st.results[i]) p.dataset.result = st.results[i];
    });
  }

  mark(result, text = null) {
    const st = this.state;
    const pip = this.pips.children[st.index];
    st.results[st.index] = result;
    if (pip && text) pip.querySelector(".l3pd-pip__value").textContent = text;
    st.index += 1;
  }

  /** PLAY/ACCUMULATE: the fraction doubled (secured) or turned into Bonuses. */
  play(ev) {
    this.ensure(ev);
    const st = this.state;
    if (ev.result === "double") {
      st.secured += ev.cents;
      this.mark("double", `×2 ${wholeMoney(this.fmt(ev.cents))}`);
      if (ev.maximum) this.finish("maximum");
    } else {
      st.bonuses += ev.bonuses;
      this.mark("bonuses", t("{n} B", { n: ev.bonuses }));
    }
    this.show();
  }

  collect(ev) {
    this.ensure(ev);
    this.state.secured += ev.cents;
    this.mark("collected");
    this.show();
  }

  collectAll(ev) {
    this.ensure(ev);
    this.state.secured += ev.cents;
    this.finish(ev.reason === "bonus_cap" ? "cap" : "collected");
    this.show();
  }

  /** Every fraction still in play ends as `result` (collected, or paid at the maximum). */
  finish(result) {
    const st = this.state;
    while (st.index < st.parts.length) this.mark(result);
    this.el.classList.add("is-over");
  }

  paid(ev) {
    if (!this.state) return;
    this.state.secured = ev.cents;
    this.el.classList.add("is-over");
    this.show();
  }
}
