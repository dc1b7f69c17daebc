// Any game of the engine's `lines` kind (a 5x3 payline game written only as data): symbols
// drawn from the data file's names and colours, the winning paylines traced over the reels,
// scatters, a free-spin intro, counter and total, and the paytable, paylines and rules read
// from the server's game info.  Nothing here knows one game from another.

import { Reels } from "../reels.js";
import { h, svg, wait, titleCase } from "../ui.js";
import { formatNumber, formatPercent } from "../money.js";
import { t } from "../i18n.js";
import { anticipation } from "../presentation.js";
import { banner, featureIntro, featureTotal, winCaption } from "./common.js";
import { linesScene } from "./lines-scene.js";

const WIN_TIERS = { big: 15, mega: 40, epic: 100 };
// Line colours, line i takes LINE_COLOURS[i % n]: bright enough over any symbol.
const LINE_COLOURS = ["#ffd23f", "#3fd0ff", "#ff5fa2", "#7dff6a", "#ff9f1c", "#b48cff", "#ff5a4f", "#4fffd2",
  "#f2f2f2", "#ffb3e6", "#9be15d", "#5fa8ff", "#ffcf99", "#d66bff", "#00e0a0", "#ffe66b", "#ff7b9c", "#8fe3ff",
  "#c7ff5f", "#ff8c42"];
const COLS = 5;
const ROWS = 3;
const GAP = 1.2; // the reels' column gap, percent of their width (css .reels)

export function createRenderer(ctx) {
  return new LinesRenderer(ctx);
}

export function lobbyTile(game) {
  ensureStyle();
  ensureSprite(game);
  const top = payingByValue(game).slice(0, 3);
  return h("div.tile-art.tile-art--lines",
    h("div.lines-tile__row", top.map((code) => h("div.lsym-tile", symbolArt(game, code)))),
    h("div.lines-tile__logo", game.name));
}

// -- symbol art: one SVG <symbol> per code, from the data file's name and colour ----------

function spriteId(game, code) {
  return `ln-${game.id}-${code}`.replace(/[^\w-]/g, "_");
}

/** The paying symbols, highest five-of-a-kind first. */
function payingByValue(game) {
  const pays = game.paytable || {};
  return Object.keys(pays).sort((a, b) => (pays[b][5] || 0) - (pays[a][5] || 0));
}

function escapeXml(s) {
  return String(s).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c]));
}

/** A symbol's look: its colour, a shape by its role (wild, scatter, the top third of the
 *  paying symbols, the rest), its code as a monogram and its name on a ribbon. */
function symbolMarkup(game, code) {
  const id = spriteId(game, code);
  const colour = (game.symbol_colours || {})[code] || "#888888";
  const name = escapeXml((game.symbols || {})[code] || code);
  const ranked = payingByValue(game);
  const premium = ranked.indexOf(code) >= 0 && ranked.indexOf(code) < Math.ceil(ranked.length / 3);
  const role = code === game.wild ? "wild" : code === game.scatter ? "scatter" : premium ? "premium" : "plain";
  const grad = `<radialGradient id="${id}-g" cx="35%" cy="28%" r="80%"><stop offset="0" stop-color="#fff" stop-opacity=".75"/><stop offset=".25" stop-color="${colour}"/><stop offset="1" stop-color="${colour}" stop-opacity=".55"/></radialGradient>`;
  const shapes = {
    wild: `<path d="M50 4 61 36 96 36 68 56 78 92 50 70 22 92 32 56 4 36 39 36Z" fill="url(#${id}-g)" stroke="#fff6c8" stroke-width="3"/>`,
    scatter: `<path d="M50 5 95 50 50 95 5 50Z" fill="url(#${id}-g)" stroke="#ffe3b0" stroke-width="3"/><path d="M50 18 82 50 50 82 18 50Z" fill="none" stroke="rgba(255,255,255,.45)" stroke-width="2"/>`,
    premium: `<path d="M28 6H72L94 28V72L72 94H28L6 72V28Z" fill="url(#${id}-g)" stroke="#ffd75e" stroke-width="4"/><path d="M31 13H69L87 31V69L69 87H31L13 69V31Z" fill="none" stroke="rgba(255,255,255,.35)" stroke-width="1.5"/>`,
    plain: `<rect x="9" y="9" width="82" height="82" rx="20" fill="url(#${id}-g)" stroke="rgba(255,255,255,.7)" stroke-width="2.5"/>`,
  };
  // The wild's monogram is the word WILD, its ribbon its name; others show their code.
  const mono = role === "wild" ? escapeXml(t("WILD")) : escapeXml(code.length > 2 ? code.slice(0, 2) : code);
  const badge = role === "scatter" ? escapeXml(name.toUpperCase()) : name;
  const size = role === "wild" ? (mono.length > 4 ? 13 : 17) : mono.length > 1 ? 30 : 40;
  return `<defs>${grad}</defs><symbol id="${id}" viewBox="0 0 100 100">${shapes[role]}`
    + `<text x="50" y="${role === "scatter" ? 56 : 55}" text-anchor="middle" font-size="${size}" font-weight="900" fill="#fff" stroke="rgba(0,0,0,.55)" stroke-width="2.5" paint-order="stroke" font-family="Georgia, serif">${mono}</text>`
    + `<text x="50" y="${role === "plain" ? 82 : 84}" text-anchor="middle" font-size="${badge.length > 12 ? 8.5 : 10.5}" font-weight="700" fill="#fff" stroke="rgba(0,0,0,.7)" stroke-width="2" paint-order="stroke" font-family="system-ui, sans-serif">${badge}</text></symbol>`;
}

