// Los 3 Pinguinos, the upper game's board: the parts of its screen (the 3 × 3 window with its
// paylines and their numbers, the minigame stage, the accumulator, the vertical-lines counter,
// the feature lamps, the paytable and the bet chips), the paytable dialog, the rules and the
// recall's words.  The upper game (./pinguinos-upper.js) owns and drives them.

import { t } from "../../i18n.js";
import { h, svg } from "../../ui.js";
import { DoublePanel } from "./pinguinos-double.js";
import { createMinigames, minigameName, wholeMoney } from "./pinguinos-minigames.js";
import { Reel, use } from "./pinguinos-parts.js";

const ROW_Y = [50, 150, 250]; // the lines' overlay: 300 × 300, a cell is 100 × 100
const COL_X = [52, 150, 248];

/** The upper screen's parts, built onto `u` (the upper game). */
export function buildBoard(u) {
  buildWindow(u);
  buildPay(u);
  buildChips(u);
}

function buildWindow(u) {
  const info = u.info;
  const strips = info.strips || [[], [], []];
  u.reels = strips.map((s, r) => new Reel(u, r, s, new Set()));

  // The paylines: 1-5 always, 6-8 (the columns) while the vertical-lines counter is above 0.
  const paths = (info.lines || []).map((rows, i) => ({ n: i + 1, d: `M4 ${ROW_Y[rows[0]]} L${COL_X[0]} ${ROW_Y[rows[0]]} L${COL_X[1]} ${ROW_Y[rows[1]]} L${COL_X[2]} ${ROW_Y[rows[2]]} L296 ${ROW_Y[rows[2]]}` }));
  COL_X.forEach((x, r) => paths.push({ n: paths.length + 1, d: `M${x} 3 L${x} 297`, vertical: r }));
  u.overlay = svg(`<svg class="l3pu-lines" viewBox="0 0 300 300" preserveAspectRatio="none" aria-hidden="true">
    ${paths.map((p) => `<path class="l3pu-line${p.vertical !== undefined ? " l3pu-line--v" : ""}" data-line="${p.n}" data-testid="upper-line-${p.n}" d="${p.d}"/>`).join("")}
    <g class="l3pu-cells"></g></svg>`);
  u.lineEls = [...u.overlay.querySelectorAll(".l3pu-line")];
  u.cellLayer = u.overlay.querySelector(".l3pu-cells");
  const badge = (n) => h("span.l3pu-badge", { dataset: { line: String(n) } }, String(n));
  const ends = (side) => ROW_Y.map((y, row) => h("div.l3pu-badges__row", (info.lines || [])
    .map((rows, i) => ({ n: i + 1, row: side === "l" ? rows[0] : rows[2] })).filter((x) => x.row === row).map((x) => badge(x.n))));
  u.tags = h("div.l3pu-tags");
  u.stage = h("div.l3pu-stage", { "data-testid": "minigame", hidden: true });
  u.stageTitle = h("div.l3pu-stage__title");
  u.stageHint = h("div.l3pu-stage__hint", { "data-testid": "minigame-hint" });
  u.stage.append(u.stageTitle, u.stageHint);
  u.window = h("div.l3pu-window", { "data-testid": "upper-reels", dataset: { lines: "5" } },
    h("div.l3pu-badges.l3pu-badges--top", [6, 7, 8].map(badge)),
    h("div.l3pu-badges.l3pu-badges--l", ends("l")),
    h("div.l3pu-glass", h("div.l3pu-inner", h("div.l3p-window__reels.l3pu-reels", u.reels.map((r) => r.el)), u.overlay, u.tags), u.stage),
    h("div.l3pu-badges.l3pu-badges--r", ends("r")));
  u.minigames = createMinigames(u);

  // The accumulator of the chosen bet: eight pieces around the piece symbol.
  const pieces = info.accumulator_pieces || 8;
  const seg = (i) => {
    const a0 = ((i * 360) / pieces - 90 + 3) * (Math.PI / 180);
    const a1 = (((i + 1) * 360) / pieces - 90 - 3) * (Math.PI / 180);
    const p = (a, r) => `${(50 + r * Math.cos(a)).toFixed(2)} ${(50 + r * Math.sin(a)).toFixed(2)}`;
    return `<path class="l3pu-acc__piece" data-n="${i + 1}" d="M${p(a0, 47)} A47 47 0 0 1 ${p(a1, 47)} L${p(a1, 33)} A33 33 0 0 0 ${p(a0, 33)}Z"/>`;
  };
  u.accRing = svg(`<svg class="l3pu-acc__ring" viewBox="0 0 100 100" aria-hidden="true">${Array.from({ length: pieces }, (_, i) => seg(i)).join("")}</svg>`);
  u.accCount = h("span.l3pu-acc__count");
  u.accBet = h("span.l3pu-acc__bet");
  u.acc = h("div.l3pu-acc", { "data-testid": "accumulator", dataset: { pieces: "0" }, title: t("The accumulator: {n} pieces complete it and win the WINNING SPIN", { n: pieces }) },
    h("span.l3p-side__label", t("Accumulator")),
    h("div.l3pu-acc__dial", u.accRing, use("AC", "l3pu-acc__icon")), u.accCount, u.accBet);

  // The vertical lines: the counter shared with the lower game.
  u.vlDigit = h("span.l3p-vl__digit", "0");
  u.vlPips = Array.from({ length: 9 }, (_, i) => h("span.l3p-vl__pip", { dataset: { n: String(9 - i) } }));
  u.vlLamp = h("span.l3pu-vl__lamp", t("8 lines"));
  u.vl = h("div.l3p-vl.l3pu-vl", { "data-testid": "upper-vertical-lines", dataset: { counter: "0" }, title: t("Vertical lines: while above 0, each game has 8 paylines and takes one") },
    h("span.l3p-side__label", t("V-lines")), use("VL", "l3p-vl__icon"), u.vlDigit, h("div.l3p-vl__pips", u.vlPips), u.vlLamp);

  // The feature lamps over the reels.
  const lamp = (key, text, sym) => h("span.l3pu-lamp", { dataset: { lamp: key }, "data-testid": `lamp-${key}` }, sym ? use(sym, "l3pu-lamp__art") : null, h("span", text));
  u.lamps = h("div.l3pu-lamps", lamp("roulette", t("Roulette"), "IC"), lamp("fishing", t("Fishing"), "CO"), lamp("slides", t("Slides"), "TD"),
    lamp("mixed", t("Mixed 7s"), "B7"), lamp("winning", t("Winning spin"), "AC"));

  u.double = new DoublePanel(u);
  u.machineRow = h("div.l3pu-machine", u.acc, u.window, u.vl);
  u.center = h("div.l3pu-center", u.lamps, u.machineRow, u.double.el);
}

