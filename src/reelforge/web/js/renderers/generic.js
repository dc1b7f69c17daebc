// The fallback renderer: any game whose "spin" events carry a `window` (columns of symbol
// codes) is drawn with plain symbol tiles; every other event is listed as text.  New games
// start here and get a renderer of their own when their art is ready.

import { actionWord } from "../decision-panel.js";
import { t } from "../i18n.js";
import { Reels } from "../reels.js";
import { h, titleCase, wait } from "../ui.js";
import { formatPercent } from "../money.js";
import { winCaption } from "./common.js";

const PALETTE = ["#e0115f", "#2f7de0", "#8a3fd0", "#169a5a", "#ef7d0a", "#1fa8cf", "#c9a227", "#d0174f"];

function colorFor(code) {
  let x = 0;
  for (const c of code) x = (x * 31 + c.charCodeAt(0)) >>> 0;
  return PALETTE[x % PALETTE.length];
}

export function createRenderer(ctx) {
  return new GenericRenderer(ctx);
}

export function lobbyTile(game) {
  const codes = Object.keys(game.symbols || {}).slice(0, 3);
  return h("div.tile-art.tile-art--generic", codes.map((c) => symbolTile(c, game)));
}

function symbolTile(code, game) {
  const name = (game.symbols || {})[code] || code;
  return h("div.gsym", { style: { "--sym": colorFor(code) }, title: name },
    h("span.gsym__code", code), h("span.gsym__name", name));
}

class GenericRenderer {
  constructor(ctx) {
    this.ctx = ctx;
    this.game = ctx.game;
    this.reelsHost = h("div.generic__reels");
    this.caption = h("div.generic__caption");
    this.log = h("ol.generic__log", { "data-testid": "event-log" });
    this.el = h("div.generic", { "data-testid": "renderer-generic" },
      h("div.generic__title", this.game.name), this.reelsHost, this.caption, this.log);
    const strips = this.game.strips;
    if (Array.isArray(strips) && strips.length) this.makeReels(strips.length, 1);
    else this.makeReels(5, 3);
    this.reels.idle();
  }

  makeReels(reels, rows) {
    const symbols = Object.keys(this.game.symbols || { "?": "?" });
    this.reels = new Reels({
      reels, rows,
      symbol: (code) => symbolTile(code, this.game),
      codes: symbols,
      filler: () => symbols[Math.floor(Math.random() * symbols.length)],
      onReelStop: () => this.ctx.sound?.play("stop"),
    });
    this.reelsHost.replaceChildren(this.reels.el);
  }

  fit(window) {
    if (window.length !== this.reels.reels || window[0].length !== this.reels.rows) {
      this.makeReels(window.length, window[0].length);
    }
  }

  reset() {
    this.log.replaceChildren();
    this.caption.replaceChildren();
    this.reels.clearHighlights();
  }

  startSpin() {
    this.reels.startSpin();
  }

  abortSpin() {
    this.reels.abortSpin();
  }

  async restore(round) {
    this.reset();
    await this.present(round.events, round, { instant: true });
  }

  async present(events, round, opts = {}) {
    for (const ev of events) {
      this.log.append(h("li", this.describe(ev)));
      if (ev.type === "spin" && Array.isArray(ev.window)) {
        this.fit(ev.window);
        if (opts.instant) this.reels.setWindow(ev.window);
        else await this.reels.stopAt(ev.window);
        const cells = (ev.ways || []).flatMap((w) => w.positions)
          .concat((ev.lines || []).flatMap((w) => w.positions));
        if (cells.length) this.reels.highlight(cells, "win");
        else if (ev.credits && ev.symbol) {
          this.reels.highlight(ev.window.flatMap((col, r) => col.map((_, row) => [r, row])), "win");
        }
        this.caption.replaceChildren(ev.credits ? winCaption([this.ctx.credits(ev.credits), t("win")]) : "");
        if (!opts.instant && ev.credits) await wait(500);
      } else if (!opts.instant) {
        await wait(250);
      }
    }
    this.log.scrollTop = this.log.scrollHeight;
  }

  /** Hold-style decisions (choices are bitmasks of reels) get reel toggles. */
  choiceStyle(spec) {
    const n = this.reels.reels;
    const all = (1 << n) - 1;
    if (spec.name === "hold" && spec.choices.every((c) => c >= 0 && c < all)) {
      return { kind: "mask", labels: Array.from({ length: n }, (_, i) => t("Hold {n}", { n: i + 1 })), confirm: t("Respin") };
    }
    return { kind: "list" };
  }

  actionLabel(spec) {
    return actionWord(spec.name);
  }

  autoContinue() {
    return false;
  }

  describe(ev) {
    const fields = Object.entries(ev)
      .filter(([k, v]) => k !== "type" && k !== "window" && typeof v !== "object")
      .map(([k, v]) => `${k.replace(/_/g, " ")} ${v}`);
    return `${titleCase(ev.type)}${fields.length ? ": " + fields.join(", ") : ""}`;
  }

  snapshot(events) {
    const wrap = h("div.snapshot.generic");
    const spins = events.filter((e) => e.type === "spin" && Array.isArray(e.window));
    if (spins.length) {
      const w = spins[spins.length - 1].window;
      const symbols = Object.keys(this.game.symbols || {});
      const reels = new Reels({ reels: w.length, rows: w[0].length, symbol: (c) => symbolTile(c, this.game), filler: () => symbols[0] });
      reels.setWindow(w);
      wrap.append(h("div.generic__reels", reels.el));
    }
    return wrap;
  }

  paytable(level) {
    const g = this.game;
    const table = g.paytable || g.ways_pays || {};
    const rows = Object.entries(table).map(([code, pay]) => h("tr",
      h("td", symbolTile(code, g)),
      h("td", typeof pay === "object"
        ? Object.entries(pay).map(([n, v]) => `${n}: ${this.ctx.format(v * level.coin)}`).join(" · ")
        : this.ctx.format(pay * level.coin))));
    return h("div.paytable", { "data-testid": "paytable" },
      h("p", t("Pays at your bet of {stake}.", { stake: this.ctx.format(level.stake) })),
      h("table.table", h("tbody", rows)));
  }

  rules() {
    const g = this.game;
    return h("div.rules", { "data-testid": "rules" },
      h("p.rules__rtp", t("Theoretical return to player (RTP):"), " ", h("strong", { "data-testid": "rtp" }, formatPercent(g.rtp, 2))),
      g.test_only ? h("p", t("A test-only game, shown with the generic renderer.")) : null,
      h("p.rules__meta", t("Game {game} version {version}, RTP variant {variant}.", { game: g.name, version: g.version, variant: g.variant })));
  }
}
