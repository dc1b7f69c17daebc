// Reign of Gnomes: 5x3 reels, 243 ways, Dragon Spins with the Golden Wheel on every free
// spin (3x/5x/6x, Spin To Win, Random Wilds, Ice Diamonds).  Draws the reels, the wheel,
// the Ice Diamonds stones, and the game's paytable and rules from the server's figures.
//
// The game's renderer (createRenderer, lobbyTile), served from this folder at
// js/games/reign-of-gnomes/index.js: ../../ is the shared client's js/ folder.

import { Reels } from "../../reels.js";
import { animate, h, svg, wait, titleCase } from "../../ui.js";
import { formatNumber, formatPercent } from "../../money.js";
import { t, tk } from "../../i18n.js";
import { anticipation } from "../../presentation.js";
import { banner, featureIntro, featureTotal, winCaption } from "../../renderers/common.js";
import { ICONS, sprite } from "./gnomes-art.js";
import { iceRecallBoard } from "./gnomes-recall.js";
import { gnomesScene } from "./gnomes-scene.js";

const WILD = "WI";
const SCATTER = "EG";
// Before the first spin: no egg, no crown, and reels 1 and 2 share no symbol (no way pays).
const IDLE = [["KG", "A", "T"], ["Q", "MU", "N"], ["QN", "J", "K"], ["A", "KN", "T"], ["K", "MU", "Q"]];
// Big / Mega / Epic from these multiples of the stake (the shared client's win tiers).
const WIN_TIERS = { big: 15, mega: 40, epic: 100 };
// Pacing, in ms at normal speed (Quick scales all of it; docs/web-client.md, Presentation):
// Dragon Spins and Spin To Win games land quicker than a base spin, the wheel spins longer the
// first time than on the repeats, and a Dragon Spin's captions are shorter.
const PACE = {
  reels: {
    base: { spinMs: 520, staggerMs: 170, landMs: 380 },
    free: { spinMs: 220, staggerMs: 70, landMs: 240 },
    spin_to_win: { spinMs: 160, staggerMs: 50, landMs: 200 },
  },
  wheel: { first: { lead: 120, spin: 1600, hold: 600 }, again: { lead: 50, spin: 1000, hold: 350 } },
  base: { scatter: 700, noWin: 450, way: 650, all: 300, ways: 4 },
  free: { scatter: 500, noWin: 220, way: 350, all: 150, ways: 3 },
};
const WHEEL_LOOK = {
  x3: { text: tk("3×"), color: "#2f7de0" },
  x5: { text: tk("5×"), color: "#8a3fd0" },
  x6: { text: tk("6×"), color: "#d0174f" },
  spin_to_win: { text: tk("SPIN TO WIN"), color: "#ef7d0a" },
  random_wilds: { text: tk("RANDOM WILDS"), color: "#169a5a" },
  ice_diamonds: { text: tk("ICE DIAMONDS"), color: "#1fa8cf" },
};
const AWARD_NAMES = {
  spin_to_win: tk("Spin To Win"),
  random_wilds: tk("Random Wilds"),
  ice_diamonds: tk("Ice Diamonds"),
};
// The symbols' names as the server sends them (data/*.toml), marked for the key scan; they
// are shown translated by symbolName().
const SYMBOL_NAMES = [
  tk("Gnome King"), tk("Gnome Queen"), tk("Gnome Knight"), tk("Toadstool House"), tk("Ace"), tk("King"),
  tk("Queen"), tk("Jack"), tk("Ten"), tk("Nine"), tk("Golden Crown (wild, reels 2-4)"), tk("Dragon's Egg (scatter)"),
];

export function awardName(label) {
  if (AWARD_NAMES[label]) return t(AWARD_NAMES[label]);
  const m = /^x(\d+)$/.exec(label);
  return m ? t("{multiplier}× multiplier", { multiplier: m[1] }) : titleCase(label);
}

/** A symbol's name from the server's game info, in the player's language. */
function symbolName(game, code) {
  const name = game.symbols[code];
  return name ? t(name) : code;
}

function ensureSprite() {
  if (!document.getElementById("rog-sprite")) {
    const el = svg(sprite());
    el.id = "rog-sprite";
    document.body.prepend(el);
  }
}

export function symbolArt(code) {
  return svg(`<svg class="sym sym--${code}" viewBox="0 0 100 100" role="img" aria-label="${code}"><use href="#rog-${code}"/></svg>`);
}

export const sounds = () => import("./gnomes-sounds.js"); // its sound set (js/sound.js loads it when sound is on)

export function createRenderer(ctx) {
  return new GnomesRenderer(ctx);
}