function buildPay(u) {
  const info = u.info;
  const order = Object.keys(info.pays || {}).sort((a, b) => info.pays[b] - info.pays[a] || a.localeCompare(b));
  u.payRows = order.map((code) => {
    const value = h("span.l3p-rung__value");
    const game = info.minigames?.[code];
    const el = h("div.l3p-rung.l3pu-row", { dataset: { symbol: code, kind: game ? "game" : code.endsWith("7") ? "seven" : "plain" }, "data-testid": `upper-pay-${code}` },
      h("span.l3p-rung__lamp"), h("span.l3p-rung__syms", [use(code), use(code), use(code)], game ? h("span.l3pu-row__game", minigameName(game)) : null), value);
    return { code, el, value };
  });
  u.mixedValue = h("span.l3p-rung__value");
  u.mixedRow = h("div.l3p-rung.l3pu-row", { dataset: { symbol: "mixed", kind: "seven" }, "data-testid": "upper-pay-mixed" },
    h("span.l3p-rung__lamp"), h("span.l3p-rung__syms", (info.sevens || []).map((c) => use(c)), h("span.l3pu-row__game", t("Mixed"))), u.mixedValue);
  const sevens = u.payRows.filter((r) => r.code.endsWith("7")).length;
  const rows = u.payRows.map((r) => r.el);
  rows.splice(sevens, 0, u.mixedRow);
  u.payTitle = h("div.l3p-pay__title", { "data-testid": "upper-paytable-bet" });
  u.payFoot = h("div.l3pu-pay__foot", { "data-testid": "upper-paytable-foot" });
  u.pay = h("div.l3p-pay.l3pu-pay", { "data-testid": "upper-paytable" }, u.payTitle, h("div.l3p-pay__scale", rows), u.payFoot);
}

