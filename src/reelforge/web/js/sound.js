// Sound effects synthesised with Web Audio (no audio files): the shared synth engine, the
// default sound set (data-only games such as Golden Scarab, and the generic renderer) and the
// player's choice (on/off and the volume, remembered in localStorage).
//
// * Off until the player turns it on.  The AudioContext is created only on a user gesture: the
//   sound button, M, or (when the player left it on last time) the first press or key of a
//   visit.  Until then every cue is logged as not played.
// * A game's own sound set (`games/<pkg>/web/<game>-sounds.js`, served at js/games/<id>/) is
//   named by its renderer module (`export const sounds = () => import("./…-sounds.js")`) and
//   loaded in the background once sound is on; until it is there the default set plays.
//   Nothing on the play path awaits sound, and any failure in audio is swallowed.
// * Cue names (what the client asks for): spin, stop (a reel lands), anticipate, win (tiered
//   here into win-small / win-medium by the round's multiple), bigwin (win-big / win-mega by
//   the tier), feature (a feature's intro), pick, diamond / crack (a pick's good / bad
//   reveal), wheel (a wheel's spin with its ratchet) and wheel-stop, ladder-step, coin (a coin
//   lands), collect, nudge, hold, disco, tick, click and error.  A set plays what it defines
//   and leaves the rest to the default set.

const LOG_SIZE = 200;
const ON_KEY = "reelforge.sound";
const VOLUME_KEY = "reelforge.volume";
const DEFAULT_VOLUME = 0.7;
const MEDIUM_X = 5; // a win of 5x the stake or more (below the game's Big tier) is "medium"
const MIN_GAP = 0.025; // seconds: the same cue asked for again sooner is not played twice

/** A MIDI note number as a frequency (69 = A4 = 440 Hz). */
export function midi(n) {
  return 440 * 2 ** ((n - 69) / 12);
}

/**
 * The synth each cue is played with: `s.tone`, `s.noise`, `s.bell`, `s.pluck`, `s.chip`,
 * `s.organ`, `s.arp`, `s.midi`.  Times are AudioContext seconds; every voice has an attack and
 * a release ramp (no clicks) and goes through the master gain.
 */
class Synth {
  constructor(ctx, out) {
    this.ctx = ctx;
    this.out = out;
    this.noiseBuf = null;
    this.midi = midi;
  }

  /** A gain node with a click-free envelope: 0 -> peak in `a`, held to `dur - r`, 0 by `dur`. */
  env(t, { gain = 0.2, a = 0.006, dur = 0.2, r = null, curve = "exp" }) {
    const g = this.ctx.createGain();
    const rel = r ?? dur * 0.8;
    const p = g.gain;
    p.setValueAtTime(0.0001, t);
    p.linearRampToValueAtTime(gain, t + a);
    const holdTo = Math.max(t + a, t + dur - rel);
    if (holdTo > t + a) p.setValueAtTime(gain, holdTo);
    if (curve === "exp") p.exponentialRampToValueAtTime(0.0001, t + dur);
    else p.linearRampToValueAtTime(0.0001, t + dur);
    return g;
  }

  /** Where a voice goes: through an optional filter and pan, to the master gain. */
  route(node, t, { filter = null, pan = 0 }) {
    let last = node;
    if (filter) {
      const f = this.ctx.createBiquadFilter();
      f.type = filter.type || "lowpass";
      f.frequency.setValueAtTime(filter.f, t);
      if (filter.f2) f.frequency.exponentialRampToValueAtTime(filter.f2, t + (filter.dur || 0.2));
      f.Q.value = filter.q ?? 0.8;
      last.connect(f);
      last = f;
    }
    if (pan && this.ctx.createStereoPanner) {
      const p = this.ctx.createStereoPanner();
      p.pan.value = pan;
      last.connect(p);
      last = p;
    }
    last.connect(this.out);
  }

