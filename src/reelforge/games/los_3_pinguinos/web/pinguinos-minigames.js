// Los 3 Pinguinos, the upper game's minigames, drawn over its reels: the Roulette (a wheel of
// 16 sections; PLAY lights one, then maybe another, and the lit sections are summed), the
// Fishing (three penguins with rods fish from the bucket until each catches a cross) and the
// Slides (five platforms whose prizes change places and slide away; the player picks one and
// a penguin brings its prize down).  Each view shows a `minigame_start` event and plays its
// `minigame_end`; the upper game (./pinguinos-upper.js) owns the decisions.

import { t, tk } from "../../i18n.js";
import { formatNumber } from "../../money.js";
import { h, svg, wait } from "../../ui.js";
import { use } from "./pinguinos-parts.js";

const NAMES = { roulette: tk("Roulette"), fishing: tk("Fishing"), slides: tk("Slides") };

export function minigameName(kind) {
  return NAMES[kind] ? t(NAMES[kind]) : kind;
}

/** An amount without its zero cents: "€5.00" -> "€5", "5,00 €" -> "5 €". */
export function wholeMoney(text) {
  return text.replace(/[.,]00(?=\D*$)/, "");
}

/** Short money for small spaces: "€5", "€12.50", "€1.5K" ("5 €", "12,50 €", "1,5K €"). */
export function shortMoney(format, cents) {
  if (cents >= 100000) {
    const k = cents / 100000;
    return format(0).replace(/[\d.,]+/, `${Number.isInteger(k) ? k : formatNumber(k, 1)}K`);
  }
  return wholeMoney(format(cents));
}

class View {
  constructor(u, kind) {
    this.u = u;
    this.kind = kind;
    this.total = h("span.l3pm-total__value", { "data-testid": "minigame-total" });
    this.el = h(`div.l3pm.l3pm--${kind}`, { "data-testid": `minigame-${kind}` });
  }

  fmt(cents) {
    return this.u.ctx.format(cents);
  }

  setTotal(cents) {
    this.total.textContent = this.fmt(cents);
    this.total.dataset.cents = String(cents);
  }
}

// -- the Roulette --------------------------------------------------------------------------------

const SECTION_TONES = ["#c0142c", "#1650c0", "#0f8a3a", "#7a2ad0"];

export class Roulette extends View {
  constructor(u) {
    super(u, "roulette");
    this.angle = 0;
  }

  show(m) {
    const sections = this.u.info.roulette_sections || [];
    const n = sections.length;
    const step = 360 / n;
    const arc = (i) => {
      const a0 = ((i * step - 90) * Math.PI) / 180;
      const a1 = (((i + 1) * step - 90) * Math.PI) / 180;
      const p = (a, r) => `${(100 + r * Math.cos(a)).toFixed(2)} ${(100 + r * Math.sin(a)).toFixed(2)}`;
      return `M100 100 L${p(a0, 96)} A96 96 0 0 1 ${p(a1, 96)}Z`;
    };
    const top = Math.max(...sections);
    const parts = sections.map((v, i) => {
      const tone = v >= top ? "#e0a800" : SECTION_TONES[i % SECTION_TONES.length];
      const mid = (i + 0.5) * step;
      return `<g class="l3pm-sec" data-i="${i}">
        <path d="${arc(i)}" fill="${tone}" stroke="#fff6d0" stroke-width="1.2"/>
        <text x="100" y="24" transform="rotate(${mid} 100 100)" text-anchor="middle" class="l3pm-sec__text">${shortMoney(this.u.ctx.format, v * m)}</text>
      </g>`;
    }).join("");
    this.wheel = svg(`<svg class="l3pm-wheel__disc" viewBox="0 0 200 200" aria-hidden="true">
      <circle cx="100" cy="100" r="99" fill="#1a1030" stroke="url(#l3p-gold)" stroke-width="3"/>${parts}
      <circle cx="100" cy="100" r="30" fill="#0a1430" stroke="url(#l3p-gold)" stroke-width="3"/></svg>`);
    this.angle = 0;
    this.wheel.style.transform = "rotate(0deg)";
    this.el.replaceChildren(
      h("div.l3pm-wheel", this.wheel, h("div.l3pm-wheel__hub", this.total), h("div.l3pm-wheel__pointer")),
      h("div.l3pm-wheel__lit", { "data-testid": "roulette-lit" }));
    this.setTotal(0);
    this.el.dataset.lit = "[]";
  }

