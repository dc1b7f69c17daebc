// Los 3 Pinguinos: the cabinet's lamps that follow the session and the machine's state, for
// ./index.js (the machine `m`):
//
// * AUTO-PLAY where the profile forbids autoplay (GB): the button stays in its place, dark and
//   marked "off", the key legend says so, and a press says why on the marquee; it starts nothing.
// * CHANGE GAME is lit only when the machine's Bonuses cover the cheapest upper bet the operator
//   offers (the upper game's own bet table); dark, a press says what it needs.  On the upper
//   screen it is the way back, always lit.
// * An autoplay paused for the player's decision (nudges while AUTO is off) is said on the
//   marquee, over the decision itself, instead of a note that would cover the marquee.

import { t } from "../../i18n.js";

/** Whether the session's profile allows autoplay (recall and replay have no session: yes). */
export function autoplayAllowed(ctx) {
  const rules = ctx.rules?.();
  if (!rules) return true;
  return Number.isInteger(rules.autoplay_max_spins) && rules.autoplay_max_spins > 0;
}

/** Why AUTO-PLAY is off, in a sentence for the player. */
export function autoplayReason(ctx) {
  return ctx.profile?.() === "gb"
    ? t("Auto-play is not allowed under UK rules: start every game with PLAY.")
    : t("Auto-play is not allowed here: start every game with PLAY.");
}

/** AUTO-PLAY and its line in the key legend, as the profile allows; true when allowed. */
export function showAutoplayRule(m) {
  const ok = autoplayAllowed(m.ctx);
  const gb = m.ctx.profile?.() === "gb";
  m.playBtn.dataset.unavailable = ok ? "0" : "1";
  m.playBtn.setAttribute("aria-disabled", String(!ok));
  m.playBtn.title = ok ? t("AUTO-PLAY: games start by themselves (−)") : autoplayReason(m.ctx);
  m.playNote.textContent = ok ? "" : gb ? t("Off: UK rules") : t("Off here");
  m.playNote.hidden = ok;
  m.autoplayKey.text.textContent = ok ? t("Auto-play") : gb ? t("Auto-play: off under UK rules") : t("Auto-play: off here");
  m.autoplayKey.key.classList.toggle("is-off", !ok);
  m.autoplayKey.text.classList.toggle("is-off", !ok);
  return ok;
}

/** AUTO-PLAY pressed (or −) where autoplay is forbidden: the marquee says why. */
export function refuseAutoplay(m) {
  m.setMessage(t("NO AUTO-PLAY"), autoplayReason(m.ctx));
  m.el.dataset.refused = "autoplay";
  m.pulse(m.playBtn, "l3p-refuse");
  m.ctx.sound?.play("error");
}

/** The cheapest upper bet on offer (by its value), or null when the operator offers none. */
export function cheapestUpperBet(upper) {
  return upper.bets.reduce((best, b) => (!best || b.stake < best.stake ? b : best), null);
}

/** CHANGE GAME: lit when it can take the player somewhere, dark (and saying why) when not. */
export function showChangeGame(m) {
  const b = m.changeBtn;
  let lit = true;
  let why = t("CHANGE GAME: the upper game and back (Shift or 0)");
  if (m.screen === "lower") {
    const cheapest = cheapestUpperBet(m.upper);
    b.dataset.need = cheapest ? String(cheapest.bonuses) : "";
    if (!cheapest) {
      lit = false;
      why = t("No upper bet is on offer");
    } else if (m.bonuses < cheapest.bonuses) {
      lit = false;
      why = t("The upper game needs {n} Bonuses: win them down here", { n: cheapest.bonuses });
    }
  }
  b.dataset.lit = lit ? "1" : "0";
  b.setAttribute("aria-disabled", String(!lit));
  b.title = why;
}

/** The game screen says the autoplay stopped: a pause for a lower-game decision goes on the marquee. */
export function autoplayPaused(m, reason, round) {
  if (reason !== "player_action" || !round || round.mode === "upper") return false;
  m.autoplayPaused = true;
  m.el.dataset.autoplayPaused = String(round.id);
  return true;
}

/** The decision just opened: when autoplay paused for it, the marquee's second line says so. */
export function sayPaused(m) {
  if (!m.autoplayPaused) return;
  m.setMessage(m.msgMain.textContent, t("Auto-play paused, your move: {what}", { what: m.msgSub.textContent }));
}

/** The paused decision was taken (or the machine moved on). */
export function endPause(m) {
  m.autoplayPaused = false;
  delete m.el.dataset.autoplayPaused;
}
