// Player protection, in every jurisdiction profile: the session clock and net position in
// the top bar, the reality check at the interval the server gives (timed from the session's
// start by the server's clock, so a reload neither resets nor skips it), and the operator's
// limits page when the session has one.
//
// A check that falls due while a round is being played waits for the round to end; one due
// when a round would start (a spin, an autoplay round) holds that request until the player
// answers: Continue acknowledges it on the server, Leave closes the session.

import { ApiError, Intent } from "./api.js";
import { t, tk } from "./i18n.js";
import { formatMoney } from "./money.js";
import { formatDuration, h, modal } from "./ui.js";

// Every string the player reads here, in one place for the locale files (translated with
// t() where shown).
const TEXT = {
  title: tk("Reality check"),
  played: tk("You have been playing for {time}."),
  timePlayed: tk("Time played"),
  staked: tk("Staked"),
  won: tk("Won"),
  net: tk("Net position"),
  breakHint: tk("Take a break whenever you like."),
  limits: tk("Your limits"),
  limitsLink: tk("Set your limits"),
  limitsTitle: tk("Set your limits (your casino's page, in a new tab)"),
  cont: tk("Continue playing"),
  leave: tk("Leave"),
  left: tk("You left the game after {time} of play. Net position: {net}."),
  hoursMinutes: tk("{hours} {minutes}"),
  hours: tk("{n} hours"),
  minutes: tk("{n} minutes"),
  seconds: tk("{n} seconds"),
};

// A shield: the player's limits (drawn, not a font glyph, so every system shows it).
const SHIELD = '<svg viewBox="0 0 24 24" width="20" height="20"><path fill="currentColor" d="M12 2 4 5v6c0 5 3.4 9.4 8 11 4.6-1.6 8-6 8-11V5zm0 2.2 6 2.2V11c0 3.9-2.5 7.4-6 8.8-3.5-1.4-6-4.9-6-8.8V6.4zM11 7h2v6h-2zm0 8h2v2h-2z"/></svg>';

// Requests that start a round (by hand or by autoplay): a due check is answered first.
const ROUND_STARTS = new Set(["/rounds", "/autoplay", "/autoplay/next"]);

/** 3725 -> "1 hour 2 minutes"; 75 -> "1 minute"; 42 -> "42 seconds". */
export function spokenDuration(seconds) {
  const s = Math.max(0, Math.floor(seconds));
  const hh = Math.floor(s / 3600);
  const mm = Math.floor((s % 3600) / 60);
  const hours = t(TEXT.hours, { n: hh });
  if (hh) return mm ? t(TEXT.hoursMinutes, { hours, minutes: t(TEXT.minutes, { n: mm }) }) : hours;
  return mm ? t(TEXT.minutes, { n: mm }) : t(TEXT.seconds, { n: s });
}

/** "+£1.20", "-£2.40", "£0.00": a net position says which way it went. */
export function formatNet(minor, currency) {
  return (minor > 0 ? "+" : "") + formatMoney(minor, currency);
}

export class Protection {
  constructor(app) {
    this.app = app;
    this.session = null;
    this.startedAt = 0; // Date.now() at the session's start, by the server's elapsed time
    this.clock = null;
    this.timer = null;
    this.open = null; // the dialog's promise while a check is shown
    this.guard(app.api);
  }

  /** Hold every request that starts a round while a reality check is due. */
  guard(api) {
    const post = api.post.bind(api);
    api.post = async (pathOrIntent, body = null) => {
      const path = pathOrIntent instanceof Intent ? pathOrIntent.path : pathOrIntent;
      if (ROUND_STARTS.has(path)) await this.gate();
      return post(pathOrIntent, body);
    };
  }

  elapsed() {
    return (Date.now() - this.startedAt) / 1000;
  }

  get currency() {
    return this.app.currency;
  }

  /** A session view from the server (GET /session): meters, the next check, the limits link. */
  apply(session) {
    this.session = session;
    this.startedAt = Date.now() - (session.elapsed_seconds || 0) * 1000;
    document.getElementById("session-meter").hidden = false;
    document.getElementById("net-meter").hidden = false;
    this.showNet(session.net_position);
    if (!this.clock) this.clock = setInterval(() => this.tick(), 1000);
    this.tick();
    this.showLimitsLink(session.limits_url);
    if (!this.open) this.schedule();
  }

  tick() {
    if (this.app.ended) {
      clearInterval(this.clock);
      return;
    }
    document.getElementById("session-time").textContent = formatDuration(this.elapsed());
  }

  /** The net position moved by a round being presented (`delta`: its balance change shown so
   *  far), until the next session view gives the server's figure. */
  holdNet(delta) {
    if (this.session) this.showNet(this.session.net_position + delta);
  }