  async play(ev, instant) {
    const sections = this.u.info.roulette_sections || [];
    const n = sections.length;
    const m = this.u.multiplier();
    const litList = this.el.querySelector(".l3pm-wheel__lit");
    let sum = 0;
    const lit = [];
    for (const i of ev.sections) {
      if (!instant) {
        // The wheel turns until section i stops under the pointer (at the top).
        const target = -(i + 0.5) * (360 / n);
        let to = target;
        while (to > this.angle - 360 * 2) to -= 360;
        const from = this.angle;
        this.angle = to;
        const d = 1500 * this.u.speed();
        this.u.ctx.sound?.play("spin");
        if (d >= 16) {
          const a = this.wheel.animate([{ transform: `rotate(${from}deg)` }, { transform: `rotate(${to}deg)` }],
            { duration: d, easing: "cubic-bezier(.15,.7,.25,1)", fill: "forwards" });
          await a.finished.catch(() => {});
          this.wheel.style.transform = `rotate(${to}deg)`;
          a.cancel();
        }
        this.u.ctx.sound?.play("win");
      }
      if (instant) this.wheel.style.transform = `rotate(${-(i + 0.5) * (360 / n)}deg)`;
      this.wheel.querySelector(`.l3pm-sec[data-i="${i}"]`)?.classList.add("is-lit");
      sum += sections[i] * m;
      lit.push(i);
      this.setTotal(sum);
      this.el.dataset.lit = JSON.stringify(lit);
      litList.append(h("span.l3pm-chip", shortMoney(this.u.ctx.format, sections[i] * m)));
      if (!instant) await wait(450);
    }
  }
}

// -- the Fishing -----------------------------------------------------------------------------------

export class Fishing extends View {
  constructor(u) {
    super(u, "fishing");
  }

  show() {
    const n = 3;
    this.penguins = Array.from({ length: n }, (_, i) => {
      const catches = h("div.l3pm-catches");
      const sum = h("span.l3pm-fisher__sum");
      const el = h("div.l3pm-fisher", { dataset: { i: String(i) }, "data-testid": `fisher-${i}` },
        use("fisher", "l3pm-fisher__art"), h("div.l3pm-fisher__water", use("bucket")), catches, sum);
      return { el, catches, sum };
    });
    this.el.replaceChildren(h("div.l3pm-pond", this.penguins.map((p) => p.el)),
      h("div.l3pm-total", h("span.l3pm-total__label", t("Catch")), this.total));
    this.setTotal(0);
  }

  async play(ev, instant) {
    let sum = 0;
    for (let i = 0; i < ev.catches.length; i++) {
      const p = this.penguins[i];
      if (!p) continue;
      p.el.classList.add("is-fishing");
      let mine = 0;
      for (const fish of ev.catches[i]) {
        if (!instant) await wait(420);
        mine += fish;
        sum += fish;
        p.catches.append(h("span.l3pm-catch", { dataset: { cents: String(fish) } },
          svg('<svg class="l3pm-catch__fish" viewBox="0 0 100 60" aria-hidden="true"><use href="#l3p-fish"/></svg>'),
          h("span", shortMoney(this.u.ctx.format, fish))));
        p.sum.textContent = this.fmt(mine);
        this.setTotal(sum);
        if (!instant) this.u.ctx.sound?.play("win");
      }
      // A penguin stops on a cross, unless the sum reached the bet's maximum first (then no
      // further fish is drawn at all).
      if (!instant) await wait(420);
      if (sum < this.u.bet().max_prize) {
        p.catches.append(h("span.l3pm-catch.l3pm-catch--x", { "data-testid": `cross-${i}` }, use("cross")));
        if (!instant) this.u.ctx.sound?.play("crack");
      }
      p.sum.textContent = this.fmt(mine);
      p.el.classList.remove("is-fishing");
      p.el.classList.add("is-done");
      p.el.dataset.catches = JSON.stringify(ev.catches[i]);
    }
  }
}

