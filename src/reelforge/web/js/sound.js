// Sound effects synthesised with Web Audio (no audio files).  Off by default; the player
// turns it on (a user gesture, so the AudioContext may start).

const NOTES = {
  click: [[660, 0.03, "square", 0.05]],
  spin: [[220, 0.08, "sawtooth", 0.04], [260, 0.08, "sawtooth", 0.04]],
  stop: [[140, 0.06, "triangle", 0.12]],
  win: [[523, 0.1, "triangle", 0.1], [659, 0.1, "triangle", 0.1], [784, 0.18, "triangle", 0.1]],
  bigwin: [[523, 0.12, "square", 0.07], [659, 0.12, "square", 0.07], [784, 0.12, "square", 0.07], [1047, 0.35, "square", 0.07]],
  feature: [[392, 0.12, "triangle", 0.1], [523, 0.12, "triangle", 0.1], [659, 0.12, "triangle", 0.1], [784, 0.3, "triangle", 0.1]],
  tick: [[880, 0.025, "square", 0.04]],
  diamond: [[1319, 0.08, "sine", 0.12], [1760, 0.2, "sine", 0.1]],
  crack: [[110, 0.15, "sawtooth", 0.1]],
  error: [[200, 0.15, "square", 0.07], [150, 0.25, "square", 0.07]],
  anticipate: [[330, 0.1, "sine", 0.06], [392, 0.1, "sine", 0.06], [440, 0.1, "sine", 0.06], [494, 0.18, "sine", 0.06]],
};

// Every sound the client asks for, on or off, newest last (the last 200): the browser tests
// read it to check which rounds were celebrated.
const LOG_SIZE = 200;

export class Sound {
  constructor() {
    this.enabled = false;
    this.ctx = null;
  }

  toggle() {
    this.enabled = !this.enabled;
    if (this.enabled && !this.ctx) {
      const AC = window.AudioContext || window.webkitAudioContext;
      this.ctx = AC ? new AC() : null;
    }
    if (this.enabled) this.ctx?.resume?.();
    return this.enabled;
  }

  play(name) {
    if (typeof window !== "undefined") {
      const log = (window.__reelforgeSounds ||= []);
      log.push(name);
      if (log.length > LOG_SIZE) log.splice(0, log.length - LOG_SIZE);
    }
    if (!this.enabled || !this.ctx) return;
    const seq = NOTES[name];
    if (!seq) return;
    let t = this.ctx.currentTime;
    for (const [freq, dur, type, gain] of seq) {
      const osc = this.ctx.createOscillator();
      const amp = this.ctx.createGain();
      osc.type = type;
      osc.frequency.value = freq;
      amp.gain.setValueAtTime(gain, t);
      amp.gain.exponentialRampToValueAtTime(0.0001, t + dur);
      osc.connect(amp).connect(this.ctx.destination);
      osc.start(t);
      osc.stop(t + dur + 0.02);
      t += dur * 0.9;
    }
  }
}

export const sound = new Sound();
