// The browser client: session token, routing between screens (each opens at the top), the
// top bar (balance; the session's time, net position and reality checks: protection.js),
// error messages (kept off the control bar), lost connections, keyboard and sound.
//
// Screens (hash routes): #/ lobby · #/game/<id> · #/history · #/history/<round> (recall)
// · #/replay/<round>.

import { Api, ApiError } from "./api.js";
import { GameScreen } from "./game-screen.js";
import { chooseLanguage, setLanguage, t, tk } from "./i18n.js";
import { renderHistory, renderRecall, renderReplay } from "./history.js";
import { renderLobby } from "./lobby.js";
import { sessionLimitsDialog } from "./session-limits.js";
import { formatMoney } from "./money.js";
import { Protection } from "./protection.js";
import { sound } from "./sound.js";
import { dismissTopModal, h, modal as openModal, setSpeed, topModal } from "./ui.js";

// Errors and session messages leave the bet and the spin button in view.
const modal = (opts) => openModal({ keepControlsVisible: true, ...opts });

const TOKEN_KEY = "reelforge.token";
const DEMO_KEY = "reelforge.demo";

// What the generic error dialog says for the server's error codes a player can meet (the
// ones with a dialog of their own are in handleError); any other code shows its message.
const ERROR_TEXT = {
  not_found: tk("The game server could not find what was asked for."),
  conflict: tk("This request clashes with one already sent. Reload the page to bring the game up to date."),
  invalid_bet: tk("This bet is not offered in this game. Choose another bet."),
  bet_disabled: tk("This bet is switched off at the moment. Choose another bet."),
  invalid_mode: tk("This way of playing is not offered in this game."),
  bonus_buy_forbidden: tk("Buying a feature is not allowed in your jurisdiction."),
  insufficient_bonuses: tk("You do not have enough Bonuses for this bet."),
  round_pending: tk("A game is still in play: finish it first."),
  round_not_pending: tk("This game is already over."),
  step_mismatch: tk("The game moved on in another window. Reload the page to bring it up to date."),
  action_not_allowed: tk("This choice is not allowed at this point of the game."),
  invalid_autoplay: tk("These autoplay settings are not allowed here. Check the number of spins and the limits."),
  autoplay_not_running: tk("No autoplay is running."),
  too_soon: tk("A game round takes a few seconds here. Wait a moment, then play again."),
  replay_failed: tk("This game cannot be replayed."),
  bad_reply: tk("The game server sent a reply that could not be read. Reload the page."),
};

// Why the server closed a session (its close_reason, in "the session is closed: <reason>").
const CLOSE_REASONS = [tk("time limit reached"), tk("spend limit reached"), tk("closed by the player")];

class App {
  constructor() {
    this.api = new Api({
      connectionLost: (info) => this.connectionLost(info),
      connectionBack: () => this.connectionBack(),
    });
    this.protection = new Protection(this);
    this.sound = sound;
    this.games = [];
    this.gamesById = {};
    this.session = null;
    this.balance = null;
    this.currency = "GBP";
    this.screen = null;
    this.lastGame = sessionStorage.getItem("reelforge.lastGame");
    this.quick = localStorage.getItem("reelforge.quick") === "1";
    this.demo = sessionStorage.getItem(DEMO_KEY) === "1";
    this.ended = false;
    this.retryGate = null;
    this.view = document.getElementById("view");
    this.el = document.getElementById("app");
  }

  // -- start -------------------------------------------------------------------------------

  async boot() {
    // The language first: nothing is drawn before its strings are here.
    await setLanguage(chooseLanguage()).catch((err) => console.error("reelforge: locale", err));
    this.bindChrome();
    const params = new URLSearchParams(location.search);
    const launched = params.get("token");
    if (launched) {
      // An operator launch URL: keep the token for this tab, take it out of the address bar.
      sessionStorage.setItem(TOKEN_KEY, launched);
      sessionStorage.removeItem(DEMO_KEY);
      this.demo = false;
      params.delete("token");
      const rest = params.toString();
      history.replaceState(null, "", location.pathname + (rest ? "?" + rest : "") + location.hash);
    }
    let token = sessionStorage.getItem(TOKEN_KEY);
    if (!token) token = await this.openDemo();
    if (!token) {
      this.showNoSession();
      return;
    }
    this.api.setToken(token);
    try {
      const [games, session, balance] = await Promise.all([
        this.api.get("/games"), this.api.get("/session"), this.api.get("/balance"),
      ]);
      this.games = games.games;
      this.gamesById = Object.fromEntries(this.games.map((g) => [g.id, g]));
      this.currency = balance.currency;
      this.applySession(session);
      this.setBalance(balance.balance);
    } catch (err) {
      await this.handleError(err);
      return;
    }
    this.applyQuick();
    window.addEventListener("hashchange", () => this.route());
    await this.route();
    this.el.dataset.ready = "1";
  }

