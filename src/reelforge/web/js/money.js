// Money is integer minor units (pence) everywhere; floats never hold it.

const SYMBOLS = { GBP: "£", EUR: "€", USD: "$" };

export function currencySymbol(currency) {
  return SYMBOLS[currency] ?? `${currency} `;
}

/** 1234567 -> "£12,345.67"; -5 -> "-£0.05". */
export function formatMoney(minor, currency = "GBP") {
  if (!Number.isSafeInteger(minor)) return "–";
  const sign = minor < 0 ? "-" : "";
  const abs = Math.abs(minor);
  const major = Math.floor(abs / 100).toString().replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  const cents = String(abs % 100).padStart(2, "0");
  return `${sign}${currencySymbol(currency)}${major}.${cents}`;
}

/** "4.80", "£4.80", "1,000" -> integer minor units; null when it is not an amount. */
export function parseMoney(text) {
  let s = String(text ?? "").trim().replace(/^[£€$]/, "").replace(/,/g, "").trim();
  if (!/^\d+(\.\d{0,2})?$/.test(s) && !/^\.\d{1,2}$/.test(s)) return null;
  const [major, minor = ""] = s.split(".");
  const value = Number(major || "0") * 100 + Number((minor + "00").slice(0, 2));
  return Number.isSafeInteger(value) ? value : null;
}

/** A plain amount for an input field: 480 -> "4.80". */
export function moneyInput(minor) {
  return `${Math.floor(minor / 100)}.${String(minor % 100).padStart(2, "0")}`;
}

export function formatPercent(fraction, digits = 2) {
  return `${(fraction * 100).toFixed(digits)}%`;
}
