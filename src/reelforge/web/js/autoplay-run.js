// The game screen's autoplay (mixed into GameScreen): the dialog, then POST /autoplay and
// /autoplay/next in a loop, each round presented like one played by hand; the stop button
// and the stop reasons.  The server checks every limit and plays free spins on; where it stops
// for the player, the decision is shown and taken by hand.

import { ApiError, Intent } from "./api.js";
import { autoplayDialog, STOP_REASONS } from "./autoplay.js";
import { t } from "./i18n.js";
import { toast, wait } from "./ui.js";

export const autoplayMethods = {
  async openAutoplay() {
    if (this.busy || this.autoplay?.running || this.autoBtn.hidden) return;
    const own = this.renderer.roundRequest?.();
    if (own === false) return;
    const limits = await autoplayDialog({
      stake: own ? own.cost : this.level.stake,
      currency: this.app.currency,
      // The game's own cap (GET /games: the smaller of the game's and the profile's) wins.
      maxSpins: this.game.autoplay_max_spins ?? this.rules.autoplay_max_spins ?? null,
      balance: this.app.balance,
    });
    if (!limits) return;
    try {
      const body = { game: this.game.id, stake: own ? own.stake : this.level.stake, ...limits };
      if (own?.mode && own.mode !== "base") body.mode = own.mode;
      const reply = await this.api.post(new Intent("/autoplay", body));
      this.autoplay = reply.autoplay;
    } catch (err) {
      await this.app.handleError(err, this);
      return;
    }
    await this.task(() => this.autoplayLoop());
  },

  async autoplayLoop() {
    this.stopRequested = false;
    this.dismissStopNote();
    delete this.root.dataset.autoplayStop;
    delete this.root.dataset.autoplayWaiting;
    this.updateControls();
    let reason = null;
    try {
      while (this.autoplay?.running && !this.stopRequested && !this.destroyed) {
        this.round = null;
        this.pres.begin();
        this.renderer.reset();
        this.setWin(0);
        this.renderer.startSpin();
        let reply;
        try {
          reply = await this.api.post(new Intent("/autoplay/next"));
        } catch (err) {
          this.renderer.abortSpin();
          throw err;
        }
        this.autoplay = reply.autoplay;
        const before = this.app.balance;
        this.app.setBalance(reply.balance);
        if (reply.round) this.balance.hold(reply, before);
        this.updateControls();
        if (!reply.round) {
          this.renderer.abortSpin();
          this.pres.end();
          break;
        }
        await this.playRoundAutoplay(reply);
        await wait(250);
      }
    } finally {
      reason = this.stopRequested ? "cancelled" : this.autoplay?.stop_reason;
      if (this.autoplay) this.autoplay.running = false;
      if (!this.destroyed) this.updateControls();
    }
    if (!this.destroyed) await this.afterAutoplay(reason);
  },

  /**
   * The run is over: say why, and where it stopped for the player, show that decision (the
   * round autoplay left, or the one the server holds in play), never "your decision is needed"
   * over a machine with nothing to decide.
   */
  async afterAutoplay(reason) {
    let waiting = this.round?.status === "pending" ? this.round : null;
    if (!waiting && reason === "player_action") waiting = await this.roundInPlay();
    if (reason) this.showStopReason(reason, waiting);
    if (!waiting || this.destroyed) return;
    if (waiting !== this.round) {
      // Found on the server, not in the last reply: drawn as it stands, then decided by hand.
      this.round = waiting;
      this.pres.begin();
      this.balance.hold({ balance: this.app.balance, round: waiting });
      await this.renderer.restore(waiting);
      this.setWin(waiting.win);
    }
    await this.playRound(waiting, waiting.events.length);
  },

  /** The game's round in play on the server, or null. */
  async roundInPlay() {
    try {
      const reply = await this.api.get(`/rounds/pending?game=${encodeURIComponent(this.game.id)}`);
      return reply.rounds[reply.rounds.length - 1] || null;
    } catch (err) {
      await this.app.handleError(err, this);
      return null;
    }
  },

  async playRoundAutoplay(reply) {
    const round = reply.round;
    this.round = round;
    await this.presentStep(round.events, round);
    if (round.status === "complete") await this.roundDone(round, reply);
  },

  /** The stop reason in words; `waiting`: the round left for the player's decision. */
  showStopReason(reason, waiting = null) {
    this.root.dataset.autoplayStop = reason;
    if (waiting) this.root.dataset.autoplayWaiting = String(waiting.id);
    // A decision the server says is needed but no round holds: the run simply stopped.
    const key = reason === "player_action" && !waiting ? "cancelled" : reason;
    // A machine that shows the pause on its own displays (Los 3 Pinguinos' marquee) needs no toast.
    if (this.renderer.autoplayStopped?.(reason, waiting)) return;
    const text = STOP_REASONS[key] ? t(STOP_REASONS[key]) : t("Autoplay stopped ({reason})", { reason });
    const note = toast(text, key === "spins_done" || key === "cancelled" ? "info" : "warn", 5000);
    note.dataset.testid = "autoplay-stopped";
    if (waiting) this.stopNote = note;
  },

  /** The pause's note goes as soon as the player takes the decision it asked for. */
  dismissStopNote() {
    this.stopNote?.remove();
    this.stopNote = null;
  },

  async stopAutoplay() {
    if (this.stopRequested) return;
    this.stopRequested = true;
    this.spinSub.textContent = t("stopping…");
    try {
      await this.api.post(new Intent("/autoplay/stop"));
    } catch (err) {
      if (!(err instanceof ApiError && err.code === "autoplay_not_running")) await this.app.handleError(err, this);
    }
    if (!this.busy && this.autoplay) {
      this.autoplay.running = false;
      this.updateControls();
      this.showStopReason("cancelled");
    }
  },
};
