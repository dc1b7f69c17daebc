// Reign of Gnomes symbol art: one inline SVG sprite (gradients + <symbol>s), drawn here,
// no image files.  Each symbol has a 100x100 viewBox and is shown with <use href="#rog-XX">.

import { t } from "../../i18n.js";

const SERIF = "Georgia, 'DejaVu Serif', 'Liberation Serif', serif";

const tile = (fill) =>
  `<rect x="5" y="5" width="90" height="90" rx="18" fill="url(#${fill})"/>
   <rect x="5" y="5" width="90" height="90" rx="18" fill="none" stroke="url(#rog-gold)" stroke-width="4"/>
   <path d="M14 16 Q50 4 86 16 L86 30 Q50 18 14 30Z" fill="#fff" opacity=".12"/>`;

const letter = (ch, grad, size = 66, dy = 0) =>
  `<text x="50" y="${73 + dy}" text-anchor="middle" font-family="${SERIF}" font-weight="700"
     font-size="${size}" fill="url(#${grad})" stroke="#1d0b05" stroke-width="3.5" paint-order="stroke"
     stroke-linejoin="round">${ch}</text>
   <text x="50" y="${73 + dy}" text-anchor="middle" font-family="${SERIF}" font-weight="700"
     font-size="${size}" fill="none" stroke="#fff" stroke-opacity=".35" stroke-width="1">${ch}</text>
   <path d="M30 86 Q50 80 70 86" stroke="url(#rog-gold)" stroke-width="2.5" fill="none" stroke-linecap="round"/>
   <circle cx="50" cy="84" r="2.6" fill="url(#rog-gold)"/>`;

const face = (cx, cy) =>
  `<ellipse cx="${cx}" cy="${cy}" rx="15" ry="13" fill="url(#rog-skin)"/>
   <circle cx="${cx - 7}" cy="${cy - 3}" r="2.1" fill="#2b1a10"/><circle cx="${cx + 7}" cy="${cy - 3}" r="2.1" fill="#2b1a10"/>
   <circle cx="${cx - 6.3}" cy="${cy - 3.7}" r=".7" fill="#fff"/><circle cx="${cx + 7.7}" cy="${cy - 3.7}" r=".7" fill="#fff"/>
   <circle cx="${cx - 11}" cy="${cy + 3}" r="3.2" fill="#ff7b7b" opacity=".45"/><circle cx="${cx + 11}" cy="${cy + 3}" r="3.2" fill="#ff7b7b" opacity=".45"/>`;

/** The sprite's markup, made when it is first drawn: after the language has loaded, for the
 *  word on the wild's ribbon. */
