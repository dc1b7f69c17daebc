// Ghost of Gambini art: one inline SVG sprite (gradients + <symbol>s), drawn here, no image
// files.  Every symbol has a 100x100 viewBox and is shown with <use href="#gog-XX">.  Coin
// values are not drawn here: the renderer lays the money (at the round's coin) over the coin.

const SERIF = "Georgia, 'DejaVu Serif', 'Liberation Serif', serif";
const SANS = "system-ui, 'DejaVu Sans', 'Liberation Sans', sans-serif";

const tile = (fill) =>
  `<rect x="5" y="5" width="90" height="90" rx="16" fill="url(#${fill})"/>
   <rect x="5" y="5" width="90" height="90" rx="16" fill="none" stroke="url(#gog-gold)" stroke-width="3.5"/>
   <path d="M14 15 Q50 4 86 15 L86 27 Q50 17 14 27Z" fill="#fff" opacity=".1"/>`;

const letter = (ch, grad, size = 64, dy = 0) =>
  `<text x="50" y="${72 + dy}" text-anchor="middle" font-family="${SERIF}" font-weight="700"
     font-size="${size}" fill="url(#${grad})" stroke="#0c0614" stroke-width="3.5" paint-order="stroke"
     stroke-linejoin="round">${ch}</text>
   <text x="50" y="${72 + dy}" text-anchor="middle" font-family="${SERIF}" font-weight="700"
     font-size="${size}" fill="none" stroke="#e8fff6" stroke-opacity=".35" stroke-width="1">${ch}</text>
   <path d="M26 84 Q38 78 50 84 Q62 90 74 84" stroke="#9ff5d4" stroke-opacity=".55" stroke-width="2" fill="none" stroke-linecap="round"/>`;

const padlock = (x, y, s = 1) =>
  `<g transform="translate(${x} ${y}) scale(${s})">
    <path d="M-6 0 V-5 A6 6 0 0 1 6 -5 V0" fill="none" stroke="#3a2a10" stroke-width="3.4"/>
    <path d="M-6 0 V-5 A6 6 0 0 1 6 -5 V0" fill="none" stroke="#d9dee8" stroke-width="1.8"/>
    <rect x="-8.5" y="-1" width="17" height="13" rx="2.5" fill="url(#gog-gold)" stroke="#5a3a05" stroke-width="1.2"/>
    <circle cx="0" cy="4.2" r="1.8" fill="#3a2205"/><rect x="-.8" y="4.6" width="1.6" height="4" fill="#3a2205"/>
   </g>`;

const wildRibbon = (fill) =>
  `<path d="M8 74 L92 74 L86 82 L92 90 L8 90 L14 82Z" fill="${fill}" stroke="#1a0820" stroke-width="1.5"/>
   <text x="50" y="87.5" text-anchor="middle" font-family="${SERIF}" font-weight="700" font-size="14" fill="#fff3b0"
     stroke="#1a0820" stroke-width="1" paint-order="stroke" letter-spacing="2">WILD</text>`;

const jackpot = (id, label, grad, ring, size) =>
  ` <symbol id="gog-${id}" viewBox="0 0 100 100">
  <circle cx="50" cy="52" r="46" fill="url(#gog-halo)"/>
  <path d="M50 10 L86 30 L86 72 L50 92 L14 72 L14 30Z" fill="url(#${grad})" stroke="${ring}" stroke-width="4" stroke-linejoin="round"/>
  <path d="M50 18 L79 34 L79 68 L50 84 L21 68 L21 34Z" fill="none" stroke="#fff" stroke-opacity=".35" stroke-width="1.4"/>
  <path d="M22 34 Q50 22 78 34 L78 44 Q50 32 22 44Z" fill="#fff" opacity=".16"/>
  <text x="50" y="${58 + (size - 18) / 3}" text-anchor="middle" font-family="${SANS}" font-weight="900" font-size="${size}"
    fill="#fff" stroke="#1a0820" stroke-width="3" paint-order="stroke" letter-spacing="1">${label}</text>
  ${padlock(50, 14, 0.85)}
 </symbol>`;