  /** Demo mode (reelforge serve --demo): a play-money session; null when not offered.  Where
   *  the profile needs limits set before a session (ES), the player chooses them first. */
  async openDemo() {
    try {
      const terms = await this.api.get("/demo");
      const limits = terms.requires_session_limits ? await sessionLimitsDialog(terms) : null;
      const reply = await this.api.post("/demo/session", limits);
      sessionStorage.setItem(TOKEN_KEY, reply.token);
      sessionStorage.setItem(DEMO_KEY, "1");
      this.demo = true;
      return reply.token;
    } catch (err) {
      return null;
    }
  }

  showNoSession() {
    this.el.dataset.screen = "no-session";
    this.view.replaceChildren(h("div.page.center", { "data-testid": "no-session" },
      h("h1", t("No game session")),
      h("p", t("Open the games from your casino account to play.")),
      h("p.muted", t("Running locally? Start the server with ./run.sh (demo mode) and reload this page."))));
  }

  bindChrome() {
    document.getElementById("nav-back").addEventListener("click", () => {
      location.hash = this.el.dataset.screen === "game" ? "#/" : this.lastGame ? `#/game/${this.lastGame}` : "#/";
    });
    document.getElementById("btn-history").addEventListener("click", () => (location.hash = "#/history"));
    document.getElementById("btn-sound").addEventListener("click", () => this.toggleSound());
    this.bindVolume();
    document.addEventListener("keydown", (e) => this.onKey(e), true);
  }

  // -- routing -----------------------------------------------------------------------------

