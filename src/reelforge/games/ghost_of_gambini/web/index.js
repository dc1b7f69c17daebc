// Ghost of Gambini: a 5x3 panel of 15 independent reels (one per position), 40 lines,
// Gambini and his ghost in the center collecting padlocked coins and jackpots, the magic
// shot and Magic Rewind, the two piggy banks (per bet level, kept by the server), Lock & Spin
// and Super Lock & Spin on a board of bronze, silver and gold frames, bonus buys, and the
// game's paytable and rules from the server's figures.  Art: ./gambini-art.js.
//
// The game's renderer (createRenderer, lobbyTile), served from this folder at
// js/games/ghost-of-gambini/index.js: ../../ is the shared client's js/ folder.

import { animate, countUp, h, svg, wait } from "../../ui.js";
import { t, tk } from "../../i18n.js";
import { formatNumber, formatPercent } from "../../money.js";
import { reducedMotion } from "../../presentation.js";
import { banner, featureIntro, featureTotal, winCaption } from "../../renderers/common.js";
import { SPRITE, TILE_ART } from "./gambini-art.js";
import { gambiniScene } from "./gambini-scene.js";

const ROWS = 3;
const REELS = 5;
const N_POS = REELS * ROWS;
const CENTER = 7; // reel 3, row 2
const LEVELS = ["empty", "bronze", "silver", "gold"];
const JACKPOTS = ["MINI", "MINOR", "MAJOR", "GRAND"];
const ROYALS = ["K", "T", "Q", "A", "J"];
const SIDES = ["left", "right"];
const FEATURE_NAME = { false: tk("Lock & Spin"), true: tk("Super Lock & Spin") };
const JACKPOT_NAME = { MINI: tk("MINI"), MINOR: tk("MINOR"), MAJOR: tk("MAJOR"), GRAND: tk("GRAND") };
const FRAME_NAME = { bronze: tk("bronze"), silver: tk("silver"), gold: tk("gold") };
const FRAME_TITLE = { bronze: tk("Bronze frame"), silver: tk("Silver frame"), gold: tk("Gold frame") };
// A piggy toss: [the tag while it flies, the recall's line], by who tossed and where.
const TOSS = {
  gambini: {
    left: [tk("Gambini tosses into the left piggy"), tk("Gambini tossed into the left piggy: {list}")],
    right: [tk("Gambini tosses into the right piggy"), tk("Gambini tossed into the right piggy: {list}")],
    both: [tk("Gambini tosses into both piggies"), tk("Gambini tossed into both piggies: {list}")],
  },
  ghost: {
    left: [tk("The ghost tosses into the left piggy"), tk("The ghost tossed into the left piggy: {list}")],
    right: [tk("The ghost tosses into the right piggy"), tk("The ghost tossed into the right piggy: {list}")],
    both: [tk("The ghost tosses into both piggies"), tk("The ghost tossed into both piggies: {list}")],
  },
};
const PIGGY_DID = {
  left: { popped: tk("the left piggy popped"), grew: tk("the left piggy grew to size {size}"), stayed: tk("the left piggy stayed at size {size}") },
  right: { popped: tk("the right piggy popped"), grew: tk("the right piggy grew to size {size}"), stayed: tk("the right piggy stayed at size {size}") },
};
// The symbol names the server sends (data/*.toml [symbols]), for the key scan: shown with t(name).
const SYMBOL_NAMES = [
  tk("Top Hat"), tk("Crystal Ball"), tk("Candelabra"), tk("Pocket Watch"),
  tk("Ace"), tk("King"), tk("Queen"), tk("Jack"), tk("Ten"),
  tk("Gambini (wild, center only)"), tk("Gambini's Ghost (wild, center only)"), tk("Cobweb (blank)"),
  tk("Coin 20 credits (0.5x bet)"), tk("Coin 40 credits (1x bet)"), tk("Coin 80 credits (2x bet)"),
  tk("Coin 120 credits (3x bet)"), tk("Coin 200 credits (5x bet)"), tk("Coin 400 credits (10x bet)"),
  tk("Mini jackpot"), tk("Minor jackpot"), tk("Major jackpot"), tk("Grand jackpot (Lock & Spin only)"),
];
// Before the first spin: a royal in the center (no collect), no coin, and reels 1 and 2
// share no symbol (no line pays).  Position = reel * 3 + row.
const IDLE = ["P1", "A", "K", "Q", "P2", "J", "P3", "T", "P4", "A", "Q", "P1", "J", "P2", "K"];
const WIN_TIERS = { big: 15, mega: 40, epic: 100 };
// Lock & Spin's pacing, in ms at normal speed (Quick scales all of it; docs/web-client.md,
// Presentation): brisk respins, each ghost's drop and each prize still seen one by one.
const LOCK_PACE = {
  buyBanner: 1000, shuffle: 380, ghostDrop: 380, ghostGap: 90, ghostsTag: 380, noGhostTag: 200,
  prizesTag: 300, prize: 230, jackpot: 480,
};

const posOf = (reel, row) => reel * ROWS + row;
const jackpotName = (j) => (JACKPOT_NAME[j] ? t(JACKPOT_NAME[j]) : j);
const tossWhere = (into) => (into.length === 2 ? "both" : into[0]);
const tossLine = (by, into, k, params) => {
  const line = TOSS[by === "ghost" ? "ghost" : "gambini"][tossWhere(into)];
  return line ? t(line[k], params) : "";
};

function ensureSprite() {
  if (!document.getElementById("gog-style")) {
    // The game's own stylesheet (./gambini.css, in the game's folder), next to the shared one.
    const link = h("link", { id: "gog-style", rel: "stylesheet", href: new URL("./gambini.css", import.meta.url).href });
    document.head.append(link);
  }
  if (!document.getElementById("gog-sprite")) {
    const el = svg(SPRITE);
    el.id = "gog-sprite";
    document.body.prepend(el);
  }
}

const use = (id, cls = "", box = "0 0 100 100") =>
  svg(`<svg class="gog-svg ${cls}" viewBox="${box}" aria-hidden="true"><use href="#gog-${id}"/></svg>`);

export const sounds = () => import("./gambini-sounds.js"); // its sound set (js/sound.js loads it when sound is on)

export function createRenderer(ctx) {
  return new GambiniRenderer(ctx);
}

/** The lobby tile's art. */
export function lobbyTile() {
  ensureSprite();
  return h("div.tile-art.tile-art--gog", { html: TILE_ART },
    h("div.tile-art__title.gog-tile__title", h("span", "Ghost of"), h("strong", "Gambini")));
}

// -- one position: its own reel, and its frame in Lock & Spin ---------------------------------

class Cell {
  constructor(view, pos) {
    this.view = view;
    this.pos = pos;
    this.code = null;
    this.anim = null;
    this.ghost = 0; // credits of the ghost coins lying on it
    this.strip = h("div.gcell__strip");
    this.badge = h("div.gcell__badge");
    this.lock = h("div.gcell__lock");
    this.el = h("div.gcell", { dataset: { pos: String(pos), reel: String(Math.floor(pos / ROWS)), row: String(pos % ROWS) } },
      h("div.gcell__window", this.strip), this.badge, this.lock);
  }

  speed() {
    return this.view.speed();
  }

  show(code) {
    this.anim?.cancel();
    this.anim = null;
    this.code = code;
    this.el.dataset.symbol = code;
    this.el.classList.remove("gcell--spinning");
    this.strip.replaceChildren(this.view.symbol(code));
    this.strip.style.transform = "";
  }

