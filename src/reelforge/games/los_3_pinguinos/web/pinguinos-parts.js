// Los 3 Pinguinos: pieces both of the machine's games draw with: the art (one inline SVG
// sprite, the stylesheets next to this module) and a reel of 16 symbols behind glass, moved stop by stop.  The
// lower game (./index.js) and the upper game (./pinguinos-upper.js) each have three.

import { t } from "../../i18n.js";
import { h, svg } from "../../ui.js";
import { sprite } from "./pinguinos-art.js";

export const STOPS = 16;
const COPIES = 5; // the strip is drawn five times over: room to run and land

export function ensureArt() {
  for (const [id, file] of [["l3p-style", "pinguinos.css"], ["l3p-style-upper", "pinguinos-upper.css"], ["l3p-style-cabinet", "pinguinos-cabinet.css"]]) {
    if (document.getElementById(id)) continue;
    document.head.append(h("link", { id, rel: "stylesheet", href: new URL(`./${file}`, import.meta.url).href }));
  }
  if (!document.getElementById("l3p-sprite")) {
    const el = svg(sprite());
    el.id = "l3p-sprite";
    document.body.prepend(el);
  }
}

export const use = (id, cls = "") =>
  svg(`<svg class="l3p-svg ${cls}" viewBox="0 0 100 100" aria-hidden="true"><use href="#l3p-${id}"/></svg>`);

// -- one reel: the real strip, moved stop by stop ------------------------------------------------

export class Reel {
  constructor(view, index, strip, vertical) {
    this.view = view;
    this.index = index;
    this.codes = strip;
    this.stop = 0;
    this.anim = null;
    const n = STOPS * COPIES;
    const cells = [];
    for (let i = 0; i < n; i++) {
      const s = i % STOPS;
      const code = strip[s];
      cells.push(h("div.l3p-cell", { dataset: { symbol: code, stop: String(s) }, title: view.symbolName(code) },
        use(code, "l3p-cell__art"),
        vertical.has(s) ? h("span.l3p-cell__vl", { title: t("Vertical lines") }, use("vl")) : null));
    }
    this.strip = h("div.l3p-reel__strip", cells);
    this.heldTag = h("span.l3p-reel__held", t("HELD"));
    this.el = h("div.l3p-reel", { dataset: { reel: String(index) } }, this.strip, this.heldTag);
    this.place(0);
  }

  top(stop) {
    return (stop - 1 + STOPS) % STOPS; // the cell above the line is the first in view
  }

  /** Every animation of the strip ends here: a reel never runs two at once. */
  stopAnims() {
    for (const a of this.strip.getAnimations()) a.cancel();
    this.anim = null;
  }

  offset(topCell) {
    return `translateY(${(-topCell / (STOPS * COPIES)) * 100}%)`;
  }

  line() {
    return this.codes[this.stop];
  }

  window() {
    return [-1, 0, 1].map((k) => this.codes[(this.stop + k + STOPS) % STOPS]);
  }

  place(stop) {
    this.stopAnims();
    this.anim = null;
    this.stop = stop;
    this.el.classList.remove("l3p-reel--spinning");
    this.strip.style.transform = this.offset(this.top(stop));
    this.el.dataset.stop = String(stop);
    this.el.dataset.line = this.line();
  }

  get spinning() {
    return this.el.classList.contains("l3p-reel--spinning");
  }

  /** Run freely (while the server answers); symbols travel downwards. */
  spin(delay = 0) {
    this.stopAnims();
    this.el.classList.add("l3p-reel--spinning");
    const s = this.view.speed();
    this.anim = this.strip.animate(
      [{ transform: this.offset(3 * STOPS) }, { transform: this.offset(2 * STOPS) }],
      { duration: Math.max(80, 520 * Math.max(s, 0.25)), iterations: Infinity, delay: delay * s, easing: "linear" });
  }

  /** Land on `stop` with a small bounce. */
  land(stop, ms = 520) {
    const d = ms * this.view.speed();
    const top = this.top(stop);
    if (d < 16) {
      this.place(stop);
      return Promise.resolve();
    }
    this.stopAnims();
    const a = this.strip.animate([
      { transform: this.offset(top + 3 * STOPS), easing: "cubic-bezier(.2,.65,.35,1)" },
      { transform: this.offset(top + STOPS - 0.18), offset: 0.86, easing: "ease-in-out" },
      { transform: this.offset(top + STOPS) },
    ], { duration: d, fill: "forwards" });
    this.anim = a;
    return a.finished.catch(() => {}).then(() => {
      if (this.anim === a) this.place(stop);
      this.view.ctx.sound?.play("stop");
    });
  }

  /** One nudge: the reel moves one stop down; the symbol above comes onto the line. */
  nudge(stop, ms = 300) {
    const d = ms * this.view.speed();
    const from = this.top(this.stop) + STOPS;
    if (d < 16) {
      this.place(stop);
      return Promise.resolve();
    }
    this.stopAnims();
    const a = this.strip.animate([
      { transform: this.offset(from) },
      { transform: this.offset(from - 1.08), offset: 0.8 },
      { transform: this.offset(from - 1) },
    ], { duration: d, easing: "ease-out", fill: "forwards" });
    this.anim = a;
    this.el.classList.add("l3p-reel--nudge");
    return a.finished.catch(() => {}).then(() => {
      this.el.classList.remove("l3p-reel--nudge");
      if (this.anim === a) this.place(stop);
      this.view.ctx.sound?.play("nudge");
    });
  }

  setHeld(on) {
    this.el.classList.toggle("l3p-reel--held", on);
    this.el.dataset.held = on ? "1" : "0";
  }
}