  async route() {
    if (this.ended) return;
    const parts = location.hash.replace(/^#\/?/, "").split("/").filter(Boolean).map(decodeURIComponent);
    this.screen?.destroy?.();
    this.screen = null;
    this.view.onKey = null;
    const back = document.getElementById("nav-back");
    const title = document.getElementById("screen-title");
    title.textContent = "";
    this.scrollToTop();
    try {
      if (parts[0] === "game" && this.gamesById[parts[1]]) {
        const game = this.gamesById[parts[1]];
        this.lastGame = game.id;
        sessionStorage.setItem("reelforge.lastGame", game.id);
        this.setScreen("game", game.name, true);
        this.screen = new GameScreen(this, game);
        await this.screen.mount(this.view);
      } else if (parts[0] === "history" && parts[1]) {
        this.setScreen("recall", t("Game record"), true);
        await renderRecall(this, this.view, Number(parts[1]));
      } else if (parts[0] === "history") {
        this.setScreen("history", t("History"), true);
        await renderHistory(this, this.view);
      } else if (parts[0] === "replay" && parts[1]) {
        this.setScreen("replay", t("Replay"), true);
        await renderReplay(this, this.view, Number(parts[1]));
      } else {
        this.setScreen("lobby", "", false);
        await renderLobby(this, this.view);
      }
    } catch (err) {
      await this.handleError(err);
    }
    back.hidden = this.el.dataset.screen === "lobby";
    this.scrollToTop(); // again: content that loaded late (history pages) keeps no offset
  }

  /** Every screen opens at its top: no scroll offset carried over from the last one. */
  scrollToTop() {
    this.view.scrollTop = 0;
    this.view.scrollLeft = 0;
    if (document.scrollingElement) document.scrollingElement.scrollTop = 0;
  }

  setScreen(name, title, showBack) {
    this.el.dataset.screen = name;
    document.getElementById("screen-title").textContent = title;
    document.getElementById("nav-back").hidden = !showBack;
    document.title = title ? `${title} · reelforge` : "reelforge";
  }

  // -- top bar -----------------------------------------------------------------------------

  setBalance(minor) {
    this.balance = minor;
    document.getElementById("balance").textContent = formatMoney(minor, this.currency);
  }

  applySession(session) {
    this.session = session;
    this.el.dataset.profile = session.profile;
    this.protection.apply(session); // the clock and net position: every profile
  }

  async refreshSession() {
    try {
      this.applySession(await this.api.get("/session"));
    } catch (err) {
      await this.handleError(err);
    }
  }

  setQuick(on) {
    this.quick = on;
    localStorage.setItem("reelforge.quick", on ? "1" : "0");
    this.applyQuick();
  }

  applyQuick() {
    const timed = Boolean(this.session?.rules?.min_cycle_seconds);
    setSpeed(this.quick && !timed ? 0.4 : 1);
  }

  toggleSound() {
    this.sound.toggle();
    this.showSound();
    this.sound.play("click");
  }

  /** The sound button and the volume beside it (shown while sound is on), as remembered. */
  showSound() {
    const on = this.sound.enabled;
    const b = document.getElementById("btn-sound");
    b.setAttribute("aria-pressed", String(on));
    b.setAttribute("aria-label", on ? t("Sound on") : t("Sound off"));
    const v = document.getElementById("sound-volume");
    if (!v) return;
    const pct = Math.round(this.sound.volume * 100);
    v.hidden = !on;
    v.value = String(pct);
    v.setAttribute("aria-valuetext", `${pct}%`);
  }

  bindVolume() {
    const v = document.getElementById("sound-volume");
    this.showSound();
    if (!v) return;
    v.addEventListener("input", () => {
      this.sound.setVolume(Number(v.value) / 100);
      v.setAttribute("aria-valuetext", `${v.value}%`);
    });
    v.addEventListener("change", () => this.sound.play("click"));
  }

  // -- keyboard ----------------------------------------------------------------------------

  onKey(e) {
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    const target = e.target;
    if (target instanceof HTMLElement && target.closest("input, textarea, select")) return;
    if (topModal()) {
      if (e.key === "Escape" && dismissTopModal()) e.preventDefault();
      return; // the dialog's own buttons take Space and Enter
    }
    if (e.repeat && (e.key === " " || e.key === "Enter")) {
      e.preventDefault(); // holding Space does not play round after round
      return;
    }
    let used = false;
    if (this.screen?.onKey) used = this.screen.onKey(e);
    else if (this.view.onKey) used = this.view.onKey(e);
    if (!used) {
      if (e.key === "h" || e.key === "H") {
        location.hash = "#/history";
        used = true;
      } else if (e.key === "m" || e.key === "M") {
        this.toggleSound();
        used = true;
      } else if (e.key === "Escape" && this.el.dataset.screen !== "lobby" && this.el.dataset.screen !== "game") {
        location.hash = this.lastGame ? `#/game/${this.lastGame}` : "#/";
        used = true;
      }
    }
    if (used) e.preventDefault();
  }

  // -- errors ------------------------------------------------------------------------------

  /** A clear message for an error; `screen` is the game screen when it came from play. */
  async handleError(err, screen = null) {
    if (this.ended) return; // the session-ended dialog is the last word
    if (!(err instanceof ApiError)) {
      console.error("reelforge: unexpected error", err); // a bug in the client
      await modal({
        title: t("Something went wrong"),
        body: h("p", t("The game could not go on. Reload the page: a game in play is restored where it stopped.")),
        testid: "error-generic",
        buttons: [{ label: t("Reload"), primary: true, onclick: () => location.reload() }],
      });
      return;
    }
    this.sound.play("error");
    const fmt = (v) => formatMoney(v, this.currency);
    switch (err.code) {
      case "insufficient_funds": {
        try {
          const b = await this.api.get("/balance");
          this.setBalance(b.balance);
        } catch (e) {
          /* the message below is still right */
        }
        const stake = screen ? screen.level.stake : null;
        const canLower = screen && screen.game.bet_levels.some((l) => l.stake <= this.balance);
        const short = stake
          ? t("Your balance of {balance} does not cover a bet of {stake}.", { balance: fmt(this.balance), stake: fmt(stake) })
          : t("Your balance of {balance} does not cover this bet.", { balance: fmt(this.balance) });
        await modal({
          title: t("Insufficient balance"),
          body: h("p", `${short} ` +
            (canLower ? t("Choose a lower bet, or add funds at your casino.") : t("Add funds at your casino to keep playing."))),
          testid: "error-insufficient-funds",
          buttons: canLower
            ? [{ label: t("OK"), value: false }, { label: t("Lower my bet"), value: true, primary: true, testid: "lower-bet" }]
            : [{ label: t("OK"), value: false, primary: true }],
        }).then((lower) => lower && screen.fitBet(this.balance));
        return;
      }
      case "session_expired":
      case "invalid_token":
      case "unauthorized":
        this.sessionEnded(err.code === "session_expired" ? t("Your session has expired.") : t("Your session is no longer valid."));
        return;
      case "session_closed":
        this.sessionEnded(/^the session is closed: /.test(err.message)
          ? this.closedText(err.message.replace(/^the session is closed: /, ""))
          : err.message + ".");
        return;
      case "spend_limit":
        await modal({ title: t("Spend limit"), body: h("p", t("This bet could take you past your session's spend limit. Choose a lower bet.")), testid: "error-spend-limit", buttons: [{ label: t("OK"), primary: true }] });
        return;
      case "autoplay_forbidden":
        await modal({ title: t("Autoplay unavailable"), body: h("p", t("Autoplay is not allowed in your jurisdiction.")), testid: "error-autoplay", buttons: [{ label: t("OK"), primary: true }] });
        return;
      case "autoplay_running":
        await modal({ title: t("Autoplay is running"), body: h("p", t("Stop the autoplay before playing by hand.")), testid: "error-autoplay-running", buttons: [{ label: t("OK"), primary: true }] });
        return;
      default:
        await modal({
          title: t("Something went wrong"),
          body: h("div", h("p", ERROR_TEXT[err.code] ? t(ERROR_TEXT[err.code]) : err.message), h("p.muted", `(${err.code})`)),
          testid: "error-generic",
          buttons: [{ label: t("OK"), primary: true }],
        });
    }
  }

  /** The session cannot be used any more: say so, and stop everything. */
  sessionEnded(text) {
    if (this.ended) return;
    this.ended = true;
    this.screen?.destroy?.();
    this.el.dataset.ended = "1";
    const buttons = this.demo
      ? [{ label: t("Start a new demo session"), primary: true, testid: "new-demo", onclick: () => {
        sessionStorage.removeItem(TOKEN_KEY);
        location.reload();
      } }]
      : [];
    modal({
      title: t("Session ended"),
      body: h("div", h("p", { "data-testid": "session-message" }, text),
        h("p", this.demo ? t("Start a new demo session to keep playing.") : t("To keep playing, open the game again from your casino. A game in play is kept and restored when you come back."))),
      testid: "error-session",
      dismissable: false,
      buttons,
    });
  }

  sessionClosed(reason) {
    this.sessionEnded(this.closedText(reason));
  }

  /** "Your session is closed: time limit reached.", the server's reason translated. */
  closedText(reason) {
    return t("Your session is closed: {reason}.", { reason: CLOSE_REASONS.includes(reason) ? t(reason) : reason });
  }

  // -- lost connection ---------------------------------------------------------------------

  /** Resolves when the request should be sent again (same Idempotency-Key). */
  connectionLost({ attempt }) {
    if (!this.retryGate) {
      let resolveGate;
      const gate = new Promise((r) => (resolveGate = r));
      const delay = [3, 5, 10, 15][Math.min(attempt - 1, 3)];
      const counter = h("span", { "data-testid": "retry-countdown" }, String(delay));
      let left = delay;
      const timer = setInterval(() => {
        left -= 1;
        counter.textContent = String(Math.max(0, left));
        if (left <= 0) release();
      }, 1000);
      const release = () => {
        clearInterval(timer);
        this.retryGate = null;
        dialog.close(true);
        resolveGate();
      };
      const dialog = modal({
        title: t("Connection lost"),
        body: h("div", h("p", t("The game server cannot be reached. Your game is safe: nothing is played twice, and it goes on where it stopped.")),
          // The countdown is a live element: the sentence is split where its number goes.
          h("p.muted", t("Trying again in {seconds} s…").split("{seconds}").flatMap((part, i) => (i ? [counter, part] : [part])))),
        testid: "connection-lost",
        dismissable: false,
        buttons: [{ label: t("Retry now"), primary: true, testid: "retry", onclick: () => release() }],
      });
      this.retryGate = gate;
    }
    return this.retryGate;
  }

  connectionBack() {
    /* the dialog closed when the retry was released */
  }
}

const app = new App();
window.reelforge = app; // for debugging in the console
app.boot();
