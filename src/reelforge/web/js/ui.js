// Small DOM helpers shared by every screen: element builder, modals, toasts, timing.

import { t } from "./i18n.js";

/**
 * h("button.btn.btn--gold", {onclick, type: "button"}, "Spin") -> HTMLButtonElement.
 * Attributes starting with "on" are listeners; "dataset" / "style" objects are merged;
 * children may be strings, nodes, arrays, null/false (skipped).
 */
export function h(tag, attrs = {}, ...children) {
  const [name, ...classes] = tag.split(".");
  const el = document.createElement(name || "div");
  if (classes.length) el.className = classes.join(" ");
  if (attrs && (typeof attrs !== "object" || attrs instanceof Node || Array.isArray(attrs))) {
    children.unshift(attrs);
    attrs = {};
  }
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith("on") && typeof v === "function") el.addEventListener(k.slice(2), v);
    else if (k === "dataset") Object.assign(el.dataset, v);
    else if (k === "style" && typeof v === "object") {
      for (const [prop, value] of Object.entries(v)) {
        if (prop.startsWith("--")) el.style.setProperty(prop, String(value));
        else el.style[prop] = value;
      }
    }
    else if (k === "class") el.className += (el.className ? " " : "") + v;
    else if (k === "html") el.innerHTML = v;
    else if (v === true) el.setAttribute(k, "");
    else el.setAttribute(k, v);
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    if (Array.isArray(c)) append(el, c);
    else el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
}

/** An SVG fragment from markup (symbol art, the wheel). */
export function svg(markup) {
  const tpl = document.createElement("template");
  tpl.innerHTML = markup.trim();
  return tpl.content.firstElementChild;
}

export function clear(el) {
  while (el.firstChild) el.firstChild.remove();
  return el;
}

// -- timing -------------------------------------------------------------------------------

let speedFactor = 1;
// Skipping a presentation (tap / Space): every wait ends now and later ones take no time.
let skipping = false;
const pendingWaits = new Set();

/** Scale every animation (quick spin; tests). */
export function setSpeed(f) {
  speedFactor = f;
  document.documentElement.style.setProperty("--speed", String(f));
}

// A replay's tempo (1, 2, 4; Infinity skips to the end) divides every animation's length on
// top of the speed; only the replay screen sets it, and puts it back to 1 when it leaves.
let tempo = 1;

export function setTempo(value) {
  tempo = value > 0 ? value : 1;
}

export function speed() {
  if (skipping) return 0;
  const forced = typeof window !== "undefined" ? window.__reelforgeSpeed : undefined;
  return (typeof forced === "number" ? forced : speedFactor) / tempo;
}

export function setSkipping(on) {
  skipping = Boolean(on);
  if (!skipping) return;
  for (const done of [...pendingWaits]) done();
}

export function isSkipping() {
  return skipping;
}

// -- pace: the presentation's own length at the player's speed --------------------------------
//
// Every timed thing of a presentation goes through wait(), countUp() and animate() below, and
// each adds to a nominal clock: the milliseconds it lasts at the player's speed (1, or Quick's
// factor), whatever speed the page really runs at (tests run it at a fraction).  The clock
// follows the timeline, not a sum: a timer starts at the clock's reading and, when it ends,
// moves the clock to its own end if that is later, so timers running side by side (the count-up
// under the way captions, the reels landing in turn) count once, as the player sees them.
// Not counted: the server's answers (one request a Dragon Spin, a pick or a respin: 12-20 in
// a feature, a few ms each on loopback, 50-200 ms each over a network, so 1-4 s a feature),
// the player's own time (a pick, "Start Dragon Spins"), CSS transitions and fades that nothing
// waits for, and whatever a skip cut short.  The Presenter reads it per round:
// window.__reelforgePace (see presentation.js).
let paceClock = 0;

/** The nominal clock, in ms at the player's speed. */
export function paceNow() {
  return paceClock;
}

/** The player's speed factor: 1, or Quick's (never the tests' or a replay's). */
export function playerSpeed() {
  return speedFactor;
}

