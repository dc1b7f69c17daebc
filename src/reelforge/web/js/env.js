// What the player's device asks of the client, for the modules that need it: a touch screen
// (no keyboard hints, bigger targets) and reduced motion (short or no animations).  The CSS
// reads the same media queries itself (css/access.css); this module mirrors them as classes on
// <html> (`touch`, `reduce-motion`) and as functions, kept up to date when a setting changes.

const TOUCH = "(hover: none) and (pointer: coarse)";
const REDUCE = "(prefers-reduced-motion: reduce)";

const queries = {
  touch: window.matchMedia(TOUCH),
  "reduce-motion": window.matchMedia(REDUCE),
};

function sync() {
  for (const [cls, q] of Object.entries(queries)) document.documentElement.classList.toggle(cls, q.matches);
}

for (const q of Object.values(queries)) q.addEventListener("change", sync);
sync();

/** A touch screen without hover: keyboard hints are hidden, targets are finger-sized. */
export function isTouch() {
  return queries.touch.matches;
}

/** The player asked for less motion: animations should be short, or skipped. */
export function reducedMotion() {
  return queries["reduce-motion"].matches;
}
