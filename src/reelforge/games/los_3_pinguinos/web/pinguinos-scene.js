// Los 3 Pinguinos' scene behind the machine: the arcade hall (a ceiling of bulbs, neon
// arches, the neighbouring machines' glowing screens, the patterned carpet).  Static SVG
// drawn here, no images; placement in pinguinos.css (.scene--l3p).

import { h, svg } from "../../ui.js";

const bulbs = Array.from({ length: 25 }, (_, i) => 32 + i * 64);
const cabinets = [[40, "#2f8bff"], [250, "#ff4fd8"], [1170, "#ffc21f"], [1380, "#8fe3ff"]];

const MARKUP = `<svg class="scene__art" viewBox="0 0 1600 900" preserveAspectRatio="xMidYMid slice" aria-hidden="true" focusable="false">
<defs>
<radialGradient id="l3s-bulb"><stop offset=".2" stop-color="#fff7d0"/><stop offset=".45" stop-color="#ffc21f" stop-opacity=".5"/><stop offset="1" stop-color="#ffc21f" stop-opacity="0"/></radialGradient>
<pattern id="l3s-carpet" width="80" height="80" patternUnits="userSpaceOnUse">
<rect width="80" height="80" fill="#140a2c"/>
<path d="M6 18q10-12 20 0t20 0" fill="none" stroke="#ff4fd8" stroke-width="4" stroke-linecap="round"/>
<path d="M44 58l6-12 6 12-12-7h12Z" fill="#ffd21f"/>
<circle cx="20" cy="58" r="6" fill="none" stroke="#2fd0ff" stroke-width="4"/>
<path d="M56 20h14M63 13v14" stroke="#7dff6a" stroke-width="4" stroke-linecap="round"/>
</pattern>
</defs>
<rect y="720" width="1600" height="180" fill="url(#l3s-carpet)" opacity=".55"/>
<rect y="716" width="1600" height="6" fill="#ff4fd8" opacity=".5"/>
<g fill="none" stroke-linecap="round">
<path d="M-40 640Q400 120 800 120T1640 640" stroke="#ff4fd8" stroke-width="18" opacity=".18"/>
<path d="M-40 640Q400 120 800 120T1640 640" stroke="#ffb8f0" stroke-width="4" opacity=".7"/>
<path d="M60 680Q420 210 800 210T1540 680" stroke="#2fd0ff" stroke-width="16" opacity=".16"/>
<path d="M60 680Q420 210 800 210T1540 680" stroke="#bff4ff" stroke-width="3" opacity=".65"/>
</g>
${cabinets.map(([x, c]) => `<g transform="translate(${x} 430)"><path d="M0 290V40q0-30 30-30h120q30 0 30 30v250Z" fill="#070c22"/><rect x="24" y="50" width="132" height="96" rx="8" fill="${c}" opacity=".16"/><rect x="24" y="180" width="132" height="10" rx="5" fill="${c}" opacity=".3"/></g>`).join("")}
<rect width="1600" height="130" fill="#050a1c" opacity=".6"/>
<g>${bulbs.map((x, i) => `<circle cx="${x}" cy="108" r="${i % 2 ? 16 : 22}" fill="url(#l3s-bulb)"/>`).join("")}</g>
</svg>`;

export function pinguinosScene() {
  return h("div.scene.scene--l3p", { "data-testid": "scene", "aria-hidden": "true" }, svg(MARKUP));
}
