// Money is integer minor units (pence, cents) everywhere; floats never hold it.  Amounts are
// shown in the current language's locale (i18n.js): £1,000.00 in English, 1.000,00 € in
// Spanish.  The formatter is given the amount as an exact decimal string, never a float.

import { locale } from "./i18n.js";

const formatters = new Map();

function formatter(kind, currency, extra = {}) {
  const key = `${locale()}|${kind}|${currency}|${JSON.stringify(extra)}`;
  let f = formatters.get(key);
  if (!f) {
    const base = kind === "money"
      ? { style: "currency", currency, currencyDisplay: "narrowSymbol", minimumFractionDigits: 2, maximumFractionDigits: 2 }
      : {};
    // narrowSymbol: "£" and "€" in every locale (Spanish would write "GBP"); "always": Spanish groups four-digit amounts too (1.000,00 €), as a machine's display does.
    f = new Intl.NumberFormat(locale(), { ...base, useGrouping: "always", ...extra });
    formatters.set(key, f);
  }
  return f;
}

function decimal(minor) {
  const abs = Math.abs(minor);
  return `${minor < 0 ? "-" : ""}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, "0")}`;
}

/** 1234567 -> "£12,345.67" / "12.345,67 €"; -5 -> "-£0.05" / "-0,05 €". */
export function formatMoney(minor, currency = "GBP") {
  if (!Number.isSafeInteger(minor)) return "–";
  return formatter("money", currency).format(decimal(minor));
}

/** The currency's sign in the current locale: "£", "€". */
export function currencySymbol(currency) {
  const part = formatter("money", currency).formatToParts(0).find((p) => p.type === "currency");
  return part ? part.value : `${currency} `;
}

/** A whole or decimal number in the current locale: 10000 -> "10,000" / "10.000". */
export function formatNumber(value, digits) {
  const opts = digits === undefined ? {} : { minimumFractionDigits: digits, maximumFractionDigits: digits };
  return formatter("number", "", opts).format(value);
}

/** 0.9597 -> "95.97%" / "95,97 %". */
export function formatPercent(fraction, digits = 2) {
  return formatter("percent", "", { style: "percent", minimumFractionDigits: digits, maximumFractionDigits: digits })
    .format(fraction);
}

function separators() {
  const parts = formatter("number", "", { minimumFractionDigits: 1 }).formatToParts(1000.5);
  return {
    group: parts.find((p) => p.type === "group")?.value ?? ",",
    decimal: parts.find((p) => p.type === "decimal")?.value ?? ".",
  };
}

/**
 * What a player typed -> integer minor units; null when it is not an amount.  The locale's
 * separators are read, groups of three digits only ("4.80", "£1,000.50" in English; "4,80",
 * "1.000,50 €" in Spanish); a lone dot before one or two digits ("4.80") is taken as a
 * decimal point in Spanish too, where it cannot be a thousands dot.  Anything else is null.
 */
export function parseMoney(text) {
  let s = String(text ?? "").replace(/[£€$\s\u00a0]/g, "");
  const { group, decimal: point } = separators();
  const esc = (c) => c.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  if (point !== "." && /^\d+\.\d{1,2}$/.test(s)) s = s.replace(".", point);
  const [G, D] = [esc(group), esc(point)];
  const m = s.match(new RegExp(`^(\\d+)(?:${D}(\\d{0,2}))?$`))
    || s.match(new RegExp(`^(\\d{1,3}(?:${G}\\d{3})+)(?:${D}(\\d{0,2}))?$`))
    || s.match(new RegExp(`^()${D}(\\d{1,2})$`));
  if (!m) return null;
  const major = m[1].split(group).join("") || "0";
  const value = Number(major) * 100 + Number(((m[2] ?? "") + "00").slice(0, 2));
  return Number.isSafeInteger(value) ? value : null;
}

/** A plain amount for an input field: 480 -> "4.80" / "4,80". */
export function moneyInput(minor) {
  return `${Math.floor(minor / 100)}${separators().decimal}${String(minor % 100).padStart(2, "0")}`;
}
