// Ghost of Gambini's scene behind the reels: the haunted house on its hill under the moon
// (the moon is gambini.css's), bare trees, bats, gravestones, ghost wisps and candles.
// Static SVG drawn here, no images; placement in gambini.css (.scene--gog).

import { h, svg } from "../../ui.js";

const BAT = "M0 0q-14-14-30-6q8 2 8 10q-10-4-20 2q12 2 14 10Q-10 6 0 12Q10 6 28 16q2-8 14-10q-10-6-20-2q0-8 8-10Q14-14 0 0Z";
const bats = [[300, 230, 1], [430, 170, 0.7], [1180, 150, 0.8], [1290, 250, 1.1], [1500, 330, 0.6]];
const candles = [[90, 870, 1.2], [170, 880, 0.9], [1440, 880, 1], [1520, 870, 1.25], [735, 892, 0.75], [868, 896, 0.6]];
const windows = [[150, 520], [230, 520], [310, 520], [150, 610], [310, 610], [232, 430]];

const MARKUP = `<svg class="scene__art" viewBox="0 0 1600 900" preserveAspectRatio="xMidYMax slice" aria-hidden="true" focusable="false">
<defs>
<radialGradient id="ggs-flame"><stop offset=".15" stop-color="#fff8d8"/><stop offset=".4" stop-color="#ffb640" stop-opacity=".7"/><stop offset="1" stop-color="#ff8a20" stop-opacity="0"/></radialGradient>
<radialGradient id="ggs-wisp"><stop offset="0" stop-color="#c8fff0" stop-opacity=".35"/><stop offset="1" stop-color="#9ff5d4" stop-opacity="0"/></radialGradient>
<path id="ggs-bat" d="${BAT}"/>
<g id="ggs-candle"><rect x="-9" y="-70" width="18" height="70" rx="3" fill="#e9dcc0"/><path d="M0-92q9 12 0 20q-9-8 0-20Z" fill="#ffd46a"/><circle cy="-80" r="34" fill="url(#ggs-flame)"/></g>
</defs>
<path d="M0 700Q300 600 640 690T1600 650V900H0Z" fill="#120c24"/>
<g fill="#0a0714">
<path d="M60 700V470l60-70v-60h10l30-70 30 70h10v60l40 40h30l60-70 60 70v300Z"/>
<path d="M330 700V460l40-90 40 90v240Z"/>
<path d="M40 700h420v20H40Z"/>
</g>
<g fill="#b8ff9a" opacity=".75">${windows.map(([x, y]) => `<rect x="${x}" y="${y}" width="26" height="40" rx="13"/>`).join("")}</g>
<g fill="none" stroke="#0a0714" stroke-width="14" stroke-linecap="round">
<path d="M1330 780V520M1330 600l-80-70M1330 560l70-80M1400 480l40-40M1250 530l-40-10"/>
<path d="M1480 800V600M1480 660l60-60M1480 640l-50-40" stroke-width="10"/>
</g>
<g fill="#0a0714"><path d="M560 820v-50q30-40 60 0v50Z"/><path d="M1060 830v-40q25-34 50 0v40Z"/><path d="M690 840v-30h8v-16h10v16h8v30Z"/></g>
<path d="M0 800Q420 740 820 800T1600 780V900H0Z" fill="#07050e"/>
<g fill="#140e26"><path d="M610 900v-62q32-44 64 0v62Z"/><path d="M780 900v-40h-12v-12h12v-14h14v14h12v12h-12v40Z"/><path d="M920 900v-54q28-38 56 0v54Z"/></g>
<path d="M560 900v-44M600 900v-44M1000 900v-44M1040 900v-44M540 866h520" stroke="#140e26" stroke-width="6" fill="none"/>
<g fill="url(#ggs-wisp)"><ellipse cx="520" cy="760" rx="220" ry="40"/><ellipse cx="1150" cy="780" rx="260" ry="44"/><ellipse cx="1420" cy="430" rx="70" ry="110"/></g>
<g fill="#07050e">${bats.map(([x, y, s]) => `<use href="#ggs-bat" transform="translate(${x} ${y}) scale(${s * 1.6})"/>`).join("")}</g>
${candles.map(([x, y, s]) => `<use href="#ggs-candle" transform="translate(${x} ${y}) scale(${s})"/>`).join("")}
</svg>`;

export function gambiniScene() {
  return h("div.scene.scene--gog", { "data-testid": "scene", "aria-hidden": "true" }, svg(MARKUP));
}
