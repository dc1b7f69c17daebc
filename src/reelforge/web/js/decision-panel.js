// The generic decision panel: whatever a pending round offers (round.actions), made playable
// with the mouse, touch and the keyboard.  A renderer may take over a decision with its own
// UI (Reign of Gnomes' Ice Diamonds stones), describe choices ("mask" for holds, labels for
// ladders and nudges), and label actions; everything else gets plain buttons.
//
// Keys: Space / Enter = the primary action (or the focused choice); 1-9 = the n-th button;
// arrow keys move between choices; a renderer's custom UI may add its own.

import { t, tk } from "./i18n.js";
import { h, titleCase } from "./ui.js";

// The games' action names (sent to the server as they are), in words for the player.
const ACTION_WORDS = {
  collect: tk("Collect"),
  collect_all: tk("Collect All"),
  done: tk("Done"),
  gamble: tk("Gamble"),
  hold: tk("Hold"),
  nudge: tk("Nudge"),
  pick: tk("Pick"),
  play: tk("Play"),
  spin: tk("Spin"),
  start: tk("Start"),
  stop: tk("Stop"),
};

/** An action's name in words: "collect_all" -> "Collect All" (an unknown one title-cased). */
export function actionWord(name) {
  return Object.hasOwn(ACTION_WORDS, name) ? t(ACTION_WORDS[name]) : titleCase(name);
}

/** Whether `hint` says nothing `prompt` does not (case and punctuation aside). */
function repeats(prompt, hint) {
  const words = (s) => String(s || "").toLocaleLowerCase().replace(/[^\p{L}\p{N}]+/gu, " ").trim();
  return Boolean(words(hint)) && words(prompt).includes(words(hint));
}

export class DecisionPanel {
  /**
   * @param {HTMLElement} host where the panel lives (over the bottom of the reels)
   * @param {object} renderer the game's renderer (optional hooks: decision, choiceStyle,
   *   choiceLabel, actionLabel, decisionPrompt)
   */
  constructor(host, renderer) {
    this.host = host;
    this.renderer = renderer;
    this.el = h("div.decision", { hidden: true, "data-testid": "decision-panel", role: "group", "aria-label": t("Your decision") });
    host.append(this.el);
    this.pending = null;
    this.customs = [];
    this.buttons = [];
  }

  get open() {
    return this.pending !== null;
  }

  /** Show the decisions of `round`; resolves with the chosen {name, choice}. */
  ask(round) {
    this.close();
    return new Promise((resolve) => {
      this.pending = resolve;
      this.build(round);
    });
  }

  choose(name, choice = null) {
    const resolve = this.pending;
    if (!resolve) return;
    this.close();
    resolve({ name, choice });
  }

  close() {
    for (const c of this.customs) c.destroy?.();
    this.customs = [];
    this.buttons = [];
    this.maskToggles = null;
    this.pending = null;
    this.el.hidden = true;
    this.el.replaceChildren();
    delete this.el.dataset.actions;
  }

  build(round) {
    const r = this.renderer;
    const prompt = r.decisionPrompt?.(round) || (round.actions.some((a) => a.needs_player) ? t("Your decision") : "");
    const body = h("div.decision__body");
    const rows = [];
    const hints = [];
    this.el.dataset.actions = round.actions.map((a) => a.name).join(" ");
    for (const spec of round.actions) {
      const custom = r.decision?.(spec, round, (choice) => this.choose(spec.name, choice));
      if (custom) {
        this.customs.push(custom);
        // A hint that only repeats the prompt is left out (never "Pick a stone / pick a stone").
        if (custom.prompt && !repeats(prompt, custom.prompt)) hints.push(h("p.decision__hint", custom.prompt));
        // How to do it with the keyboard: hidden on touch screens (css/access.css).
        if (custom.keyPrompt) hints.push(h("p.decision__hint.key-hint", custom.keyPrompt));
        if (spec.default !== null && spec.default !== undefined && custom.defaultLabel) {
          rows.push(this.button(custom.defaultLabel, () => this.choose(spec.name, spec.default), spec.name + "-default"));
        }
        continue;
      }
      if (!spec.choices) {
        rows.push(this.button(r.actionLabel?.(spec, round) || actionWord(spec.name),
          () => this.choose(spec.name, null), spec.name));
        continue;
      }
      const style = r.choiceStyle?.(spec, round) || { kind: "list" };
      if (style.kind === "mask") rows.push(this.maskChooser(spec, style));
      else rows.push(this.listChooser(spec, round));
    }
    body.append(...rows);
    const text = prompt || hints.length
      ? h("div.decision__text", prompt ? h("p.decision__prompt", { "data-testid": "decision-prompt" }, prompt) : null, hints)
      : null;
    this.el.replaceChildren(...[text, body].filter(Boolean));
    this.el.hidden = false;
    const primary = this.buttons[0];
    primary?.classList.add("is-primary");
  }

