// Reign of Gnomes' sound set: a fairy-tale court.  Harp-like plucks for the reels and small
// wins, bells for the big ones, a dragon's rumble under the feature intro, a wooden ratchet on
// the Golden Wheel, ice for the Ice Diamonds stones.  Played by the shared synth (js/sound.js);
// cues it leaves out come from the default set.  Loaded in the background once sound is on.

import { midi, ratchet } from "../../sound.js";

// D dorian, the court's mode: D E F G A B C.
const D = [62, 64, 65, 67, 69, 71, 72, 74, 76, 77, 79, 81, 83, 84, 86];

export default {
  name: "reign-of-gnomes",
  cues: {
    click: (s, t) => s.pluck(t, midi(86), { gain: 0.05, dur: 0.15 }),
    spin: (s, t) => {
      // A quick harp glissando up the mode.
      s.arp(t, D.slice(0, 8), 0.025, (tt, n, i) => s.pluck(tt, midi(n), { gain: 0.05, dur: 0.35, pan: -0.4 + i * 0.1 }));
    },
    stop: (s, t) => {
      // A soft wooden knock with a low harp note.
      s.tone(t, { f: 180, f2: 110, type: "sine", gain: 0.14, a: 0.002, dur: 0.1 });
      s.pluck(t, midi(50), { gain: 0.06, dur: 0.3 });
    },
    anticipate: (s, t) => {
      s.arp(t, [69, 72, 76, 81], 0.1, (tt, n) => s.bell(tt, midi(n), { gain: 0.05, dur: 0.6 }));
      s.noise(t, { dur: 0.6, gain: 0.025, a: 0.2, filter: { type: "bandpass", f: 4000, q: 3 } });
    },
    "win-small": (s, t) => s.arp(t, [74, 77, 81], 0.09, (tt, n) => s.pluck(tt, midi(n), { gain: 0.1, dur: 0.6 })),
    "win-medium": (s, t) => {
      s.arp(t, [74, 77, 81, 86, 81, 86], 0.08, (tt, n) => s.pluck(tt, midi(n), { gain: 0.09, dur: 0.6 }));
      s.bell(t + 0.5, midi(86), { gain: 0.06, dur: 1.0 });
    },
    "win-big": (s, t) => {
      // A peal of bells over a harp run.
      s.arp(t, D.slice(3), 0.05, (tt, n) => s.pluck(tt, midi(n), { gain: 0.06, dur: 0.5 }));
      s.arp(t + 0.3, [74, 78, 81, 86, 81, 86], 0.18, (tt, n, i) => s.bell(tt, midi(n), { gain: 0.07, dur: 1.4, pan: i % 2 ? 0.3 : -0.3 }));
    },
    "win-mega": (s, t) => {
      s.arp(t, D, 0.04, (tt, n) => s.pluck(tt, midi(n), { gain: 0.05, dur: 0.5 }));
      for (let k = 0; k < 3; k++) {
        s.arp(t + 0.4 + k * 0.55, [74, 78, 81, 86].map((n) => n + k * 2), 0.12, (tt, n) => s.bell(tt, midi(n), { gain: 0.06, dur: 1.3 }));
      }
      s.organ(t + 2.0, [62, 69, 74, 78], { gain: 0.03, dur: 1.6 });
    },
    feature: (s, t) => {
      // The dragon: a low rumble and a growl under a fanfare of bells.
      s.noise(t, { dur: 1.4, gain: 0.16, a: 0.15, r: 0.7, filter: { type: "lowpass", f: 180, f2: 90, q: 1.5 } });
      s.tone(t, { f: 55, f2: 41, type: "sawtooth", gain: 0.08, a: 0.1, dur: 1.2, r: 0.6, filter: { type: "lowpass", f: 300 }, vib: { rate: 9, depth: 3 } });
      s.arp(t + 0.45, [62, 69, 74, 78, 81], 0.13, (tt, n, i) => s.bell(tt, midi(n), { gain: 0.06, dur: i === 4 ? 1.6 : 0.8 }));
    },
    pick: (s, t) => s.pluck(t, midi(79), { gain: 0.07, dur: 0.25 }),
    diamond: (s, t) => {
      // Ice rings: two high bells.
      s.bell(t, midi(93), { gain: 0.06, dur: 0.8 });
      s.bell(t + 0.08, midi(98), { gain: 0.05, dur: 1.0 });
    },
    crack: (s, t) => {
      s.noise(t, { dur: 0.22, gain: 0.13, a: 0.002, filter: { type: "highpass", f: 1800, f2: 600, q: 0.7 } });
      s.tone(t, { f: 140, f2: 80, type: "sine", gain: 0.08, a: 0.002, dur: 0.15 });
    },
    // A wooden pawl over the pegs.
    wheel: (s, t, o) => ratchet(s, t, o, { f: 2600, q: 4, gain: 0.1, tone: 900 }),
    "wheel-stop": (s, t) => {
      s.noise(t, { dur: 0.05, gain: 0.1, a: 0.001, filter: { type: "bandpass", f: 1800, q: 3 } });
      s.arp(t + 0.05, [74, 81, 86], 0.1, (tt, n) => s.bell(tt, midi(n), { gain: 0.07, dur: 1.1 }));
    },
    tick: (s, t) => s.pluck(t, midi(81), { gain: 0.05, dur: 0.15 }),
  },
};