  /** Run (while the server answers). */
  spin(delay = 0) {
    const codes = Array.from({ length: 6 }, () => this.view.filler(this.pos));
    codes.push(codes[0]);
    this.strip.replaceChildren(...codes.map((c) => this.view.symbol(c)));
    this.el.classList.add("gcell--spinning");
    this.anim?.cancel();
    const n = codes.length;
    this.anim = this.strip.animate(
      [{ transform: `translateY(${(-(n - 1) / n) * 100}%)` }, { transform: "translateY(0%)" }],
      { duration: Math.max(60, 330 * Math.max(this.speed(), 0.25)), iterations: Infinity, delay: delay * this.speed(), easing: "linear" });
  }

  /** Stop on `code`, the reel rolling on and settling with a small bounce. */
  land(code, ms = 360) {
    const prev = this.code || code;
    const d = ms * this.speed();
    if (!(d > 0)) {
      this.show(code);
      this.view.onStop();
      return Promise.resolve();
    }
    const fill = Array.from({ length: 5 }, () => this.view.filler(this.pos));
    const codes = [code, ...fill, prev];
    const n = codes.length;
    this.strip.replaceChildren(...codes.map((c) => this.view.symbol(c)));
    this.anim?.cancel();
    const a = animate(this.strip, [
      { transform: `translateY(${(-(n - 1) / n) * 100}%)`, easing: "cubic-bezier(.25,.6,.4,1)" },
      { transform: `translateY(${(0.16 / n) * 100}%)`, offset: 0.85, easing: "ease-in-out" },
      { transform: "translateY(0%)" },
    ], ms, { fill: "forwards" }) || this.strip.animate([], { duration: d });
    this.anim = a;
    return a.finished.catch(() => {}).then(() => {
      if (this.anim === a) this.show(code);
      this.view.onStop();
    });
  }

  /** Magic Rewind: the reel moves back (upwards) `distance` stops to `code`. */
  rewind(code, distance, ms = 900) {
    const steps = Math.max(1, Math.min(distance - 1, 9));
    const d = ms * this.speed();
    if (!(d > 0)) {
      this.show(code);
      return Promise.resolve();
    }
    const codes = [this.code, ...Array.from({ length: steps }, () => this.view.filler(this.pos, true)), code];
    const n = codes.length;
    this.strip.replaceChildren(...codes.map((c) => this.view.symbol(c)));
    this.el.classList.add("gcell--rewind");
    this.anim?.cancel();
    const a = animate(this.strip, [
      { transform: "translateY(0%)" },
      { transform: `translateY(${(-(n - 1) / n) * 100 - (0.14 / n) * 100}%)`, offset: 0.88 },
      { transform: `translateY(${(-(n - 1) / n) * 100}%)` },
    ], ms, { easing: "cubic-bezier(.45,.05,.35,1)", fill: "forwards" }) || this.strip.animate([], { duration: d });
    this.anim = a;
    return a.finished.catch(() => {}).then(() => {
      this.el.classList.remove("gcell--rewind");
      if (this.anim === a) this.show(code);
    });
  }

  /** Ghost coins lying here: a coin's value rises, other symbols carry a ghost coin. */
  setGhost(credits) {
    this.ghost = credits;
    const coin = this.view.coinCredits(this.code);
    const label = this.strip.querySelector(".gsym__value");
    if (coin !== null && label) {
      label.dataset.credits = String(coin + credits);
      label.textContent = this.view.money(coin + credits);
      this.badge.replaceChildren();
      this.el.classList.toggle("gcell--boosted", credits > 0);
      return;
    }
    this.badge.replaceChildren(...(credits ? [this.view.ghostCoin(credits)] : []));
    this.el.classList.toggle("gcell--ghosted", credits > 0);
  }

  clearExtras() {
    this.ghost = 0;
    this.badge.replaceChildren();
    this.el.classList.remove("gcell--boosted", "gcell--ghosted", "gcell--win", "gcell--collect", "gcell--wild", "gcell--flash");
  }

  /** Lock & Spin: the frame on this position (0 empty .. 3 gold). */
  setLevel(level, { pop = false, ghost = null } = {}) {
    const name = LEVELS[level];
    this.el.dataset.level = name;
    delete this.el.dataset.prize;
    if (!level) {
      this.lock.replaceChildren();
    } else {
      this.lock.replaceChildren(h("div.gframe", { dataset: { level: name } },
        use(ghost === "gold" || level === 3 ? "ghost-gold" : "ghost-white", "gframe__ghost")));
    }
    if (pop) {
      this.el.classList.remove("gcell--pop");
      void this.el.offsetWidth; // restart the animation
      this.el.classList.add("gcell--pop");
    }
  }

  setPrize(prize, credits, level) {
    this.el.dataset.prize = prize;
    const art = this.view.symbol(prize, credits);
    this.lock.replaceChildren(h("div.gframe.gframe--prize", { dataset: { level: LEVELS[level] } }, art));
    this.el.classList.remove("gcell--pop");
    void this.el.offsetWidth;
    this.el.classList.add("gcell--pop");
  }
}

// -- the panel: 15 cells, the line overlay -------------------------------------------------------

class Panel {
  constructor(view) {
    this.view = view;
    this.cells = Array.from({ length: N_POS }, (_, p) => new Cell(view, p));
    this.lines = svg('<svg class="gog__lines" viewBox="0 0 500 300" preserveAspectRatio="none" aria-hidden="true"></svg>');
    this.el = h("div.gog__panel", { "data-testid": "panel" }, this.cells.map((c) => c.el), this.lines);
    this.board = null;
  }

  symbols() {
    return this.cells.map((c) => c.code);
  }

  setSymbols(symbols) {
    symbols.forEach((code, p) => this.cells[p].show(code));
    this.el.dataset.symbols = JSON.stringify(symbols);
  }

  clearMarks() {
    this.el.classList.remove("gog__panel--dim");
    this.lines.replaceChildren();
    this.cells.forEach((c) => c.el.classList.remove("gcell--win", "gcell--collect"));
  }

  mark(positions, cls, dim = true) {
    this.el.classList.toggle("gog__panel--dim", dim);
    for (const p of positions) this.cells[p].el.classList.add(cls);
  }

  drawLine(rows, length) {
    const pts = rows.map((row, reel) => `${reel * 100 + 50},${row * 100 + 50}`);
    const all = svg(`<svg><polyline points="${pts.join(" ")}" class="gog__line gog__line--all"/><polyline points="${pts.slice(0, length).join(" ")}" class="gog__line"/></svg>`);
    this.lines.append(...all.childNodes);
  }

  setBoard(board) {
    this.board = board.slice();
    this.el.dataset.board = JSON.stringify(board);
  }
}

// -- a piggy bank ------------------------------------------------------------------------------

class Piggy {
  constructor(side, sizes) {
    this.side = side;
    this.sizes = sizes;
    this.size = 0;
    this.pips = Array.from({ length: sizes }, () => h("span.piggy__pip"));
    this.body = h("div.piggy__body", use("piggy", "piggy__svg", "0 0 120 100"));
    this.el = h("div.piggy", { dataset: { side, size: "0" }, "data-testid": `piggy-${side}`, role: "img" },
      h("div.piggy__stage", this.body),
      h("div.piggy__info", h("span.piggy__name", side === "left" ? t("Left piggy") : t("Right piggy")), h("div.piggy__pips", this.pips)));
    this.set(0);
  }

  set(size) {
    this.size = size;
    this.el.dataset.size = String(size);
    this.el.style.setProperty("--size", String(size));
    this.el.classList.toggle("piggy--full", size === this.sizes - 1);
    this.pips.forEach((p, i) => p.classList.toggle("is-on", i < size));
    const of = { size: size + 1, sizes: this.sizes };
    this.el.setAttribute("aria-label", this.side === "left"
      ? t("left piggy bank: size {size} of {sizes}", of) : t("right piggy bank: size {size} of {sizes}", of));
  }