  /**
   * One oscillator: `f` (Hz), gliding to `f2`; `type`; `gain`, `a`, `r`, `dur`; `vib`
   * ({rate, depth} in Hz); `detune` (cents); `filter`; `pan`.
   */
  tone(t, { f, f2 = null, type = "sine", dur = 0.2, vib = null, detune = 0, glide = null, ...o }) {
    const osc = this.ctx.createOscillator();
    osc.type = type;
    osc.frequency.setValueAtTime(f, t);
    if (f2) osc.frequency.exponentialRampToValueAtTime(f2, t + (glide ?? dur));
    if (detune) osc.detune.value = detune;
    if (vib) {
      const lfo = this.ctx.createOscillator();
      const depth = this.ctx.createGain();
      lfo.frequency.value = vib.rate;
      depth.gain.value = vib.depth;
      lfo.connect(depth).connect(osc.frequency);
      lfo.start(t);
      lfo.stop(t + dur + 0.05);
    }
    const g = this.env(t, { dur, ...o });
    osc.connect(g);
    this.route(g, t, o);
    osc.start(t);
    osc.stop(t + dur + 0.05);
  }

  /** One second of white noise, made once. */
  noiseBuffer() {
    if (!this.noiseBuf) {
      const len = Math.floor(this.ctx.sampleRate * 1.0);
      this.noiseBuf = this.ctx.createBuffer(1, len, this.ctx.sampleRate);
      const data = this.noiseBuf.getChannelData(0);
      for (let i = 0; i < len; i++) data[i] = Math.random() * 2 - 1;
    }
    return this.noiseBuf;
  }

  /** Filtered white noise: whooshes, rumbles, coin shimmer. */
  noise(t, { dur = 0.2, filter = { type: "bandpass", f: 1200, q: 1 }, ...o }) {
    const src = this.ctx.createBufferSource();
    src.buffer = this.noiseBuffer();
    src.loop = true;
    const g = this.env(t, { dur, ...o });
    src.connect(g);
    this.route(g, t, { ...o, filter: { dur, ...filter } });
    src.start(t, Math.random() * 0.5);
    src.stop(t + dur + 0.05);
  }

  /** A bell: inharmonic partials, the high ones dying first. */
  bell(t, f, { gain = 0.12, dur = 1.2, pan = 0 } = {}) {
    for (const [ratio, level, life] of [[1, 1, 1], [2.76, 0.4, 0.55], [5.4, 0.2, 0.3]]) {
      this.tone(t, { f: f * ratio, type: "sine", gain: gain * level, a: 0.003, dur: dur * life, pan });
    }
  }

  /** A harp-like pluck: a bright attack through a closing low-pass filter. */
  pluck(t, f, { gain = 0.14, dur = 0.6, pan = 0 } = {}) {
    this.tone(t, { f, type: "triangle", gain, a: 0.004, dur, pan, filter: { type: "lowpass", f: f * 8, f2: f * 1.5, dur: dur * 0.6 } });
  }

  /** A chiptune square bleep (arcade cabinet). */
  chip(t, f, { gain = 0.07, dur = 0.08, type = "square", f2 = null, pan = 0 } = {}) {
    this.tone(t, { f, f2, type, gain, a: 0.003, r: Math.min(0.03, dur / 2), dur, curve: "lin", pan });
  }

