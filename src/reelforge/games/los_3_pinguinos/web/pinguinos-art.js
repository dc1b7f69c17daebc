// Los 3 Pinguinos art: one inline SVG sprite (gradients + <symbol>s), drawn here, no image
// files.  Reel symbols have a 100x100 viewBox and are shown with <use href="#l3p-XX"> on the
// reels' cream paper; the penguins of the Disco and the lobby tile are drawn from the same
// pieces.  The sprite is built when first drawn (sprite()): its symbols' words are translated.

import { t } from "../../i18n.js";

const SANS = "system-ui, 'DejaVu Sans', 'Liberation Sans', sans-serif";

const shine = (cx, cy, rx, ry, rot = -30) =>
  `<ellipse cx="${cx}" cy="${cy}" rx="${rx}" ry="${ry}" transform="rotate(${rot} ${cx} ${cy})" fill="#fff" opacity=".55"/>`;

/** A penguin standing in a 100x100 box; `extra` is drawn on top (sunglasses, a bow tie). */
const penguin = (extra = "") => `
  <ellipse cx="50" cy="93" rx="26" ry="4.5" fill="#000" opacity=".25"/>
  <path d="M50 8 C30 8 22 26 22 44 C22 62 18 74 22 84 C28 92 72 92 78 84 C82 74 78 62 78 44 C78 26 70 8 50 8Z"
    fill="url(#l3p-pbody)" stroke="#050a18" stroke-width="2.2"/>
  <path d="M50 30 C36 30 32 44 32 56 C32 72 36 86 50 86 C64 86 68 72 68 56 C68 44 64 30 50 30Z" fill="url(#l3p-belly)"/>
  <path d="M22 48 C12 56 10 66 14 72 C18 66 22 62 26 60Z" fill="#0d1a36" stroke="#050a18" stroke-width="1.5"/>
  <path d="M78 48 C88 56 90 66 86 72 C82 66 78 62 74 60Z" fill="#0d1a36" stroke="#050a18" stroke-width="1.5"/>
  <ellipse cx="41" cy="26" rx="6.5" ry="7.5" fill="#fff"/><ellipse cx="59" cy="26" rx="6.5" ry="7.5" fill="#fff"/>
  <circle cx="42.5" cy="27" r="3.4" fill="#0a0a14"/><circle cx="57.5" cy="27" r="3.4" fill="#0a0a14"/>
  <circle cx="43.6" cy="25.6" r="1.2" fill="#fff"/><circle cx="58.6" cy="25.6" r="1.2" fill="#fff"/>
  <path d="M43 35 L57 35 L50 44Z" fill="url(#l3p-beak)" stroke="#8a3a00" stroke-width="1.2" stroke-linejoin="round"/>
  <ellipse cx="31" cy="36" rx="4" ry="2.6" fill="#ff8fa8" opacity=".7"/><ellipse cx="69" cy="36" rx="4" ry="2.6" fill="#ff8fa8" opacity=".7"/>
  <path d="M34 88 C30 92 40 94 46 91Z M66 88 C70 92 60 94 54 91Z" fill="#ff9a1a" stroke="#8a3a00" stroke-width="1.2"/>
  <path d="M32 16 C36 11 42 10 46 11" stroke="#fff" stroke-opacity=".45" stroke-width="2.5" fill="none" stroke-linecap="round"/>
  ${extra}`;

const BOWTIE = `<path d="M40 47 L49 51 L40 55Z M60 47 L51 51 L60 55Z" fill="#e0113a" stroke="#5a0010" stroke-width="1"/><circle cx="50" cy="51" r="2.4" fill="#ff4060"/>`;
const SHADES = `<path d="M32 22 H68 V27 C68 33 60 34 57 30 L53 26 H47 L43 30 C40 34 32 33 32 27Z" fill="#120a2a" stroke="#ff4fd8" stroke-width="1.2"/>
  <path d="M35 24 L40 24" stroke="#fff" stroke-width="1.4" opacity=".8"/>`;
const SCARF = `<path d="M30 42 C40 48 60 48 70 42 L71 48 C60 54 40 54 29 48Z" fill="#e0113a" stroke="#5a0010" stroke-width="1"/>
  <path d="M62 48 L66 62 L58 60Z" fill="#e0113a" stroke="#5a0010" stroke-width="1"/>`;


