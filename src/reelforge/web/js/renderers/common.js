// Pieces every renderer may use: announcements over the reels, feature intro and total
// screens (the shared client's, see ../presentation.js), a way/line win caption, and small
// formatting helpers.

import { h, wait } from "../ui.js";

/**
 * A big announcement over `host` (e.g. "10 DRAGON SPINS").  Resolves after `ms` (scaled
 * by the animation speed); a click dismisses it early.
 */
export function banner(host, { title, sub = "", kind = "info", ms = 1600, testid = "banner" }) {
  const el = h(`div.banner.banner--${kind}`, { "data-testid": testid, role: "status" },
    h("div.banner__title", title), sub ? h("div.banner__sub", sub) : null);
  host.append(el);
  return new Promise((resolve) => {
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      el.classList.add("banner--out");
      setTimeout(() => el.remove(), 250);
      resolve();
    };
    el.addEventListener("click", finish);
    wait(ms).then(finish);
  });
}

/**
 * A feature starts: the shared full-stage intro (ctx.feature, on the game screen), or a
 * banner over `host` where there is none (recall, replay).  opts: {title, sub, kind, testid}.
 */
export function featureIntro(ctx, host, opts) {
  if (ctx.feature) return ctx.feature.intro(opts);
  return banner(host, { title: opts.title, sub: opts.sub, testid: opts.testid, kind: opts.bannerKind || "feature", ms: 1600 });
}

/** A feature ends: its total screen (`amount` in minor units), or a banner without one. */
export function featureTotal(ctx, host, opts) {
  if (ctx.feature) return ctx.feature.total(opts);
  const sub = [opts.sub, ctx.format(opts.amount)].filter(Boolean).join(" · ");
  return banner(host, { title: opts.title, sub, testid: opts.testid, kind: opts.bannerKind || "feature", ms: 1500 });
}

/** The caption under the reels for one win: "5 × Gnome King · 12 ways · £6.00". */
export function winCaption(parts) {
  return h("div.wincaption", { "data-testid": "win-caption" }, ...parts.filter(Boolean).map((p, i) =>
    i === 0 ? h("strong", p) : h("span", p)));
}

export function plural(n, one, many = one + "s") {
  return `${n} ${n === 1 ? one : many}`;
}