class GnomesRenderer {
  constructor(ctx) {
    ensureSprite();
    this.ctx = ctx;
    this.game = ctx.game;
    const symbols = Object.keys(this.game.symbols);
    this.fillers = [0, 1, 2, 3, 4].map((r) =>
      symbols.filter((s) => (s !== WILD || (r > 0 && r < 4))));
    this.reels = new Reels({
      reels: 5,
      rows: 3,
      symbol: symbolArt,
      filler: (r) => this.fillers[r][Math.floor(Math.random() * this.fillers[r].length)],
      onReelStop: () => ctx.sound?.play("stop"),
    });
    this.status = h("div.rog__status", { "data-testid": "feature-status" });
    this.caption = h("div.rog__caption");
    this.fx = h("div.rog__fx");
    this.frame = h("div.rog__frame", { "data-testid": "reel-frame" },
      h("div.rog__frame-inner", this.reels.el), this.fx);
    this.el = h("div.rog", { dataset: { mode: "base" }, "data-testid": "renderer-reign-of-gnomes" },
      gnomesScene(),
      h("div.rog__logo", { "data-toast-clear": "" }, h("span.rog__logo-top", "Reign of"), h("span.rog__logo-main", "Gnomes"),
        h("span.rog__logo-ways", t("243 ways"))),
      this.status, this.frame, this.caption);
    this.reels.idle(IDLE);
    this.winTiers = WIN_TIERS;
    this.wheel = null;
    this.ice = null;
    this.reset();
  }

  // -- round lifecycle -------------------------------------------------------------------

  reset() {
    this.fs = { total: 0, played: 0 };
    this.multiplier = 1;
    this.award = null;
    this.awardSpent = false;
    this.setMode("base");
    this.ice?.close();
    this.ice = null;
    this.caption.replaceChildren();
    this.reels.clearHighlights();
    this.updateStatus();
  }

  setMode(mode) {
    this.el.dataset.mode = mode;
  }

  startSpin() {
    this.caption.replaceChildren();
    this.reels.startSpin();
    this.ctx.sound?.play("spin");
  }

  abortSpin() {
    this.reels.abortSpin();
  }

  updateStatus() {
    const parts = [];
    if (this.fs.total) {
      parts.push(h("div.pill.pill--free", { "data-testid": "free-spins-counter" },
        h("span.pill__label", t("Dragon Spins")), h("span.pill__value", `${this.fs.played} / ${this.fs.total}`)));
    }
    if (this.award) {
      const look = WHEEL_LOOK[this.award] || {};
      const text = this.award === "spin_to_win" ? t("Spin To Win ×{multiplier}", { multiplier: this.multiplier }) : awardName(this.award);
      parts.push(h("div.pill.pill--award", { style: { "--pill": look.color || "#888" }, "data-testid": "award-pill" }, text));
    }
    this.status.replaceChildren(...parts);
  }

  /** Draw the round as it stands, without animation (reload, recall). */
  async restore(round) {
    this.reset();
    await this.present(round.events, round, { instant: true });
    // The last wheel's award is spent once its Dragon Spin's reels were played (an Ice
    // Diamonds pick finished, its spin shown): the next spin has no award until its wheel.
    if (this.awardSpent) {
      this.award = null;
      this.multiplier = 1;
      this.updateStatus();
    }
  }

  /** Animate a step's new events in order. */
  async present(events, round, opts = {}) {
    const instant = Boolean(opts.instant);
    for (const ev of events) {
      switch (ev.type) {
        case "spin":
          await this.presentSpin(ev, instant);
          break;
        case "free_spins_awarded":
          this.fs.total += ev.count;
          this.setMode("free");
          this.updateStatus();
          if (!instant && ev.retrigger) {
            this.ctx.sound?.play("feature");
            await banner(this.fx, {
              title: t("+{n} Dragon Spins", { n: ev.count }), sub: t("{n} Dragon's Eggs", { n: ev.scatters }), kind: "feature", ms: 1200, testid: "banner-free-spins",
            });
          } else if (!instant) {
            await featureIntro(this.ctx, this.fx, {
              title: t("{n} Dragon Spins", { n: ev.count }), sub: t("{n} Dragon's Eggs", { n: ev.scatters }), kind: "free-spins", testid: "banner-free-spins",
            });
          }
          break;
        case "wheel":
          this.fs.played = ev.free_spin;
          this.awardSpent = false;
          this.award = null;
          this.multiplier = 1;
          this.ice?.close();
          this.ice = null;
          this.updateStatus();
          if (!instant) await this.spinWheel(ev.award);
          this.award = ev.award;
          this.multiplier = /^x(\d+)$/.test(ev.award) ? Number(ev.award.slice(1)) : 1;
          this.updateStatus();
          break;
        case "random_wilds":
          if (!instant) await banner(this.fx, { title: t("Random Wilds"), sub: t("Wild set {set} on reels 2–4", { set: ev.set + 1 }), kind: "wilds", ms: 800 });
          break;
        case "ice_diamonds_start":
          this.ice = new IceBoard(this, ev.stones);
          this.frame.append(this.ice.el);
          if (!instant) await this.ice.intro();
          break;
        case "pick":
          this.ice?.reveal(ev.stone, ev.diamond, instant);
          if (!instant) await wait(250);
          break;
        case "ice_diamonds_award":
          if (this.ice) await this.ice.finish(ev, instant);
          this.ice = null;
          break;
        case "max_win":
          if (!instant) await banner(this.fx, { title: t("Max win"), sub: t("{multiple}× the bet reached", { multiple: this.game.max_win }), kind: "feature", ms: 2000 });
          break;
        case "round_end":
          if (!instant) await this.roundEnd(ev);
          break;
        default:
          break; // an event this client does not know: nothing to draw
      }
    }
  }