  button(label, onclick, name) {
    const i = this.buttons.length + 1;
    const b = h("button.btn.btn--decision", { type: "button", onclick, "data-action": name, "data-key": String(i) },
      h("span.btn__label", label), i <= 9 ? h("kbd.btn__key", { "aria-hidden": "true" }, i === 1 ? t("Space") : String(i)) : null);
    this.buttons.push(b);
    return b;
  }

  listChooser(spec, round) {
    // A group of buttons (each one chooses at once), not radio buttons.
    const wrap = h("div.choices", { role: "group", "aria-label": actionWord(spec.name) });
    for (const c of spec.choices) {
      const label = this.renderer.choiceLabel?.(spec, c, round) ?? t("{action} {choice}", { action: actionWord(spec.name), choice: c });
      const b = this.button(label, () => this.choose(spec.name, c), spec.name);
      b.dataset.choice = String(c);
      b.classList.add("btn--choice");
      wrap.append(b);
    }
    return wrap;
  }

  /** Toggles whose bits make the choice (holds): e.g. reels 1 and 3 held = 0b101. */
  maskChooser(spec, style) {
    let mask = spec.default ?? 0;
    const allowed = new Set(spec.choices);
    const toggles = style.labels.map((label, bit) => {
      const toggle = h("button.btn.btn--toggle", {
        type: "button", "aria-pressed": "false", "data-bit": String(bit),
        onclick: () => {
          const next = mask ^ (1 << bit);
          if (!allowed.has(next)) return; // e.g. holding every reel is not offered
          mask = next;
          sync();
        },
      }, h("span.btn__label", label), h("kbd.btn__key", { "aria-hidden": "true" }, String(bit + 1)));
      return toggle;
    });
    const sync = () => toggles.forEach((toggle, bit) => toggle.setAttribute("aria-pressed", String(Boolean(mask >> bit & 1))));
    sync();
    const confirm = h("button.btn.btn--decision.btn--gold", {
      type: "button", "data-action": spec.name, "data-confirm": "1",
      onclick: () => this.choose(spec.name, mask),
    }, h("span.btn__label", style.confirm || actionWord(spec.name)), h("kbd.btn__key", { "aria-hidden": "true" }, t("Space")));
    this.buttons.unshift(confirm);
    this.maskToggles = toggles;
    return h("div.mask", h("div.mask__toggles", toggles), confirm);
  }

  /** The primary decision (the Spin button): a custom UI's own `primary()`, else the first button. */
  primary() {
    for (const c of this.customs) if (c.primary?.()) return;
    this.buttons[0]?.click();
  }

  /** Keyboard; returns true when the key was used. */
  handleKey(e) {
    if (!this.open) return false;
    for (const c of this.customs) if (c.onKey?.(e)) return true;
    const focused = document.activeElement;
    if (e.key === " " || e.key === "Enter") {
      if (focused && this.el.contains(focused) && focused.tagName === "BUTTON") focused.click();
      else this.buttons[0]?.click();
      return true;
    }
    if (/^[1-9]$/.test(e.key)) {
      const n = Number(e.key);
      if (this.maskToggles?.length && n <= this.maskToggles.length) {
        this.maskToggles[n - 1].click();
        return true;
      }
      const b = this.buttons[n - 1];
      if (b) {
        b.click();
        return true;
      }
    }
    if (["ArrowLeft", "ArrowRight", "ArrowUp", "ArrowDown"].includes(e.key) && this.buttons.length) {
      const list = [...this.el.querySelectorAll("button")];
      const i = list.indexOf(focused);
      const delta = e.key === "ArrowLeft" || e.key === "ArrowUp" ? -1 : 1;
      list[(i + delta + list.length) % list.length].focus();
      return true;
    }
    return false;
  }
}
