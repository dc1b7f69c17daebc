// The autoplay dialog: number of spins (capped by the jurisdiction), a required loss limit,
// optional single-win and total-win limits.  The server enforces all of them on every
// autoplay/next; the dialog only collects them.

import { t, tk } from "./i18n.js";
import { formatMoney, moneyInput, parseMoney } from "./money.js";
import { h, modal } from "./ui.js";

const SPIN_CHOICES = [10, 25, 50, 100, 250, 500, 1000];

// English keys: shown with t() (autoplay-run.js).
export const STOP_REASONS = {
  spins_done: tk("Autoplay finished: all spins played"),
  loss_limit: tk("Autoplay stopped: loss limit reached"),
  single_win_limit: tk("Autoplay stopped: single win limit reached"),
  total_win_limit: tk("Autoplay stopped: total win limit reached"),
  insufficient_balance: tk("Autoplay stopped: insufficient balance"),
  insufficient_bonuses: tk("Autoplay stopped: not enough Bonuses"),
  player_action: tk("Autoplay paused: your decision is needed"),
  cancelled: tk("Autoplay stopped"),
};

/**
 * Ask for autoplay settings.  Resolves with {spins, loss_limit, single_win_limit?,
 * total_win_limit?} (integer minor units) or null when cancelled.
 */
export function autoplayDialog({ stake, currency, maxSpins, balance }) {
  const choices = SPIN_CHOICES.filter((n) => maxSpins == null || n <= maxSpins);
  if (maxSpins != null && !choices.includes(maxSpins) && maxSpins < 1000) choices.push(maxSpins);
  let spins = choices.includes(10) ? 10 : choices[0];
  const fmt = (v) => formatMoney(v, currency);
  const spinButtons = choices.map((n) => h("button.chip", {
    type: "button", "aria-pressed": String(n === spins), "data-spins": String(n),
    onclick: () => {
      spins = n;
      spinButtons.forEach((b) => b.setAttribute("aria-pressed", String(Number(b.dataset.spins) === n)));
    },
  }, String(n)));
  const field = (id, label, hint, value, required) => {
    const input = h("input.field__input", {
      id, name: id, inputmode: "decimal", autocomplete: "off", value, placeholder: required ? "" : t("no limit"),
      "aria-describedby": id + "-hint", required,
    });
    return {
      input,
      el: h("label.field", { for: id },
        h("span.field__label", label, required ? h("span.field__req", " ", t("(required)")) : null),
        h("span.field__money", input),
        h("span.field__hint", { id: id + "-hint" }, hint)),
    };
  };
  const loss = field("ap-loss", t("Stop if the loss reaches"), t("at least one bet ({stake})", { stake: fmt(stake) }), moneyInput(stake * 20), true);
  const single = field("ap-single", t("Stop if a single win is at least"), t("optional"), "", false);
  const total = field("ap-total", t("Stop when total wins reach"), t("optional"), "", false);
  const error = h("p.form-error", { role: "alert", "data-testid": "autoplay-error" });
  const presets = [10, 20, 50, 100].map((k) => h("button.chip.chip--small", {
    type: "button", onclick: () => (loss.input.value = moneyInput(stake * k)),
  }, t("{times}× bet", { times: k })));
  const body = h("form.autoplay-form", { onsubmit: (e) => e.preventDefault() },
    h("p.autoplay-form__bet", t("Bet per spin: {stake} · Balance: {balance}", { stake: fmt(stake), balance: fmt(balance) })),
    h("fieldset.fieldset", h("legend", t("Number of spins")), h("div.chips", spinButtons),
      maxSpins != null ? h("p.field__hint", t("At most {n} spins here.", { n: maxSpins })) : null),
    loss.el, h("div.chips", presets), single.el, total.el, error);
  const dialog = modal({
    title: t("Autoplay"),
    body,
    testid: "dialog-autoplay",
    className: "modal--autoplay",
    buttons: [
      { label: t("Cancel"), value: null, testid: "autoplay-cancel" },
      {
        label: t("Start autoplay"), primary: true, testid: "autoplay-start",
        onclick: (close) => {
          const lossLimit = parseMoney(loss.input.value);
          if (lossLimit === null || lossLimit < stake) {
            error.textContent = t("Set a loss limit of at least {stake}.", { stake: fmt(stake) });
            loss.input.focus();
            return;
          }
          const out = { spins, loss_limit: lossLimit };
          for (const [key, f, wrong] of [
            ["single_win_limit", single, tk("The single win limit must be an amount, e.g. {example}.")],
            ["total_win_limit", total, tk("The total win limit must be an amount, e.g. {example}.")],
          ]) {
            if (f.input.value.trim() === "") continue;
            const v = parseMoney(f.input.value);
            if (v === null || v <= 0) {
              error.textContent = t(wrong, { example: moneyInput(1000) });
              f.input.focus();
              return;
            }
            out[key] = v;
          }
          close(out);
        },
      },
    ],
  });
  return dialog;
}