  /**
   * An organ chord: two drawbars (the note and its octave) per note under one swell, and one
   * vibrato (in cents) shared by the whole chord.
   */
  organ(t, notes, { gain = 0.05, dur = 0.8, vib = 14 } = {}) {
    const g = this.env(t, { gain, a: 0.05, r: dur * 0.5, dur, curve: "lin" });
    this.route(g, t, {});
    let lfo = null;
    let depth = null;
    if (vib) {
      lfo = this.ctx.createOscillator();
      depth = this.ctx.createGain();
      lfo.frequency.value = 5.5;
      depth.gain.value = vib;
      lfo.connect(depth);
      lfo.start(t);
      lfo.stop(t + dur + 0.05);
    }
    for (const n of notes) {
      for (const [mult, type, level] of [[1, "triangle", 1], [2, "sine", 0.5]]) {
        const osc = this.ctx.createOscillator();
        osc.type = type;
        osc.frequency.value = midi(n) * mult;
        if (depth) depth.connect(osc.detune);
        let out = osc;
        if (level !== 1) {
          const lv = this.ctx.createGain();
          lv.gain.value = level;
          out = osc.connect(lv);
        }
        out.connect(g);
        osc.start(t);
        osc.stop(t + dur + 0.05);
      }
    }
  }

  /** Notes one after another: `voice(time, midiNote, i)` every `step` seconds. */
  arp(t, notes, step, voice) {
    notes.forEach((n, i) => n !== null && voice(t + i * step, n, i));
  }
}

// -- the default set (Golden Scarab and any game without a set of its own) ----------------------

const DEFAULT_CUES = {
  click: (s, t) => s.tone(t, { f: 1200, type: "triangle", gain: 0.06, dur: 0.04 }),
  error: (s, t) => {
    s.tone(t, { f: 220, type: "square", gain: 0.05, dur: 0.14, filter: { type: "lowpass", f: 1400 } });
    s.tone(t + 0.13, { f: 165, type: "square", gain: 0.05, dur: 0.22, filter: { type: "lowpass", f: 1200 } });
  },
  spin: (s, t) => {
    s.noise(t, { dur: 0.35, gain: 0.06, a: 0.04, filter: { type: "bandpass", f: 600, f2: 2200, q: 1.2 } });
    s.tone(t, { f: 180, f2: 320, type: "triangle", gain: 0.06, dur: 0.25 });
  },
  stop: (s, t) => {
    s.tone(t, { f: 150, f2: 90, type: "sine", gain: 0.16, a: 0.002, dur: 0.12 });
    s.noise(t, { dur: 0.05, gain: 0.05, a: 0.001, filter: { type: "bandpass", f: 2500, q: 2 } });
  },
  anticipate: (s, t) => s.arp(t, [64, 67, 71, 74], 0.09, (tt, n) => s.tone(tt, { f: midi(n), type: "sine", gain: 0.06, dur: 0.16, vib: { rate: 7, depth: 4 } })),
  "win-small": (s, t) => s.arp(t, [72, 76, 79], 0.08, (tt, n) => s.tone(tt, { f: midi(n), type: "triangle", gain: 0.1, dur: 0.22 })),
  "win-medium": (s, t) => s.arp(t, [72, 76, 79, 84, 79, 84], 0.08, (tt, n) => s.tone(tt, { f: midi(n), type: "triangle", gain: 0.1, dur: 0.25 })),
  "win-big": (s, t) => {
    s.arp(t, [60, 64, 67, 72, 76, 79, 84], 0.07, (tt, n) => s.tone(tt, { f: midi(n), type: "square", gain: 0.045, dur: 0.2, filter: { type: "lowpass", f: 3000 } }));
    [72, 76, 79].forEach((n) => s.tone(t + 0.5, { f: midi(n), type: "triangle", gain: 0.07, dur: 0.9, r: 0.6 }));
  },
  "win-mega": (s, t) => {
    for (let k = 0; k < 3; k++) {
      s.arp(t + k * 0.45, [60 + k * 2, 64 + k * 2, 67 + k * 2, 72 + k * 2], 0.07, (tt, n) => s.tone(tt, { f: midi(n), type: "square", gain: 0.04, dur: 0.18, filter: { type: "lowpass", f: 3200 } }));
    }
    [76, 79, 84, 88].forEach((n) => s.tone(t + 1.35, { f: midi(n), type: "triangle", gain: 0.06, dur: 1.4, r: 1.0, vib: { rate: 6, depth: 3 } }));
  },
  feature: (s, t) => s.arp(t, [67, 72, 76, 79], 0.11, (tt, n, i) => s.tone(tt, { f: midi(n), type: "triangle", gain: 0.1, dur: i === 3 ? 0.5 : 0.18 })),
  pick: (s, t) => s.tone(t, { f: 700, f2: 1100, type: "sine", gain: 0.08, dur: 0.08 }),
  diamond: (s, t) => {
    s.tone(t, { f: 1319, type: "sine", gain: 0.1, dur: 0.12 });
    s.tone(t + 0.07, { f: 1760, type: "sine", gain: 0.09, dur: 0.35 });
  },
  crack: (s, t) => s.noise(t, { dur: 0.18, gain: 0.12, a: 0.002, filter: { type: "lowpass", f: 900, f2: 200, q: 0.7 } }),
  wheel: (s, t, o) => ratchet(s, t, o, { f: 3000, q: 2, gain: 0.07, tone: 1500 }),
  "wheel-stop": (s, t) => {
    s.tone(t, { f: 330, type: "triangle", gain: 0.1, dur: 0.12 });
    s.tone(t + 0.1, { f: 494, type: "triangle", gain: 0.1, dur: 0.4 });
  },
  "ladder-step": (s, t) => s.tone(t, { f: 523, f2: 784, type: "triangle", gain: 0.09, dur: 0.14 }),
  coin: (s, t) => {
    s.tone(t, { f: 2093, type: "sine", gain: 0.07, a: 0.002, dur: 0.1 });
    s.tone(t + 0.05, { f: 2637, type: "sine", gain: 0.06, a: 0.002, dur: 0.25 });
  },
  collect: (s, t) => s.arp(t, [79, 84], 0.06, (tt, n) => s.tone(tt, { f: midi(n), type: "sine", gain: 0.08, dur: 0.18 })),
  nudge: (s, t) => s.tone(t, { f: 440, f2: 392, type: "square", gain: 0.04, dur: 0.07, filter: { type: "lowpass", f: 2000 } }),
  hold: (s, t) => s.tone(t, { f: 660, type: "square", gain: 0.04, dur: 0.06, filter: { type: "lowpass", f: 2400 } }),
  disco: (s, t) => s.arp(t, [72, 76, 79, 76, 72, 79], 0.1, (tt, n) => s.tone(tt, { f: midi(n), type: "square", gain: 0.04, dur: 0.09 })),
  "disco-tick": (s, t) => s.tone(t, { f: 988, type: "square", gain: 0.03, dur: 0.04 }),
  tick: (s, t) => s.tone(t, { f: 880, type: "triangle", gain: 0.05, dur: 0.035 }),
};