  /** Dragon Spins over: their total (the round's win) on the feature's total screen; a
   *  Big / Mega / Epic win is the shared client's, after the round. */
  async roundEnd(ev) {
    if (this.fs.total) await featureTotal(this.ctx, this.fx, { title: t("Dragon Spins"), amount: ev.win, kind: "free-spins", testid: "banner-total" });
  }

  // -- spins ------------------------------------------------------------------------------

  async presentSpin(ev, instant) {
    const kind = ev.reels;
    this.awardSpent = Boolean(this.award) && kind !== "spin_to_win";
    this.frame.dataset.reels = kind.startsWith("random_wilds") ? "random_wilds" : kind;
    if (kind === "spin_to_win") {
      this.award = "spin_to_win";
      this.multiplier = ev.multiplier;
      this.updateStatus();
    }
    this.caption.replaceChildren();
    if (instant) {
      this.reels.setWindow(ev.window);
      this.highlightAll(ev);
      return;
    }
    // Anticipation: once two eggs have landed (one more starts Dragon Spins), the next
    // reels glow and spin on a little longer.  Spin To Win's reels carry no eggs.
    const delays = kind === "spin_to_win" ? [] : anticipation(ev.window, (c) => c === SCATTER, 3, 650);
    if (!this.reels.spinning) this.reels.startSpin();
    const reelPace = PACE.reels[kind] || PACE.reels[this.fs.total ? "free" : "base"];
    await this.reels.stopAt(ev.window, { ...reelPace, delays, onAnticipate: () => this.ctx.sound?.play("anticipate") });
    if (kind.startsWith("random_wilds")) {
      const wilds = [];
      ev.window.forEach((col, r) => col.forEach((s, row) => s === WILD && r > 0 && r < 4 && wilds.push([r, row])));
      this.reels.highlight(wilds, "wild", false);
      await wait(350);
      this.reels.clearHighlights();
    }
    await this.presentWins(ev);
  }

  highlightAll(ev) {
    const cells = ev.ways.flatMap((w) => w.positions);
    if (cells.length) this.reels.highlight(cells, "win");
    if (ev.scatters.length >= 3) this.reels.highlight(ev.scatters, "scatter", cells.length > 0);
    if (ev.credits) this.caption.replaceChildren(winCaption([this.ctx.credits(ev.credits), this.wayText(ev)]));
  }

  wayText(ev) {
    // Count the ways that paid (a combination may pay on several), not the combinations.
    const n = ev.ways.reduce((a, w) => a + w.ways, 0);
    const parts = [];
    if (n) parts.push(t("{n} ways", { n }));
    if (ev.scatters.length >= 3) parts.push(t("{n} eggs", { n: ev.scatters.length }));
    if (ev.multiplier > 1) parts.push(`×${ev.multiplier}`);
    return parts.join(" · ");
  }

  async presentWins(ev) {
    const s = this.ctx.sound;
    const pace = this.fs.total ? PACE.free : PACE.base;
    if (ev.scatters.length >= 3) {
      this.reels.highlight(ev.scatters, "scatter", true);
      s?.play("feature");
      await wait(pace.scatter);
      this.reels.clearHighlights();
    }
    if (!ev.credits) {
      if (ev.reels === "spin_to_win") {
        this.caption.replaceChildren(winCaption([t("No win"), t("multiplier grows to ×{multiplier}", { multiplier: ev.multiplier + 1 })]));
        await wait(pace.noWin);
      }
      return;
    }
    s?.play("win");
    const all = ev.ways.flatMap((w) => w.positions);
    this.reels.highlight(all, "win");
    if (ev.scatters.length >= 3) this.reels.highlight(ev.scatters, "scatter", true);
    const counting = this.ctx.addWin(ev.credits);
    // Show each way win in turn (the four biggest; three in Dragon Spins), then all of them.
    const ways = [...ev.ways].sort((a, b) => b.credits - a.credits).slice(0, pace.ways);
    if (ways.length > 1) {
      for (const w of ways) {
        this.reels.clearHighlights();
        this.reels.highlight(w.positions, "win");
        this.caption.replaceChildren(this.wayCaption(w, ev.multiplier));
        await wait(pace.way);
      }
      this.reels.clearHighlights();
      this.reels.highlight(all, "win");
    } else if (ways.length === 1) {
      this.caption.replaceChildren(this.wayCaption(ways[0], ev.multiplier));
      await wait(pace.way);
    }
    await counting;
    this.caption.replaceChildren(winCaption([this.ctx.credits(ev.credits), this.wayText(ev)]));
    await wait(pace.all);
  }