// -- the Slides --------------------------------------------------------------------------------------

export class Slides extends View {
  constructor(u) {
    super(u, "slides");
    this.cursor = 0;
  }

  show(ev, instant) {
    this.prizes = ev.platforms;
    this.picked = null;
    this.platforms = ev.platforms.map((cents, i) => {
      const label = h("span.l3pm-plat__prize", shortMoney(this.u.ctx.format, cents));
      const el = h("button.l3pm-plat", {
        type: "button", dataset: { i: String(i) }, "data-testid": `platform-${i}`, disabled: true,
        title: t("Platform {number}", { number: i + 1 }), onclick: () => this.u.pickPlatform(i),
      }, h("span.l3pm-plat__top", label), h("span.l3pm-plat__slide"), h("span.l3pm-plat__n", String(i + 1)));
      return { el, label };
    });
    this.landing = h("div.l3pm-landing", { "data-testid": "slides-landing" });
    this.el.replaceChildren(h("div.l3pm-plats", this.platforms.map((p) => p.el)), this.landing);
    this.el.dataset.shown = JSON.stringify(ev.platforms);
    this.setCursor(0);
    if (instant) this.hide();
  }

  /** For a few moments the shown prizes change places, then slide away. */
  async shuffle() {
    const n = this.prizes.length;
    for (let k = 0; k < 8; k++) {
      const shift = 1 + Math.floor(Math.random() * (n - 1));
      this.platforms.forEach((p, i) => {
        p.label.textContent = shortMoney(this.u.ctx.format, this.prizes[(i + shift + k) % n]);
      });
      this.u.ctx.sound?.play("tick");
      await wait(130);
    }
    this.hide();
  }

  hide() {
    this.platforms.forEach((p, i) => {
      p.label.textContent = "?";
      p.el.disabled = false;
      p.el.classList.add("is-hidden");
      p.el.setAttribute("aria-label", t("Pick platform {number}", { number: i + 1 }));
    });
    this.el.dataset.ready = "1";
  }

  setCursor(i) {
    this.cursor = Math.max(0, Math.min(this.platforms.length - 1, i));
    this.platforms.forEach((p, k) => p.el.classList.toggle("is-cursor", k === this.cursor));
    this.el.dataset.cursor = String(this.cursor);
  }

  lock(i) {
    this.picked = i;
    this.platforms.forEach((p, k) => {
      p.el.disabled = true;
      p.el.classList.toggle("is-picked", k === i);
    });
  }

  async play(ev, instant) {
    this.lock(ev.platform);
    const prizeOf = (k) => this.prizes[ev.order[k]];
    const text = shortMoney(this.u.ctx.format, ev.result);
    if (!instant) {
      this.u.ctx.sound?.play("spin");
      const rider = h("div.l3pm-rider", { style: { "--from": String(ev.platform) } }, use("slider"), h("span.l3pm-rider__prize", text));
      this.landing.replaceChildren(rider);
      await wait(900);
      this.u.ctx.sound?.play("win");
    } else {
      this.landing.replaceChildren(h("div.l3pm-rider.is-landed", { style: { "--from": String(ev.platform) } }, use("slider"), h("span.l3pm-rider__prize", text)));
    }
    // The chosen prize, and what the other platforms held.
    this.platforms.forEach((p, k) => {
      p.label.textContent = shortMoney(this.u.ctx.format, prizeOf(k));
      p.el.classList.remove("is-hidden");
      p.el.classList.toggle("is-out", k !== ev.platform);
    });
    this.el.dataset.revealed = JSON.stringify(this.platforms.map((_, k) => prizeOf(k)));
    this.setTotal(ev.result);
  }
}

export function createMinigames(u) {
  return { roulette: new Roulette(u), fishing: new Fishing(u), slides: new Slides(u) };
}