/**
 * A wheel's ratchet: clicks that slow down over the spin (`o.ms`, default 3 s, after
 * `o.delay` ms, default 250), as one voice: filtered noise (`f`, `q`) gated by a train of
 * short pulses on a single gain, plus an optional pitched `tone` (Hz) gated the same way.
 * Scheduled in audio time at once: a handful of nodes, however many clicks.
 */
export function ratchet(s, t, o = {}, { f = 2200, q = 3, gain = 0.08, tone = 0, clicks = 40 } = {}) {
  const ms = Math.max(0, Number(o.ms ?? 3000));
  if (ms < 16) return;
  const start = t + Math.max(0, Number(o.delay ?? 250)) / 1000;
  const dur = ms / 1000;
  const times = [];
  // The wheel eases out (fast, then slow): a click every 1/clicks of the turn.
  for (let k = 0; k < clicks; k++) times.push(start + dur * (1 - Math.cbrt(1 - k / clicks)));
  const voice = (src, level) => {
    const g = s.ctx.createGain();
    g.gain.setValueAtTime(0, t);
    for (const at of times) {
      g.gain.setValueAtTime(0, at);
      g.gain.linearRampToValueAtTime(level, at + 0.002);
      g.gain.linearRampToValueAtTime(0, at + 0.018);
    }
    src.connect(g);
    return g;
  };
  const end = start + dur + 0.1;
  const noise = s.ctx.createBufferSource();
  noise.buffer = s.noiseBuffer();
  noise.loop = true;
  const bp = s.ctx.createBiquadFilter();
  bp.type = "bandpass";
  bp.frequency.value = f;
  bp.Q.value = q;
  noise.connect(bp);
  voice(bp, gain).connect(s.out);
  noise.start(t);
  noise.stop(end);
  if (tone) {
    const osc = s.ctx.createOscillator();
    osc.type = "triangle";
    osc.frequency.value = tone;
    voice(osc, gain * 0.4).connect(s.out);
    osc.start(t);
    osc.stop(end);
  }
}

