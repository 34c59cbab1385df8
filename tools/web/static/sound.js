// tuong-web: the sounds: short tones made on the spot (no sound files).

import { app, probe } from './state.js';

// Short tones made on the spot (no sound files): move, capture, check, low time.
const TONES = { move: [520, 0.06], capture: [330, 0.12], check: [880, 0.18], low: [1200, 0.05] };
let audio = null;
export function playSound(kind) {
  if (!app.sound || !TONES[kind]) return;
  probe.lastSound = kind;
  // Browsers let a page make sound only after the player touched it.
  if (navigator.userActivation && !navigator.userActivation.hasBeenActive) return;
  try {
    audio = audio || new (window.AudioContext || window.webkitAudioContext)();
    const [freq, length] = TONES[kind];
    const osc = audio.createOscillator(), gain = audio.createGain();
    osc.frequency.value = freq;
    gain.gain.setValueAtTime(0.15, audio.currentTime);
    gain.gain.exponentialRampToValueAtTime(0.001, audio.currentTime + length);
    osc.connect(gain).connect(audio.destination);
    osc.start();
    osc.stop(audio.currentTime + length);
  } catch (e) { /* no audio here: the game goes on */ }
}