  flash(cls) {
    this.el.classList.remove("piggy--grow", "piggy--wobble", "piggy--pop");
    void this.el.offsetWidth;
    this.el.classList.add(cls);
  }
}

// -- the renderer --------------------------------------------------------------------------------

class GambiniRenderer {
  constructor(ctx) {
    ensureSprite();
    this.ctx = ctx;
    this.game = ctx.game;
    const g = this.game;
    this.credits = g.bet_levels[0]?.credits || 40;
    this.prizeCodes = new Set([...Object.keys(g.coin_values || {}), ...JACKPOTS]);
    const codes = Object.keys(g.symbols);
    const wild = new Set(Object.values(g.wilds || {}));
    this.outerFill = codes.filter((c) => !wild.has(c) && c !== "GRAND" && c !== "MAJOR");
    this.rewindFill = codes.filter((c) => !wild.has(c) && !JACKPOTS.includes(c));
    this.centerFill = codes.filter((c) => ROYALS.includes(c));
    this.round = null;
    this.pigBet = ctx.stake();
    this.states = new Map(); // bet stake -> [left, right] sizes
    this.touched = new Set(); // bets whose piggies a round has set since the stored state was read

    this.panel = new Panel(this);
    this.piggies = SIDES.map((s) => new Piggy(s, g.piggy_sizes || 5));
    this.fx = h("div.gog__fx");
    this.bannerHost = h("div.gog__banners");
    this.tagEl = h("div.gog__tag", { "data-testid": "gog-tag", "aria-live": "polite" });
    this.frame = h("div.gog__frame", { "data-testid": "reel-frame" },
      h("div.gog__frame-inner", this.panel.el), this.tagEl, this.bannerHost);
    this.jackpotEls = JACKPOTS.map((j) => h("div.jp", { dataset: { jackpot: j }, "data-testid": `jackpot-${j}` },
      h("span.jp__name", jackpotName(j)), h("span.jp__value")));
    this.counter = h("div.gog__counter", { "data-testid": "lock-counter", hidden: true });
    this.caption = h("div.gog__caption");
    this.el = h("div.gog", { dataset: { mode: "base" }, "data-testid": "renderer-ghost-of-gambini" },
      gambiniScene(),
      h("div.gog__head",
        h("div.gog__logo", h("span.gog__logo-top", "Ghost of"), h("span.gog__logo-main", "Gambini")),
        this.counter),
      h("div.gog__jackpots", this.jackpotEls),
      h("div.gog__main",
        h("div.gog__pig.gog__pig--left", this.piggies[0].el),
        this.frame,
        h("div.gog__pig.gog__pig--right", this.piggies[1].el)),
      this.caption,
      this.fx);
    this.winTiers = WIN_TIERS;
    this.panel.setSymbols(IDLE.map((c) => (g.symbols?.[c] ? c : this.filler(0))));
    this.panel.el.dataset.idle = "1";
    this.lastSymbols = this.panel.symbols();
    this.refreshMoney();
    this.loadPiggies();
  }

  // -- helpers -----------------------------------------------------------------------------

  speed() {
    return this.ctx.speed();
  }

  onStop() {
    this.ctx.sound?.play("stop");
  }

  money(credits) {
    return this.ctx.credits(credits);
  }

  /** The bet (total stake of a base game) in minor units, at the round's coin. */
  bet() {
    return this.ctx.coin() * this.credits;
  }

  coinCredits(code) {
    const v = this.game.coin_values?.[code];
    return v === undefined ? null : v;
  }

  prizeCredits(code) {
    const c = this.coinCredits(code);
    if (c !== null) return c;
    return (this.game.jackpots?.[code] ?? 0) * this.credits;
  }

  isPrize(code) {
    return this.prizeCodes.has(code);
  }

  filler(pos, rewinding = false) {
    const list = pos === CENTER ? this.centerFill : rewinding ? this.rewindFill : this.outerFill;
    return list[Math.floor(Math.random() * list.length)];
  }

  /** A symbol's art; coins carry their value as money; a prize may be given its credits. */
  symbol(code, credits = null) {
    const coin = this.coinCredits(code);
    if (coin !== null) {
      const value = credits ?? coin;
      return h("div.gsym.gsym--coin", { dataset: { symbol: code } }, use("coin"),
        h("span.gsym__value", { dataset: { credits: String(value) } }, this.money(value)));
    }
    if (JACKPOTS.includes(code)) {
      return h("div.gsym.gsym--jackpot", { dataset: { symbol: code } }, use(code),
        credits !== null ? h("span.gsym__value.gsym__value--jp", { dataset: { credits: String(credits) } }, this.money(credits)) : null);
    }
    return h("div.gsym", { dataset: { symbol: code }, title: this.symbolName(code) }, use(code));
  }

  /** A symbol's name (the server's, in English) in the player's language. */
  symbolName(code) {
    return t(this.game.symbols?.[code] || code);
  }

  ghostCoin(credits) {
    return h("div.gghost-coin", { title: t("Ghost coin") }, use("ghostcoin"),
      h("span.gsym__value", { dataset: { credits: String(credits) } }, this.money(credits)));
  }

  /** Every money label at the current coin (after a bet change). */
  refreshMoney() {
    this.el.querySelectorAll("[data-credits]").forEach((n) => (n.textContent = this.money(Number(n.dataset.credits))));
    const mult = this.game.jackpots || {};
    this.jackpotEls.forEach((el) => {
      const j = el.dataset.jackpot;
      el.querySelector(".jp__value").textContent = this.ctx.format((mult[j] || 0) * this.bet());
    });
  }

  setMode(mode) {
    this.el.dataset.mode = mode;
  }

  tag(text) {
    this.tagEl.textContent = text;
    this.el.dataset.lastTag = text;
    this.tagEl.classList.remove("is-on");
    void this.tagEl.offsetWidth;
    this.tagEl.classList.add("is-on");
  }

  rectIn(el) {
    const a = el.getBoundingClientRect();
    const b = this.fx.getBoundingClientRect();
    return { x: a.left - b.left, y: a.top - b.top, w: a.width, h: a.height };
  }

  /** Fly `node` from one rect to another over everything (coins, ghosts). */
  async fly(node, from, to, ms, { size = null, arc = 0, endScale = 1 } = {}) {
    const s = size ?? Math.min(from.w, from.h);
    Object.assign(node.style, { width: `${s}px`, height: `${s}px`, left: `${from.x + from.w / 2 - s / 2}px`, top: `${from.y + from.h / 2 - s / 2}px` });
    node.classList.add("gog__flyer");
    this.fx.append(node);
    const dx = to.x + to.w / 2 - (from.x + from.w / 2);
    const dy = to.y + to.h / 2 - (from.y + from.h / 2);
    const d = ms * this.speed();
    if (d > 0) {
      const a = animate(node, [
        { transform: "translate(0, 0) scale(1)" },
        { transform: `translate(${dx / 2}px, ${dy / 2 - arc}px) scale(${(1 + endScale) / 2 + 0.15})`, offset: 0.5 },
        { transform: `translate(${dx}px, ${dy}px) scale(${endScale})` },
      ], ms, { easing: "ease-in-out", fill: "forwards" });
      await a?.finished.catch(() => {});
    }
    node.remove();
  }

  // -- piggies -----------------------------------------------------------------------------