  wayCaption(w, multiplier) {
    return winCaption([
      this.ctx.credits(w.credits * multiplier),
      t("{length} × {symbol}", { length: w.length, symbol: symbolName(this.game, w.symbol) }),
      t("{n} ways", { n: w.ways }),
      multiplier > 1 ? `×${multiplier}` : null,
    ]);
  }

  // -- the Golden Wheel ------------------------------------------------------------------

  /** The Golden Wheel.  What it shows: the real odds, each slice's angle its weight's share
   *  of the wheel (the same figures as the paytable's), and every prize labelled at one
   *  readable size whatever its odds (a long name on two lines, reading outwards from the
   *  hub), so the smallest slice reads as well as the largest.  The pointer, below the title,
   *  lands inside the slice of the prize the server drew (spinWheel). */
  buildWheel() {
    const segs = this.game.wheel;
    const total = segs.reduce((a, s) => a + s.weight, 0);
    let acc = 0;
    const pt = (deg, r) => {
      const a = (deg * Math.PI) / 180;
      return [50 + r * Math.sin(a), 50 - r * Math.cos(a)];
    };
    const esc = (text) => String(text).replace(/&/g, "&amp;").replace(/</g, "&lt;");
    const parts = [];
    this.wheelMid = {};
    for (const s of segs) {
      const a0 = (acc / total) * 360;
      const a1 = ((acc + s.weight) / total) * 360;
      acc += s.weight;
      const [x0, y0] = pt(a0, 47);
      const [x1, y1] = pt(a1, 47);
      const look = WHEEL_LOOK[s.label] || { text: awardName(s.label), color: "#777" };
      const text = WHEEL_LOOK[s.label] ? t(look.text) : look.text;
      const mid = (a0 + a1) / 2;
      this.wheelMid[s.label] = { mid, half: (a1 - a0) / 2 };
      parts.push(`<path data-prize="${esc(s.label)}" d="M50 50 L${x0.toFixed(3)} ${y0.toFixed(3)} A47 47 0 ${a1 - a0 > 180 ? 1 : 0} 1 ${x1.toFixed(3)} ${y1.toFixed(3)}Z" fill="${look.color}" stroke="#fff3b0" stroke-width=".8"/>`);
      // One size for every prize: a multiplier large, any name in lines of at most ~9
      // letters, set along the slice's middle between the hub and the rim.
      const lines = text.length > 4 ? wrapWords(text, 9) : [text];
      const size = lines.length === 1 && text.length <= 4 ? 10 : 5.6;
      const x = text.length <= 4 ? 76 : 93 - (Math.max(...lines.map((l) => l.length)) * size * 0.62) / 2;
      const tspans = lines.map((line, i) =>
        `<tspan x="${x.toFixed(2)}" y="${(50 + size * 0.36 + (i - (lines.length - 1) / 2) * size * 1.05).toFixed(2)}">${esc(line)}</tspan>`).join("");
      parts.push(`<text data-prize-label="${esc(s.label)}" transform="rotate(${(mid - 90).toFixed(2)} 50 50)" text-anchor="middle" font-size="${size}" font-weight="800" fill="#fff" stroke="#2a1200" stroke-width=".5" paint-order="stroke" font-family="system-ui, sans-serif">${tspans}</text>`);
    }
    const dots = [];
    for (let i = 0; i < 24; i++) {
      const [x, y] = pt(i * 15, 48.6);
      dots.push(`<circle cx="${x.toFixed(2)}" cy="${y.toFixed(2)}" r="1" fill="#fff8d0"/>`);
    }
    const hub = t("SPIN");
    const disc = svg(`<svg class="wheel__disc" viewBox="0 0 100 100"><circle cx="50" cy="50" r="49.5" fill="#5a3000" stroke="url(#rog-gold)" stroke-width="1.5"/>${parts.join("")}${dots.join("")}<circle cx="50" cy="50" r="9" fill="url(#rog-gold)" stroke="#5a3000"/><text x="50" y="52.6" text-anchor="middle" font-size="${hub.length > 4 ? 5 : 6.5}" font-weight="800" fill="#5a3000" font-family="system-ui, sans-serif">${hub}</text></svg>`);
    const pointer = svg(`<svg class="wheel__pointer" viewBox="0 0 20 24"><path d="M2 2 H18 L10 22Z" fill="url(#rog-gold)" stroke="#5a3000" stroke-width="1.5"/></svg>`);
    this.wheelResult = h("div.wheel__result", { "data-testid": "wheel-result" });
    this.wheel = h("div.wheel", { "data-testid": "wheel" },
      h("div.wheel__title", t("Golden Wheel")), h("div.wheel__body", disc, pointer), this.wheelResult);
    this.wheelDisc = disc;
  }