export function sprite() {
  const wild = t("WILD");
  // A longer word than WILD is set smaller, unspaced, and fitted to the ribbon.
  const long = wild.length > 4;
  const fit = long ? ' textLength="68" lengthAdjust="spacingAndGlyphs"' : "";
  return `
<svg xmlns="http://www.w3.org/2000/svg" class="sprite" aria-hidden="true" width="0" height="0">
 <defs>
  <linearGradient id="rog-gold" x1="0" y1="0" x2="0" y2="1">
   <stop offset="0" stop-color="#fff6c2"/><stop offset=".45" stop-color="#f2c14e"/><stop offset="1" stop-color="#9a6410"/>
  </linearGradient>
  <linearGradient id="rog-silver" x1="0" y1="0" x2="0" y2="1">
   <stop offset="0" stop-color="#ffffff"/><stop offset=".5" stop-color="#b9c4d3"/><stop offset="1" stop-color="#5d6a7c"/>
  </linearGradient>
  <radialGradient id="rog-ruby" cx=".5" cy=".35" r=".75">
   <stop offset="0" stop-color="#ff7088"/><stop offset=".55" stop-color="#b3123a"/><stop offset="1" stop-color="#45041a"/>
  </radialGradient>
  <radialGradient id="rog-amethyst" cx=".5" cy=".35" r=".75">
   <stop offset="0" stop-color="#dca6ff"/><stop offset=".55" stop-color="#7a2fc0"/><stop offset="1" stop-color="#280a4c"/>
  </radialGradient>
  <radialGradient id="rog-sapphire" cx=".5" cy=".35" r=".75">
   <stop offset="0" stop-color="#8fd0ff"/><stop offset=".55" stop-color="#1f5fc4"/><stop offset="1" stop-color="#08184a"/>
  </radialGradient>
  <radialGradient id="rog-emerald" cx=".5" cy=".35" r=".75">
   <stop offset="0" stop-color="#8ff5bd"/><stop offset=".55" stop-color="#16975a"/><stop offset="1" stop-color="#043720"/>
  </radialGradient>
  <radialGradient id="rog-skin" cx=".45" cy=".4" r=".7">
   <stop offset="0" stop-color="#ffe6cf"/><stop offset="1" stop-color="#eeaa80"/>
  </radialGradient>
  <radialGradient id="rog-egg" cx=".36" cy=".3" r=".85">
   <stop offset="0" stop-color="#fff4b0"/><stop offset=".3" stop-color="#ffa236"/><stop offset=".7" stop-color="#c7341a"/><stop offset="1" stop-color="#4c0c08"/>
  </radialGradient>
  <radialGradient id="rog-glow" cx=".5" cy=".5" r=".5">
   <stop offset="0" stop-color="#ffd86b" stop-opacity=".85"/><stop offset="1" stop-color="#ff8a00" stop-opacity="0"/>
  </radialGradient>
  <radialGradient id="rog-wildbg" cx=".5" cy=".4" r=".75">
   <stop offset="0" stop-color="#fff0a8"/><stop offset=".5" stop-color="#d39418"/><stop offset="1" stop-color="#4d2600"/>
  </radialGradient>
  <radialGradient id="rog-cap" cx=".4" cy=".3" r=".8">
   <stop offset="0" stop-color="#ff8a70"/><stop offset=".6" stop-color="#d8231b"/><stop offset="1" stop-color="#6d0a06"/>
  </radialGradient>
  <linearGradient id="rog-gA" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="#ffc1a1"/><stop offset=".5" stop-color="#ff5a36"/><stop offset="1" stop-color="#9a1408"/></linearGradient>
  <linearGradient id="rog-gK" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="#bfe6ff"/><stop offset=".5" stop-color="#3b8dff"/><stop offset="1" stop-color="#0b3a8a"/></linearGradient>
  <linearGradient id="rog-gQ" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="#f3d1ff"/><stop offset=".5" stop-color="#b44cf0"/><stop offset="1" stop-color="#55127c"/></linearGradient>
  <linearGradient id="rog-gJ" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="#d4ffc9"/><stop offset=".5" stop-color="#42c94a"/><stop offset="1" stop-color="#0e5a1b"/></linearGradient>
  <linearGradient id="rog-gT" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="#fff1b8"/><stop offset=".5" stop-color="#ffb627"/><stop offset="1" stop-color="#9a5300"/></linearGradient>
  <linearGradient id="rog-gN" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="#ffd3e6"/><stop offset=".5" stop-color="#ff4f9a"/><stop offset="1" stop-color="#8a0f47"/></linearGradient>
  <linearGradient id="rog-ice" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="#f2fdff"/><stop offset=".45" stop-color="#9fe3f5"/><stop offset="1" stop-color="#2d8db5"/></linearGradient>
  <linearGradient id="rog-gdiamond" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="#ffffff"/><stop offset=".5" stop-color="#8ff0ff"/><stop offset="1" stop-color="#1aa6d8"/></linearGradient>
 </defs>

 <symbol id="rog-KG" viewBox="0 0 100 100">
  ${tile("rog-ruby")}
  <path d="M27 37 L30 13 L40 25 L50 8 L60 25 L70 13 L73 37Z" fill="url(#rog-gold)" stroke="#6b3d02" stroke-width="1.5" stroke-linejoin="round"/>
  <circle cx="50" cy="22" r="3.4" fill="#e0115f" stroke="#fff" stroke-width=".8"/>
  <circle cx="37" cy="29" r="2.4" fill="#2f8cff"/><circle cx="63" cy="29" r="2.4" fill="#2f8cff"/>
  <rect x="26" y="34" width="48" height="7" rx="2.5" fill="url(#rog-gold)" stroke="#6b3d02" stroke-width="1.2"/>
  ${face(50, 50)}
  <path d="M29 50 C29 68 38 86 50 93 C62 86 71 68 71 50 C66 59 59 61 50 61 C41 61 34 59 29 50Z" fill="#f8f5ee" stroke="#c9c0b0" stroke-width="1.3"/>
  <path d="M40 70 Q50 76 60 70 M43 79 Q50 84 57 79" stroke="#d6cdbd" stroke-width="1.4" fill="none"/>
  <path d="M50 57 C44 52 36 56 32 61 C40 62 45 62 50 59.5 C55 62 60 62 68 61 C64 56 56 52 50 57Z" fill="#fff" stroke="#c9c0b0" stroke-width="1"/>
  <ellipse cx="50" cy="54" rx="5.2" ry="4.4" fill="#f08a6c"/>
  <path d="M38 43 q5 -3.5 9 0 M53 43 q5 -3.5 9 0" stroke="#fff" stroke-width="2.4" fill="none" stroke-linecap="round"/>
 </symbol>

 <symbol id="rog-QN" viewBox="0 0 100 100">
  ${tile("rog-amethyst")}
  <path d="M28 54 C22 70 24 84 30 90 L38 88 C34 76 34 64 36 54Z" fill="#ffcf4a" stroke="#b5780c" stroke-width="1"/>
  <path d="M72 54 C78 70 76 84 70 90 L62 88 C66 76 66 64 64 54Z" fill="#ffcf4a" stroke="#b5780c" stroke-width="1"/>
  <path d="M28 42 Q44 34 55 6 Q60 30 72 42Z" fill="#ff5fa2" stroke="#8a0f47" stroke-width="1.4" stroke-linejoin="round"/>
  <path d="M55 6 Q58 22 66 34" stroke="#fff" stroke-opacity=".35" stroke-width="2" fill="none"/>
  <rect x="27" y="39" width="46" height="6" rx="3" fill="url(#rog-gold)" stroke="#6b3d02" stroke-width="1"/>
  <path d="M42 39 L46 31 L50 37 L54 31 L58 39Z" fill="url(#rog-gold)" stroke="#6b3d02" stroke-width="1"/>
  <circle cx="50" cy="41.8" r="2.2" fill="#35d0ff"/>
  <path d="M34 46 Q50 42 66 46 L66 52 Q50 48 34 52Z" fill="#ffcf4a"/>
  ${face(50, 58)}
  <path d="M44 64.5 Q50 69 56 64.5" stroke="#c01848" stroke-width="2.4" fill="none" stroke-linecap="round"/>
  <path d="M41 52 l-2 -2 M59 52 l2 -2" stroke="#2b1a10" stroke-width="1.2"/>
  <path d="M36 80 Q50 88 64 80" stroke="url(#rog-gold)" stroke-width="2.4" fill="none"/>
  <circle cx="50" cy="85" r="3" fill="#35d0ff" stroke="#fff" stroke-width=".8"/>
 </symbol>

 <symbol id="rog-KN" viewBox="0 0 100 100">
  ${tile("rog-sapphire")}
  <path d="M56 16 C70 6 84 14 82 30 C76 22 68 22 60 26Z" fill="#e0213c" stroke="#6d0a14" stroke-width="1.2"/>
  <path d="M26 52 C26 22 74 22 74 52 L74 58 L26 58Z" fill="url(#rog-silver)" stroke="#2c3440" stroke-width="1.6"/>
  <rect x="48" y="22" width="4" height="34" fill="#8b97a8"/>
  <rect x="30" y="43" width="40" height="5" rx="2" fill="#1a1f29"/>
  <path d="M30 58 C30 76 40 90 50 93 C60 90 70 76 70 58Z" fill="#b9652c" stroke="#5d2c0d" stroke-width="1.3"/>
  <path d="M40 72 Q50 78 60 72 M43 81 Q50 86 57 81" stroke="#7d3d14" stroke-width="1.4" fill="none"/>
  <path d="M50 63 C44 58 37 61 33 66 C41 67 46 66 50 64.5 C54 66 59 67 67 66 C63 61 56 58 50 63Z" fill="#d8803e" stroke="#5d2c0d" stroke-width="1"/>
  <ellipse cx="50" cy="60" rx="5" ry="4.2" fill="#f08a6c"/>
  <path d="M20 66 L30 60 L32 84 L22 86Z" fill="url(#rog-gold)" stroke="#6b3d02" stroke-width="1"/>
 </symbol>

 <symbol id="rog-MU" viewBox="0 0 100 100">
  ${tile("rog-emerald")}
  <path d="M10 90 Q30 80 50 86 Q70 80 90 90Z" fill="#0c5a2e"/>
  <rect x="32" y="46" width="36" height="42" rx="9" fill="#f6e7c9" stroke="#8c6a3c" stroke-width="1.5"/>
  <path d="M43 88 L43 72 Q50 62 57 72 L57 88Z" fill="#7a4420" stroke="#3d1f0a" stroke-width="1.2"/>
  <circle cx="54.5" cy="79" r="1.3" fill="#f2c14e"/>
  <circle cx="50" cy="56" r="5" fill="#ffd54a" stroke="#8c6a3c" stroke-width="1.4"/>
  <path d="M50 51 V61 M45 56 H55" stroke="#8c6a3c" stroke-width="1.2"/>
  <path d="M12 50 C12 18 88 18 88 50 C70 57 30 57 12 50Z" fill="url(#rog-cap)" stroke="#5a0804" stroke-width="1.6"/>
  <ellipse cx="32" cy="36" rx="6" ry="4.5" fill="#fff" opacity=".92"/>
  <ellipse cx="52" cy="28" rx="7" ry="5" fill="#fff" opacity=".92"/>
  <ellipse cx="70" cy="39" rx="5.5" ry="4" fill="#fff" opacity=".92"/>
  <ellipse cx="22" cy="47" rx="3.5" ry="2.6" fill="#fff" opacity=".9"/>
  <ellipse cx="80" cy="48" rx="3.5" ry="2.6" fill="#fff" opacity=".9"/>
 </symbol>

 <symbol id="rog-A" viewBox="0 0 100 100">${letter("A", "rog-gA")}</symbol>
 <symbol id="rog-K" viewBox="0 0 100 100">${letter("K", "rog-gK")}</symbol>
 <symbol id="rog-Q" viewBox="0 0 100 100">${letter("Q", "rog-gQ")}</symbol>
 <symbol id="rog-J" viewBox="0 0 100 100">${letter("J", "rog-gJ")}</symbol>
 <symbol id="rog-T" viewBox="0 0 100 100">${letter("10", "rog-gT", 54, -2)}</symbol>
 <symbol id="rog-N" viewBox="0 0 100 100">${letter("9", "rog-gN")}</symbol>

 <symbol id="rog-WI" viewBox="0 0 100 100">
  <rect x="5" y="5" width="90" height="90" rx="18" fill="url(#rog-wildbg)"/>
  <rect x="5" y="5" width="90" height="90" rx="18" fill="none" stroke="#fff3b0" stroke-width="3"/>
  <path d="M16 62 L20 22 L36 40 L50 12 L64 40 L80 22 L84 62Z" fill="url(#rog-gold)" stroke="#5a3000" stroke-width="2" stroke-linejoin="round"/>
  <rect x="15" y="58" width="70" height="9" rx="3" fill="url(#rog-gold)" stroke="#5a3000" stroke-width="1.5"/>
  <circle cx="50" cy="44" r="5" fill="#e0115f" stroke="#fff" stroke-width="1"/>
  <circle cx="32" cy="50" r="3.5" fill="#35d0ff" stroke="#fff" stroke-width=".8"/>
  <circle cx="68" cy="50" r="3.5" fill="#35d0ff" stroke="#fff" stroke-width=".8"/>
  <circle cx="20" cy="22" r="3" fill="#fff3b0"/><circle cx="50" cy="12" r="3" fill="#fff3b0"/><circle cx="80" cy="22" r="3" fill="#fff3b0"/>
  <path d="M8 72 L92 72 L86 80 L92 88 L8 88 L14 80Z" fill="#b3123a" stroke="#4a0416" stroke-width="1.5"/>
  <text x="50" y="${long ? 85 : 86}" text-anchor="middle" font-family="${SERIF}" font-weight="700" font-size="${long ? 12 : 17}" fill="#fff3b0" stroke="#4a0416" stroke-width="1" paint-order="stroke" letter-spacing="${long ? 0 : 2}"${fit}>${wild}</text>
 </symbol>

 <symbol id="rog-EG" viewBox="0 0 100 100">
  <circle cx="50" cy="52" r="48" fill="url(#rog-glow)"/>
  <path d="M50 8 C72 8 84 44 84 62 C84 82 68 94 50 94 C32 94 16 82 16 62 C16 44 28 8 50 8Z" fill="url(#rog-egg)" stroke="#4c0c08" stroke-width="2"/>
  <g fill="none" stroke="#6d1208" stroke-opacity=".55" stroke-width="1.6">
   <path d="M28 40 q5.5 6 11 0 q5.5 6 11 0 q5.5 6 11 0 q5.5 6 11 0"/>
   <path d="M21 54 q5.8 6 11.6 0 q5.8 6 11.6 0 q5.8 6 11.6 0 q5.8 6 11.6 0 q5.8 6 11.6 0"/>
   <path d="M20 68 q6 6 12 0 q6 6 12 0 q6 6 12 0 q6 6 12 0 q6 6 12 0"/>
   <path d="M27 82 q5.5 5 11 0 q5.5 5 11 0 q5.5 5 11 0 q5.5 5 11 0"/>
  </g>
  <ellipse cx="37" cy="30" rx="6" ry="12" fill="#fff" opacity=".45" transform="rotate(22 37 30)"/>
  <path d="M50 8 L53 20 L50 30 L47 20Z" fill="#ffe27a" opacity=".7"/>
 </symbol>

 <symbol id="rog-stone" viewBox="0 0 100 100">
  <path d="M20 14 L80 10 L92 46 L82 88 L22 92 L8 52Z" fill="url(#rog-ice)" stroke="#e8fbff" stroke-width="2.5" stroke-linejoin="round"/>
  <path d="M20 14 L40 40 L8 52 M80 10 L62 38 L92 46 M40 40 L62 38 L66 66 L82 88 M66 66 L36 70 L22 92 M36 70 L40 40 M36 70 L8 52" stroke="#fff" stroke-opacity=".55" stroke-width="1.5" fill="none"/>
  <path d="M26 20 L52 18 L40 34Z" fill="#fff" opacity=".55"/>
 </symbol>
 <symbol id="rog-diamond" viewBox="0 0 100 100">
  <path d="M22 38 L36 18 L64 18 L78 38 L50 86Z" fill="url(#rog-gdiamond)" stroke="#eaffff" stroke-width="2" stroke-linejoin="round"/>
  <path d="M22 38 H78 M36 18 L44 38 L50 86 L56 38 L64 18 M44 38 L50 18 L56 38" stroke="#fff" stroke-opacity=".7" stroke-width="1.3" fill="none"/>
  <path d="M80 14 l3 7 7 3 -7 3 -3 7 -3 -7 -7 -3 7 -3z" fill="#fff"/>
 </symbol>
 <symbol id="rog-crack" viewBox="0 0 100 100">
  <path d="M20 14 L80 10 L92 46 L82 88 L22 92 L8 52Z" fill="#3a5a6a" stroke="#9fc3d1" stroke-width="2" stroke-linejoin="round" opacity=".8"/>
  <path d="M50 12 L44 36 L58 46 L40 64 L52 76 L46 92 M58 46 L80 52 M44 36 L22 30 M40 64 L14 62" stroke="#0b1e27" stroke-width="3" fill="none" stroke-linejoin="round"/>
 </symbol>
</svg>`;
}

export const ICONS = {
  stone: '<svg viewBox="0 0 100 100" aria-hidden="true"><use href="#rog-stone"/></svg>',
  diamond: '<svg viewBox="0 0 100 100" aria-hidden="true"><use href="#rog-diamond"/></svg>',
  crack: '<svg viewBox="0 0 100 100" aria-hidden="true"><use href="#rog-crack"/></svg>',
};