  async loadPiggies() {
    if (!this.ctx.playerState) return;
    let data;
    try {
      data = await this.ctx.playerState();
    } catch {
      return; // the piggies stay as the rounds show them
    }
    for (const s of data?.states || []) {
      const m = /^stake:(\d+)$/.exec(s.state_key || "");
      const sizes = s.state?.piggies;
      if (!m || !Array.isArray(sizes)) continue;
      const stake = Number(m[1]);
      if (!this.touched.has(stake)) this.states.set(stake, sizes.slice());
    }
    this.el.dataset.piggiesLoaded = "1";
    if (!this.touched.has(this.pigBet)) this.showPiggies(this.pigBet);
  }

  showPiggies(stake) {
    this.pigBet = stake;
    const sizes = this.states.get(stake) || [0, 0];
    this.piggies.forEach((p, i) => p.set(sizes[i]));
    this.el.dataset.piggies = JSON.stringify(sizes);
  }

  setPiggies(stake, sizes) {
    this.states.set(stake, sizes.slice());
    this.touched.add(stake);
    this.showPiggies(stake);
  }

  /** The bet level changed: its own piggies, and every value at the new coin. */
  betChanged(level) {
    this.showPiggies(level.stake);
    this.refreshMoney();
  }

  async presentToss(ev, instant, round) {
    const stake = round?.state?.bet ?? this.pigBet;
    if (instant) {
      this.setPiggies(stake, ev.sizes);
      return;
    }
    this.showPiggies(stake);
    this.tag(tossLine(ev.by, ev.into, 0));
    const center = this.rectIn(this.panel.cells[CENTER].el);
    await Promise.all(ev.into.map((side, i) => wait(i * 120).then(() => {
      const pig = this.piggies[SIDES.indexOf(side)];
      return this.fly(h("div.gog__coin", use("coin")), center, this.rectIn(pig.body), 560,
        { size: center.w * 0.45, arc: center.h * 0.8, endScale: 0.5 });
    })));
    const pops = [];
    ev.into.forEach((side, i) => {
      const k = SIDES.indexOf(side);
      const pig = this.piggies[k];
      if (ev.popped.includes(side)) {
        pig.set(this.piggies[k].sizes - 1);
        pig.flash("piggy--pop");
        pops.push(pig);
      } else if (ev.grew[i]) {
        pig.set(ev.sizes[k]);
        pig.flash("piggy--grow");
      } else {
        pig.flash("piggy--wobble");
      }
    });
    this.ctx.sound?.play(pops.length ? "bigwin" : "coin");
    if (pops.length) {
      this.tag(pops.length === 2 ? t("Both piggies pop!") : t("The piggy pops!"));
      await wait(900);
    } else {
      await wait(450);
    }
    this.setPiggies(stake, ev.sizes);
  }

  // -- round lifecycle -------------------------------------------------------------------------

  reset() {
    this.round = null;
    this.setMode("base");
    this.counter.hidden = true;
    this.caption.replaceChildren();
    this.fx.replaceChildren();
    this.bannerHost.replaceChildren();
    delete this.el.dataset.lockWin;
    this.panel.clearMarks();
    this.panel.board = null;
    delete this.panel.el.dataset.board;
    this.panel.cells.forEach((c) => {
      c.clearExtras();
      c.setLevel(0);
      delete c.el.dataset.level;
    });
    if (this.panel.cells.some((c) => !c.code)) this.panel.setSymbols(this.lastSymbols);
    this.refreshMoney();
  }

  startSpin() {
    this.reset();
    delete this.panel.el.dataset.idle;
    this.caption.replaceChildren();
    this.panel.cells.forEach((c, p) => c.spin((p % 5) * 25));
    this.spinning = true;
    this.ctx.sound?.play("spin");
  }

  abortSpin() {
    this.spinning = false;
    this.panel.setSymbols(this.lastSymbols);
  }

  async restore(round) {
    this.reset();
    await this.present(round.events, round, { instant: true });
  }

  async present(events, round, opts = {}) {
    const instant = Boolean(opts.instant);
    this.round = round;
    if (round?.state?.bet && round.mode === "base") this.pigBet = round.state.bet;
    for (const ev of events) {
      switch (ev.type) {
        case "spin":
          await this.presentSpin(ev, instant);
          break;
        case "piggy_toss":
          await this.presentToss(ev, instant, round);
          break;
        case "buy":
          await this.presentBuy(ev, instant);
          break;
        case "lock_spin_start":
          await this.lockStart(ev, instant, round);
          break;
        case "lock_spin":
          await this.lockSpin(ev, instant);
          break;
        case "lock_spin_end":
          await this.lockEnd(ev, instant);
          break;
        case "max_win":
          if (!instant) await banner(this.bannerHost, { title: t("Max win"), sub: t("{times}× the bet reached", { times: formatNumber(this.game.max_win) }), kind: "feature", ms: 2000 });
          break;
        case "round_end":
          break; // a Big / Mega / Epic win is the shared client's, after the round
        default:
          break; // an event this client does not know: nothing to draw
      }
    }
    if (this.spinning) {
      // A step without a base spin (a bought feature): the reels settle where they were.
      this.spinning = false;
      this.panel.setSymbols(this.lastSymbols);
    }
  }

  // -- the base spin -------------------------------------------------------------------------

  async presentSpin(ev, instant) {
    const symbols = ev.symbols;
    this.lastSymbols = symbols.slice();
    this.panel.clearMarks();
    this.caption.replaceChildren();
    if (instant) {
      this.spinning = false;
      this.panel.setSymbols(symbols);
      this.layGhostCoins(ev.ghost_coins, true);
      if (ev.center_wild) this.panel.cells[CENTER].el.classList.add("gcell--wild");
      const cells = ev.lines.flatMap((w) => w.positions.map(([r, row]) => posOf(r, row)));
      if (cells.length) this.panel.mark(cells, "gcell--win", false);
      if (ev.credits) this.caption.replaceChildren(winCaption([this.money(ev.credits), this.spinText(ev)]));
      return;
    }
    const cells = this.panel.cells;
    if (!this.spinning) cells.forEach((c, p) => c.spin((p % 5) * 25));
    this.spinning = false;
    // What each reel lands on before Magic Rewind moves it back.
    const landing = symbols.slice();
    if (ev.center_rewind) landing[CENTER] = ROYALS[ev.center_rewind.from % ROYALS.length];
    if (ev.jackpot_rewind) landing[ev.jackpot_rewind.position] = this.game.blank || "BL";
    // Anticipation: with a coin or jackpot in view around it, the center (where Gambini or
    // the ghost would collect them) glows and lands last.
    const waiting = !ev.shot && landing.some((c, p) => p !== CENTER && this.isPrize(c));
    const order = [...Array(N_POS).keys()].filter((p) => !waiting || p !== CENTER);
    if (waiting) order.push(CENTER);
    let clock = 280;
    const stops = [];
    if (ev.shot) {
      // The magic shot: the center lands first, with a flash.
      await wait(220);
      await cells[CENTER].land(landing[CENTER], 300);
      cells[CENTER].el.classList.add("gcell--flash", "gcell--wild");
      this.tag(ev.shot === "ghost" ? t("Magic shot: the ghost!") : t("Magic shot: Gambini!"));
      this.ctx.sound?.play("feature");
      await wait(650);
      clock = 0;
    }
    for (const p of order) {
      if (ev.shot && p === CENTER) continue;
      if (waiting && p === CENTER) {
        const glow = clock;
        stops.push(wait(glow).then(() => {
          cells[CENTER].el.classList.add("gcell--anticipate");
          this.ctx.sound?.play("anticipate");
        }));
        clock += reducedMotion() ? 250 : 800;
      }
      const at = clock;
      stops.push(wait(at).then(() => cells[p].land(landing[p])).then(() => cells[p].el.classList.remove("gcell--anticipate")));
      clock += 85;
    }
    await Promise.all(stops);
    this.panel.el.dataset.anticipated = waiting ? "1" : "0";
    this.panel.el.dataset.symbols = JSON.stringify(landing);
    if (ev.center_rewind) {
      this.tag(t("Magic Rewind!"));
      this.ctx.sound?.play("feature");
      await cells[CENTER].rewind(symbols[CENTER], ev.center_rewind.distance, 1100);
      cells[CENTER].el.classList.add("gcell--flash");
    }
    if (ev.center_wild) {
      cells[CENTER].el.classList.add("gcell--wild");
      await wait(300);
    }
    if (ev.jackpot_rewind) {
      const jr = ev.jackpot_rewind;
      this.tag(t("Jackpot rewind: {jackpot}!", { jackpot: jackpotName(jr.jackpot) }));
      this.ctx.sound?.play("feature");
      await cells[jr.position].rewind(jr.jackpot, jr.distance, 1100);
      cells[jr.position].el.classList.add("gcell--flash");
      await wait(250);
    }
    this.panel.el.dataset.symbols = JSON.stringify(symbols);
    if (ev.ghost_coins.length) await this.layGhostCoins(ev.ghost_coins, false);
    if (ev.collected.length) await this.collect(ev);
    if (ev.lines.length) await this.showLines(ev);
    if (ev.credits) {
      this.panel.clearMarks();
      const all = ev.lines.flatMap((w) => w.positions.map(([r, row]) => posOf(r, row)));
      if (all.length) this.panel.mark(all, "gcell--win", false);
      this.caption.replaceChildren(winCaption([this.money(ev.credits), this.spinText(ev)]));
    }
  }