  async spinWheel(label) {
    if (!this.wheel) this.buildWheel();
    this.wheelResult.textContent = "";
    this.wheel.dataset.award = "";
    this.fx.append(this.wheel);
    const pace = this.fs.played > 1 ? PACE.wheel.again : PACE.wheel.first;
    this.ctx.sound?.play("wheel", { ms: pace.spin * this.speedScale(), delay: pace.lead * this.speedScale() });
    const seg = this.wheelMid[label] || { mid: 0, half: 0 };
    const jitter = (Math.random() - 0.5) * seg.half;
    const turn = 360 * 5 - seg.mid - jitter;
    await wait(pace.lead);
    const anim = animate(this.wheelDisc,
      [{ transform: "rotate(0deg)" }, { transform: `rotate(${turn}deg)` }],
      pace.spin, { easing: "cubic-bezier(.12,.6,.18,1)", fill: "forwards" });
    await anim?.finished.catch(() => {});
    this.wheelDisc.style.transform = `rotate(${turn}deg)`;
    this.wheel.dataset.award = label;
    this.wheelResult.textContent = awardName(label);
    this.ctx.sound?.play("wheel-stop");
    await wait(pace.hold);
    this.wheel.remove();
    this.wheelDisc.getAnimations().forEach((a) => a.cancel());
  }

  speedScale() {
    return this.ctx.speed();
  }

  // -- decisions ---------------------------------------------------------------------------

  decision(spec, round, choose) {
    if (spec.name === "pick" && this.ice) return this.ice.enable(spec, choose);
    return null;
  }

  decisionPrompt(round) {
    if (round.state?.phase === "ice_diamonds") return t("Ice Diamonds: pick a stone");
    if (round.state?.free_spins_played === 0 && round.state?.free_spins_left) {
      return t("{n} Dragon Spins won!", { n: round.state.free_spins_left });
    }
    if (round.state?.free_spins_left) {
      return t("Dragon Spin {spin} of {total}", {
        spin: round.state.free_spins_played + 1, total: round.state.free_spins_played + round.state.free_spins_left,
      });
    }
    return "";
  }

  actionLabel(spec, round) {
    if (spec.name === "spin") {
      return round.state?.free_spins_played ? t("Next Dragon Spin") : t("Start Dragon Spins");
    }
    return titleCase(spec.name);
  }

  /** Free spins after the first run on by themselves; the first waits for the player. */
  autoContinue(spec, round) {
    return spec.name === "spin" && round.state?.free_spins_played > 0;
  }

  // -- recall --------------------------------------------------------------------------------

  describe(ev) {
    const credits = (c) => this.ctx.credits(c);
    switch (ev.type) {
      case "spin": {
        const where = { base: t("Base game"), free: t("Dragon Spin"), spin_to_win: t("Spin To Win ×{multiplier}", { multiplier: ev.multiplier }) }[ev.reels]
          || (ev.reels.startsWith("random_wilds") ? t("Dragon Spin with Random Wilds") : titleCase(ev.reels));
        const wins = ev.ways.map((w) => t("{length} × {symbol} ({n} ways)", { length: w.length, symbol: symbolName(this.game, w.symbol), n: w.ways }));
        if (ev.scatters.length >= 3) wins.push(t("{n} Dragon's Eggs", { n: ev.scatters.length }));
        const mult = ev.multiplier > 1 && ev.reels !== "spin_to_win" ? ` ×${ev.multiplier}` : "";
        return wins.length
          ? t("{where}: {wins} = {credits}", { where, wins: wins.join(", ") + mult, credits: credits(ev.credits) })
          : t("{where}: no win", { where });
      }
      case "free_spins_awarded":
        return ev.retrigger
          ? t("Retrigger: +{n} Dragon Spins", { n: ev.count })
          : t("{n} Dragon Spins awarded ({eggs} eggs)", { n: ev.count, eggs: ev.scatters });
      case "wheel":
        return t("Golden Wheel (Dragon Spin {spin}): {award}", { spin: ev.free_spin, award: awardName(ev.award) });
      case "random_wilds":
        return t("Random Wilds: set {set}", { set: ev.set + 1 });
      case "ice_diamonds_start":
        return t("Ice Diamonds: {n} stones", { n: ev.stones });
      case "pick":
        return ev.diamond
          ? t("Picked stone {stone}: a diamond", { stone: ev.stone + 1 })
          : t("Picked stone {stone}: empty", { stone: ev.stone + 1 });
      case "ice_diamonds_award":
        return t("Ice Diamonds: {n} diamonds, level {level} = {credits}", { n: ev.diamonds, level: ev.level, credits: credits(ev.credits) });
      case "max_win":
        return t("Max win reached: {credits}", { credits: credits(ev.credits) });
      case "round_end":
        return t("Round over: {amount} won", { amount: this.ctx.format(ev.win) });
      default:
        return titleCase(ev.type);
    }
  }