  showNet(minor) {
    const el = document.getElementById("net-position");
    el.textContent = formatNet(minor, this.currency);
    el.dataset.net = String(minor);
  }

  showLimitsLink(url) {
    let link = document.getElementById("limits-link");
    if (!url) {
      link?.remove();
      return;
    }
    if (!link) {
      link = h("a.limits-link", {
        id: "limits-link", "data-testid": "limits-link", target: "_blank", rel: "noopener noreferrer",
        title: t(TEXT.limitsTitle), "aria-label": t(TEXT.limitsTitle),
      },
      h("span.limits-link__icon", { "aria-hidden": "true", html: SHIELD }),
      h("span.limits-link__text", t(TEXT.limits)));
      // Beside the session meters; on phones it stays in the first row, by the menu.
      document.getElementById("net-meter").after(link);
    }
    link.href = url;
  }

  // -- the reality check ------------------------------------------------------------------

  schedule() {
    clearTimeout(this.timer);
    const rc = this.session?.reality_check;
    if (!rc || this.app.ended) return;
    const wait = Math.max(0, (rc.next_at_seconds - this.elapsed()) * 1000);
    this.timer = setTimeout(() => this.due(), wait + 50);
  }

  /** The clock says a check is due: show it now, or once the round in play has ended. */
  due() {
    if (this.app.ended || this.open) return;
    const screen = this.app.screen;
    if (screen && (screen.busy || screen.autoplay?.running)) {
      this.timer = setTimeout(() => this.due(), 400);
      return;
    }
    // After Leave the session-ended dialog says the rest (handleError is silent then).
    this.show().catch((err) => this.app.handleError(err));
  }

  /** Resolves at once when no check is due; otherwise when the player chose Continue. */
  gate() {
    if (this.open) return this.open;
    const rc = this.session?.reality_check;
    if (!rc || this.elapsed() < rc.next_at_seconds) return Promise.resolve();
    return this.show();
  }

  /** Ask the server (its clock decides), then show the check.  Rejects when the player leaves. */
  show() {
    if (this.open) return this.open;
    this.open = this.run().finally(() => {
      this.open = null;
      if (!this.app.ended) this.schedule();
    });
    return this.open;
  }

  async run() {
    const session = await this.app.api.get("/session");
    this.app.applySession(session);
    if (!session.reality_check.due) return; // early by the local clock: scheduled again
    const fmt = (v) => formatMoney(v, this.currency);
    const played = session.elapsed_seconds;
    const row = (label, value, testid) => h("div.reality__row", h("dt", label), h("dd", { "data-testid": testid }, value));
    const limits = session.limits_url
      ? h("a.reality__limits", { href: session.limits_url, target: "_blank", rel: "noopener noreferrer", "data-testid": "reality-limits" }, t(TEXT.limitsLink))
      : null;
    const choice = await modal({
      title: t(TEXT.title),
      testid: "reality-check",
      className: "modal--reality",
      dismissable: false,
      keepControlsVisible: true,
      body: h("div.reality",
        // Focus starts here, not on a button: a Space meant for the spin button answers nothing.
        h("p.reality__lead", { "data-testid": "reality-played", tabindex: "-1", autofocus: true }, t(TEXT.played, { time: spokenDuration(played) })),
        h("dl.reality__figures",
          row(t(TEXT.timePlayed), formatDuration(played), "reality-time"),
          row(t(TEXT.staked), fmt(session.staked), "reality-staked"),
          row(t(TEXT.won), fmt(session.won), "reality-won"),
          row(t(TEXT.net), formatNet(session.net_position, this.currency), "reality-net")),
        h("p.reality__hint", t(TEXT.breakHint), limits ? " " : null, limits)),
      buttons: [
        { label: t(TEXT.leave), value: "leave", testid: "reality-leave" },
        { label: t(TEXT.cont), value: "continue", primary: true, testid: "reality-continue" },
      ],
    });
    if (choice === "continue") {
      await this.acknowledge();
      return;
    }
    await this.app.api.post(new Intent("/session/close"));
    const text = t(TEXT.left, { time: spokenDuration(played), net: formatNet(session.net_position, this.currency) });
    this.app.sessionEnded(text);
    throw new ApiError(403, "session_closed", "the session is closed: closed by the player");
  }

  async acknowledge() {
    try {
      const reply = await this.app.api.post(new Intent("/session/reality-check"));
      this.session = { ...this.session, reality_check: reply.reality_check };
    } catch (err) {
      // Acknowledged already (another tab): the session view says what is next.
      if (!(err instanceof ApiError && err.code === "reality_check_not_due")) throw err;
      this.session = await this.app.api.get("/session");
    }
  }
}