function buildChips(u) {
  u.chips = u.bets.map((b, i) => h("button.l3p-chip.l3pu-chip", {
    type: "button", dataset: { stake: String(b.stake) }, "data-testid": `upper-bet-${b.stake}`, title: u.betLabel(b),
    onclick: () => u.setBet(i, true),
  }, h("span", u.short(b.cash)), h("small", t("+{n} B", { n: b.bonuses }))));
  u.chipBox = h("div.l3p-bets.l3pu-bets", { "data-testid": "upper-bets" }, h("span.l3p-side__label", t("Upper bet")), h("div.l3p-bets__chips", u.chips));
}

/** The paytable dialog of the upper game at the chosen bet. */
export function upperPaytable(u) {
  const b = u.bet();
  const m = b.multiplier;
  const rows = u.payRows.map((r) => h("tr", { dataset: { symbol: r.code } },
    h("td", h("span.l3p-pt__syms", [use(r.code), use(r.code), use(r.code)])),
    h("td", u.symbolName(r.code)), h("td.l3p-pt__value", u.fmt(u.info.pays[r.code] * m)),
    h("td", u.info.minigames?.[r.code] ? t("may start the {name}", { name: minigameName(u.info.minigames[r.code]) }) : "")));
  const mixed = b.mixed || [];
  if (mixed.length) {
    rows.splice(3, 0, h("tr", { dataset: { symbol: "mixed" } }, h("td", h("span.l3p-pt__syms", (u.info.sevens || []).map((c) => use(c)))),
      h("td", t("Mixed sevens")), h("td.l3p-pt__value", `${u.fmt(Math.min(...mixed))} – ${u.fmt(Math.max(...mixed))}`), h("td", t("a random prize"))));
  }
  return h("div.l3pu-paytable", { "data-testid": "upper-paytable-dialog" },
    h("p.paytable__intro", t("The upper game at {bet}: three of a kind on any of the 5 paylines (8 with the vertical lines).", { bet: u.betLabel(b) })),
    h("table.table.l3p-pt", h("tbody", rows)),
    h("p", t("Minigames: at least {min} and at most {max} (the bet's maximum). Double or Bonuses in fractions of {fraction}.", { min: u.fmt(b.minigame_floor), max: u.fmt(b.max_prize), fraction: u.fmt(b.fraction) })),
    mixed.length ? null : h("p", t("Mixed sevens pay nothing at this bet.")));
}