  /** A still picture of a step (recall): the last reels it showed, wins marked, and the Ice
   *  Diamonds board where the step had a part in one (`before`: the earlier steps' events). */
  snapshot(events, before = []) {
    const spins = events.filter((e) => e.type === "spin");
    const wrap = h("div.snapshot.rog.rog--snapshot");
    if (spins.length) {
      const last = spins[spins.length - 1];
      const reels = new Reels({ reels: 5, rows: 3, symbol: symbolArt, filler: () => "A" });
      reels.setWindow(last.window);
      const cells = last.ways.flatMap((w) => w.positions);
      if (cells.length) reels.highlight(cells, "win");
      if (last.scatters.length >= 3) reels.highlight(last.scatters, "scatter", cells.length > 0);
      wrap.append(h("div.rog__frame.rog__frame--small", { dataset: { reels: last.reels.startsWith("random_wilds") ? "random_wilds" : last.reels } },
        h("div.rog__frame-inner", reels.el)));
    }
    const board = iceRecallBoard(this, IceBoard, before, events);
    if (board) wrap.prepend(h("div.rog-recall-ice", board)); // the picks came before the spin
    const wheel = events.find((e) => e.type === "wheel");
    if (wheel) {
      const look = WHEEL_LOOK[wheel.award] || {};
      wrap.prepend(h("div.pill.pill--award", { style: { "--pill": look.color || "#888" } }, t("Golden Wheel: {award}", { award: awardName(wheel.award) })));
    }
    return wrap;
  }

  // -- paytable and rules ------------------------------------------------------------------

  paytable(level) {
    const g = this.game;
    const money = (credits) => this.ctx.format(credits * level.coin);
    const paying = Object.keys(g.ways_pays).sort((a, b) => g.ways_pays[b][5] - g.ways_pays[a][5]);
    const cards = paying.map((code) => h("div.paycard", { "data-symbol": code },
      h("div.paycard__art", symbolArt(code)),
      h("div.paycard__name", symbolName(g, code)),
      h("ol.paycard__pays", ["5", "4", "3"].filter((n) => g.ways_pays[code][n]).map((n) =>
        h("li", h("span.paycard__n", n), h("span.paycard__v", money(g.ways_pays[code][n])))))));
    const scatterRows = Object.keys(g.scatter_pays).sort().map((n) =>
      h("tr", h("td", t("{n} eggs", { n })),
        h("td", t("{multiple}× bet = {amount}", { multiple: g.scatter_pays[n], amount: this.ctx.format(g.scatter_pays[n] * level.stake) })),
        h("td", t("{n} Dragon Spins", { n: g.free_spins[n] }))));
    const total = g.wheel.reduce((a, s) => a + s.weight, 0);
    const wheelRows = g.wheel.map((s) => h("tr",
      h("td", h("span.swatch", { style: { background: (WHEEL_LOOK[s.label] || {}).color } }), awardName(s.label)),
      h("td", formatPercent(s.weight / total, 2))));
    const ice = g.ice_diamonds;
    const iceRows = ice.levels.map((lv, i) => {
      const next = ice.levels[i + 1];
      const range = next ? (next.min_diamonds - 1 > lv.min_diamonds ? `${lv.min_diamonds}–${next.min_diamonds - 1}` : `${lv.min_diamonds}`) : `${lv.min_diamonds}`;
      return h("tr", h("td", t("Level {level}", { level: i + 1 })), h("td", t("{range} diamonds", { range })),
        h("td", t("{multiple}× bet = {amount}", { multiple: lv.award, amount: this.ctx.format(lv.award * level.stake) })));
    });
    return h("div.paytable", { "data-testid": "paytable" },
      h("p.paytable__intro", t("Pays per way at your bet of {stake}. 243 ways: a symbol pays on adjacent reels from the leftmost, in any row; only its longest combination pays, times the number of ways.", { stake: this.ctx.format(level.stake) })),
      h("div.paycards", cards),
      h("div.paytable__specials",
        h("div.special", h("div.special__art", symbolArt(WILD)),
          h("div", h("h3", symbolName(g, WILD)), h("p", t("Wild. Lands on reels 2, 3 and 4 and substitutes for every symbol except the Dragon's Egg.")))),
        h("div.special", h("div.special__art", symbolArt(SCATTER)),
          h("div", h("h3", symbolName(g, SCATTER)), h("p", t("Scatter. Pays anywhere in view, times the total bet, and starts Dragon Spins.")),
            h("table.table", h("tbody", scatterRows))))),
      h("h3", t("Golden Wheel")),
      h("p", t("Every Dragon Spin spins the Golden Wheel first; its award applies to that spin.")),
      h("table.table", h("tbody", wheelRows)),
      h("h3", t("Ice Diamonds")),
      h("p", t("{stones} stones hide {diamonds} diamonds. Pick until you find all {diamonds} or {empties} empty stones.", {
        stones: ice.stones, diamonds: ice.diamonds, empties: ice.empties_to_end,
      })),
      h("table.table", h("tbody", iceRows)));
  }