// -- the upper game: its sevens in three colours, the minigame symbols, the accumulator piece
// and the vertical-lines symbol, and the pieces of the minigames (fishing penguin, fish, cross,
// bucket, slider).

const SEVEN = (grad) => `
  <path d="M18 14 H84 V28 C70 42 58 62 52 90 H30 C36 64 48 44 62 30 H18Z" fill="url(#${grad})" stroke="#1a0610" stroke-width="3" stroke-linejoin="round"/>
  <path d="M22 18 H80 V22 H22Z" fill="#fff" opacity=".5"/>
  <path d="M60 34 C52 46 46 60 42 80" stroke="#fff" stroke-opacity=".35" stroke-width="3" fill="none" stroke-linecap="round"/>`;

const HAT = `<path d="M30 16 C34 4 66 4 70 16 Z" fill="#c0142c" stroke="#5a0010" stroke-width="1.4"/>
  <rect x="27" y="14" width="46" height="5" rx="2.5" fill="#fff"/><circle cx="50" cy="3.5" r="3.5" fill="#fff"/>`;

const UPPER_SYMBOLS = `
 <defs>
  <linearGradient id="l3p-seven-b" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="#8ac8ff"/><stop offset=".5" stop-color="#1460e0"/><stop offset="1" stop-color="#06205a"/></linearGradient>
  <linearGradient id="l3p-seven-g" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="#a8ffa8"/><stop offset=".5" stop-color="#18b030"/><stop offset="1" stop-color="#05500e"/></linearGradient>
  <linearGradient id="l3p-ice" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="#f4fdff"/><stop offset=".5" stop-color="#9fe4ff"/><stop offset="1" stop-color="#3a9ad8"/></linearGradient>
  <linearGradient id="l3p-ice-side" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="#7fd0f8"/><stop offset="1" stop-color="#1c6aa8"/></linearGradient>
  <linearGradient id="l3p-drink" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="#ffb0e8"/><stop offset="1" stop-color="#e0208a"/></linearGradient>
  <radialGradient id="l3p-disc" cx=".5" cy=".5" r=".5"><stop offset="0" stop-color="#ff4fd8"/><stop offset=".28" stop-color="#ff4fd8"/><stop offset=".3" stop-color="#1a1a2a"/><stop offset=".7" stop-color="#2a2a44"/><stop offset="1" stop-color="#0a0a14"/></radialGradient>
  <linearGradient id="l3p-piece" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="#fff3b0"/><stop offset=".5" stop-color="#ffb81a"/><stop offset="1" stop-color="#b06a00"/></linearGradient>
  <linearGradient id="l3p-water" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="#5ac8ff"/><stop offset="1" stop-color="#0a3a8a"/></linearGradient>
 </defs>

 <symbol id="l3p-R7" viewBox="0 0 100 100">${SEVEN("l3p-seven")}</symbol>
 <symbol id="l3p-B7" viewBox="0 0 100 100">${SEVEN("l3p-seven-b")}</symbol>
 <symbol id="l3p-G7" viewBox="0 0 100 100">${SEVEN("l3p-seven-g")}</symbol>

 <symbol id="l3p-IC" viewBox="0 0 100 100">
  <path d="M50 10 L88 28 L50 46 L12 28Z" fill="url(#l3p-ice)" stroke="#0c4a80" stroke-width="2.4" stroke-linejoin="round"/>
  <path d="M12 28 L50 46 V90 L12 72Z" fill="url(#l3p-ice-side)" stroke="#0c4a80" stroke-width="2.4" stroke-linejoin="round"/>
  <path d="M88 28 L50 46 V90 L88 72Z" fill="#2a88c8" stroke="#0c4a80" stroke-width="2.4" stroke-linejoin="round"/>
  <path d="M22 34 L22 62 M30 38 L30 52" stroke="#fff" stroke-opacity=".75" stroke-width="3" stroke-linecap="round"/>
  <path d="M40 22 L58 22" stroke="#fff" stroke-width="3" stroke-linecap="round" opacity=".9"/>
  <circle cx="70" cy="52" r="2.2" fill="#fff" opacity=".8"/><circle cx="64" cy="66" r="1.6" fill="#fff" opacity=".7"/>
 </symbol>

 <symbol id="l3p-CO" viewBox="0 0 100 100">
  <path d="M14 22 H86 L54 56 H46Z" fill="url(#l3p-drink)" stroke="#5a0a3a" stroke-width="2.4" stroke-linejoin="round"/>
  <path d="M20 26 H80" stroke="#fff" stroke-opacity=".7" stroke-width="2.5"/>
  <path d="M50 56 V84 M34 90 C38 84 62 84 66 90Z" stroke="#5a0a3a" stroke-width="3" fill="#d8f4ff"/>
  <path d="M62 30 L80 6" stroke="#30d0ff" stroke-width="3.5" stroke-linecap="round"/>
  <path d="M26 22 C26 8 50 4 56 16 Z" fill="#ffe640" stroke="#8a6a00" stroke-width="1.6"/>
  <path d="M41 8 V22" stroke="#8a6a00" stroke-width="1.4"/>
  <circle cx="70" cy="22" r="7" fill="#3ad06a" stroke="#0a5a20" stroke-width="1.6"/>
 </symbol>

 <symbol id="l3p-TD" viewBox="0 0 100 100">
  <circle cx="50" cy="50" r="40" fill="url(#l3p-disc)" stroke="#ff4fd8" stroke-width="2.6"/>
  <circle cx="50" cy="50" r="31" fill="none" stroke="#555a80" stroke-width="1"/><circle cx="50" cy="50" r="24" fill="none" stroke="#555a80" stroke-width="1"/>
  <circle cx="50" cy="50" r="4" fill="#0a0a14"/>
  <path d="M26 30 C32 22 42 18 50 18" stroke="#fff" stroke-opacity=".55" stroke-width="3" fill="none" stroke-linecap="round"/>
  <path d="M66 96 L66 70 C66 64 74 64 74 70 L74 60 C74 55 81 55 81 60 L81 64 C81 60 88 60 88 65 L88 84 C88 92 82 96 76 96Z" fill="#ffd8b8" stroke="#6a3a1a" stroke-width="1.8"/>
  <path d="M66 70 L66 52 C66 46 58 46 58 52 L58 78" fill="#ffd8b8" stroke="#6a3a1a" stroke-width="1.8"/>
 </symbol>

 <symbol id="l3p-AC" viewBox="0 0 100 100">
  <path d="M16 26 H38 C34 14 54 10 54 24 C54 26 53 26 52 26 H78 V46 C66 42 62 62 78 58 V82 H54 C58 94 38 96 40 82 H16 V58 C28 62 28 42 16 46Z"
    fill="url(#l3p-piece)" stroke="#6a3a00" stroke-width="2.6" stroke-linejoin="round"/>
  <g transform="translate(26 32) scale(.42)">${penguin("")}</g>
  <path d="M22 30 H34" stroke="#fff" stroke-width="2.5" stroke-opacity=".7" stroke-linecap="round"/>
 </symbol>

 <symbol id="l3p-VL" viewBox="0 0 100 100">
  <rect x="12" y="8" width="76" height="84" rx="12" fill="#0a3a8a" stroke="#8fd8ff" stroke-width="3"/>
  <path d="M32 22 V78 M50 22 V78 M68 22 V78" stroke="#fff" stroke-width="7" stroke-linecap="round"/>
  <path d="M24 30 L32 20 L40 30 M42 70 L50 80 L58 70 M60 30 L68 20 L76 30" stroke="#5ac8ff" stroke-width="3.5" fill="none" stroke-linecap="round" stroke-linejoin="round"/>
 </symbol>

 <symbol id="l3p-fisher" viewBox="0 0 100 100">
  <g transform="translate(0 10) scale(.9)">${penguin(HAT)}</g>
  <path d="M72 66 L98 8" stroke="#6a3a10" stroke-width="3.2" stroke-linecap="round"/>
  <path d="M98 8 L98 70" stroke="#e8f4ff" stroke-width="1" stroke-dasharray="2 2"/>
  <circle cx="78" cy="60" r="4" fill="#333" stroke="#aaa" stroke-width="1"/>
 </symbol>

 <symbol id="l3p-fish" viewBox="0 0 100 60">
  <path d="M8 30 C24 6 62 4 78 30 C62 56 24 54 8 30Z" fill="#ffb020" stroke="#7a4000" stroke-width="3"/>
  <path d="M76 30 L96 12 L92 30 L96 48Z" fill="#ff8a10" stroke="#7a4000" stroke-width="3" stroke-linejoin="round"/>
  <circle cx="24" cy="26" r="4" fill="#fff"/><circle cx="23" cy="26" r="2" fill="#000"/>
  <path d="M40 18 C46 26 46 34 40 42 M52 16 C58 26 58 34 52 44" stroke="#7a4000" stroke-width="2" fill="none" opacity=".6"/>
 </symbol>

 <symbol id="l3p-cross" viewBox="0 0 100 100">
  <path d="M20 20 L80 80 M80 20 L20 80" stroke="#ff2a3a" stroke-width="16" stroke-linecap="round"/>
  <path d="M20 20 L80 80 M80 20 L20 80" stroke="#ffb0b8" stroke-width="4" stroke-linecap="round"/>
 </symbol>

 <symbol id="l3p-bucket" viewBox="0 0 100 100">
  <path d="M12 30 H88 L78 92 H22Z" fill="url(#l3p-water)" stroke="#e8f4ff" stroke-width="3" stroke-linejoin="round"/>
  <ellipse cx="50" cy="30" rx="38" ry="8" fill="#5ac8ff" stroke="#e8f4ff" stroke-width="3"/>
  <path d="M30 30 C34 26 42 26 46 30 M56 32 C60 28 68 28 72 32" stroke="#fff" stroke-width="2" fill="none" opacity=".7"/>
  <path d="M12 30 C12 4 88 4 88 30" stroke="#c0c8e0" stroke-width="3" fill="none"/>
 </symbol>

 <symbol id="l3p-slider" viewBox="0 0 100 100">${penguin(SCARF + BOWTIE)}</symbol>
`;

