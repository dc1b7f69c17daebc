// Pieces every renderer may use: announcements over the reels, the big-win celebration,
// a way/line win caption, and small formatting helpers.

import { countUp, h, wait } from "../ui.js";

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

/** BIG WIN / MEGA WIN / EPIC WIN with the amount counting up. */
export async function bigWin(host, { amount, stake, format, sound }) {
  const ratio = amount / stake;
  const title = ratio >= 100 ? "EPIC WIN" : ratio >= 40 ? "MEGA WIN" : "BIG WIN";
  const value = h("div.bigwin__amount", format(0));
  const el = h("div.bigwin", { "data-testid": "big-win" },
    h("div.bigwin__rays"), h("div.bigwin__title", title), value);
  host.append(el);
  sound?.play("bigwin");
  let skip = false;
  el.addEventListener("click", () => (skip = true));
  await countUp(value, 0, amount, 2200, format);
  if (!skip) await wait(1100);
  el.classList.add("bigwin--out");
  setTimeout(() => el.remove(), 300);
}

/** The caption under the reels for one win: "5 × Gnome King · 12 ways · £6.00". */
export function winCaption(parts) {
  return h("div.wincaption", { "data-testid": "win-caption" }, ...parts.filter(Boolean).map((p, i) =>
    i === 0 ? h("strong", p) : h("span", p)));
}

export function plural(n, one, many = one + "s") {
  return `${n} ${n === 1 ? one : many}`;
}
