// Reign of Gnomes' scene behind the reels: the forest kingdom at night (hills, a castle on
// its crag with lit windows, pines, toadstools, fireflies).  Static SVG drawn here, no images;
// its look (placement, the free-spin tint) is in css/app.css (.scene--rog).

import { h, svg } from "../../ui.js";

const PINE = "M0-260 52-150H26l66 110H50l78 120H-128L-50-40H-92l66-110H-52Z";
const pines = [[60, 800, 1.1], [190, 840, 1.35], [330, 810, 0.9], [1290, 820, 1.0], [1420, 845, 1.4], [1560, 800, 1.05], [470, 790, 0.6], [1150, 780, 0.65]];
const shrooms = [[250, 872, 1], [400, 880, 0.7], [1220, 878, 0.85], [1370, 884, 1.1], [690, 892, 0.75], [905, 896, 0.6]];
const flies = [[140, 520], [300, 610], [420, 470], [560, 700], [1060, 660], [1180, 520], [1330, 610], [1480, 470], [90, 690], [1530, 700], [700, 760], [900, 740]];

const MARKUP = `<svg class="scene__art" viewBox="0 0 1600 900" preserveAspectRatio="xMidYMax slice" aria-hidden="true" focusable="false">
<defs>
<linearGradient id="rgs-hill" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="#1c5a45"/><stop offset="1" stop-color="#07150f"/></linearGradient>
<radialGradient id="rgs-fly"><stop offset="0" stop-color="#fffbc8"/><stop offset=".3" stop-color="#e6ff7a" stop-opacity=".7"/><stop offset="1" stop-color="#b8ff5a" stop-opacity="0"/></radialGradient>
<radialGradient id="rgs-moon"><stop offset=".25" stop-color="#fff6d8" stop-opacity=".9"/><stop offset=".32" stop-color="#fff0b8" stop-opacity=".25"/><stop offset="1" stop-color="#fff0b8" stop-opacity="0"/></radialGradient>
<path id="rgs-pine" d="${PINE}"/>
<g id="rgs-shroom"><path d="M-10 0V-34h20V0Z" fill="#efe4c8"/><path d="M-46-30Q-44-78 0-80Q44-78 46-30Z" fill="#c8242e"/><circle cx="-20" cy="-52" r="7" fill="#fff4e0"/><circle cx="12" cy="-64" r="6" fill="#fff4e0"/><circle cx="24" cy="-42" r="5" fill="#fff4e0"/></g>
</defs>
<circle cx="1440" cy="330" r="170" fill="url(#rgs-moon)"/>
<path d="M0 610Q180 520 380 590T780 560T1180 540T1600 580V900H0Z" fill="#0f3a36" opacity=".85"/>
<g transform="translate(1320 640) scale(1.15) translate(-1100 -560)">
<g fill="#0b2630">
<path d="M1010 560L1060 430L1120 440L1190 560Z"/>
<path d="M1050 460h16v-70h-8l16-40 16 40h-8v70h40v-50h-8l14-34 14 34h-8v50h16v-40h-6l12-30 12 30h-6v70h-126Z"/>
<rect x="1040" y="455" width="140" height="10"/>
</g>
<g fill="#ffcf6a"><rect x="1064" y="410" width="5" height="9"/><rect x="1113" y="430" width="5" height="9"/><rect x="1150" y="444" width="4" height="8"/></g>
</g>
<path d="M0 760Q260 680 560 750T1100 740T1600 720V900H0Z" fill="url(#rgs-hill)"/>
<g fill="#06140f">${pines.map(([x, y, s]) => `<use href="#rgs-pine" transform="translate(${x} ${y}) scale(${s})"/>`).join("")}</g>
${shrooms.map(([x, y, s]) => `<use href="#rgs-shroom" transform="translate(${x} ${y}) scale(${s})"/>`).join("")}
<g class="scene__flies">${flies.map(([x, y], i) => `<circle cx="${x}" cy="${y}" r="${10 + (i % 3) * 4}" fill="url(#rgs-fly)"/>`).join("")}</g>
</svg>`;

/** The scene element: first child of the renderer's root, behind everything else. */
export function gnomesScene() {
  return h("div.scene.scene--rog", { "data-testid": "scene", "aria-hidden": "true" }, svg(MARKUP));
}