  /** What paid, beside the spin's total: each part's amount only where there are two parts
   *  (a lone part's amount is the total, already shown: never "£3.25 · 2 lines £3.25"). */
  spinText(ev) {
    const both = ev.lines.length > 0 && ev.collect_credits > 0;
    const parts = [];
    if (ev.lines.length) {
      parts.push(both ? t("{n} lines {amount}", { n: ev.lines.length, amount: this.money(ev.line_credits) }) : t("{n} lines", { n: ev.lines.length }));
    }
    if (ev.collect_credits) {
      const amount = this.money(ev.collect_credits);
      const ghost = ev.center_wild === "ghost";
      if (both) parts.push(ghost ? t("the ghost collects {amount}", { amount }) : t("Gambini collects {amount}", { amount }));
      else parts.push(ghost ? t("The ghost collects") : t("Gambini collects"));
    }
    return parts.join(" · ");
  }

  /** The ghost's coins: thrown from the center onto outer positions. */
  async layGhostCoins(coins, instant) {
    const sums = new Map();
    const cells = this.panel.cells;
    if (!instant && coins.length) {
      this.tag(t("The ghost throws {n} coins", { n: coins.length }));
      await wait(300);
    }
    for (const gc of coins) {
      const total = (sums.get(gc.position) || 0) + gc.credits;
      sums.set(gc.position, total);
      const cell = cells[gc.position];
      if (!instant) {
        this.ctx.sound?.play("coin");
        const from = this.rectIn(cells[CENTER].el);
        await this.fly(this.ghostCoin(gc.credits), from, this.rectIn(cell.el), 520,
          { size: from.w * 0.5, arc: from.h * 0.5 });
        const label = cell.strip.querySelector(".gsym__value");
        const coin = this.coinCredits(cell.code);
        if (coin !== null && label) {
          // On a coin: its value rises.
          cell.el.classList.add("gcell--boosted");
          const before = coin + total - gc.credits;
          label.dataset.credits = String(coin + total);
          await countUp(label, before, coin + total, 500, (v) => this.money(v));
        }
      }
      cell.setGhost(total);
    }
  }

  /** Gambini (or the ghost) in the center collects every coin, jackpot and ghost coin. */
  async collect(ev) {
    const cells = this.panel.cells;
    const center = cells[CENTER];
    const ghost = ev.center_wild === "ghost";
    this.panel.mark(ev.collected.map((c) => c.position), "gcell--collect", true);
    center.el.classList.add("gcell--collect");
    this.tag(ghost ? t("The ghost collects!") : t("Gambini collects!"));
    this.ctx.sound?.play("feature");
    await wait(350);
    let total = 0;
    const flights = [];
    for (const item of ev.collected) {
      const cell = cells[item.position];
      const node = h("div.gog__coin", this.symbol(item.prizes.length === 1 && JACKPOTS.includes(item.prizes[0]) ? item.prizes[0] : "C1", item.credits));
      const from = this.rectIn(cell.el);
      flights.push(this.fly(node, from, this.rectIn(center.el), 520, { size: from.w * 0.8, endScale: 0.4 }).then(() => {
        total += item.credits;
        center.el.classList.remove("gcell--gulp");
        void center.el.offsetWidth;
        center.el.classList.add("gcell--gulp");
        this.ctx.sound?.play("collect");
        this.caption.replaceChildren(winCaption([this.money(total), ghost ? t("The ghost collects") : t("Gambini collects")]));
        return this.ctx.addWin(item.credits);
      }));
      await wait(190);
    }
    await Promise.all(flights);
    await wait(300);
    this.panel.clearMarks();
  }

  async showLines(ev) {
    const counting = this.ctx.addWin(ev.line_credits);
    this.ctx.sound?.play("win");
    const lines = this.game.lines || [];
    const all = ev.lines.flatMap((w) => w.positions.map(([r, row]) => posOf(r, row)));
    const best = [...ev.lines].sort((a, b) => b.credits - a.credits).slice(0, 4);
    for (const w of best) {
      this.panel.clearMarks();
      this.panel.mark(w.positions.map(([r, row]) => posOf(r, row)), "gcell--win");
      if (lines[w.line]) this.panel.drawLine(lines[w.line], w.length);
      const name = this.symbolName(w.symbol);
      this.caption.replaceChildren(winCaption([this.money(w.credits), t("Line {line}", { line: w.line + 1 }), `${w.length} × ${name}`]));
      await wait(ev.lines.length > 1 ? 700 : 900);
    }
    this.panel.clearMarks();
    this.panel.mark(all, "gcell--win");
    await counting;
  }

  // -- Lock & Spin ---------------------------------------------------------------------------

  async presentBuy(ev, instant) {
    if (instant) return;
    this.spinning = false;
    await Promise.all(this.panel.cells.map((c, p) => wait(p * 30).then(() => c.land(this.lastSymbols[p], 260))));
    this.ctx.sound?.play("feature");
    const name = t(FEATURE_NAME[ev.feature === "super_lock_spin"]);
    await banner(this.bannerHost, { title: name, sub: t("Bought"), kind: ev.feature === "super_lock_spin" ? "super" : "lock", ms: LOCK_PACE.buyBanner, testid: "banner-buy" });
  }

  updateCounter(counter, spins, flash = false) {
    this.counter.hidden = false;
    this.counter.dataset.counter = String(counter);
    this.counter.dataset.spins = String(spins);
    const lamps = Array.from({ length: spins }, (_, i) => h("span.gog__lamp", { class: i < counter ? "is-on" : "" }));
    this.counter.replaceChildren(
      h("span.gog__counter-name", t(FEATURE_NAME[Boolean(this.feature?.super)])),
      h("span.gog__counter-label", t("Spins left")),
      h("strong.gog__counter-value", String(counter)),
      h("span.gog__lamps", lamps));
    if (flash) {
      this.counter.classList.remove("gog__counter--reset");
      void this.counter.offsetWidth;
      this.counter.classList.add("gog__counter--reset");
    }
  }

