// The autoplay dialog: number of spins (capped by the jurisdiction), a required loss limit,
// optional single-win and total-win limits.  The server enforces all of them on every
// autoplay/next; the dialog only collects them.

import { formatMoney, moneyInput, parseMoney } from "./money.js";
import { h, modal } from "./ui.js";

const SPIN_CHOICES = [10, 25, 50, 100, 250, 500, 1000];

export const STOP_REASONS = {
  spins_done: "Autoplay finished: all spins played",
  loss_limit: "Autoplay stopped: loss limit reached",
  single_win_limit: "Autoplay stopped: single win limit reached",
  total_win_limit: "Autoplay stopped: total win limit reached",
  insufficient_balance: "Autoplay stopped: insufficient balance",
  insufficient_bonuses: "Autoplay stopped: not enough Bonuses",
  player_action: "Autoplay paused: your decision is needed",
  cancelled: "Autoplay stopped",
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
      id, name: id, inputmode: "decimal", autocomplete: "off", value, placeholder: required ? "" : "no limit",
      "aria-describedby": id + "-hint", required,
    });
    return {
      input,
      el: h("label.field", { for: id },
        h("span.field__label", label, required ? h("span.field__req", " (required)") : null),
        h("span.field__money", input),
        h("span.field__hint", { id: id + "-hint" }, hint)),
    };
  };
  const loss = field("ap-loss", "Stop if the loss reaches", `at least one bet (${fmt(stake)})`, moneyInput(stake * 20), true);
  const single = field("ap-single", "Stop if a single win is at least", "optional", "", false);
  const total = field("ap-total", "Stop when total wins reach", "optional", "", false);
  const error = h("p.form-error", { role: "alert", "data-testid": "autoplay-error" });
  const presets = [10, 20, 50, 100].map((k) => h("button.chip.chip--small", {
    type: "button", onclick: () => (loss.input.value = moneyInput(stake * k)),
  }, `${k}× bet`));
  const body = h("form.autoplay-form", { onsubmit: (e) => e.preventDefault() },
    h("p.autoplay-form__bet", `Bet per spin: ${fmt(stake)} · Balance: ${fmt(balance)}`),
    h("fieldset.fieldset", h("legend", "Number of spins"), h("div.chips", spinButtons),
      maxSpins != null ? h("p.field__hint", `At most ${maxSpins} spins here.`) : null),
    loss.el, h("div.chips", presets), single.el, total.el, error);
  const dialog = modal({
    title: "Autoplay",
    body,
    testid: "dialog-autoplay",
    className: "modal--autoplay",
    buttons: [
      { label: "Cancel", value: null, testid: "autoplay-cancel" },
      {
        label: "Start autoplay", primary: true, testid: "autoplay-start",
        onclick: (close) => {
          const lossLimit = parseMoney(loss.input.value);
          if (lossLimit === null || lossLimit < stake) {
            error.textContent = `Set a loss limit of at least ${fmt(stake)}.`;
            loss.input.focus();
            return;
          }
          const out = { spins, loss_limit: lossLimit };
          for (const [key, f, label] of [["single_win_limit", single, "single win"], ["total_win_limit", total, "total win"]]) {
            if (f.input.value.trim() === "") continue;
            const v = parseMoney(f.input.value);
            if (v === null || v <= 0) {
              error.textContent = `The ${label} limit must be an amount, e.g. 10.00.`;
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