function ensureSprite(game) {
  const sheet = `ln-sprite-${game.id}`;
  if (document.getElementById(sheet)) return;
  const codes = Object.keys(game.symbols || {});
  const el = svg(`<svg xmlns="http://www.w3.org/2000/svg" class="sprite ln-sprite" aria-hidden="true" width="0" height="0">${codes.map((c) => symbolMarkup(game, c)).join("")}</svg>`);
  el.id = sheet;
  document.body.prepend(el);
}

function symbolArt(game, code) {
  const name = escapeXml((game.symbols || {})[code] || code);
  return svg(`<svg class="lsym" viewBox="0 0 100 100" role="img" aria-label="${name}"><use href="#${spriteId(game, code)}"/></svg>`);
}

/** A payline as SVG points over the reels: the centre of its cell on each reel. */
function linePoints(rows) {
  const w = (100 - GAP * (COLS - 1)) / COLS;
  return rows.map((row, r) => `${(r * (w + GAP) + w / 2).toFixed(2)},${((row + 0.5) * (60 / ROWS)).toFixed(2)}`).join(" ");
}

function lineColour(i) {
  return LINE_COLOURS[i % LINE_COLOURS.length];
}

class LinesRenderer {
  constructor(ctx) {
    this.ctx = ctx;
    this.game = ctx.game;
    ensureStyle();
    ensureSprite(this.game);
    const g = this.game;
    const codes = Object.keys(g.symbols || {});
    // Fillers while a reel spins: never a wild or scatter where it cannot land (none on reel 1
    // if the paytable says so is not known here: any symbol but the scatter is fine).
    this.fillers = codes.filter((c) => c !== g.scatter);
    this.reels = new Reels({
      reels: COLS, rows: ROWS,
      symbol: (code) => symbolArt(g, code),
      codes: payingByValue(g),
      filler: () => this.fillers[Math.floor(Math.random() * this.fillers.length)],
      onReelStop: () => ctx.sound?.play("stop"),
    });
    this.overlay = svg(`<svg class="lines__paylines" viewBox="0 0 100 60" preserveAspectRatio="none" aria-hidden="true"></svg>`);
    this.status = h("div.lines__status", { "data-testid": "feature-status" });
    this.caption = h("div.lines__caption", { "data-testid": "lines-caption" });
    this.fx = h("div.lines__fx");
    this.frame = h("div.lines__frame", { "data-testid": "reel-frame" },
      h("div.lines__frame-inner", h("div.lines__grid", this.reels.el, this.overlay)), this.fx);
    this.el = h("div.lines", { dataset: { mode: "base" }, "data-testid": "renderer-lines" },
      linesScene(g),
      h("div.lines__logo", h("span.lines__logo-main", g.name),
        h("span.lines__logo-sub", t("{n} lines", { n: g.lines || (g.paylines || []).length }))),
      this.status, this.frame, this.caption);
    this.reels.idle(this.idleWindow());
    this.winTiers = WIN_TIERS;
    this.reset();
  }