  enterBoard(super_, instant) {
    this.setMode(super_ ? "super" : "lock");
    this.feature = { super: super_ };
    this.panel.clearMarks();
    this.panel.cells.forEach((c) => {
      c.clearExtras();
      c.setLevel(0);
    });
    this.panel.setBoard(Array(N_POS).fill(0));
    if (!instant) this.caption.replaceChildren();
  }

  async lockStart(ev, instant, round) {
    const name = t(FEATURE_NAME[ev.super]);
    if (!instant) {
      await featureIntro(this.ctx, this.bannerHost, {
        title: name, sub: `${t("{n} spins", { n: ev.spins })} · ${t("{n} ghosts", { n: ev.ghosts.length })}`,
        kind: ev.super ? "super-lock-spin" : "lock-spin", bannerKind: ev.super ? "super" : "lock", testid: "banner-lock-spin",
      });
    }
    this.enterBoard(ev.super, instant);
    this.feature.spins = ev.spins;
    this.updateCounter(ev.spins, ev.spins);
    this.el.dataset.feature = ev.super ? "super" : "lock";
    if (!instant && ev.ghosts.length) this.tag(t("{n} ghosts from the piggy", { n: ev.ghosts.length }));
    await this.landGhosts(ev.ghosts, instant);
    this.panel.setBoard(ev.board);
    if (instant) this.applyBoard(ev.board);
  }

  applyBoard(board) {
    board.forEach((level, p) => this.panel.cells[p].setLevel(level));
  }

  async landGhosts(ghosts, instant) {
    const cells = this.panel.cells;
    const board = (this.panel.board || Array(N_POS).fill(0)).slice();
    for (const g of ghosts) {
      const target = g.moved_to ?? g.landed;
      if (!instant) {
        const panel = this.rectIn(this.panel.el);
        const cell = this.rectIn(cells[g.landed].el);
        const start = { x: cell.x, y: panel.y - cell.h * 1.2, w: cell.w, h: cell.h };
        const node = h("div.gog__ghost", use(g.colour === "gold" ? "ghost-gold" : "ghost-white"));
        this.ctx.sound?.play("whoosh");
        await this.fly(node, start, cell, LOCK_PACE.ghostDrop, { size: cell.w * 0.8 });
        if (g.moved_to !== null && g.moved_to !== undefined) {
          // It landed on a gold frame: it moves on to a position that is not gold yet.
          cells[g.landed].el.classList.add("gcell--bump");
          const node2 = h("div.gog__ghost", use(g.colour === "gold" ? "ghost-gold" : "ghost-white"));
          await this.fly(node2, cell, this.rectIn(cells[g.moved_to].el), 480, { size: cell.w * 0.8, arc: cell.h * 0.4 });
          cells[g.landed].el.classList.remove("gcell--bump");
        }
      }
      board[target] = LEVELS.indexOf(g.frame);
      cells[target].setLevel(board[target], { pop: !instant, ghost: g.colour });
      this.panel.setBoard(board);
      if (!instant) await wait(LOCK_PACE.ghostGap);
    }
  }

  /** A step shown on its own (recall) starts mid-feature: draw the board first. */
  ensureBoard(super_) {
    if (this.el.dataset.mode === "base") {
      this.enterBoard(Boolean(super_), true);
      this.panel.cells.forEach((c) => c.setLevel(0));
    }
  }

  async lockSpin(ev, instant) {
    this.ensureBoard(this.feature?.super);
    const spins = this.feature?.spins ?? Number(this.counter.dataset.spins || 3);
    if (!instant) {
      this.caption.replaceChildren();
      const open = this.panel.cells.filter((c, p) => (this.panel.board?.[p] ?? 0) < 3);
      open.forEach((c) => c.el.classList.add("gcell--shuffle"));
      this.ctx.sound?.play("spin");
      await wait(LOCK_PACE.shuffle);
      open.forEach((c) => c.el.classList.remove("gcell--shuffle"));
    }
    await this.landGhosts(ev.ghosts, instant);
    this.panel.setBoard(ev.board);
    if (instant) this.applyBoard(ev.board);
    this.updateCounter(ev.counter, spins, !instant && ev.ghosts.length > 0);
    if (!instant) {
      // (The caption row is left to the decision panel while the feature runs.)
      this.tag(ev.ghosts.length ? t("{n} ghosts: spins back to {spins}", { n: ev.ghosts.length, spins }) : t("No ghost"));
      await wait(ev.ghosts.length ? LOCK_PACE.ghostsTag : LOCK_PACE.noGhostTag);
    }
  }

  async lockEnd(ev, instant) {
    this.ensureBoard(ev.super);
    if (ev.super) this.setMode("super");
    const name = t(FEATURE_NAME[ev.super]);
    const cells = this.panel.cells;
    if (!instant && ev.all_gold) {
      this.ctx.sound?.play("bigwin");
      await banner(this.bannerHost, { title: t("Full board!"), sub: t("Every position is gold"), kind: "super", ms: 1400 });
    }
    if (!instant) {
      this.tag(t("The frames turn into prizes"));
      await wait(LOCK_PACE.prizesTag);
    }
    let total = 0;
    const counting = [];
    for (const a of ev.awards) {
      const level = LEVELS.indexOf(a.frame);
      cells[a.position].setPrize(a.prize, a.credits, level);
      total += a.credits;
      if (!instant) {
        this.ctx.sound?.play(JACKPOTS.includes(a.prize) ? "bigwin" : "coin");
        counting.push(this.ctx.addWin(a.credits));
        this.tag(t("{feature}: {detail}", { feature: name, detail: this.money(total) }));
        await wait(JACKPOTS.includes(a.prize) ? LOCK_PACE.jackpot : LOCK_PACE.prize);
      }
    }
    await Promise.all(counting);
    this.el.dataset.lockWin = String(ev.credits);
    this.counter.dataset.done = "1";
    this.caption.replaceChildren(h("div", { "data-testid": "lock-total" },
      winCaption([this.money(ev.credits), t("{feature} win", { feature: name }), t("{n} prizes", { n: ev.awards.length })])));
    if (!instant) {
      await featureTotal(this.ctx, this.bannerHost, {
        title: name, amount: ev.credits * this.ctx.coin(), kind: ev.super ? "super-lock-spin" : "lock-spin",
        bannerKind: ev.super ? "super" : "lock", testid: "banner-lock-total",
      });
    }
  }

  // -- decisions -------------------------------------------------------------------------------

  decisionPrompt(round) {
    const f = round.state?.feature;
    if (round.state?.phase !== "lock_spin" || !f) return "";
    const feature = t(FEATURE_NAME[Boolean(f.super)]);
    if (!f.played) return t("{feature}: {detail}", { feature, detail: t("{n} spins", { n: f.counter }) });
    return t("{feature}: {detail}", { feature, detail: t("{n} spins left", { n: f.counter }) });
  }

  actionLabel(spec, round) {
    const f = round.state?.feature;
    if (spec.name === "spin" && f) return f.played ? t("Next spin") : t("Start {feature}", { feature: t(FEATURE_NAME[Boolean(f.super)]) });
    return t("Spin");
  }

  /** Lock & Spin's spins run on by themselves once the player has started the feature. */
  autoContinue(spec, round) {
    return spec.name === "spin" && (round.state?.feature?.played ?? 0) > 0;
  }

