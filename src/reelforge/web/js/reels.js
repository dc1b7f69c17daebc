// A set of spinning reels drawn with the DOM: each reel is a strip of symbol cells moved
// with the Web Animations API.  Renderers give it their symbol art; it knows nothing of
// any game's rules.

import { h, speed } from "./ui.js";

const LOOP_CELLS = 10; // filler cells in a free-running (waiting) strip
const STOP_FILLERS = 14; // filler cells scrolled past when a reel stops

export class Reels {
  /**
   * @param {object} o
   *   reels, rows: the window's size
   *   symbol(code) -> Node: the art for a symbol code
   *   filler(reel) -> code: a random symbol to show while a reel spins
   *   onReelStop(reel): called as each reel lands (sound)
   */
  constructor(o) {
    this.o = o;
    this.reels = o.reels;
    this.rows = o.rows;
    this.window = null;
    this.spinning = false;
    this.el = h("div.reels", { style: { "--reels": o.reels, "--rows": o.rows }, "data-testid": "reels" });
    this.columns = [];
    for (let r = 0; r < o.reels; r++) {
      const strip = h("div.reel__strip");
      const col = h("div.reel", { dataset: { reel: String(r) } }, strip);
      this.columns.push({ col, strip, anim: null });
      this.el.append(col);
    }
  }

  cellNode(code, reel, row) {
    const cell = h("div.cell", { dataset: { symbol: code } }, this.o.symbol(code));
    if (row !== undefined) {
      cell.dataset.reel = String(reel);
      cell.dataset.row = String(row);
    }
    return cell;
  }

  /** Show a window (columns of codes) at once. */
  setWindow(window) {
    this.window = window.map((c) => c.slice());
    this.columns.forEach((c, r) => {
      c.anim?.cancel();
      c.anim = null;
      c.col.classList.remove("reel--spinning");
      c.strip.replaceChildren(...window[r].map((code, row) => this.cellNode(code, r, row)));
      c.strip.style.transform = "";
    });
    this.el.dataset.window = JSON.stringify(window);
  }

  /** Fill the reels with random symbols (before the first round). */
  randomize() {
    const win = [];
    for (let r = 0; r < this.reels; r++) {
      win.push(Array.from({ length: this.rows }, () => this.o.filler(r)));
    }
    this.setWindow(win);
  }

  /** Start every reel running (while the server answers). */
  startSpin() {
    if (this.spinning) return;
    this.spinning = true;
    this.clearHighlights();
    this.el.dataset.state = "spinning";
    this.columns.forEach((c, r) => {
      const cells = [];
      for (let i = 0; i < LOOP_CELLS; i++) cells.push(this.o.filler(r));
      const codes = cells.concat(cells.slice(0, this.rows));
      c.strip.replaceChildren(...codes.map((code) => this.cellNode(code)));
      c.col.classList.add("reel--spinning");
      const n = codes.length;
      const from = `translateY(${(-LOOP_CELLS / n) * 100}%)`;
      c.anim?.cancel();
      c.anim = c.strip.animate([{ transform: from }, { transform: "translateY(0%)" }], {
        duration: Math.max(60, 420 * Math.max(speed(), 0.25)),
        iterations: Infinity,
        delay: r * 60 * speed(),
        easing: "linear",
      });
    });
  }

  /** Settle back (the request failed): keep the old window. */
  abortSpin() {
    this.spinning = false;
    if (this.window) this.setWindow(this.window);
    else this.randomize();
    delete this.el.dataset.state;
  }

  /**
   * Stop the reels on `window`, reel by reel.  opts.delays[r]: extra ms before reel r lands
   * (anticipation).  Resolves when the last reel has landed.
   */
  async stopAt(window, opts = {}) {
    if (!this.spinning) this.startSpin();
    const s = speed();
    const base = (opts.spinMs ?? 520) * s;
    const stagger = (opts.staggerMs ?? 170) * s;
    const landing = (opts.landMs ?? 380) * s;
    const extra = opts.delays || [];
    const prev = this.window || window;
    let acc = base;
    const done = [];
    for (let r = 0; r < this.reels; r++) {
      acc += (r ? stagger : 0) + (extra[r] || 0) * s;
      done.push(this.landReel(r, window[r], prev[r], acc, landing));
    }
    await Promise.all(done);
    this.window = window.map((c) => c.slice());
    this.el.dataset.window = JSON.stringify(window);
    this.spinning = false;
    delete this.el.dataset.state;
  }

  landReel(r, column, previous, after, landing) {
    const c = this.columns[r];
    return new Promise((resolve) => {
      setTimeout(() => {
        const fillers = Array.from({ length: STOP_FILLERS }, () => this.o.filler(r));
        const codes = column.concat(fillers, previous);
        const n = codes.length;
        c.strip.replaceChildren(...codes.map((code, i) =>
          i < this.rows ? this.cellNode(code, r, i) : this.cellNode(code)));
        const start = (-(STOP_FILLERS + this.rows) / n) * 100;
        const bounce = (0.18 / n) * 100;
        c.anim?.cancel();
        if (landing < 16) {
          this.finishReel(c, column, r);
          resolve();
          return;
        }
        c.anim = c.strip.animate(
          [
            { transform: `translateY(${start}%)`, easing: "cubic-bezier(.25,.6,.4,1)" },
            { transform: `translateY(${bounce}%)`, offset: 0.86, easing: "ease-in-out" },
            { transform: "translateY(0%)" },
          ],
          { duration: landing, fill: "forwards" },
        );
        c.anim.onfinish = () => {
          this.finishReel(c, column, r);
          resolve();
        };
      }, Math.max(0, after));
    });
  }

  finishReel(c, column, r) {
    c.anim?.cancel();
    c.anim = null;
    c.col.classList.remove("reel--spinning");
    c.strip.replaceChildren(...column.map((code, row) => this.cellNode(code, r, row)));
    c.strip.style.transform = "";
    this.o.onReelStop?.(r);
  }

  cell(reel, row) {
    return this.columns[reel]?.strip.querySelector(`.cell[data-row="${row}"]`) || null;
  }

  /** Mark cells (e.g. a way win); the others dim.  cls: "win", "scatter", "wild"... */
  highlight(positions, cls = "win", dimOthers = true) {
    this.el.classList.toggle("reels--dim", dimOthers);
    for (const [reel, row] of positions) this.cell(reel, row)?.classList.add(`cell--${cls}`);
  }

  clearHighlights() {
    this.el.classList.remove("reels--dim");
    this.el.querySelectorAll(".cell").forEach((c) => {
      for (const k of [...c.classList]) if (k.startsWith("cell--")) c.classList.remove(k);
    });
  }
}