const ghostBody = (fill, stroke, eye = "#1b0f2a") =>
  `<path d="M50 14 C30 14 20 30 20 50 L20 84 L28 78 L35 86 L42 78 L50 86 L58 78 L65 86 L72 78 L80 84 L80 50 C80 30 70 14 50 14Z"
     fill="${fill}" stroke="${stroke}" stroke-width="2.4" stroke-linejoin="round"/>
   <ellipse cx="40" cy="46" rx="5.5" ry="7.5" fill="${eye}"/><ellipse cx="60" cy="46" rx="5.5" ry="7.5" fill="${eye}"/>
   <circle cx="41.5" cy="43.5" r="1.8" fill="#fff"/><circle cx="61.5" cy="43.5" r="1.8" fill="#fff"/>
   <ellipse cx="50" cy="62" rx="6" ry="7" fill="${eye}" opacity=".85"/>
   <path d="M30 28 Q36 20 44 20" stroke="#fff" stroke-opacity=".7" stroke-width="3" fill="none" stroke-linecap="round"/>`;

export const SPRITE = `
<svg xmlns="http://www.w3.org/2000/svg" class="sprite" aria-hidden="true" width="0" height="0">
 <defs>
  <linearGradient id="gog-gold" x1="0" y1="0" x2="0" y2="1">
   <stop offset="0" stop-color="#fff6c2"/><stop offset=".45" stop-color="#f2c14e"/><stop offset="1" stop-color="#8f5a0c"/>
  </linearGradient>
  <radialGradient id="gog-coinfill" cx=".4" cy=".32" r=".78">
   <stop offset="0" stop-color="#fffbe0"/><stop offset=".35" stop-color="#ffd54a"/><stop offset=".8" stop-color="#c88a12"/><stop offset="1" stop-color="#7a4a05"/>
  </radialGradient>
  <radialGradient id="gog-coin-in" cx=".5" cy=".45" r=".6">
   <stop offset="0" stop-color="#ffe27a"/><stop offset="1" stop-color="#d89a1c"/>
  </radialGradient>
  <radialGradient id="gog-velvet" cx=".5" cy=".35" r=".8">
   <stop offset="0" stop-color="#5b2a86"/><stop offset=".6" stop-color="#2c1048"/><stop offset="1" stop-color="#12051f"/>
  </radialGradient>
  <radialGradient id="gog-teal" cx=".5" cy=".35" r=".8">
   <stop offset="0" stop-color="#2f8a86"/><stop offset=".6" stop-color="#12454a"/><stop offset="1" stop-color="#061a20"/>
  </radialGradient>
  <radialGradient id="gog-wine" cx=".5" cy=".35" r=".8">
   <stop offset="0" stop-color="#9a2a4a"/><stop offset=".6" stop-color="#4e0c26"/><stop offset="1" stop-color="#1e0410"/>
  </radialGradient>
  <radialGradient id="gog-night" cx=".5" cy=".35" r=".8">
   <stop offset="0" stop-color="#3a4a9a"/><stop offset=".6" stop-color="#18205a"/><stop offset="1" stop-color="#080a24"/>
  </radialGradient>
  <radialGradient id="gog-ball" cx=".38" cy=".32" r=".75">
   <stop offset="0" stop-color="#f4e8ff"/><stop offset=".3" stop-color="#b98cff"/><stop offset=".7" stop-color="#5b2bc4"/><stop offset="1" stop-color="#1c0a4a"/>
  </radialGradient>
  <radialGradient id="gog-flame" cx=".5" cy=".7" r=".7">
   <stop offset="0" stop-color="#fffbe0"/><stop offset=".4" stop-color="#ffd040"/><stop offset="1" stop-color="#ff6a00"/>
  </radialGradient>
  <radialGradient id="gog-halo" cx=".5" cy=".5" r=".5">
   <stop offset="0" stop-color="#fff1a0" stop-opacity=".55"/><stop offset="1" stop-color="#ffb000" stop-opacity="0"/>
  </radialGradient>
  <radialGradient id="gog-ghostglow" cx=".5" cy=".5" r=".5">
   <stop offset="0" stop-color="#b8ffe6" stop-opacity=".7"/><stop offset="1" stop-color="#2affb0" stop-opacity="0"/>
  </radialGradient>
  <radialGradient id="gog-starburst" cx=".5" cy=".45" r=".75">
   <stop offset="0" stop-color="#fff2b0"/><stop offset=".45" stop-color="#e0a020"/><stop offset="1" stop-color="#5a1a00"/>
  </radialGradient>
  <radialGradient id="gog-spookbg" cx=".5" cy=".45" r=".75">
   <stop offset="0" stop-color="#c8fff0"/><stop offset=".45" stop-color="#2fb890"/><stop offset="1" stop-color="#062a2a"/>
  </radialGradient>
  <radialGradient id="gog-skin" cx=".45" cy=".4" r=".7">
   <stop offset="0" stop-color="#ffe3cc"/><stop offset="1" stop-color="#e8a07a"/>
  </radialGradient>
  <radialGradient id="gog-pig" cx=".4" cy=".35" r=".75">
   <stop offset="0" stop-color="#ffe0ec"/><stop offset=".55" stop-color="#ff9ec2"/><stop offset="1" stop-color="#c2527e"/>
  </radialGradient>
  <radialGradient id="gog-mini" cx=".5" cy=".3" r=".8"><stop offset="0" stop-color="#8ff5c8"/><stop offset=".6" stop-color="#139a6a"/><stop offset="1" stop-color="#04402a"/></radialGradient>
  <radialGradient id="gog-minor" cx=".5" cy=".3" r=".8"><stop offset="0" stop-color="#9fd4ff"/><stop offset=".6" stop-color="#2466d8"/><stop offset="1" stop-color="#0a2160"/></radialGradient>
  <radialGradient id="gog-major" cx=".5" cy=".3" r=".8"><stop offset="0" stop-color="#ffa0c8"/><stop offset=".6" stop-color="#c4145a"/><stop offset="1" stop-color="#500422"/></radialGradient>
  <radialGradient id="gog-grand" cx=".5" cy=".3" r=".8"><stop offset="0" stop-color="#fffbe0"/><stop offset=".5" stop-color="#f2b820"/><stop offset="1" stop-color="#7a4200"/></radialGradient>
  <linearGradient id="gog-gA" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="#ffd0e0"/><stop offset=".5" stop-color="#ff4f8a"/><stop offset="1" stop-color="#8a0f3a"/></linearGradient>
  <linearGradient id="gog-gK" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="#d0f0ff"/><stop offset=".5" stop-color="#3fa8ff"/><stop offset="1" stop-color="#0b3a8a"/></linearGradient>
  <linearGradient id="gog-gQ" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="#f0dcff"/><stop offset=".5" stop-color="#a85cf0"/><stop offset="1" stop-color="#45127c"/></linearGradient>
  <linearGradient id="gog-gJ" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="#d8fff0"/><stop offset=".5" stop-color="#2fd19a"/><stop offset="1" stop-color="#0a5a3e"/></linearGradient>
  <linearGradient id="gog-gT" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="#fff1c8"/><stop offset=".5" stop-color="#ffa63a"/><stop offset="1" stop-color="#8a4300"/></linearGradient>
 </defs>

 <symbol id="gog-P1" viewBox="0 0 100 100">
  ${tile("gog-velvet")}
  <ellipse cx="50" cy="76" rx="36" ry="9" fill="#0c0810" stroke="#4a3a5a" stroke-width="1.5"/>
  <path d="M28 74 L31 26 Q50 18 69 26 L72 74 Q50 80 28 74Z" fill="#17121e" stroke="#4a3a5a" stroke-width="1.6"/>
  <path d="M30 62 Q50 68 70 62 L70.8 72 Q50 78 29.2 72Z" fill="#c0143c" stroke="#5a0418" stroke-width="1"/>
  <ellipse cx="50" cy="26" rx="19" ry="5" fill="#261d30" stroke="#4a3a5a" stroke-width="1.2"/>
  <path d="M36 32 Q38 48 35 60" stroke="#fff" stroke-opacity=".18" stroke-width="3" fill="none"/>
  <path d="M60 52 L86 20" stroke="#111" stroke-width="5" stroke-linecap="round"/>
  <path d="M82 25 L86 20" stroke="#fff" stroke-width="5" stroke-linecap="round"/>
  <path d="M84 10 l2 5 5 2 -5 2 -2 5 -2 -5 -5 -2 5 -2z" fill="#fff6c2"/>
  <path d="M72 14 l1.3 3 3 1.3 -3 1.3 -1.3 3 -1.3 -3 -3 -1.3 3 -1.3z" fill="#fff6c2"/>
 </symbol>

 <symbol id="gog-P2" viewBox="0 0 100 100">
  ${tile("gog-night")}
  <circle cx="50" cy="44" r="30" fill="url(#gog-ball)" stroke="#e0d0ff" stroke-width="1.5"/>
  <path d="M34 40 Q42 30 52 36 Q62 42 66 34" stroke="#fff" stroke-opacity=".5" stroke-width="2" fill="none"/>
  <path d="M36 52 Q48 46 58 54 Q64 58 68 50" stroke="#e8b0ff" stroke-opacity=".6" stroke-width="1.6" fill="none"/>
  <ellipse cx="40" cy="32" rx="7" ry="4.5" fill="#fff" opacity=".6" transform="rotate(-30 40 32)"/>
  <path d="M30 72 Q50 66 70 72 L76 86 L24 86Z" fill="url(#gog-gold)" stroke="#5a3a05" stroke-width="1.5"/>
  <rect x="22" y="84" width="56" height="6" rx="2" fill="url(#gog-gold)" stroke="#5a3a05" stroke-width="1.2"/>
  <circle cx="50" cy="78" r="2.5" fill="#c0143c"/>
 </symbol>

 <symbol id="gog-P3" viewBox="0 0 100 100">
  ${tile("gog-wine")}
  <g fill="url(#gog-gold)" stroke="#5a3a05" stroke-width="1.2">
   <path d="M24 52 Q24 66 50 66 Q76 66 76 52" fill="none" stroke="url(#gog-gold)" stroke-width="4"/>
   <rect x="47" y="48" width="6" height="32"/>
   <path d="M36 88 Q50 78 64 88Z"/>
   <rect x="19" y="48" width="10" height="5" rx="1.5"/><rect x="45" y="40" width="10" height="5" rx="1.5"/><rect x="71" y="48" width="10" height="5" rx="1.5"/>
  </g>
  <g fill="#f4ecd8" stroke="#b8a888" stroke-width="1">
   <rect x="20.5" y="30" width="7" height="18" rx="1"/><rect x="46.5" y="22" width="7" height="18" rx="1"/><rect x="72.5" y="30" width="7" height="18" rx="1"/>
  </g>
  <g fill="url(#gog-flame)">
   <path d="M24 29 C19 22 24 15 24 10 C29 17 30 23 24 29Z"/><path d="M50 21 C45 14 50 7 50 2 C55 9 56 15 50 21Z"/><path d="M76 29 C71 22 76 15 76 10 C81 17 82 23 76 29Z"/>
  </g>
  <path d="M26 40 q-2 4 0 7" stroke="#f4ecd8" stroke-width="2" fill="none"/>
 </symbol>

 <symbol id="gog-P4" viewBox="0 0 100 100">
  ${tile("gog-teal")}
  <path d="M50 18 C56 6 72 8 80 14" stroke="url(#gog-gold)" stroke-width="3" fill="none" stroke-dasharray="4 2"/>
  <rect x="45" y="14" width="10" height="8" rx="2" fill="url(#gog-gold)" stroke="#5a3a05" stroke-width="1"/>
  <circle cx="50" cy="54" r="32" fill="url(#gog-gold)" stroke="#5a3a05" stroke-width="1.6"/>
  <circle cx="50" cy="54" r="25" fill="#fbf5e6" stroke="#8f5a0c" stroke-width="1.4"/>
  <g stroke="#2a1a08" stroke-width="2.2" stroke-linecap="round">
   <path d="M50 32 V36 M50 72 V76 M28 54 H32 M68 54 H72"/>
  </g>
  <g fill="#2a1a08" font-family="${SERIF}" font-size="7" text-anchor="middle"><text x="50" y="43">XII</text></g>
  <path d="M50 54 L50 38 M50 54 L62 60" stroke="#1a0a0a" stroke-width="2.6" stroke-linecap="round"/>
  <circle cx="50" cy="54" r="2.6" fill="#c0143c"/>
  <path d="M34 40 Q40 33 48 32" stroke="#fff" stroke-opacity=".8" stroke-width="2" fill="none"/>
 </symbol>

 <symbol id="gog-A" viewBox="0 0 100 100">${letter("A", "gog-gA")}</symbol>
 <symbol id="gog-K" viewBox="0 0 100 100">${letter("K", "gog-gK")}</symbol>
 <symbol id="gog-Q" viewBox="0 0 100 100">${letter("Q", "gog-gQ")}</symbol>
 <symbol id="gog-J" viewBox="0 0 100 100">${letter("J", "gog-gJ")}</symbol>
 <symbol id="gog-T" viewBox="0 0 100 100">${letter("10", "gog-gT", 52, -2)}</symbol>

 <symbol id="gog-GB" viewBox="0 0 100 100">
  <rect x="4" y="4" width="92" height="92" rx="16" fill="url(#gog-starburst)"/>
  <g fill="#fff6c2" opacity=".35">
   <path d="M50 50 L44 4 H56Z"/><path d="M50 50 L96 44 V56Z"/><path d="M50 50 L4 44 V56Z"/><path d="M50 50 L84 8 L92 16Z"/><path d="M50 50 L16 8 L8 16Z"/>
  </g>
  <rect x="4" y="4" width="92" height="92" rx="16" fill="none" stroke="#fff3b0" stroke-width="3"/>
  <ellipse cx="50" cy="34" rx="26" ry="5" fill="#17121e"/>
  <path d="M32 33 L34 8 Q50 3 66 8 L68 33Z" fill="#17121e" stroke="#3a2a4a" stroke-width="1.2"/>
  <path d="M33.5 26 Q50 30 66.5 26 L67 32 Q50 36 33 32Z" fill="#c0143c"/>
  <ellipse cx="50" cy="50" rx="17" ry="16" fill="url(#gog-skin)"/>
  <path d="M33 44 Q35 36 40 38 M67 44 Q65 36 60 38" stroke="#2a1208" stroke-width="3" fill="none" stroke-linecap="round"/>
  <circle cx="43" cy="46" r="2.2" fill="#1a0a0a"/><circle cx="57" cy="46" r="2.2" fill="#1a0a0a"/>
  <path d="M39 42 q4 -3 8 0 M53 42 q4 -3 8 0" stroke="#2a1208" stroke-width="2" fill="none" stroke-linecap="round"/>
  <path d="M50 47 q-3 6 0 8" stroke="#b5684a" stroke-width="1.6" fill="none"/>
  <path d="M50 57 C44 53 36 56 30 52 C32 60 42 62 50 59 C58 62 68 60 70 52 C64 56 56 53 50 57Z" fill="#2a1208"/>
  <path d="M46 62 Q50 72 54 62Z" fill="#2a1208"/>
  <path d="M36 70 L50 74 L64 70 L64 80 L50 76 L36 80Z" fill="#c0143c" stroke="#5a0418" stroke-width="1"/>
  <circle cx="50" cy="75" r="2.6" fill="#fff3b0"/>
  ${wildRibbon("#8a1030")}
 </symbol>

 <symbol id="gog-GG" viewBox="0 0 100 100">
  <rect x="4" y="4" width="92" height="92" rx="16" fill="url(#gog-spookbg)"/>
  <circle cx="50" cy="46" r="40" fill="url(#gog-ghostglow)"/>
  <rect x="4" y="4" width="92" height="92" rx="16" fill="none" stroke="#c8fff0" stroke-width="3"/>
  <g transform="translate(0 6)">
   <path d="M50 20 C32 20 24 34 24 52 L24 80 L31 74 L37 81 L43 74 L50 81 L57 74 L63 81 L69 74 L76 80 L76 52 C76 34 68 20 50 20Z"
     fill="#eafff8" fill-opacity=".9" stroke="#8ff5d4" stroke-width="2"/>
   <ellipse cx="41" cy="48" rx="5" ry="7" fill="#143a36"/><ellipse cx="59" cy="48" rx="5" ry="7" fill="#143a36"/>
   <circle cx="42.5" cy="45.5" r="1.6" fill="#fff"/><circle cx="60.5" cy="45.5" r="1.6" fill="#fff"/>
   <path d="M50 56 C45 53 39 55 35 52 C37 58 44 60 50 58 C56 60 63 58 65 52 C61 55 55 53 50 56Z" fill="#7aa8a0"/>
   <ellipse cx="50" cy="64" rx="4" ry="5" fill="#143a36"/>
  </g>
  <ellipse cx="50" cy="28" rx="20" ry="4" fill="#17121e" opacity=".85"/>
  <path d="M36 27 L38 6 Q50 2 62 6 L64 27Z" fill="#17121e" opacity=".85" stroke="#8ff5d4" stroke-width="1"/>
  <path d="M37 21 Q50 24 63 21 L63.5 26 Q50 29 36.5 26Z" fill="#2fb890"/>
  ${wildRibbon("#0e6a55")}
 </symbol>

 <symbol id="gog-BL" viewBox="0 0 100 100">
  <g fill="none" stroke="#c9c2d8" stroke-opacity=".55" stroke-width="1.3">
   <path d="M50 50 L50 6 M50 50 L88 22 M50 50 L94 60 M50 50 L66 94 M50 50 L26 92 M50 50 L6 58 M50 50 L14 16"/>
   <path d="M50 40 L58 44 L60 52 L54 59 L46 58 L41 52 L43 44Z"/>
   <path d="M50 30 L66 37 L70 53 L59 68 L43 67 L32 54 L36 37Z"/>
   <path d="M50 19 L74 30 L81 55 L63 78 L38 77 L21 56 L28 28Z"/>
   <path d="M50 9 L83 24 L91 58 L66 90 L30 88 L9 57 L17 18Z" stroke-opacity=".35"/>
  </g>
  <g transform="translate(70 70)">
   <path d="M0 -30 V-6" stroke="#c9c2d8" stroke-opacity=".6" stroke-width=".8"/>
   <ellipse cx="0" cy="0" rx="4.5" ry="5.5" fill="#1a1420"/><circle cx="0" cy="-6" r="3" fill="#1a1420"/>
   <path d="M-4 -2 l-6 -4 M-4 1 l-7 0 M-4 4 l-6 4 M4 -2 l6 -4 M4 1 l7 0 M4 4 l6 4" stroke="#1a1420" stroke-width="1.3"/>
   <circle cx="-1" cy="-6.5" r=".8" fill="#ff5470"/><circle cx="1.4" cy="-6.5" r=".8" fill="#ff5470"/>
  </g>
 </symbol>

 <symbol id="gog-coin" viewBox="0 0 100 100">
  <circle cx="50" cy="54" r="44" fill="url(#gog-halo)"/>
  <circle cx="50" cy="56" r="37" fill="#6a3e04"/>
  <circle cx="50" cy="53" r="37" fill="url(#gog-coinfill)" stroke="#7a4a05" stroke-width="2"/>
  <circle cx="50" cy="53" r="29" fill="url(#gog-coin-in)" stroke="#b07a10" stroke-width="1.6" stroke-dasharray="3 2.4"/>
  <path d="M28 40 Q36 26 52 24" stroke="#fff" stroke-opacity=".8" stroke-width="3" fill="none" stroke-linecap="round"/>
  ${padlock(50, 15, 0.9)}
 </symbol>

 <symbol id="gog-ghostcoin" viewBox="0 0 100 100">
  <circle cx="50" cy="50" r="48" fill="url(#gog-ghostglow)"/>
  <circle cx="50" cy="52" r="38" fill="#1f6a5a"/>
  <circle cx="50" cy="50" r="38" fill="url(#gog-coinfill)" stroke="#8ff5d4" stroke-width="3"/>
  <circle cx="50" cy="50" r="30" fill="url(#gog-coin-in)" stroke="#b07a10" stroke-width="1.4"/>
  <path d="M30 38 Q38 24 54 22" stroke="#fff" stroke-opacity=".8" stroke-width="3" fill="none" stroke-linecap="round"/>
 </symbol>

${jackpot("MINI", "MINI", "gog-mini", "#b8ffe0", 19)}
${jackpot("MINOR", "MINOR", "gog-minor", "#cfe6ff", 16)}
${jackpot("MAJOR", "MAJOR", "gog-major", "#ffd0e4", 16)}
${jackpot("GRAND", "GRAND", "gog-grand", "#fff3b0", 16)}

 <symbol id="gog-ghost-white" viewBox="0 0 100 100">
  <circle cx="50" cy="50" r="48" fill="url(#gog-ghostglow)"/>
  ${ghostBody("#f4fffb", "#9ff5d4")}
 </symbol>
 <symbol id="gog-ghost-gold" viewBox="0 0 100 100">
  <circle cx="50" cy="50" r="48" fill="url(#gog-halo)"/>
  ${ghostBody("url(#gog-gold)", "#fff3b0", "#4a2a00")}
 </symbol>

 <symbol id="gog-piggy" viewBox="0 0 120 100">
  <ellipse cx="60" cy="92" rx="40" ry="5" fill="#000" opacity=".35"/>
  <path d="M30 74 L28 90 L38 90 L40 78Z M80 78 L82 90 L92 90 L90 74Z" fill="#d9679a" stroke="#8a2a52" stroke-width="1.5"/>
  <path d="M98 52 q12 -6 8 -16 q-4 -6 -8 0" fill="none" stroke="#d9679a" stroke-width="3" stroke-linecap="round"/>
  <ellipse cx="60" cy="56" rx="42" ry="32" fill="url(#gog-pig)" stroke="#a8406c" stroke-width="2"/>
  <path d="M36 28 L30 10 L48 24Z M72 24 L84 10 L84 30Z" fill="#ff9ec2" stroke="#a8406c" stroke-width="1.6" stroke-linejoin="round"/>
  <rect x="48" y="24" width="20" height="4.5" rx="2.2" fill="#5a1a34"/>
  <ellipse cx="22" cy="60" rx="10" ry="9" fill="#ffb0cc" stroke="#a8406c" stroke-width="1.6"/>
  <ellipse cx="19" cy="60" rx="1.8" ry="3" fill="#8a2a52"/><ellipse cx="25" cy="60" rx="1.8" ry="3" fill="#8a2a52"/>
  <circle cx="36" cy="46" r="3.4" fill="#2a0a18"/><circle cx="37.2" cy="44.8" r="1.1" fill="#fff"/>
  <path d="M44 66 Q60 74 76 66" stroke="#fff" stroke-opacity=".35" stroke-width="2" fill="none"/>
  <path d="M50 36 Q64 30 82 40" stroke="#fff" stroke-opacity=".5" stroke-width="3" fill="none" stroke-linecap="round"/>
 </symbol>
</svg>`;

/** The lobby tile's picture (the logo and the two wilds around a padlocked coin). */
export const TILE_ART = `
<svg viewBox="0 0 320 180" class="gog-tile__svg" aria-hidden="true">
 <defs>
  <radialGradient id="gog-tile-bg" cx=".5" cy=".35" r=".8"><stop offset="0" stop-color="#2f6a6a"/><stop offset=".6" stop-color="#1a1640"/><stop offset="1" stop-color="#0a0618"/></radialGradient>
 </defs>
 <rect width="320" height="180" fill="url(#gog-tile-bg)"/>
 <circle cx="262" cy="34" r="20" fill="#fff6d0" opacity=".85"/><circle cx="270" cy="28" r="18" fill="#1a1640" opacity=".55"/>
 <path d="M0 150 L40 120 L60 132 L90 100 L120 128 L160 96 L200 130 L240 104 L280 126 L320 110 V180 H0Z" fill="#0a0618" opacity=".8"/>
 <use href="#gog-GB" x="36" y="34" width="92" height="92"/>
 <use href="#gog-GG" x="192" y="34" width="92" height="92"/>
 <use href="#gog-coin" x="124" y="44" width="72" height="72"/>
</svg>`;