  /** The Buy menu: both features, priced at the chosen bet. */
  buyOptions(level) {
    const b = this.game.buy || {};
    const n = b.spins ?? 3;
    return [
      { mode: "buy-lock-spin", title: t("Lock & Spin"), times: b.lock_spin,
        text: (times) => t("{times}× the bet. {n} spins. White and gold ghosts land on the board; the frames turn into coins and jackpots.", { times, n }) },
      { mode: "buy-super-lock-spin", title: t("Super Lock & Spin"), times: b.super_lock_spin,
        text: (times) => t("{times}× the bet. {n} spins. Gold ghosts only: every frame turns into a jackpot, MINI to GRAND.", { times, n }) },
    ].filter((o) => Number.isInteger(o.times)).map((o) => ({
      ...o, title: o.title, price: o.times * level.stake, text: o.text(formatNumber(o.times)),
    }));
  }

  // -- recall ----------------------------------------------------------------------------------

  prizeText(prize, credits) {
    return JACKPOTS.includes(prize) ? `${jackpotName(prize)} (${this.money(credits)})` : this.money(credits);
  }

  describe(ev) {
    const money = (c) => this.money(c);
    switch (ev.type) {
      case "spin": {
        const parts = [];
        if (ev.shot) parts.push(ev.shot === "ghost" ? t("magic shot: the ghost in the center") : t("magic shot: Gambini in the center"));
        if (ev.center_rewind) {
          const n = ev.center_rewind.distance;
          parts.push(ev.center_wild === "ghost"
            ? t("Magic Rewind: the center moved back {n} stops to the ghost", { n })
            : t("Magic Rewind: the center moved back {n} stops to Gambini", { n }));
        }
        if (ev.jackpot_rewind) {
          parts.push(t("jackpot rewind: position {position} moved back to {jackpot}",
            { position: ev.jackpot_rewind.position + 1, jackpot: jackpotName(ev.jackpot_rewind.jackpot) }));
        }
        if (ev.ghost_coins.length) {
          const list = ev.ghost_coins.map((g) => t("{prize} on position {position}", { prize: this.prizeText(g.prize, g.credits), position: g.position + 1 }));
          parts.push(t("ghost coins: {list}", { list: list.join(", ") }));
        }
        if (ev.collected.length) {
          const list = ev.collected.map((c) => this.prizeText(c.prizes.join(" + "), c.credits)).join(", ");
          parts.push(t("collected {list} = {amount}", { list, amount: money(ev.collect_credits) }));
        }
        for (const w of ev.lines) {
          parts.push(t("line {line}: {count} × {symbol} {amount}",
            { line: w.line + 1, count: w.length, symbol: this.symbolName(w.symbol), amount: money(w.credits) }));
        }
        const head = ev.credits ? t("Spin: {amount}", { amount: money(ev.credits) }) : t("Spin: no win");
        return parts.length ? `${head} — ${parts.join("; ")}` : head;
      }
      case "piggy_toss": {
        const what = ev.into.map((side, i) => {
          const did = PIGGY_DID[side];
          if (ev.popped.includes(side)) return t(did.popped);
          const size = ev.sizes[SIDES.indexOf(side)] + 1;
          return ev.grew[i] ? t(did.grew, { size }) : t(did.stayed, { size });
        });
        return tossLine(ev.by, ev.into, 1, { list: what.join(", ") });
      }
      case "buy":
        return t("Bought: {feature}", { feature: t(FEATURE_NAME[ev.feature === "super_lock_spin"]) });
      case "lock_spin_start":
        return t("{feature} starts with {spins}: {ghosts} — {board}", {
          feature: t(FEATURE_NAME[ev.super]), spins: t("{n} spins", { n: ev.spins }),
          ghosts: t("{n} ghosts", { n: ev.ghosts.length }), board: this.boardText(ev.board),
        });
      case "lock_spin":
        return t("Spin {spin}: {ghosts}, {left} — {board}", {
          spin: ev.spin, ghosts: ev.ghosts.length ? t("{n} ghosts", { n: ev.ghosts.length }) : t("no ghost"),
          left: t("{n} spins left", { n: ev.counter }), board: this.boardText(ev.board),
        });
      case "lock_spin_end": {
        const params = {
          feature: t(FEATURE_NAME[ev.super]), amount: money(ev.credits),
          list: ev.awards.map((a) => `${FRAME_NAME[a.frame] ? t(FRAME_NAME[a.frame]) : a.frame} → ${this.prizeText(a.prize, a.credits)}`).join(", "),
        };
        return ev.all_gold ? t("{feature} ends (full board): {list} = {amount}", params) : t("{feature} ends: {list} = {amount}", params);
      }
      case "max_win":
        return t("Max win reached: {amount}", { amount: money(ev.credits) });
      case "round_end":
        return t("Round over: {amount} won", { amount: this.ctx.format(ev.win) });
      default:
        return ev.type;
    }
  }

  boardText(board) {
    const n = [0, 0, 0, 0];
    board.forEach((l) => n[l]++);
    const parts = [];
    if (n[1]) parts.push(t("{n} bronze", { n: n[1] }));
    if (n[2]) parts.push(t("{n} silver", { n: n[2] }));
    if (n[3]) parts.push(t("{n} gold", { n: n[3] }));
    return parts.length ? t("{list} frames", { list: parts.join(", "), n: n[1] + n[2] + n[3] }) : t("an empty board");
  }

  /** A still picture of a step: the panel it showed, or the board. */
  snapshot(events) {
    const view = new GambiniRenderer({ ...this.ctx, playerState: null, sound: null, speed: () => 0 });
    const wrap = h("div.snapshot.gog-snapshot", { dataset: { mode: "base" } }, view.frame);
    view.present(events.filter((e) => e.type !== "round_end" && e.type !== "max_win"), null, { instant: true })
      .then(() => (wrap.dataset.mode = view.el.dataset.mode));
    return wrap;
  }

  // -- paytable and rules --------------------------------------------------------------------

