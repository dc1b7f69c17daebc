// A set of spinning reels drawn with the DOM: each reel is a strip of symbol cells moved
// with the Web Animations API.  Renderers give it their symbol art; it knows nothing of
// any game's rules.

import { animate, h, speed, wait } from "./ui.js";

const LOOP_CELLS = 10; // filler cells in a free-running (waiting) strip
const STOP_FILLERS = 14; // filler cells scrolled past when a reel stops

export class Reels {
  /**
   * @param {object} o
   *   reels, rows: the window's size
   *   symbol(code) -> Node: the art for a symbol code
   *   filler(reel) -> code: a random symbol to show while a reel spins
   *   codes: the game's symbols, for a default idle screen (optional)
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
    delete this.el.dataset.idle;
  }

  /**
   * The idle screen before the first round: always the same window (the renderer's own
   * neutral one, else symbols taken in turn), never a random one that could show a near miss.
   */
  idle(window = null) {
    this.idleWindow = window || this.defaultIdle();
    this.setWindow(this.idleWindow);
    this.el.dataset.idle = "1";
  }

  defaultIdle() {
    const codes = this.o.codes || [];
    const win = [];
    for (let r = 0; r < this.reels; r++) {
      win.push(Array.from({ length: this.rows }, (_, k) => (codes.length ? codes[(r * this.rows + k * 2) % codes.length] : this.o.filler(r))));
    }
    return win;
  }

  /** Start every reel running (while the server answers). */
  startSpin() {
    if (this.spinning) return;
    this.spinning = true;
    this.clearHighlights();
    this.el.dataset.state = "spinning";
    delete this.el.dataset.idle;
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
    else this.idle(this.idleWindow);
    delete this.el.dataset.state;
  }

  /**
   * Stop the reels on `window`, reel by reel.  opts.delays[r]: extra ms before reel r lands
   * (anticipation: the reel glows while it spins on; opts.onAnticipate() when the first such
   * reel starts).  Resolves when the last reel has landed.  Times are at speed 1: the waits
   * scale, and a skipped presentation lands every reel at once.
   */
  async stopAt(window, opts = {}) {
    if (!this.spinning) this.startSpin();
    const base = opts.spinMs ?? 520;
    const stagger = opts.staggerMs ?? 170;
    const landing = opts.landMs ?? 380;
    const extra = opts.delays || [];
    const prev = this.window || window;
    let acc = base;
    let glowing = false;
    const done = [];
    for (let r = 0; r < this.reels; r++) {
      acc += r ? stagger : 0;
      if (extra[r] > 0) {
        // It would have landed now: it glows and spins on.
        const col = this.columns[r].col;
        wait(acc).then(() => {
          if (!this.spinning) return;
          col.classList.add("reel--anticipate");
          this.el.classList.add("reels--anticipate");
          if (!glowing) opts.onAnticipate?.();
          glowing = true;
        });
        acc += extra[r];
      }
      done.push(this.landReel(r, window[r], prev[r], acc, landing));
    }
    await Promise.all(done);
    this.el.classList.remove("reels--anticipate");
    this.window = window.map((c) => c.slice());
    this.el.dataset.window = JSON.stringify(window);
    this.spinning = false;
    delete this.el.dataset.state;
  }

  landReel(r, column, previous, after, landingMs) {
    const c = this.columns[r];
    return new Promise((resolve) => {
      wait(after).then(() => {
        c.col.classList.remove("reel--anticipate");
        const fillers = Array.from({ length: STOP_FILLERS }, () => this.o.filler(r));
        const codes = column.concat(fillers, previous);
        const n = codes.length;
        c.strip.replaceChildren(...codes.map((code, i) =>
          i < this.rows ? this.cellNode(code, r, i) : this.cellNode(code)));
        const start = (-(STOP_FILLERS + this.rows) / n) * 100;
        const bounce = (0.18 / n) * 100;
        c.anim?.cancel();
        // Counted on the pace clock (ui.js), like the wait before it.
        c.anim = animate(c.strip,
          [
            { transform: `translateY(${start}%)`, easing: "cubic-bezier(.25,.6,.4,1)" },
            { transform: `translateY(${bounce}%)`, offset: 0.86, easing: "ease-in-out" },
            { transform: "translateY(0%)" },
          ],
          landingMs, { fill: "forwards" },
        );
        if (!c.anim) {
          this.finishReel(c, column, r);
          resolve();
          return;
        }
        c.anim.onfinish = () => {
          this.finishReel(c, column, r);
          resolve();
        };
      });
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
