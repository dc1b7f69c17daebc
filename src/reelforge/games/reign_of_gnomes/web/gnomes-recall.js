// Reign of Gnomes in recall: the Ice Diamonds board of a step that started it, picked in it
// or ended it, drawn by the game's own board (the same stones, numbered 1 to 15 as on the
// game screen) with the stones picked in earlier steps, this step's picks marked.

import { t } from "../../i18n.js";

const ICE = new Set(["ice_diamonds_start", "pick", "ice_diamonds_award"]);

/**
 * `before`: the events of the earlier steps; `events`: this step's.  Returns the board's
 * element, or null when the step has no part in an Ice Diamonds game.
 */
export function iceRecallBoard(renderer, Board, before, events) {
  if (!events.some((e) => ICE.has(e.type))) return null;
  const all = before.concat(events);
  const start = all.findLastIndex((e) => e.type === "ice_diamonds_start");
  if (start < 0) return null;
  const board = new Board(renderer, all[start].stones);
  const mine = before.length;
  let award = null;
  for (let i = start + 1; i < all.length; i++) {
    const ev = all[i];
    if (ev.type === "pick") {
      board.reveal(ev.stone, ev.diamond, true);
      if (i >= mine) board.stones[ev.stone].classList.add("stone--this-step");
    } else if (ev.type === "ice_diamonds_award") {
      award = ev;
      break;
    }
  }
  // The hidden layout, shown as the game shows it when the pick ends (its finish() takes
  // the board off a game screen too: this one is on none yet).
  if (award) board.finish(award, true);
  board.stones.forEach((b) => {
    b.tabIndex = -1; // a picture, not a control
    const stone = Number(b.dataset.stone) + 1;
    const found = { diamond: t("Stone {stone}: diamond", { stone }), empty: t("Stone {stone}: empty", { stone }) };
    b.setAttribute("aria-label", found[b.dataset.found] || t("Stone {stone}", { stone }));
  });
  board.el.classList.add("ice--recall");
  board.el.setAttribute("data-testid", "recall-board");
  board.el.dataset.picked = JSON.stringify([...board.picked].map((s) => s + 1));
  return board.el;
}
