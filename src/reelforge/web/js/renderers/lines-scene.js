// The scene behind a `lines` game (a game written only as data, e.g. Golden Scarab): a temple
// court at dusk, its sky, sun, lamps and dunes tinted by the data file's symbol colours, so
// each game gets its own light without art of its own.  Static SVG, no images; placement in
// css/lines.css (.scene--lines).

import { h, svg } from "../ui.js";

const HEX = /^#[0-9a-f]{6}$/i;

/** The game's three leading colours: its top-paying symbols' (a safe gold where missing). */
function palette(game) {
  const pays = game.paytable || {};
  const colours = game.symbol_colours || {};
  const codes = Object.keys(pays).sort((a, b) => (pays[b][5] || 0) - (pays[a][5] || 0));
  const found = codes.map((c) => colours[c]).filter((c) => HEX.test(c || ""));
  const fallback = ["#f2c14e", "#3fa7ff", "#d0175a"];
  return [0, 1, 2].map((i) => found[i] || fallback[i]);
}

const COLS = [90, 200, 310, 1290, 1400, 1510];

export function linesScene(game, idPrefix = "lns") {
  const [sun, sky, lamp] = palette(game);
  const id = (n) => `${idPrefix}-${n}`;
  const markup = `<svg class="scene__art" viewBox="0 0 1600 900" preserveAspectRatio="xMidYMax slice" aria-hidden="true" focusable="false">
<defs>
<radialGradient id="${id("sun")}" cx="50%" cy="50%" r="50%"><stop offset=".1" stop-color="${sun}" stop-opacity=".9"/><stop offset=".16" stop-color="${sun}" stop-opacity=".4"/><stop offset="1" stop-color="${sun}" stop-opacity="0"/></radialGradient>
<radialGradient id="${id("sky")}" cx="50%" cy="100%" r="75%"><stop offset="0" stop-color="${sky}" stop-opacity=".45"/><stop offset="1" stop-color="${sky}" stop-opacity="0"/></radialGradient>
<linearGradient id="${id("dusk")}" x1="0" y1="0" x2="0" y2="1"><stop offset=".2" stop-color="${sky}" stop-opacity="0"/><stop offset=".78" stop-color="${sun}" stop-opacity=".42"/><stop offset=".8" stop-color="${sun}" stop-opacity="0"/></linearGradient>
<radialGradient id="${id("lamp")}"><stop offset=".1" stop-color="#fff6d0"/><stop offset=".35" stop-color="${lamp}" stop-opacity=".75"/><stop offset="1" stop-color="${lamp}" stop-opacity="0"/></radialGradient>
<g id="${id("col")}"><rect x="-34" y="-330" width="68" height="330"/><rect x="-48" y="-352" width="96" height="26"/><rect x="-44" y="-8" width="88" height="14"/><path d="M-48-352q48-40 96 0Z"/></g>
</defs>
<rect width="1600" height="900" fill="url(#${id("dusk")})"/>
<rect width="1600" height="900" fill="url(#${id("sky")})"/>
<circle cx="800" cy="600" r="760" fill="url(#${id("sun")})"/>
<g fill="#0b0a18" opacity=".9">
<path d="M460 700 640 460 820 700Z"/><path d="M760 700 960 400 1160 700Z"/><path d="M1080 700 1200 540 1320 700Z"/>
</g>
<path d="M0 700Q400 640 800 690T1600 680V900H0Z" fill="${sky}" opacity=".18"/>
<path d="M0 760Q380 700 820 770T1600 740V900H0Z" fill="#120d1e"/>
<path d="M0 760Q380 700 820 770T1600 740V900H0Z" fill="${sun}" opacity=".12"/>
<rect x="0" y="418" width="380" height="30" fill="#0d0b1a"/><rect x="1220" y="418" width="380" height="30" fill="#0d0b1a"/>
<g fill="#0d0b1a">${COLS.map((x) => `<use href="#${id("col")}" x="${x}" y="790"/>`).join("")}</g>
<g>${[145, 255, 1345, 1455].map((x) => `<rect x="${x - 10}" y="730" width="20" height="60" fill="#0d0b1a"/><circle cx="${x}" cy="712" r="48" fill="url(#${id("lamp")})"/>`).join("")}</g>
</svg>`;
  return h("div.scene.scene--lines", { "data-testid": "scene", "aria-hidden": "true" }, svg(markup));
}
