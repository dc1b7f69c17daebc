// The Buy menu of the game screen: one card per feature on sale with its price at the
// chosen bet, then a confirmation naming the price (see docs/web-client.md, Feature buys).

import { t } from "./i18n.js";
import { formatPercent } from "./money.js";
import { h, modal, titleCase } from "./ui.js";

/** The feature's own RTP (the game info's `buy_rtp`, exact per mode), as text; null without one. */
function buyRtp(screen, mode) {
  const rtp = screen.game.buy_rtp?.[mode];
  return typeof rtp === "number" ? t("RTP {rtp}", { rtp: formatPercent(rtp, 2) }) : null;
}

/**
 * The features on sale at the chosen bet: the renderer's own list (`buyOptions(level)`:
 * [{mode, title, text, price}]) or, without one, each buy… mode priced from the game
 * info's `buy` multiples (`buy-lock-spin` -> `buy.lock_spin` × the bet) where it has them.
 */
export function buyOptions(screen) {
  const own = screen.renderer.buyOptions?.(screen.level);
  if (own) return own.filter((o) => screen.buyModes.includes(o.mode));
  return screen.buyModes.map((m) => {
    const times = screen.game.buy?.[m.replace(/^buy-?/, "").replace(/-/g, "_")];
    return { mode: m, title: titleCase(m.replace(/^buy-?/, "")) || t("Feature"), text: "", price: Number.isInteger(times) ? times * screen.level.stake : null };
  });
}

/** The Buy menu, then its confirmation: the chosen feature's mode, or null. */
export async function chooseFeature(screen) {
  const options = buyOptions(screen);
  const balance = screen.app.balance;
  const rtp = (mode) => buyRtp(screen, mode);
  let dlg = null;
  const cards = options.map((o) => {
    const short = o.price !== null && balance !== null && balance < o.price;
    return h("div.buy-option", { "data-mode": o.mode },
      h("div.buy-option__text", h("h3.buy-option__title", o.title), o.text ? h("p.buy-option__desc", o.text) : null,
        short ? h("p.buy-option__short", t("Your balance does not cover this price.")) : null),
      h("div.buy-option__buy",
        h("button.btn.btn--gold.buy-option__btn", {
          type: "button", "data-testid": "buy-option", "data-mode": o.mode, disabled: short,
          onclick: () => dlg.close(o),
        }, o.price === null ? t("Buy") : t("Buy for {price}", { price: screen.format(o.price) })),
        // Beside the price, the bought feature's own return (jurisdictions ask for it).
        rtp(o.mode) ? h("span.buy-option__rtp", { "data-testid": "buy-rtp" }, rtp(o.mode)) : null));
  });
  dlg = modal({
    title: t("Buy a feature"),
    body: h("div.buy-menu", h("p.buy-menu__bet", t("Your bet: {bet}. A bought feature starts at once.", { bet: screen.format(screen.level.stake) })), cards),
    testid: "dialog-buy",
    buttons: [{ label: t("Cancel"), value: null }],
  });
  const chosen = await dlg;
  if (!chosen) return null;
  const price = chosen.price === null ? null : screen.format(chosen.price);
  const bet = screen.format(screen.level.stake);
  const ok = await modal({
    title: t("Buy {feature}?", { feature: chosen.title }),
    body: h("div", h("p", price === null
      ? t("{feature}, at your bet of {bet}. The price is taken from your balance now.", { feature: chosen.title, bet })
      : t("{feature} for {price}, at your bet of {bet}. The price is taken from your balance now.", { feature: chosen.title, price, bet })),
    rtp(chosen.mode) ? h("p.buy-option__rtp", { "data-testid": "buy-confirm-rtp" }, rtp(chosen.mode)) : null),
    testid: "dialog-buy-confirm",
    buttons: [{ label: t("Cancel"), value: false }, { label: price === null ? t("Buy") : t("Buy for {price}", { price }), value: true, primary: true, testid: "buy-confirm" }],
  });
  return ok ? chosen.mode : null;
}