  rules() {
    const g = this.game;
    const levels = g.bet_levels;
    const min = levels[0].stake;
    const max = levels[levels.length - 1].stake;
    const fs = Object.entries(g.free_spins).map(([n, c]) => `${n} → ${c}`).join(", ");
    const ice = g.ice_diamonds;
    return h("div.rules", { "data-testid": "rules" },
      h("p.rules__rtp", t("Theoretical return to player (RTP): "), h("strong", { "data-testid": "rtp" }, formatPercent(g.rtp, 2))),
      h("ul",
        h("li", t("5 reels, 3 rows, 243 ways. Bets from {min} to {max} ({credits} credits × coin value).", {
          min: this.ctx.format(min), max: this.ctx.format(max), credits: levels[0].credits,
        })),
        h("li", t("Ways pay left to right from reel 1 on adjacent reels; each symbol pays its longest combination times the number of ways. All wins are added.")),
        h("li", t("{wild} is wild on reels 2–4 and substitutes for every symbol except the {scatter}.", {
          wild: symbolName(g, WILD), scatter: symbolName(g, SCATTER).replace(/ \(.*\)/, ""),
        })),
        h("li", t("3, 4 or 5 Dragon's Eggs anywhere pay the total bet times the scatter pay and award Dragon Spins ({awards}). Eggs during Dragon Spins award the same number again.", { awards: fs })),
        h("li", t("Dragon Spins are played at the bet that triggered them. Before each one the Golden Wheel awards one feature:"),
          h("ul",
            h("li", t("3×, 5× or 6×: the spin's way wins are multiplied (egg pays are not).")),
            h("li", t("Spin To Win: games on special reels until one wins; the multiplier starts at 1× and grows by 1 with every losing game; the winning game pays its way win times the multiplier. Then the Dragon Spin's own reels are played.")),
            h("li", t("Random Wilds: one of three sets of extra wilds is placed on reels 2–4 for the spin; at least one new wild always shows.")),
            h("li", t("Ice Diamonds: {stones} stones hide {diamonds} diamonds. You pick stones until you find all {diamonds} diamonds or {empties} empty stones; the diamonds found set the award (see the paytable). Then the spin's reels are played.", {
              stones: ice.stones, diamonds: ice.diamonds, empties: ice.empties_to_end,
            })))),
        h("li", t("The most a round can win is {multiple}× the bet; when it is reached the round ends and any features left are forfeited.", { multiple: formatNumber(g.max_win) })),
        h("li", t("The Ice Diamonds pick is the only decision. A round left unfinished is completed later with the default play (lowest-numbered stones first).")),
        h("li", t("Wins are paid when the round ends. A malfunction voids all pays and plays.")),
        h("li", t("Autoplay (where allowed) plays free spins on and stops at an Ice Diamonds pick."))),
      h("p.rules__meta", t("Game {name} version {version}, RTP variant {variant}.", { name: g.name, version: g.version, variant: g.variant })));
  }
}

// -- Ice Diamonds ---------------------------------------------------------------------------

class IceBoard {
  constructor(renderer, stones) {
    this.r = renderer;
    this.ctx = renderer.ctx;
    const ice = renderer.game.ice_diamonds;
    this.ice = ice;
    this.diamonds = 0;
    this.empties = 0;
    this.picked = new Set();
    this.choose = null;
    this.stones = Array.from({ length: stones }, (_, i) =>
      h("button.stone", {
        type: "button", disabled: true, "data-stone": String(i), "aria-label": t("Stone {stone}", { stone: i + 1 }),
        onclick: () => this.pick(i), html: ICONS.stone,
      }));
    this.counter = h("div.ice__counter", { "data-testid": "ice-counter" });
    const level = this.ctx.stake();
    this.ladder = h("ol.ice__ladder", ice.levels.map((lv, i) => h("li", { dataset: { level: String(i + 1) } },
      h("span.ice__lvl", `${lv.min_diamonds}+`), h("span.ice__gem", { html: ICONS.diamond }),
      h("span.ice__award", this.ctx.format(lv.award * level)))).reverse());
    this.el = h("div.ice", { "data-testid": "ice-diamonds" },
      h("div.ice__title", t("Ice Diamonds")),
      h("div.ice__main", h("div.ice__grid", this.stones), h("div.ice__side", this.counter, this.ladder)));
    this.updateCounter();
  }

  async intro() {
    await featureIntro(this.ctx, this.el, {
      title: t("Ice Diamonds"), sub: t("Find {diamonds} diamonds — {empties} empty stones end it", { diamonds: this.ice.diamonds, empties: this.ice.empties_to_end }),
      kind: "ice", testid: "banner-ice-diamonds", ms: 1300,
    });
  }

  updateCounter() {
    this.counter.replaceChildren(
      h("span", { html: ICONS.diamond }), h("strong", { "data-testid": "ice-diamonds-found" }, String(this.diamonds)),
      h("span.ice__sep", "·"),
      h("span", { html: ICONS.crack }), h("strong", `${this.empties} / ${this.ice.empties_to_end}`));
    const level = levelFor(this.ice, this.diamonds);
    this.ladder.querySelectorAll("li").forEach((li) => li.classList.toggle("is-current", Number(li.dataset.level) === level + 1));
  }

