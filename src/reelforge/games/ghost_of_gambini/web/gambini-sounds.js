// Ghost of Gambini's sound set: a haunted parlour.  A theremin's wavering glide, organ chords
// for the wins and the feature intro, a ghostly whoosh when the ghost moves, and coin clinks for
// the ghost's coins and the Lock & Spin coins.  Played by the shared synth (js/sound.js); cues
// it leaves out come from the default set.  Loaded in the background once sound is on.

import { midi } from "../../sound.js";

/** A theremin: a sine that slides and wavers. */
function theremin(s, t, from, to, { gain = 0.06, dur = 0.6 } = {}) {
  s.tone(t, { f: midi(from), f2: midi(to), glide: dur * 0.7, type: "sine", gain, a: 0.06, r: dur * 0.5, dur, vib: { rate: 6, depth: 9 }, curve: "lin" });
}

/** A coin clink: two bright, slightly detuned partials. */
function clink(s, t, { gain = 0.06, pitch = 0, pan = 0 } = {}) {
  const f = 2400 * 2 ** (pitch / 12);
  s.tone(t, { f, type: "sine", gain, a: 0.001, dur: 0.12, pan });
  s.tone(t, { f: f * 1.51, type: "sine", gain: gain * 0.6, a: 0.001, dur: 0.2, pan });
  s.tone(t + 0.045, { f: f * 1.02, type: "sine", gain: gain * 0.7, a: 0.001, dur: 0.28, pan });
}

function whoosh(s, t, { gain = 0.07, dur = 0.45 } = {}) {
  s.noise(t, { dur, gain, a: dur * 0.4, r: dur * 0.55, curve: "lin", filter: { type: "bandpass", f: 400, f2: 2400, q: 2.5 } });
}

export default {
  name: "ghost-of-gambini",
  cues: {
    click: (s, t) => s.tone(t, { f: 900, type: "sine", gain: 0.05, dur: 0.05, vib: { rate: 20, depth: 30 } }),
    spin: (s, t) => {
      whoosh(s, t, { gain: 0.06, dur: 0.4 });
      theremin(s, t, 57, 64, { gain: 0.035, dur: 0.45 });
    },
    stop: (s, t) => {
      // A muffled thud of a cabinet drawer.
      s.tone(t, { f: 120, f2: 70, type: "sine", gain: 0.12, a: 0.002, dur: 0.1 });
      s.noise(t, { dur: 0.04, gain: 0.03, a: 0.001, filter: { type: "lowpass", f: 900 } });
    },
    anticipate: (s, t) => theremin(s, t, 60, 72, { gain: 0.07, dur: 0.9 }),
    "win-small": (s, t) => s.organ(t, [57, 64, 69], { gain: 0.035, dur: 0.5 }),
    "win-medium": (s, t) => {
      s.organ(t, [57, 64, 69], { gain: 0.035, dur: 0.4 });
      s.organ(t + 0.35, [60, 67, 72], { gain: 0.035, dur: 0.7 });
      clink(s, t + 0.3, { gain: 0.04 });
    },
    "win-big": (s, t) => {
      // A grand minor cadence on the organ, coins spilling.
      s.organ(t, [45, 57, 60, 64], { gain: 0.03, dur: 0.5 });
      s.organ(t + 0.45, [44, 56, 59, 64], { gain: 0.03, dur: 0.5 });
      s.organ(t + 0.9, [45, 57, 61, 64, 69], { gain: 0.03, dur: 1.4 });
      for (let k = 0; k < 6; k++) clink(s, t + 0.9 + k * 0.09, { gain: 0.035, pitch: (k * 5) % 7, pan: k % 2 ? 0.4 : -0.4 });
    },
    "win-mega": (s, t) => {
      s.organ(t, [45, 57, 60, 64], { gain: 0.028, dur: 0.45 });
      s.organ(t + 0.4, [41, 53, 57, 60], { gain: 0.028, dur: 0.45 });
      s.organ(t + 0.8, [44, 56, 59, 64], { gain: 0.028, dur: 0.45 });
      s.organ(t + 1.2, [45, 57, 61, 64, 69], { gain: 0.028, dur: 1.8 });
      theremin(s, t + 1.2, 69, 81, { gain: 0.04, dur: 1.6 });
      for (let k = 0; k < 12; k++) clink(s, t + 1.2 + k * 0.08, { gain: 0.03, pitch: (k * 7) % 9, pan: (k % 3) * 0.4 - 0.4 });
    },
    feature: (s, t) => {
      // The ghost arrives: a rising whoosh, a theremin wail, a diminished organ chord.
      whoosh(s, t, { gain: 0.08, dur: 0.7 });
      theremin(s, t + 0.2, 62, 74, { gain: 0.06, dur: 1.2 });
      s.organ(t + 0.35, [50, 56, 59, 62, 65], { gain: 0.025, dur: 1.3 });
    },
    pick: (s, t) => clink(s, t, { gain: 0.05 }),
    diamond: (s, t) => {
      clink(s, t, { gain: 0.05 });
      clink(s, t + 0.09, { gain: 0.045, pitch: 5 });
    },
    coin: (s, t) => clink(s, t, { gain: 0.06, pitch: Math.floor(Math.random() * 4) }),
    collect: (s, t) => {
      whoosh(s, t, { gain: 0.04, dur: 0.25 });
      clink(s, t + 0.12, { gain: 0.05, pitch: 3 });
    },
    whoosh: (s, t) => whoosh(s, t),
    crack: (s, t) => theremin(s, t, 64, 52, { gain: 0.05, dur: 0.5 }),
    tick: (s, t) => clink(s, t, { gain: 0.03, pitch: 7 }),
  },
};