/** The recall's words for an upper event. */
export function describeUpper(u, ev) {
  const f = (c) => u.fmt(c);
  const names = (w) => (w.symbol === "mixed" ? t("mixed sevens") : `3 × ${u.symbolName(w.symbol)} ${f(w.cents)}`);
  switch (ev.type) {
    case "upper_start":
      return t("Upper game: bet {bet}, {n} lines; Bonuses left {left}, vertical lines {counter}", {
        bet: u.betLabel(u.bets.find((b) => b.stake === ev.bet_value) || u.bet()), n: ev.lines, left: ev.bonuses_left, counter: ev.counter });
    case "upper_spin": {
      const head = ev.game === "winning" ? (ev.tries > 1 ? t("WINNING SPIN ({n} spins)", { n: ev.tries }) : t("WINNING SPIN")) : t("Game");
      return `${head}: ${ev.wins.length ? ev.wins.map((w) => t("line {line} {win}", { line: w.line, win: names(w) })).join(", ") : t("no winning line")}`;
    }
    case "vertical_lines":
      return t("Vertical lines: +{gained}, counter {before} → {counter}", { gained: ev.gained ?? ev.hits, before: ev.before, counter: ev.counter });
    case "accumulator": {
      const p = { gained: ev.gained, pieces: ev.pieces, total: u.info.accumulator_pieces || 8 };
      return ev.full ? t("Accumulator +{gained}: {pieces} of {total} — full: WINNING SPIN", p) : t("Accumulator +{gained}: {pieces} of {total}", p);
    }
    case "mixed":
      return t("Mixed sevens: {prize}", { prize: f(ev.cents) });
    case "minigame_not_offered":
      return t("{name} not offered", { name: minigameName(ev.minigame) });
    case "minigame_start": {
      const p = { name: minigameName(ev.minigame), replaces: f(ev.replaces) };
      return ev.platforms ? t("{name} starts (replaces {replaces}): platforms {platforms}", { ...p, platforms: ev.platforms.map(f).join(", ") })
        : t("{name} starts (replaces {replaces})", p);
    }
    case "minigame_end": {
      const how = ev.sections ? t("sections {sections}", { sections: ev.sections.map((i) => f(u.info.roulette_sections[i] * u.multiplier())).join(" + ") })
        : ev.catches ? t("catches {catches}", { catches: ev.catches.map((c) => c.map(f).join(" + ") || t("none")).join(" | ") })
          : t("platform {number}", { number: ev.platform + 1 });
      return t("{name}: {how} = {result}; prize {prize}", { name: minigameName(ev.minigame), how, result: f(ev.result), prize: f(ev.prize) });
    }
    case "double_start":
      return t("Double or Bonuses: {prize} in fractions of {fraction}", { prize: f(ev.prize), fraction: f(ev.fraction) });
    case "double_play":
      if (ev.result !== "double") return t("PLAY: {from} turned into {n} Bonuses", { from: f(ev.from_cents), n: ev.bonuses });
      return ev.maximum ? t("PLAY: doubled to {cents} (maximum)", { cents: f(ev.cents) }) : t("PLAY: doubled to {cents}", { cents: f(ev.cents) });
    case "double_collect":
      return t("Collected {cents}; {remaining} left", { cents: f(ev.cents), remaining: f(ev.remaining) });
    case "double_collect_all":
      return ev.reason === "bonus_cap" ? t("Collected all: {cents} (Bonus limit)", { cents: f(ev.cents) }) : t("Collected all: {cents}", { cents: f(ev.cents) });
    case "paid":
      if (ev.how === "maximum") return t("Paid {cents} (maximum prize)", { cents: f(ev.cents) });
      return ev.how === "bonus_cap" ? t("Paid {cents} (Bonus limit)", { cents: f(ev.cents) }) : t("Paid {cents}", { cents: f(ev.cents) });
    case "winning_spin":
      return t("WINNING SPIN");
    case "no_prize":
      return t("No prize");
    case "round_end":
      return ev.bonuses_won ? t("Round over: {win} won and {n} Bonuses", { win: f(ev.win), n: ev.bonuses_won }) : t("Round over: {win} won", { win: f(ev.win) });
    default:
      return ev.type;
  }
}


/** The rules of the upper game, for the machine's rules dialog. */
export function upperRules(game, fmt) {
  const u = game.upper || {};
  const bets = (u.bets || []).map((b) => t("{cash} + {n} Bonuses", { cash: wholeMoney(fmt(b.cash)), n: b.bonuses })).join(", ");
  return [
    h("li", t("The upper game (CHANGE GAME, Shift or 0): three reels of 16 symbols and a 3 × 3 window, prizes on 5 paylines; while the vertical-lines counter is above 0 each game takes one and the three columns pay too (8 lines). Bets: {bets}. It needs the bet's Bonuses as well as its cash.", { bets })),
    h("li", t("Three Ice Cubes, Cocktails or Touch Discs on a line may start the Roulette, the Fishing or the Slides, which replace the line prize with one at least as high.")),
    h("li", t("Mixed sevens (three sevens of different colours) pay a random prize at the bets that show them.")),
    h("li", t("The accumulator: each bet has its own {n} pieces; the piece symbol adds 1 to 3, and a full accumulator wins a WINNING SPIN that always pays.", { n: u.accumulator_pieces || 8 })),
    h("li", t("Double or Bonuses: every prize is played in fractions of the bet's fraction. PLAY/ACCUMULATE doubles a fraction or turns it into Bonuses; COLLECT keeps one fraction; COLLECT held keeps the whole prize. AUTO-RISK plays every fraction. The bet's maximum prize is paid at once.")),
  ];
}