/** A timer of `ms` (speed 1) starts now; call the result when it ends. */
function paceSpan(ms) {
  if (skipping || !(ms > 0)) return () => {};
  const end = paceClock + ms * speedFactor;
  return () => {
    if (!skipping && end > paceClock) paceClock = end;
  };
}

/** Wait ms milliseconds, scaled by the animation speed; a skip ends it at once. */
export function wait(ms) {
  const span = paceSpan(ms);
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      pendingWaits.delete(done);
      span();
      resolve();
    };
    const timer = setTimeout(done, Math.max(0, ms * speed()));
    pendingWaits.add(done);
  });
}

/**
 * el.animate(keyframes) for `ms` at speed 1 (scaled, counted on the pace clock); options as
 * the Web Animations API's, less the duration.  Returns the Animation, or null where it takes
 * no time (skipping, speed 0): the caller shows the end at once.  However short the page's
 * speed makes it, it runs (a frame at least), so the pace clock counts it all the same.
 */
export function animate(el, keyframes, ms, options = {}) {
  const duration = ms * speed();
  if (!(duration > 0)) return null;
  const span = paceSpan(ms);
  const a = el.animate(keyframes, { ...options, duration });
  a.finished.then(span, () => {}); // a cancelled one (replaced, skipped) adds nothing
  return a;
}

/** Wait real milliseconds (regulatory timing, not scaled). */
export function waitReal(ms) {
  return new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));
}

/** Count a number up on an element: fmt(value) each frame; integers only. */
export function countUp(el, from, to, ms, fmt) {
  const duration = ms * speed();
  if (!(duration > 0) || from === to) {
    el.textContent = fmt(to);
    return Promise.resolve();
  }
  const span = paceSpan(ms); // counted however short the page's speed makes it (a frame at least)
  return new Promise((resolve) => {
    const t0 = performance.now();
    const step = (now) => {
      const k = skipping ? 1 : Math.min(1, (now - t0) / duration);
      const eased = 1 - (1 - k) ** 3;
      el.textContent = fmt(k >= 1 ? to : from + Math.floor((to - from) * eased));
      if (k < 1) requestAnimationFrame(step);
      else {
        span();
        resolve();
      }
    };
    requestAnimationFrame(step);
  });
}

// -- modals -------------------------------------------------------------------------------

const modalStack = [];

export function topModal() {
  return modalStack[modalStack.length - 1] || null;
}

/**
 * Open a modal dialog.  opts: {title, body (node|string), buttons: [{label, value, primary,
 * testid, key}], dismissable, className, testid, keepControlsVisible}.  Resolves with the
 * chosen button's value (or null when dismissed).  The returned promise has .close(value)
 * and .el.  With keepControlsVisible (errors, the reality check) the dialog and its dimmed
 * backdrop stay off the game's control bar, so the bet and the spin button remain in view
 * (still blocked: clicks there land on the clear part of the backdrop).
 */
export function modal(opts) {
  const root = document.getElementById("modals");
  let resolveFn;
  const done = new Promise((r) => (resolveFn = r));
  const previousFocus = document.activeElement;
  const dialog = h(`div.modal${opts.className ? "." + opts.className : ""}`, {
    role: "dialog",
    "aria-modal": "true",
    "aria-labelledby": "modal-title-" + (modalStack.length + 1),
    "data-testid": opts.testid,
  });
  const close = (value = null) => {
    const i = modalStack.indexOf(entry);
    if (i < 0) return;
    modalStack.splice(i, 1);
    backdrop.remove();
    if (previousFocus && previousFocus.focus && document.contains(previousFocus)) previousFocus.focus();
    resolveFn(value);
  };
  const header = h("div.modal__head",
    h("h2.modal__title", { id: "modal-title-" + (modalStack.length + 1) }, opts.title || ""),
    opts.dismissable !== false
      ? h("button.icon-btn.modal__close", { type: "button", "aria-label": t("Close"), onclick: () => close(null) }, "✕")
      : null);
  const body = h("div.modal__body", { tabindex: "0" }, opts.body || "");
  const buttons = (opts.buttons || []).map((b) =>
    h(`button.btn${b.primary ? ".btn--gold" : ""}`, {
      type: "button",
      "data-testid": b.testid,
      onclick: () => (b.onclick ? b.onclick(close) : close(b.value)),
    }, b.label));
  dialog.append(header, body);
  if (buttons.length) dialog.append(h("div.modal__actions", buttons));
  const backdrop = h("div.modal-backdrop", {
    onclick: (e) => {
      if (e.target === backdrop && opts.dismissable !== false) close(null);
    },
  }, dialog);
  if (opts.keepControlsVisible) keepClear(backdrop);
  const entry = { close, el: dialog, dismissable: opts.dismissable !== false, keys: opts.keys };
  modalStack.push(entry);
  root.append(backdrop);
  const focusTarget = dialog.querySelector("[autofocus]") || buttons.find((b, i) => opts.buttons[i].primary) || buttons[0];
  (focusTarget || dialog).focus?.();
  done.close = close;
  done.el = dialog;
  return done;
}

