// Los 3 Pinguinos' upper game: a bet the machine cannot cover (its Bonuses, or the cash) is no
// dead end.  Over the machine, a small panel offers the cheaper upper bets the player covers
// (a press chooses it; PLAY then plays it) and the way back to the lower game, where Bonuses
// are won.  Keys: arrows move, Space / Enter take the lit choice, Escape closes.

import { t } from "../../i18n.js";
import { h } from "../../ui.js";

export class BetOffer {
  /** @param {object} u the upper game (./pinguinos-upper.js) */
  constructor(u) {
    this.u = u;
    this.el = null;
  }

  get open() {
    return Boolean(this.el?.isConnected);
  }

  /** Offer the alternatives to the refused bet `refused` ({stake, cash, bonuses, …}). */
  show(refused) {
    const u = this.u;
    const m = u.m;
    this.close();
    const why = m.bonuses < refused.bonuses ? "bonuses" : "cash";
    const cheaper = u.bets
      .map((b, i) => ({ b, i }))
      .filter(({ b }) => b.stake < refused.stake && u.covered(b))
      .reverse(); // the dearest first: the nearest to what the player asked for
    const choose = (i) => {
      this.close();
      if (u.setBet(i)) m.setMessage(t("{bet} · PRESS PLAY", { bet: u.betLabel(u.bet()) }), "");
    };
    this.buttons = [
      ...cheaper.map(({ b, i }) => h("button.l3p-offer__btn", {
        type: "button", "data-testid": `offer-bet-${b.stake}`, dataset: { stake: String(b.stake) }, onclick: () => choose(i),
      }, t("Play at {bet}", { bet: u.betLabel(b) }))),
      h("button.l3p-offer__btn.l3p-offer__btn--back", {
        type: "button", "data-testid": "offer-lower-game",
        onclick: () => {
          this.close();
          m.changeGame();
        },
      }, t("Back to the lower game")),
    ];
    const short = why === "bonuses"
      ? t("{bet} · the machine holds {n} Bonuses", { bet: u.betLabel(refused), n: m.bonuses })
      : t("{bet} takes {cash}", { bet: u.betLabel(refused), cash: u.fmt(refused.cash) });
    const next = cheaper.length
      ? t("Choose a cheaper bet, or go back to the lower game.")
      : why === "bonuses" ? t("Win Bonuses in the lower game.") : t("No upper bet fits: go back to the lower game.");
    this.el = h("div.l3p-offer", {
      role: "dialog", "aria-labelledby": "l3p-offer-title", "data-testid": "bet-offer",
      dataset: { why, refused: String(refused.stake), offered: cheaper.map(({ b }) => b.stake).join(" ") },
    },
    h("p.l3p-offer__title", { id: "l3p-offer-title" }, why === "bonuses" ? t("NOT ENOUGH BONUSES") : t("INSUFFICIENT BALANCE")),
    h("p.l3p-offer__text", short),
    h("p.l3p-offer__text", next),
    h("div.l3p-offer__choices", this.buttons),
    h("button.l3p-offer__close", { type: "button", "aria-label": t("Close"), "data-testid": "offer-close", onclick: () => this.close() }, "×"));
    m.fx.append(this.el);
    m.el.dataset.offer = why;
    this.buttons[0].focus();
  }

  close() {
    if (!this.el) return;
    this.el.remove();
    this.el = null;
    delete this.u.m.el.dataset.offer;
  }

  /** The machine's keys while the offer is open; true when used. */
  onKey(e) {
    if (!this.open) return false;
    const at = this.buttons.indexOf(document.activeElement);
    switch (e.key) {
      case "Escape":
        this.close();
        return true;
      case "ArrowDown":
      case "ArrowRight":
      case "ArrowUp":
      case "ArrowLeft": {
        const step = e.key === "ArrowDown" || e.key === "ArrowRight" ? 1 : -1;
        const n = this.buttons.length;
        this.buttons[(Math.max(0, at) + step + n) % n].focus();
        return true;
      }
      case " ":
      case "Enter":
        (this.buttons[at] || this.buttons[0]).click();
        return true;
      default:
        return false;
    }
  }
}
