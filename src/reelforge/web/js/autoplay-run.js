// The game screen's autoplay (mixed into GameScreen): the dialog, then POST /autoplay and
// /autoplay/next in a loop, each round presented like one played by hand; the stop button
// and the stop reasons.  The server checks every limit and plays free spins on.

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
      currency: this.game.currency,
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
    delete this.root.dataset.autoplayStop;
    this.updateControls();
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
        this.app.setBalance(reply.balance);
        if (reply.round) this.balance.hold(reply);
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
      const reason = this.stopRequested ? "cancelled" : this.autoplay?.stop_reason;
      if (this.autoplay) this.autoplay.running = false;
      if (!this.destroyed) {
        this.updateControls();
        if (reason) this.showStopReason(reason);
      }
    }
    // A round autoplay left for the player (an Ice Diamonds pick) is played by hand.
    if (this.round && this.round.status === "pending" && !this.destroyed) {
      await this.playRound(this.round, this.round.events.length);
    }
  },

  async playRoundAutoplay(reply) {
    const round = reply.round;
    this.round = round;
    await this.presentStep(round.events, round);
    if (round.status === "complete") await this.roundDone(round, reply);
  },

  showStopReason(reason) {
    const text = STOP_REASONS[reason] ? t(STOP_REASONS[reason]) : t("Autoplay stopped ({reason})", { reason });
    this.root.dataset.autoplayStop = reason;
    toast(text, reason === "spins_done" || reason === "cancelled" ? "info" : "warn", 5000).dataset.testid = "autoplay-stopped";
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