export const DEFAULT_SET = { name: "default", cues: DEFAULT_CUES };

// -- the player's sound --------------------------------------------------------------------------

function stored(key) {
  try {
    return localStorage.getItem(key);
  } catch (e) {
    return null;
  }
}

function store(key, value) {
  try {
    localStorage.setItem(key, value);
  } catch (e) {
    /* private mode: the choice lasts this visit */
  }
}

export class Sound {
  constructor() {
    this.enabled = stored(ON_KEY) === "1"; // off unless the player turned it on before
    const v = Number(stored(VOLUME_KEY));
    this.volume = stored(VOLUME_KEY) !== null && Number.isFinite(v) ? Math.min(1, Math.max(0, v)) : DEFAULT_VOLUME;
    this.ctx = null;
    this.master = null;
    this.synth = null;
    this.set = DEFAULT_SET;
    this.gameId = null;
    this.loader = null;
    this.sets = new Map(); // game id -> its loaded set
    this.last = new Map(); // cue -> when it last played
    if (typeof window !== "undefined") {
      window.__reelforgeAudio = {
        state: () => this.state(),
        log: [],
      };
      if (this.enabled) this.awaitGesture();
    }
  }

  /** Remembered on: the AudioContext starts at the visit's first press or key. */
  awaitGesture() {
    const start = () => {
      window.removeEventListener("pointerdown", start, true);
      window.removeEventListener("keydown", start, true);
      if (this.enabled) this.open();
    };
    window.addEventListener("pointerdown", start, true);
    window.addEventListener("keydown", start, true);
  }

  /** What the tests read (window.__reelforgeAudio.state()). */
  state() {
    return {
      enabled: this.enabled,
      volume: this.volume,
      context: this.ctx ? this.ctx.state : null,
      gain: this.master ? this.master.gain.value : null,
      target: this.target(),
      set: this.set.name,
      game: this.gameId,
      cues: Object.keys(this.set.cues),
    };
  }

  target() {
    return this.enabled ? this.volume * this.volume : 0; // a perceptual curve
  }

  /** Create (or wake) the AudioContext: only ever called from a user gesture. */
  open() {
    try {
      if (!this.ctx) {
        const AC = window.AudioContext || window.webkitAudioContext;
        if (!AC) return;
        this.ctx = new AC();
        const comp = this.ctx.createDynamicsCompressor(); // a safety net against loud stacks
        comp.threshold.value = -10;
        comp.ratio.value = 4;
        this.master = this.ctx.createGain();
        this.master.gain.value = 0;
        this.master.connect(comp).connect(this.ctx.destination);
        this.synth = new Synth(this.ctx, this.master);
        this.synth.noiseBuffer(); // made now, on the gesture, not in a round
      }
      if (this.ctx.state === "suspended") this.ctx.resume().catch(() => {});
      this.applyVolume();
      this.load();
    } catch (e) {
      this.ctx = null; // no audio on this device: play goes on silently
      this.master = null;
    }
  }

  toggle() {
    return this.setEnabled(!this.enabled);
  }