  /** Before the first spin: paying symbols in turn, no wild or scatter, reels 1 and 2 sharing
   *  no symbol, so no line reads as a win. */
  idleWindow() {
    const codes = payingByValue(this.game);
    if (codes.length < 6) return null;
    return [0, 1, 2, 3, 4].map((r) => [0, 1, 2].map((row) => codes[(r * 3 + row) % codes.length]));
  }

  // -- round lifecycle -------------------------------------------------------------------

  reset() {
    this.fs = { total: 0, played: 0, multiplier: 1 };
    this.el.dataset.mode = "base";
    this.caption.replaceChildren();
    this.reels.clearHighlights();
    this.clearLines();
    this.updateStatus();
  }

  startSpin() {
    this.caption.replaceChildren();
    this.clearLines();
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
        h("span.pill__label", t("Free Spins")), h("span.pill__value", `${this.fs.played} / ${this.fs.total}`)));
      if (this.fs.multiplier > 1) {
        parts.push(h("div.pill.pill--award", { style: { "--pill": "#b0309a" }, "data-testid": "multiplier-pill" },
          t("All wins ×{multiplier}", { multiplier: this.fs.multiplier })));
      }
    }
    this.status.replaceChildren(...parts);
  }

  async restore(round) {
    this.reset();
    await this.present(round.events, round, { instant: true });
  }

  async present(events, round, opts = {}) {
    const instant = Boolean(opts.instant);
    for (const ev of events) {
      switch (ev.type) {
        case "spin":
          if (ev.reels === "free") {
            this.fs.played = ev.free_spin || this.fs.played + 1;
            this.updateStatus();
          }
          await this.presentSpin(ev, instant);
          break;
        case "free_spins_awarded":
          await this.awarded(ev, instant);
          break;
        case "free_spins_end":
          if (!instant) {
            this.clearLines();
            await featureTotal(this.ctx, this.fx, {
              title: t("Free Spins"), amount: ev.credits * this.ctx.coin(), kind: "free-spins", testid: "banner-total",
            });
          }
          break;
        case "max_win":
          if (!instant) await banner(this.fx, { title: t("Max win"), sub: t("{multiple}× the bet reached", { multiple: formatNumber(this.game.max_win) }), kind: "feature", ms: 2000 });
          break;
        default:
          break; // round_end and anything this client does not know: nothing to draw
      }
    }
  }

  async awarded(ev, instant) {
    this.fs.total += ev.count;
    if (ev.multiplier) this.fs.multiplier = ev.multiplier;
    this.el.dataset.mode = "free";
    this.updateStatus();
    if (instant) return;
    this.ctx.sound?.play("feature");
    const scatter = this.name(this.game.scatter);
    if (ev.retrigger) {
      await banner(this.fx, {
        title: t("+{n} Free Spins", { n: ev.count }), sub: t("{length} × {symbol}", { length: ev.scatters, symbol: scatter }),
        kind: "feature", ms: 1700, testid: "banner-free-spins",
      });
    } else {
      const mult = this.fs.multiplier > 1 ? t("All wins ×{multiplier}", { multiplier: this.fs.multiplier }) : "";
      await featureIntro(this.ctx, this.fx, {
        title: t("{n} Free Spins", { n: ev.count }),
        sub: [t("{length} × {symbol}", { length: ev.scatters, symbol: scatter }), mult].filter(Boolean).join(" · "),
        kind: "free-spins", testid: "banner-free-spins",
      });
    }
  }

  name(code) {
    return (this.game.symbols || {})[code] || code;
  }

  // -- spins and wins -------------------------------------------------------------------

  triggers(ev) {
    const award = (this.game.free_spins || {})[ev.reels === "free" ? "retrigger" : "award"] || {};
    return ev.scatters.length > 0 && (Object.hasOwn(award, String(ev.scatters.length)) || ev.scatter_credits > 0);
  }

  async presentSpin(ev, instant) {
    this.frame.dataset.reels = ev.reels;
    this.caption.replaceChildren();
    this.clearLines();
    if (instant) {
      this.reels.setWindow(ev.window);
      this.showAll(ev);
      return;
    }
    const scatter = this.game.scatter;
    const need = Math.min(...Object.keys((this.game.free_spins || {}).award || { 3: 0 }).map(Number));
    const delays = scatter ? anticipation(ev.window, (c) => c === scatter, need, 650) : [];
    if (!this.reels.spinning) this.reels.startSpin();
    await this.reels.stopAt(ev.window, { delays, onAnticipate: () => this.ctx.sound?.play("anticipate") });
    await this.presentWins(ev);
  }

  showAll(ev) {
    const cells = ev.lines.flatMap((w) => w.positions);
    if (cells.length) this.reels.highlight(cells, "win");
    if (this.triggers(ev)) this.reels.highlight(ev.scatters, "scatter", cells.length > 0);
    this.drawLines(ev.lines);
    if (ev.credits) this.caption.replaceChildren(winCaption([this.ctx.credits(ev.credits), this.summary(ev)]));
  }

  summary(ev) {
    const parts = [];
    if (ev.lines.length) parts.push(t("{n} winning lines", { n: ev.lines.length }));
    if (ev.scatter_credits) parts.push(t("{length} × {symbol}", { length: ev.scatters.length, symbol: this.name(this.game.scatter) }));
    if (ev.multiplier > 1) parts.push(`×${ev.multiplier}`);
    return parts.join(" · ");
  }

  async presentWins(ev) {
    const s = this.ctx.sound;
    if (this.triggers(ev)) {
      this.reels.highlight(ev.scatters, "scatter", true);
      s?.play("feature");
      await wait(700);
      this.reels.clearHighlights();
    }
    if (!ev.credits) return;
    s?.play("win");
    const counting = this.ctx.addWin(ev.credits);
    const all = ev.lines.flatMap((w) => w.positions);
    this.reels.highlight(all, "win");
    this.drawLines(ev.lines);
    // Each winning line in turn (the five biggest), then all of them.
    const lines = [...ev.lines].sort((a, b) => b.credits - a.credits).slice(0, 5);
    if (lines.length > 1 || (lines.length === 1 && ev.scatter_credits)) {
      await wait(450);
      for (const w of lines) {
        this.reels.clearHighlights();
        this.reels.highlight(w.positions, "win");
        this.drawLines([w]);
        this.caption.replaceChildren(this.lineCaption(w, ev.multiplier));
        await wait(700);
      }
      this.reels.clearHighlights();
      this.reels.highlight(all, "win");
      if (ev.scatter_credits) this.reels.highlight(ev.scatters, "scatter", true);
      this.drawLines(ev.lines);
    } else if (lines.length === 1) {
      this.caption.replaceChildren(this.lineCaption(lines[0], ev.multiplier));
      await wait(700);
    }
    await counting;
    this.caption.replaceChildren(winCaption([this.ctx.credits(ev.credits), this.summary(ev)]));
    await wait(300);
  }

  lineCaption(w, multiplier) {
    return winCaption([
      this.ctx.credits(w.credits),
      t("Line {line}", { line: w.line + 1 }),
      t("{length} × {symbol}", { length: w.length, symbol: this.name(w.symbol) }),
      multiplier > 1 ? `×${multiplier}` : null,
    ]);
  }

  drawLines(wins) {
    const paylines = this.game.paylines || [];
    const parts = wins.filter((w) => paylines[w.line]).map((w) => {
      const colour = lineColour(w.line);
      const pts = linePoints(paylines[w.line]);
      return `<polyline points="${pts}" fill="none" stroke="rgba(0,0,0,.55)" stroke-width="7" stroke-linejoin="round" stroke-linecap="round" vector-effect="non-scaling-stroke"/>`
        + `<polyline class="lines__payline" data-line="${w.line}" points="${pts}" fill="none" stroke="${colour}" stroke-width="4" stroke-linejoin="round" stroke-linecap="round" vector-effect="non-scaling-stroke"/>`;
    });
    this.overlay.innerHTML = parts.join("");
    this.overlay.dataset.lines = wins.map((w) => w.line + 1).join(",");
  }

  clearLines() {
    this.overlay.innerHTML = "";
    delete this.overlay.dataset.lines;
  }

  // -- decisions: none (a round resolves in one step) -------------------------------------

  actionLabel(spec) {
    return titleCase(spec.name);
  }

  autoContinue() {
    return false;
  }

  // -- recall --------------------------------------------------------------------------------

  describe(ev) {
    const credits = (c) => this.ctx.credits(c);
    switch (ev.type) {
      case "spin": {
        const where = ev.reels === "free"
          ? t("Free Spin {spin} of {total}", { spin: ev.free_spin, total: ev.free_spin + (ev.free_spins_left || 0) })
          : t("Base game");
        const wins = ev.lines.map((w) => t("line {line}: {count} × {symbol} {amount}", {
          line: w.line + 1, count: w.length, symbol: this.name(w.symbol), amount: credits(w.credits),
        }));
        if (ev.scatter_credits) wins.push(t("{length} × {symbol}", { length: ev.scatters.length, symbol: this.name(this.game.scatter) }));
        return wins.length
          ? t("{where}: {wins} = {credits}", { where, wins: wins.join(", "), credits: credits(ev.credits) })
          : t("{where}: no win", { where });
      }
      case "free_spins_awarded":
        return ev.retrigger ? t("+{n} Free Spins", { n: ev.count }) : t("{n} Free Spins", { n: ev.count });
      case "free_spins_end":
        return t("Free Spins: {amount}", { amount: credits(ev.credits) });
      case "max_win":
        return t("Max win reached: {credits}", { credits: credits(ev.credits) });
      case "round_end":
        return t("Round over: {amount} won", { amount: this.ctx.format(ev.win) });
      default:
        return titleCase(ev.type);
    }
  }

  /** A still picture of a step (recall): the last reels it showed, its lines traced. */
  snapshot(events) {
    const spins = events.filter((e) => e.type === "spin");
    const wrap = h("div.snapshot.lines.lines--snapshot");
    if (spins.length) {
      const last = spins[spins.length - 1];
      const reels = new Reels({ reels: COLS, rows: ROWS, symbol: (c) => symbolArt(this.game, c), filler: () => this.fillers[0] });
      reels.setWindow(last.window);
      const cells = last.lines.flatMap((w) => w.positions);
      if (cells.length) reels.highlight(cells, "win");
      const overlay = svg(`<svg class="lines__paylines" viewBox="0 0 100 60" preserveAspectRatio="none" aria-hidden="true"></svg>`);
      const keep = this.overlay;
      this.overlay = overlay;
      this.drawLines(last.lines);
      this.overlay = keep;
      wrap.append(h("div.lines__frame.lines__frame--small", h("div.lines__frame-inner", h("div.lines__grid", reels.el, overlay))));
    }
    return wrap;
  }

  // -- paytable, paylines and rules --------------------------------------------------------

  paytable(level) {
    const g = this.game;
    const money = (credits) => this.ctx.format(credits * level.coin);
    const cards = payingByValue(g).map((code) => h("div.paycard", { "data-symbol": code },
      h("div.paycard__art", symbolArt(g, code)),
      h("div.paycard__name", this.name(code)),
      h("ol.paycard__pays", ["5", "4", "3", "2", "1"].filter((n) => g.paytable[code][n]).map((n) =>
        h("li", h("span.paycard__n", n), h("span.paycard__v", money(g.paytable[code][n])))))));
    const specials = [];
    if (g.wild) {
      const wildPays = Object.keys(g.wild_pays || {}).sort().reverse().map((n) => `${n}: ${money(g.wild_pays[n])}`).join(" · ");
      specials.push(h("div.special", h("div.special__art", symbolArt(g, g.wild)),
        h("div", h("h3", this.name(g.wild)), h("p", t("Wild: substitutes for every symbol except the scatter.")),
          wildPays ? h("p", wildPays) : null)));
    }
    if (g.scatter) {
      const fs = g.free_spins || { award: {} };
      const counts = [...new Set([...Object.keys(g.scatter_pays || {}), ...Object.keys(fs.award || {})])].sort();
      const rows = counts.map((n) => h("tr",
        h("td", t("{length} × {symbol}", { length: n, symbol: this.name(g.scatter) })),
        h("td", g.scatter_pays[n] ? t("{multiple}× bet = {amount}", { multiple: g.scatter_pays[n], amount: this.ctx.format(g.scatter_pays[n] * level.stake) }) : ""),
        h("td", fs.award[n] ? t("{n} Free Spins", { n: fs.award[n] }) : "")));
      specials.push(h("div.special", h("div.special__art", symbolArt(g, g.scatter)),
        h("div", h("h3", this.name(g.scatter)), h("p", t("Scatter: pays anywhere in view, times the total bet, and awards Free Spins.")),
          h("table.table", h("tbody", rows)))));
    }
    const lines = (g.paylines || []).map((rows, i) => h("div.linecard", { "data-line": String(i + 1) },
      h("span.linecard__n", String(i + 1)),
      svg(`<svg class="linecard__grid" viewBox="0 0 100 60" preserveAspectRatio="none">${[0, 1, 2, 3, 4].map((r) => [0, 1, 2].map((row) =>
        `<rect x="${r * 20 + 1}" y="${row * 20 + 1}" width="18" height="18" rx="3" fill="${rows[r] === row ? lineColour(i) : "rgba(255,255,255,.12)"}"/>`).join("")).join("")}</svg>`)));
    return h("div.paytable", { "data-testid": "paytable" },
      h("p.paytable__intro", t("Pays per line at your bet of {stake} ({lines} lines, {credits} credits × {coin}). A line pays its best combination, left to right from reel 1.", {
        stake: this.ctx.format(level.stake), lines: g.lines, credits: level.credits, coin: this.ctx.format(level.coin),
      })),
      h("div.paycards", cards),
      h("div.paytable__specials", specials),
      h("h3", t("Paylines")),
      h("div.linecards", { "data-testid": "paylines" }, lines));
  }

  rules() {
    const g = this.game;
    const levels = g.bet_levels;
    const fs = g.free_spins;
    const awards = fs ? Object.entries(fs.award).map(([n, c]) => `${n} → ${c}`).join(", ") : "";
    const again = fs ? Object.entries(fs.retrigger || {}).map(([n, c]) => `${n} → +${c}`).join(", ") : "";
    return h("div.rules", { "data-testid": "rules" },
      h("p.rules__rtp", t("Theoretical return to player (RTP): "), h("strong", { "data-testid": "rtp" }, formatPercent(g.rtp, 2))),
      h("ul",
        h("li", t("5 reels, 3 rows, {lines} fixed lines. Bets from {min} to {max} ({credits} credits × coin value, 1 credit a line).", {
          lines: g.lines, min: this.ctx.format(levels[0].stake), max: this.ctx.format(levels[levels.length - 1].stake), credits: levels[0].credits,
        })),
        h("li", t("A line pays its best combination, left to right from reel 1. Wins on different lines are added.")),
        g.wild ? h("li", t("{wild} is wild and substitutes for every symbol except the {scatter}.", { wild: this.name(g.wild), scatter: this.name(g.scatter) })) : null,
        fs ? h("li", t("Scatters anywhere pay the total bet times the scatter pay and award Free Spins ({awards}).", { awards })) : null,
        fs ? h("li", t("Free Spins are played on their own reels at the bet that triggered them; every win is multiplied by {multiplier}. Scatters award more ({again}), up to {max} spins in all.", {
          multiplier: fs.multiplier, again: again || "—", max: fs.max_spins,
        })) : null,
        h("li", t("The most a round can win is {multiple}× the bet; when it is reached the round ends and any features left are forfeited.", { multiple: formatNumber(g.max_win) })),
        h("li", t("Wins are paid when the round ends. A malfunction voids all pays and plays."))),
      h("p.rules__meta", t("Game {name} version {version}, RTP variant {variant}.", { name: g.name, version: g.version, variant: g.variant })));
  }
}

function ensureStyle() {
  if (document.getElementById("ln-style")) return;
  const link = h("link", { id: "ln-style", rel: "stylesheet", href: new URL("../../css/lines.css", import.meta.url).href });
  document.head.append(link);
}