export const sprite = () => `
<svg xmlns="http://www.w3.org/2000/svg" class="sprite" aria-hidden="true" width="0" height="0">
 <defs>
  <radialGradient id="l3p-cherry" cx=".35" cy=".3" r=".8"><stop offset="0" stop-color="#ff8a8a"/><stop offset=".45" stop-color="#e0102a"/><stop offset="1" stop-color="#6a0010"/></radialGradient>
  <radialGradient id="l3p-lemon" cx=".4" cy=".3" r=".8"><stop offset="0" stop-color="#fffbd0"/><stop offset=".5" stop-color="#ffe22a"/><stop offset="1" stop-color="#c99a00"/></radialGradient>
  <radialGradient id="l3p-orange" cx=".38" cy=".32" r=".8"><stop offset="0" stop-color="#ffd9a0"/><stop offset=".5" stop-color="#ff8a10"/><stop offset="1" stop-color="#a84400"/></radialGradient>
  <radialGradient id="l3p-plum" cx=".36" cy=".3" r=".8"><stop offset="0" stop-color="#e4b0ff"/><stop offset=".5" stop-color="#8a2fd0"/><stop offset="1" stop-color="#3a0a66"/></radialGradient>
  <linearGradient id="l3p-gold" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="#fff6b0"/><stop offset=".45" stop-color="#f5c21a"/><stop offset="1" stop-color="#9a6400"/></linearGradient>
  <radialGradient id="l3p-melon" cx=".38" cy=".3" r=".8"><stop offset="0" stop-color="#d8ffb0"/><stop offset=".5" stop-color="#4cc22a"/><stop offset="1" stop-color="#145a08"/></radialGradient>
  <linearGradient id="l3p-seven" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="#ff7a7a"/><stop offset=".5" stop-color="#e8001c"/><stop offset="1" stop-color="#7a0010"/></linearGradient>
  <linearGradient id="l3p-pbody" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="#2a3f7a"/><stop offset="1" stop-color="#0a1430"/></linearGradient>
  <linearGradient id="l3p-belly" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="#ffffff"/><stop offset="1" stop-color="#cfe6f5"/></linearGradient>
  <linearGradient id="l3p-beak" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="#ffd060"/><stop offset="1" stop-color="#ff8a00"/></linearGradient>
  <linearGradient id="l3p-box" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="#3a2a5a"/><stop offset="1" stop-color="#120a24"/></linearGradient>
  <radialGradient id="l3p-cone" cx=".5" cy=".5" r=".5"><stop offset="0" stop-color="#ff9af0"/><stop offset=".35" stop-color="#2a1a40"/><stop offset=".75" stop-color="#0a0614"/><stop offset="1" stop-color="#b0a0d0"/></radialGradient>
  <linearGradient id="l3p-ticket" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="#7dffb0"/><stop offset=".5" stop-color="#12b85a"/><stop offset="1" stop-color="#05662e"/></linearGradient>
  <linearGradient id="l3p-rainbow" x1="0" y1="0" x2="1" y2="1">
   <stop offset="0" stop-color="#ff3a5a"/><stop offset=".25" stop-color="#ffb020"/><stop offset=".5" stop-color="#ffe640"/><stop offset=".75" stop-color="#30d0ff"/><stop offset="1" stop-color="#a040ff"/>
  </linearGradient>
 </defs>

 <symbol id="l3p-CH" viewBox="0 0 100 100">
  <path d="M52 14 C46 30 36 44 30 56" stroke="#2e6a12" stroke-width="4.5" fill="none" stroke-linecap="round"/>
  <path d="M52 14 C58 30 64 44 70 54" stroke="#2e6a12" stroke-width="4.5" fill="none" stroke-linecap="round"/>
  <path d="M52 14 C62 6 78 8 86 16 C76 22 62 22 52 14Z" fill="#46b82a" stroke="#1e5a0a" stroke-width="1.8"/>
  <path d="M56 14 C66 14 74 14 82 16" stroke="#1e5a0a" stroke-width="1.2" fill="none"/>
  <circle cx="30" cy="68" r="18" fill="url(#l3p-cherry)" stroke="#4a0008" stroke-width="2.2"/>
  <circle cx="70" cy="66" r="18" fill="url(#l3p-cherry)" stroke="#4a0008" stroke-width="2.2"/>
  ${shine(24, 61, 5, 3)}${shine(64, 59, 5, 3)}
 </symbol>

 <symbol id="l3p-LE" viewBox="0 0 100 100">
  <path d="M10 54 C14 26 82 22 90 50 C88 80 18 84 10 54Z" fill="url(#l3p-lemon)" stroke="#8a6a00" stroke-width="2.4"/>
  <path d="M10 54 L4 56 L10 58Z M90 50 L96 48 L91 45Z" fill="#d4b000" stroke="#8a6a00" stroke-width="1.5"/>
  ${shine(34, 40, 12, 4.5, -15)}
  <circle cx="58" cy="62" r="1.2" fill="#b08a00"/><circle cx="66" cy="54" r="1.2" fill="#b08a00"/><circle cx="48" cy="66" r="1.2" fill="#b08a00"/>
 </symbol>

 <symbol id="l3p-OR" viewBox="0 0 100 100">
  <circle cx="50" cy="56" r="34" fill="url(#l3p-orange)" stroke="#7a3000" stroke-width="2.4"/>
  <path d="M50 22 C52 16 56 14 60 14" stroke="#3a5a10" stroke-width="3.5" fill="none" stroke-linecap="round"/>
  <path d="M54 20 C64 8 82 10 86 18 C76 26 62 26 54 20Z" fill="#46b82a" stroke="#1e5a0a" stroke-width="1.8"/>
  ${shine(36, 42, 10, 5)}
  <circle cx="60" cy="66" r="1.4" fill="#c05a00"/><circle cx="68" cy="56" r="1.4" fill="#c05a00"/><circle cx="52" cy="74" r="1.4" fill="#c05a00"/><circle cx="40" cy="64" r="1.4" fill="#c05a00"/>
 </symbol>

 <symbol id="l3p-PL" viewBox="0 0 100 100">
  <path d="M50 20 C74 20 82 44 80 62 C78 82 62 92 50 92 C36 92 20 82 20 60 C20 40 30 20 50 20Z" fill="url(#l3p-plum)" stroke="#2a0646" stroke-width="2.4"/>
  <path d="M50 22 C44 40 44 70 50 90" stroke="#4a1080" stroke-width="2" fill="none" opacity=".7"/>
  <path d="M50 22 C50 14 54 10 58 8" stroke="#4a3010" stroke-width="3.5" fill="none" stroke-linecap="round"/>
  <path d="M54 14 C60 4 74 6 78 12 C70 18 60 18 54 14Z" fill="#46b82a" stroke="#1e5a0a" stroke-width="1.6"/>
  ${shine(36, 40, 8, 5)}
 </symbol>

 <symbol id="l3p-BE" viewBox="0 0 100 100">
  <circle cx="50" cy="12" r="5" fill="url(#l3p-gold)" stroke="#6a4200" stroke-width="1.6"/>
  <path d="M50 16 C32 16 26 30 26 46 L26 62 C26 68 20 72 14 76 L86 76 C80 72 74 68 74 62 L74 46 C74 30 68 16 50 16Z"
    fill="url(#l3p-gold)" stroke="#6a4200" stroke-width="2.4" stroke-linejoin="round"/>
  <rect x="12" y="74" width="76" height="8" rx="4" fill="#e0a800" stroke="#6a4200" stroke-width="2"/>
  <circle cx="50" cy="88" r="7" fill="url(#l3p-gold)" stroke="#6a4200" stroke-width="2"/>
  <path d="M36 28 C32 38 32 52 33 62" stroke="#fff" stroke-opacity=".7" stroke-width="4" fill="none" stroke-linecap="round"/>
 </symbol>

 <symbol id="l3p-ME" viewBox="0 0 100 100">
  <ellipse cx="50" cy="54" rx="40" ry="34" fill="url(#l3p-melon)" stroke="#0e3a06" stroke-width="2.4"/>
  <path d="M50 20 C36 34 36 74 50 88 M50 20 C64 34 64 74 50 88 M50 20 C22 30 20 78 50 88 M50 20 C78 30 80 78 50 88"
    stroke="#1a6a0c" stroke-width="3" fill="none" opacity=".75"/>
  <path d="M50 20 C52 14 56 12 60 12" stroke="#4a3010" stroke-width="3.5" fill="none" stroke-linecap="round"/>
  ${shine(32, 40, 10, 5)}
 </symbol>

 <symbol id="l3p-SE" viewBox="0 0 100 100">
  <path d="M18 14 H84 V28 C70 42 58 62 52 90 H30 C36 64 48 44 62 30 H18Z" fill="url(#l3p-seven)" stroke="#3a0008" stroke-width="3" stroke-linejoin="round"/>
  <path d="M22 18 H80 V22 H22Z" fill="#fff" opacity=".45"/>
  <path d="M26 20 L30 16" stroke="#fff" stroke-width="1"/>
 </symbol>

 <symbol id="l3p-PE" viewBox="0 0 100 100">${penguin(SCARF)}</symbol>
 <symbol id="l3p-dancer" viewBox="0 0 100 100">${penguin(BOWTIE + SHADES)}</symbol>
 <symbol id="l3p-penguin" viewBox="0 0 100 100">${penguin(BOWTIE)}</symbol>

 <symbol id="l3p-SP" viewBox="0 0 100 100">
  <rect x="22" y="8" width="56" height="86" rx="8" fill="url(#l3p-box)" stroke="#ff4fd8" stroke-width="2.6"/>
  <circle cx="50" cy="28" r="11" fill="url(#l3p-cone)" stroke="#d0c0ff" stroke-width="1.8"/>
  <circle cx="50" cy="64" r="20" fill="url(#l3p-cone)" stroke="#d0c0ff" stroke-width="2.2"/>
  <circle cx="50" cy="64" r="6" fill="#ff4fd8" opacity=".9"/>
  <path d="M82 20 V36 M82 20 L92 18 V32" stroke="#30d0ff" stroke-width="3" fill="none"/>
  <circle cx="79" cy="37" r="4" fill="#30d0ff"/><circle cx="89" cy="33" r="4" fill="#30d0ff"/>
  <path d="M10 46 V60" stroke="#ffe640" stroke-width="3"/><circle cx="7" cy="61" r="4" fill="#ffe640"/>
 </symbol>

 <symbol id="l3p-BO" viewBox="0 0 100 100">
  <path d="M4 20 H96 V40 C89 40 89 60 96 60 V80 H4 V60 C11 60 11 40 4 40Z" fill="url(#l3p-ticket)" stroke="#033a1a" stroke-width="3" stroke-linejoin="round"/>
  <path d="M12 27 H88 V73 H12Z" fill="none" stroke="#e8fff0" stroke-width="1.6" stroke-dasharray="5 3" opacity=".8"/>
  <text x="50" y="59" text-anchor="middle" font-family="${SANS}" font-weight="900" font-size="25" fill="#fff"
    stroke="#033a1a" stroke-width="3.5" paint-order="stroke" letter-spacing=".5">${t("BONUS")}</text>
 </symbol>

 <symbol id="l3p-WI" viewBox="0 0 100 100">
  <path d="M50 4 L62 34 L95 36 L69 56 L78 90 L50 71 L22 90 L31 56 L5 36 L38 34Z" fill="url(#l3p-rainbow)" stroke="#2a0a40" stroke-width="2.6" stroke-linejoin="round"/>
  <path d="M50 16 L58 38 L80 40" stroke="#fff" stroke-opacity=".6" stroke-width="2" fill="none"/>
  <rect x="14" y="44" width="72" height="20" rx="6" fill="#2a0a40" stroke="#fff" stroke-width="1.6"/>
  <text x="50" y="60" text-anchor="middle" font-family="${SANS}" font-weight="900" font-size="16" fill="#fff" letter-spacing="2">WILD</text>
 </symbol>

 <symbol id="l3p-vl" viewBox="0 0 24 24">
  <rect x="1" y="1" width="22" height="22" rx="5" fill="#0a3a8a" stroke="#8fd8ff" stroke-width="1.6"/>
  <path d="M7 5 V19 M12 5 V19 M17 5 V19" stroke="#fff" stroke-width="2.6" stroke-linecap="round"/>
 </symbol>
${UPPER_SYMBOLS}
</svg>`;