  paytable(level) {
    const g = this.game;
    const money = (credits) => this.ctx.format(credits * level.coin);
    const times = (credits) => t("{times}× bet", { times: formatNumber(+(credits / level.credits).toFixed(2)) });
    const paying = Object.keys(g.pays).sort((a, b) => (g.pays[b][5] ?? 0) - (g.pays[a][5] ?? 0));
    const cards = paying.map((code) => h("div.paycard", { "data-symbol": code },
      h("div.paycard__art", use(code)),
      h("div.paycard__name", this.symbolName(code)),
      h("ol.paycard__pays", ["5", "4", "3", "2"].filter((n) => g.pays[code][n]).map((n) =>
        h("li", h("span.paycard__n", n), h("span.paycard__v", money(g.pays[code][n])))))));
    const coins = Object.entries(g.coin_values).map(([code, credits]) => h("div.prizecard", { "data-symbol": code },
      h("div.prizecard__art", this.symbolAt(code, credits, level)),
      h("div.prizecard__v", money(credits)), h("div.prizecard__x", times(credits))));
    const jps = JACKPOTS.filter((j) => g.jackpots?.[j]).map((j) => h("div.prizecard", { "data-symbol": j },
      h("div.prizecard__art", use(j)),
      h("div.prizecard__v", this.ctx.format(g.jackpots[j] * level.stake)), h("div.prizecard__x", t("{times}× bet", { times: formatNumber(g.jackpots[j]) }))));
    const frameRows = (frames, kinds) => kinds.filter((k) => frames[k] && Object.keys(frames[k]).length).map((k) => {
      const table = frames[k];
      const total = Object.values(table).reduce((a, b) => a + b, 0);
      return h("tr", h("td", h("span.swatch.swatch--" + k), t(FRAME_TITLE[k])),
        h("td", Object.entries(table).map(([p, w]) =>
          `${JACKPOTS.includes(p) ? jackpotName(p) : money(g.coin_values[p])} ${formatPercent(w / total, 1)}`).join(" · ")));
    });
    const buys = [[FEATURE_NAME[false], g.buy?.lock_spin], [FEATURE_NAME[true], g.buy?.super_lock_spin]].filter(([, x]) => x)
      .map(([name, x]) => h("tr", h("td", t(name)),
        h("td", t("{times}× bet = {price}", { times: formatNumber(x), price: this.ctx.format(x * level.stake) })),
        h("td", t("{n} spins", { n: g.buy.spins }))));
    const lineGrid = h("div.linegrid", (g.lines || []).map((rows, i) => h("div.linegrid__item",
      svg(`<svg viewBox="0 0 50 30" class="linegrid__svg" aria-hidden="true">${Array.from({ length: 15 }, (_, p) =>
        `<rect x="${Math.floor(p / 3) * 10 + 1}" y="${(p % 3) * 10 + 1}" width="8" height="8" rx="1.5" class="${rows[Math.floor(p / 3)] === p % 3 ? "on" : ""}"/>`).join("")}</svg>`),
      h("span.linegrid__n", String(i + 1)))));
    return h("div.paytable.gog-paytable", { "data-testid": "paytable" },
      h("p.paytable__intro", t("Pays per line at your bet of {stake} ({lines} lines, {credits} credits × {coin}). A line pays its reel 1 symbol's longest run from the left; Gambini and the ghost substitute for every line symbol.",
        { stake: this.ctx.format(level.stake), lines: g.lines.length, credits: level.credits, coin: this.ctx.format(level.coin) })),
      h("div.paycards", cards),
      h("div.paytable__specials",
        h("div.special", h("div.special__art", use(g.wilds.gambini)),
          h("div", h("h3", "Gambini"), h("p", t("Wild. Lands only in the center. With Gambini in the center every coin and jackpot in view is collected, then he tosses a coin into one or both piggies.")))),
        h("div.special", h("div.special__art", use(g.wilds.ghost)),
          h("div", h("h3", t("Gambini's Ghost")), h("p", t("Wild. Lands only in the center, throws ghost coins onto the panel, collects like Gambini, and tosses into both piggies: a piggy it pops starts Super Lock & Spin.")))),
        h("div.special", h("div.special__art", use(g.blank)),
          h("div", h("h3", t("Cobweb")), h("p", t("Blank: pays nothing and breaks lines. With a wild in the center a cobweb may rewind to a jackpot."))))),
      h("h3", t("Coins")),
      h("p", t("Padlocked coins pay their value when Gambini or the ghost is in the center. Coins and jackpots do not pay on lines.")),
      h("div.prizecards", coins),
      h("h3", t("Jackpots")),
      h("p", t("Fixed, times the total bet. The GRAND is won only in Lock & Spin.")),
      h("div.prizecards", jps),
      h("h3", t("Lock & Spin frames")),
      h("p", t("At the end of the feature every frame turns into one prize, with these chances:")),
      h("table.table", h("tbody",
        h("tr", h("th", { colspan: "2" }, t("Lock & Spin"))), frameRows(g.frames.lock_spin, ["bronze", "silver", "gold"]),
        h("tr", h("th", { colspan: "2" }, t("Super Lock & Spin"))), frameRows(g.frames.super_lock_spin, ["gold"]))),
      buys.length ? h("h3", t("Buy a feature")) : null,
      buys.length ? h("table.table", { "data-testid": "buy-prices" }, h("tbody", buys)) : null,
      h("h3", t("{n} lines", { n: g.lines.length })),
      lineGrid);
  }

  symbolAt(code, credits, level) {
    return h("div.gsym.gsym--coin", use("coin"), h("span.gsym__value", this.ctx.format(credits * level.coin)));
  }

  rules() {
    const g = this.game;
    const levels = g.bet_levels;
    const min = levels[0].stake;
    const max = levels[levels.length - 1].stake;
    const sizes = g.piggy_sizes || 5;
    const b = g.buy || {};
    return h("div.rules", { "data-testid": "rules" },
      h("p.rules__rtp", t("Theoretical return to player (RTP): "), h("strong", { "data-testid": "rtp" }, formatPercent(g.rtp, 2))),
      h("ul",
        h("li", t("15 independent reels, one for each position of a 5 × 3 panel; each stops on its own. {lines} fixed lines. Bets from {min} to {max} ({credits} credits × coin value, 1 credit a line).",
          { lines: g.lines.length, min: this.ctx.format(min), max: this.ctx.format(max), credits: levels[0].credits })),
        h("li", t("A line pays when the symbol on its reel 1 position is repeated on the next reels from the left, 3 or more in a row; only the longest run pays. Wins on different lines are added.")),
        h("li", t("Gambini and Gambini's Ghost land only in the center (reel 3, row 2) and are wild for every line symbol. Cobwebs, coins and jackpots pay nothing on lines and break them.")),
        h("li", t("Magic shot: at the start of a spin the center may be shot straight to Gambini or the ghost.")),
        h("li", t("Magic Rewind: with no wild in the center, the center reel may move back to the nearest Gambini or ghost. With a wild in the center and a cobweb in view, one cobweb may move back to the nearest jackpot.")),
        h("li", t("With Gambini or the ghost in the center, every coin and jackpot in view is collected: coins pay their value, jackpots their multiple of the total bet (see the paytable).")),
        h("li", t("The ghost first throws 1 to 4 ghost coins onto the positions around the center. On a coin or jackpot a ghost coin adds its value; on any other symbol it lies on top and the symbol still counts for the lines. Every ghost coin is collected.")),
        h("li", t("Piggy banks: two piggies for each bet level, kept from game to game ({sizes} sizes). After a spin with Gambini in the center he tosses a coin into the left, the right or both piggies; the ghost tosses into both. A piggy tossed into may grow; one that grows at its largest size pops and starts Lock & Spin: 3 spins, or 4 when both pop. Popped by the ghost, it is Super Lock & Spin.", { sizes })),
        h("li", t("Lock & Spin: the popped piggy releases ghosts onto an empty board of 15 positions. A white ghost raises a frame one level (empty → bronze → silver → gold); a gold ghost makes it gold. A ghost landing on a gold frame moves on to a position that is not gold. Each spin lands 0 to 3 ghosts: when one lands the spins go back to the start, otherwise one is used. The feature ends with no spins left or a board all gold; then every frame turns into a coin or a jackpot (chances in the paytable).")),
        h("li", t("Super Lock & Spin: gold ghosts only, and every gold frame turns into a jackpot, MINI to GRAND.")),
        b.lock_spin ? h("li", t("Buy a feature (where allowed): Lock & Spin for {lock}× the bet, Super Lock & Spin for {super}× the bet, each starting with {n} spins. A bought feature neither uses nor changes the piggies.",
          { lock: formatNumber(b.lock_spin), super: formatNumber(b.super_lock_spin), n: b.spins })) : null,
        h("li", t("The most a round can win is {times}× the bet; when it is reached the round ends and the rest of the feature is forfeited.", { times: formatNumber(g.max_win) })),
        h("li", t("Lock & Spin needs no decision: a round left unfinished is completed later as it would have been. Wins are paid when the round ends. A malfunction voids all pays and plays."))),
      h("p.rules__meta", t("Game {name} version {version}, RTP variant {variant}.", { name: g.name, version: g.version, variant: g.variant })));
  }
}