  setEnabled(on) {
    this.enabled = Boolean(on);
    store(ON_KEY, this.enabled ? "1" : "0");
    if (this.enabled) this.open();
    else this.applyVolume();
    return this.enabled;
  }

  /** The volume, 0..1 (remembered); the master gain follows it with a short ramp. */
  setVolume(v) {
    const n = Number(v);
    if (!Number.isFinite(n)) return;
    this.volume = Math.min(1, Math.max(0, n));
    store(VOLUME_KEY, String(this.volume));
    this.applyVolume();
  }

  applyVolume() {
    if (!this.master) return;
    try {
      const p = this.master.gain;
      const now = this.ctx.currentTime;
      p.cancelScheduledValues(now);
      p.setValueAtTime(p.value, now);
      p.linearRampToValueAtTime(this.target(), now + 0.05);
    } catch (e) {
      /* ignored: audio never breaks play */
    }
  }

  /**
   * The game now shown: its renderer module's `sounds` loader (a function returning the set's
   * module), or none (the default set).  Loading happens in the background once sound is on.
   */
  useGame(id, loader = null) {
    this.gameId = id ?? null;
    this.loader = typeof loader === "function" ? loader : null;
    this.set = this.sets.get(this.gameId) || DEFAULT_SET;
    if (this.enabled && this.ctx) this.load();
  }

  load() {
    const id = this.gameId;
    const loader = this.loader;
    if (!loader || this.sets.has(id)) return;
    this.sets.set(id, DEFAULT_SET); // once per game, whatever comes of it
    try {
      Promise.resolve(loader())
        .then((mod) => {
          const set = mod?.default;
          if (!set?.cues) return;
          this.sets.set(id, set);
          if (this.gameId === id) this.set = set;
        })
        .catch(() => {});
    } catch (e) {
      /* ignored: the default set plays */
    }
  }

  /** The cue a name stands for: win and bigwin by their tier (opts.x: the win's multiple). */
  resolve(name, opts) {
    if (name === "win") return (opts.x ?? 0) >= MEDIUM_X ? "win-medium" : "win-small";
    if (name === "bigwin") {
      const tier = opts.tier || ((opts.x ?? 0) >= (opts.tiers?.mega ?? 40) ? "mega" : "big");
      return tier === "big" ? "win-big" : "win-mega";
    }
    return name;
  }

  /**
   * Ask for a sound.  Never throws, never waits: with sound off (or no audio) it is only
   * logged.  `opts`: {x, tiers, tier} for wins, {ms, delay} for a wheel.
   */
  play(name, opts = {}) {
    let cue = name;
    let played = false;
    let own = false;
    try {
      cue = this.resolve(name, opts || {});
      if (this.enabled && this.ctx && this.synth && this.ctx.state !== "closed") {
        own = Object.hasOwn(this.set.cues, cue);
        const fn = own ? this.set.cues[cue] : DEFAULT_CUES[cue];
        const now = this.ctx.currentTime;
        if (fn && !(now - (this.last.get(cue) ?? -1) < MIN_GAP)) {
          this.last.set(cue, now);
          if (this.ctx.state === "suspended") this.ctx.resume().catch(() => {});
          fn(this.synth, now + 0.01, opts || {});
          played = true;
        }
      }
    } catch (e) {
      played = false; // swallowed: a sound never breaks a round
    }
    if (typeof window !== "undefined") {
      // Every sound the client asks for, on or off, newest last (the last 200): the browser
      // tests read it to check which rounds were celebrated and which set played.
      const names = (window.__reelforgeSounds ||= []);
      names.push(name);
      if (names.length > LOG_SIZE) names.splice(0, names.length - LOG_SIZE);
      const log = window.__reelforgeAudio?.log;
      if (log) {
        log.push({ name, cue, set: this.set.name, own, played });
        if (log.length > LOG_SIZE) log.splice(0, log.length - LOG_SIZE);
      }
    }
  }
}

export const sound = new Sound();