/** The lobby tile: three penguins on the ice under the disco ball. */
export const TILE_ART = `
<svg viewBox="0 0 320 180" class="l3p-tile__svg" aria-hidden="true">
 <defs>
  <radialGradient id="l3p-tile-bg" cx=".5" cy=".15" r=".9"><stop offset="0" stop-color="#3a6ad0"/><stop offset=".55" stop-color="#142a66"/><stop offset="1" stop-color="#060c24"/></radialGradient>
  <radialGradient id="l3p-tile-ball" cx=".4" cy=".35" r=".7"><stop offset="0" stop-color="#fff"/><stop offset=".5" stop-color="#b8c8e8"/><stop offset="1" stop-color="#4a5a80"/></radialGradient>
  <linearGradient id="l3p-tile-night" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="#060c24" stop-opacity="0"/><stop offset=".45" stop-color="#060c24" stop-opacity=".85"/><stop offset="1" stop-color="#040818"/></linearGradient>
 </defs>
 <rect width="320" height="180" fill="url(#l3p-tile-bg)"/>
 <path d="M160 0 V12" stroke="#c0c8e0" stroke-width="2"/>
 <circle cx="160" cy="24" r="12" fill="url(#l3p-tile-ball)"/>
 <path d="M149 21 H171 M149 27 H171 M154 13 V35 M160 12 V36 M166 13 V35" stroke="#6a7aa0" stroke-width=".8"/>
 <path d="M160 30 L40 150 H90Z" fill="#ff4fd8" opacity=".16"/><path d="M160 30 L280 150 H230Z" fill="#30d0ff" opacity=".16"/>
 <path d="M160 30 L140 150 H180Z" fill="#ffe640" opacity=".14"/>
 <path d="M0 104 C60 96 120 102 160 99 C210 96 270 102 320 98 V180 H0Z" fill="#dff4ff"/>
 <path d="M0 110 C80 104 240 108 320 104 V180 H0Z" fill="#a8dcf5"/>
 <use href="#l3p-penguin" x="52" y="36" width="72" height="72"/>
 <use href="#l3p-dancer" x="120" y="26" width="80" height="80"/>
 <use href="#l3p-PE" x="196" y="36" width="72" height="72"/>
 <rect y="100" width="320" height="80" fill="url(#l3p-tile-night)"/>
</svg>`;
