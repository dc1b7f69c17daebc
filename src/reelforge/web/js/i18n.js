// The client's languages: English (the source language) and Spanish.
//
// Strings are written in the code in English, wrapped in t(): t("Balance"),
// t("{n} ways", { n }).  The English text is the key (as with gettext), so code stays
// readable and a missing translation shows English, never a bare key.  The locale files
// (locales/<lang>.json) map a key to its translation; an entry may be an object of plural
// forms ({"one": "{n} way", "other": "{n} ways"}) chosen by Intl.PluralRules on `n`.  English
// needs entries only for its plurals.  tests/test_web_i18n.py checks every key the code
// uses has a Spanish entry.
//
// The language is the operator's launch parameter (?lang=es), else the browser's first
// supported language, else English.  It is chosen once at boot, before anything is drawn;
// t() is then synchronous.  Money and numbers are formatted for the language's locale
// (money.js): en-GB and es-ES.

export const LANGUAGES = {
  en: { locale: "en-GB", name: "English" },
  es: { locale: "es-ES", name: "Español" },
};
const LANG_KEY = "reelforge.lang";

let current = "en";
let table = {};
let plurals = new Intl.PluralRules(LANGUAGES.en.locale);
// Keys asked for that the current language lacks (the tests read it).
const missing = new Set();
if (typeof window !== "undefined") window.__i18nMissing = missing;

/** The language for this tab: launch parameter, then the browser's languages, then English. */
export function chooseLanguage(search = location.search, browser = navigator.languages) {
  const asked = new URLSearchParams(search).get("lang");
  const base = (tag) => String(tag || "").toLowerCase().split(/[-_]/)[0];
  if (asked && LANGUAGES[base(asked)]) {
    sessionStorage.setItem(LANG_KEY, base(asked));
    return base(asked);
  }
  const kept = sessionStorage.getItem(LANG_KEY);
  if (kept && LANGUAGES[kept]) return kept;
  for (const tag of browser || []) if (LANGUAGES[base(tag)]) return base(tag);
  return "en";
}

/** Load a language's locale file (its versioned URL is in index.html) and make it current. */
export async function setLanguage(lang) {
  if (!LANGUAGES[lang]) lang = "en";
  const link = document.querySelector(`link[data-locale="${lang}"]`);
  const url = link ? link.href : `locales/${lang}.json`;
  const reply = await fetch(url);
  if (!reply.ok) throw new Error(`locale ${lang}: HTTP ${reply.status}`);
  table = await reply.json();
  current = lang;
  plurals = new Intl.PluralRules(LANGUAGES[lang].locale);
  missing.clear();
  document.documentElement.lang = lang;
  translateDocument(document);
}

export function language() {
  return current;
}

/** The locale that money and numbers are formatted in ("en-GB", "es-ES"). */
export function locale() {
  return LANGUAGES[current].locale;
}

function fill(text, params) {
  if (!params) return text;
  return text.replace(/\{(\w+)\}/g, (all, name) => (name in params ? String(params[name]) : all));
}

/** The translation of an English text, with {name} placeholders filled from params. */
export function t(key, params) {
  let entry = table[key];
  if (entry === undefined) {
    if (current !== "en") missing.add(key);
    entry = key;
  }
  if (typeof entry === "object" && entry !== null) {
    const n = Number(params?.n ?? 0);
    entry = entry[plurals.select(n)] ?? entry.other ?? key;
  }
  return fill(String(entry), params);
}

/**
 * Translate the static markup (index.html): an element's text from data-i18n, and
 * attributes named in data-i18n-attr ("aria-label title"), each keyed by its English value.
 */
export function translateDocument(root) {
  for (const el of root.querySelectorAll("[data-i18n]")) {
    if (!el.dataset.i18nSource) el.dataset.i18nSource = el.textContent;
    el.textContent = t(el.dataset.i18nSource);
  }
  for (const el of root.querySelectorAll("[data-i18n-attr]")) {
    for (const attr of el.dataset.i18nAttr.split(/\s+/).filter(Boolean)) {
      const keep = `i18nSrc${attr.replace(/(^|-)(\w)/g, (m, d, c) => c.toUpperCase())}`;
      if (!(keep in el.dataset)) el.dataset[keep] = el.getAttribute(attr) ?? "";
      el.setAttribute(attr, t(el.dataset[keep]));
    }
  }
}

/**
 * Marks an English text as a key without translating it, for texts kept in module-level
 * tables (evaluated before the language loads) and translated where they are shown:
 * `const NAMES = { wild: tk('Wild') }` ... `t(NAMES.wild)`.  The key scan finds them.
 */
export function tk(key) {
  return key;
}