  reveal(stone, diamond, instant) {
    this.picked.add(stone);
    const b = this.stones[stone];
    b.disabled = true;
    b.classList.add(diamond ? "stone--diamond" : "stone--empty", "stone--picked");
    b.dataset.found = diamond ? "diamond" : "empty";
    b.innerHTML = diamond ? ICONS.diamond : ICONS.crack;
    if (diamond) this.diamonds++;
    else this.empties++;
    if (!instant) this.ctx.sound?.play(diamond ? "diamond" : "crack");
    this.updateCounter();
  }

  /** The pick decision: stones become buttons; arrows + Enter/Space on the keyboard. */
  enable(spec, choose) {
    this.choose = choose;
    const allowed = new Set(spec.choices);
    this.stones.forEach((b, i) => {
      b.disabled = !allowed.has(i);
      b.classList.toggle("stone--live", allowed.has(i));
    });
    this.el.classList.add("ice--live");
    // No prompt of its own: the panel's ("Ice Diamonds: pick a stone") says it once.
    return {
      keyPrompt: t("Keyboard: the arrow keys, then Enter."), // not shown on touch screens
      defaultLabel: t("Pick for me"),
      onKey: (e) => this.onKey(e),
      destroy: () => this.disable(),
    };
  }

  disable() {
    this.choose = null;
    this.el.classList.remove("ice--live");
    this.stones.forEach((b) => {
      b.disabled = true;
      b.classList.remove("stone--live");
    });
  }

  pick(i) {
    if (!this.choose || this.picked.has(i)) return;
    const choose = this.choose;
    this.disable();
    this.stones[i].classList.add("stone--chosen");
    this.ctx.sound?.play("pick");
    choose(i);
  }

  onKey(e) {
    const live = this.stones.filter((b) => !b.disabled);
    if (!live.length) return false;
    const i = this.stones.indexOf(document.activeElement);
    const arrows = { ArrowLeft: -1, ArrowRight: 1, ArrowUp: -5, ArrowDown: 5 };
    if (e.key in arrows) {
      if (i < 0 || this.stones[i].disabled) {
        live[0].focus();
        return true;
      }
      const step = arrows[e.key];
      for (let j = i + step, n = 0; n < this.stones.length; j += step, n++) {
        const k = ((j % this.stones.length) + this.stones.length) % this.stones.length;
        if (!this.stones[k].disabled) {
          this.stones[k].focus();
          break;
        }
      }
      return true;
    }
    if ((e.key === "Enter" || e.key === " ") && i >= 0 && !this.stones[i].disabled) {
      this.pick(i);
      return true;
    }
    return false;
  }

  async finish(ev, instant) {
    this.disable();
    ev.layout.forEach((isDiamond, i) => {
      if (this.picked.has(i)) return;
      const b = this.stones[i];
      b.classList.add("stone--unpicked", isDiamond ? "stone--diamond" : "stone--empty");
      b.innerHTML = isDiamond ? ICONS.diamond : ICONS.stone;
    });
    this.ladder.querySelectorAll("li").forEach((li) => li.classList.toggle("is-won", Number(li.dataset.level) === ev.level));
    if (instant) {
      this.close();
      return;
    }
    const counting = this.ctx.addWin(ev.credits);
    await featureTotal(this.ctx, this.el, {
      title: t("Ice Diamonds · Level {level}", { level: ev.level }), amount: ev.credits * this.ctx.coin(), kind: "ice", testid: "ice-award", ms: 1300,
      sub: t("{n} diamonds", { n: ev.diamonds }),
    });
    await counting;
    this.close();
  }

  close() {
    this.el.remove();
  }
}

/** Words in lines of at most `width` letters ("SPIN TO WIN" -> "SPIN TO", "WIN"). */
function wrapWords(text, width) {
  const lines = [];
  for (const word of String(text).split(/\s+/)) {
    const last = lines[lines.length - 1];
    if (last !== undefined && (last + " " + word).length <= width) lines[lines.length - 1] = last + " " + word;
    else lines.push(word);
  }
  return lines;
}

function levelFor(ice, diamonds) {
  let level = 0;
  ice.levels.forEach((lv, i) => {
    if (diamonds >= lv.min_diamonds) level = i;
  });
  return level;
}

/** The lobby tile's art. */
export function lobbyTile() {
  ensureSprite();
  return h("div.tile-art.tile-art--rog",
    h("div.tile-art__syms", ["QN", "KG", "KN"].map((c) => h("span.tile-art__sym", symbolArt(c)))),
    h("div.tile-art__egg", symbolArt(SCATTER)),
    h("div.tile-art__title", h("span", "Reign of"), h("strong", "Gnomes")));
}
