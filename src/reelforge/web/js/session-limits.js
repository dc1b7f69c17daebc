// The session limits a jurisdiction needs the player to set before a demo session opens
// (the ES profile: a time limit and a spend limit, fixed for the session).  The server says
// which are needed (`GET /demo`); this dialog asks for them, the session opens with them.

import { t } from "./i18n.js";
import { formatMoney, moneyInput, parseMoney } from "./money.js";
import { h, modal } from "./ui.js";

const TIME_CHOICES = [15 * 60, 30 * 60, 60 * 60, 2 * 3600, 4 * 3600];
const MAX_SPEND = 10 ** 12 - 1;

function duration(seconds) {
  return seconds < 3600 ? t("{n} minutes", { n: seconds / 60 }) : t("{n} hours", { n: seconds / 3600 });
}

/**
 * Ask for the session's limits.  `terms`: the server's demo terms (currency, balance, the
 * first limits to offer).  Resolves with {time_limit_seconds, spend_limit} (minor units).
 */
export function sessionLimitsDialog(terms) {
  const fmt = (v) => formatMoney(v, terms.currency);
  let time = TIME_CHOICES.includes(terms.time_limit_seconds) ? terms.time_limit_seconds : 3600;
  const chips = TIME_CHOICES.map((s) => h("button.chip", {
    type: "button", "aria-pressed": String(s === time), "data-seconds": String(s),
    onclick: () => {
      time = s;
      chips.forEach((b) => b.setAttribute("aria-pressed", String(Number(b.dataset.seconds) === s)));
    },
  }, duration(s)));
  const input = h("input.field__input", {
    id: "limit-spend", name: "limit-spend", inputmode: "decimal", autocomplete: "off", required: true,
    value: moneyInput(terms.spend_limit), "aria-describedby": "limit-spend-hint", "data-testid": "limit-spend",
  });
  const error = h("p.form-error", { role: "alert", "data-testid": "limits-error" });
  const body = h("form.limits-form", { onsubmit: (e) => e.preventDefault() },
    h("p", t("The rules here ask you to choose, before you start, how long you will play and how much you may lose. The limits hold for the whole session, which ends when one is reached.")),
    h("fieldset.fieldset", h("legend", t("Time limit")), h("div.chips", { "data-testid": "limit-time" }, chips)),
    h("label.field", { for: "limit-spend" },
      h("span.field__label", t("Spend limit"), h("span.field__req", " ", t("(required)"))),
      h("span.field__money", input),
      h("span.field__hint", { id: "limit-spend-hint" },
        t("your net loss in the session; play money: {balance}", { balance: fmt(terms.balance) }))),
    error);
  return modal({
    title: t("Your session limits"),
    body,
    testid: "dialog-session-limits",
    dismissable: false,
    buttons: [{
      label: t("Start playing"), primary: true, testid: "limits-start",
      onclick: (close) => {
        const spend = parseMoney(input.value);
        if (spend === null || spend <= 0 || spend > MAX_SPEND) {
          error.textContent = t("Set a spend limit as an amount, e.g. {example}.", { example: moneyInput(5000) });
          input.focus();
          return;
        }
        close({ time_limit_seconds: time, spend_limit: spend });
      },
    }],
  });
}
