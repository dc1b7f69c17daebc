// Los 3 Pinguinos' sound set: an arcade cabinet.  Square-wave chiptune bleeps for the reels,
// holds and nudges, a rising bleep per ladder rung, a Disco jingle, coin-hopper rattles for
// collects.  Played by the shared synth (js/sound.js); cues it leaves out come from the
// default set.  Loaded in the background once sound is on.

import { midi } from "../../sound.js";

const bleep = (s, t, n, o = {}) => s.chip(t, midi(n), { gain: 0.05, dur: 0.07, ...o });

export default {
  name: "los-3-pinguinos",
  cues: {
    click: (s, t) => bleep(s, t, 84, { dur: 0.03, gain: 0.04 }),
    error: (s, t) => {
      bleep(s, t, 48, { dur: 0.12, gain: 0.05 });
      bleep(s, t + 0.14, 43, { dur: 0.2, gain: 0.05 });
    },
    spin: (s, t) => s.arp(t, [60, 64, 67, 72], 0.04, (tt, n) => bleep(s, tt, n, { dur: 0.04, gain: 0.04 })),
    stop: (s, t) => s.chip(t, midi(48), { f2: midi(36), dur: 0.08, gain: 0.06, type: "triangle" }),
    anticipate: (s, t) => s.arp(t, [72, 74, 76, 79], 0.07, (tt, n) => bleep(s, tt, n, { dur: 0.05, gain: 0.04 })),
    "win-small": (s, t) => s.arp(t, [72, 76, 79, 84], 0.06, (tt, n) => bleep(s, tt, n)),
    "win-medium": (s, t) => s.arp(t, [72, 76, 79, 84, 79, 84, 88], 0.06, (tt, n) => bleep(s, tt, n)),
    "win-big": (s, t) => {
      s.arp(t, [60, 64, 67, 72, 76, 79, 84, 88, 91], 0.05, (tt, n) => bleep(s, tt, n, { gain: 0.045 }));
      s.arp(t + 0.5, [84, 88, 91, 96, 91, 96], 0.09, (tt, n) => bleep(s, tt, n, { dur: 0.08 }));
      s.arp(t + 0.5, [48, 48, 55, 55, 60, 60], 0.09, (tt, n) => s.chip(tt, midi(n), { type: "triangle", dur: 0.08, gain: 0.08 }));
    },
    "win-mega": (s, t) => {
      for (let k = 0; k < 3; k++) {
        s.arp(t + k * 0.5, [60, 64, 67, 72, 76, 79].map((n) => n + k * 2), 0.05, (tt, n) => bleep(s, tt, n, { gain: 0.04 }));
        s.arp(t + k * 0.5, [36, 43].map((n) => n + k * 2), 0.2, (tt, n) => s.chip(tt, midi(n), { type: "triangle", dur: 0.18, gain: 0.08 }));
      }
      s.arp(t + 1.5, [84, 88, 91, 96, 100], 0.08, (tt, n) => bleep(s, tt, n, { dur: 0.25, gain: 0.04 }));
    },
    feature: (s, t) => s.arp(t, [67, 72, 76, 79, null, 76, 79], 0.09, (tt, n) => bleep(s, tt, n, { dur: 0.08 })),
    pick: (s, t) => bleep(s, t, 79, { dur: 0.05 }),
    diamond: (s, t) => s.arp(t, [84, 91], 0.05, (tt, n) => bleep(s, tt, n, { dur: 0.06 })),
    crack: (s, t) => s.chip(t, midi(60), { f2: midi(36), dur: 0.3, gain: 0.05, type: "sawtooth" }),
    "ladder-step": (s, t) => s.arp(t, [72, 79], 0.05, (tt, n) => bleep(s, tt, n, { dur: 0.06 })),
    nudge: (s, t) => s.chip(t, midi(67), { f2: midi(62), dur: 0.07, gain: 0.05 }),
    hold: (s, t) => s.arp(t, [76, 81], 0.035, (tt, n) => bleep(s, tt, n, { dur: 0.035, gain: 0.04 })),
    disco: (s, t) => {
      // The Disco jingle: a four-on-the-floor bass under a bright hook.
      const hook = [72, 76, 79, 84, 83, 79, 76, 79, 81, 77, 81, 84];
      s.arp(t, hook, 0.11, (tt, n) => bleep(s, tt, n, { dur: 0.09, gain: 0.04, type: "square" }));
      s.arp(t, [48, 48, 53, 53, 55, 55], 0.22, (tt, n) => s.chip(tt, midi(n), { type: "triangle", dur: 0.2, gain: 0.09 }));
      for (let k = 0; k < 6; k++) s.noise(t + k * 0.22, { dur: 0.04, gain: 0.05, a: 0.001, filter: { type: "highpass", f: 7000 } });
    },
    "disco-tick": (s, t) => bleep(s, t, 88, { dur: 0.03, gain: 0.03 }),
    coin: (s, t) => s.arp(t, [88, 95], 0.04, (tt, n) => bleep(s, tt, n, { dur: 0.04, gain: 0.035 })),
    collect: (s, t) => {
      // A coin hopper paying out.
      for (let k = 0; k < 6; k++) s.noise(t + k * 0.06, { dur: 0.04, gain: 0.05, a: 0.001, filter: { type: "bandpass", f: 5000, q: 3 } });
      s.arp(t, [84, 88, 91], 0.06, (tt, n) => bleep(s, tt, n, { dur: 0.05, gain: 0.035 }));
    },
    tick: (s, t) => bleep(s, t, 91, { dur: 0.03, gain: 0.03 }),
  },
};