/** Escape closes the top modal if it may be dismissed; returns whether it did. */
export function dismissTopModal() {
  const top = topModal();
  if (top && top.dismissable) {
    top.close(null);
    return true;
  }
  return false;
}

// -- toasts -------------------------------------------------------------------------------

/**
 * Where the game's controls are: {bottom, right} pixels of the window they take, as a bar
 * along the bottom (desktop, phones upright) or down the right side (phones on their side);
 * zeros where no game is on screen.
 */
export function controlsInset() {
  const bar = document.querySelector(".game .controls");
  if (!bar || !bar.getClientRects().length) return { bottom: 0, right: 0 };
  const r = bar.getBoundingClientRect();
  if (r.width >= window.innerWidth / 2) return { bottom: Math.max(0, window.innerHeight - r.top), right: 0 };
  return { bottom: 0, right: Math.max(0, window.innerWidth - r.left) };
}

function keepClear(backdrop) {
  const inset = controlsInset();
  backdrop.classList.add("modal-backdrop--clear");
  backdrop.style.setProperty("--clear-bottom", `${Math.round(inset.bottom)}px`);
  backdrop.style.setProperty("--clear-right", `${Math.round(inset.right)}px`);
}

/** Toasts sit under the top bar, over the stage: never on the spin button or the bet, nor
 *  on what a renderer marks `data-toast-clear` at the top of its stage (a game's logo). */
function placeToasts(root) {
  const bar = document.getElementById("topbar");
  let top = bar ? bar.getBoundingClientRect().bottom : 0;
  const right = controlsInset().right;
  // The band a toast takes: centred, at most 560 px wide (css/protection.css).
  const mid = (window.innerWidth - right) / 2;
  const half = Math.min(280, mid);
  for (const el of document.querySelectorAll("[data-toast-clear]")) {
    const r = el.getBoundingClientRect();
    const across = r.right > mid - half && r.left < mid + half;
    if (r.height && across && r.top < window.innerHeight / 3) top = Math.max(top, r.bottom - 6);
  }
  root.style.setProperty("--toast-top", `${Math.round(top)}px`);
  root.style.setProperty("--clear-right", `${Math.round(right)}px`);
}

export function toast(text, kind = "info", ms = 3500) {
  const root = document.getElementById("toasts");
  placeToasts(root);
  const el = h(`div.toast.toast--${kind}`, { "data-testid": "toast" }, text);
  root.append(el);
  setTimeout(() => {
    el.classList.add("toast--out");
    setTimeout(() => el.remove(), 400);
  }, ms);
  return el;
}

export function formatTime(iso) {
  if (!iso) return "";
  const d = new Date(iso);
  const pad = (n) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

export function formatDuration(seconds) {
  const s = Math.max(0, Math.floor(seconds));
  const hh = Math.floor(s / 3600);
  const mm = Math.floor((s % 3600) / 60);
  const ss = String(s % 60).padStart(2, "0");
  return hh ? `${hh}:${String(mm).padStart(2, "0")}:${ss}` : `${mm}:${ss}`;
}

export function titleCase(name) {
  return String(name).replace(/[_-]+/g, " ").replace(/\b\w/g, (c) => c.toUpperCase());
}
