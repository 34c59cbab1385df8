// tuong-web: small helpers without a place of their own: squares and
// moves, scores and clocks as the page writes them, a download, and the
// coalescing of redraws.

import { FIRST_SIDE } from './constants.js';
import { html } from './dom.js';
import { app } from './state.js';

// Squares: a file letter and a rank number ("e3", "a10", "d2").
export function parseSquare(name) {
  const m = /^([a-z])(\d+)$/.exec(name);
  return m ? { f: m[1].charCodeAt(0) - 97, r: parseInt(m[2], 10) } : null;
}

export function squareName(f, r) {
  return String.fromCharCode(97 + f) + r;
}

// A move's squares: one (placement) or two (from, to).
export function moveSquares(move) {
  return String(move).match(/[a-z]\d+/g) || [];
}

export function fenSide(fen) {
  return (fen || '').split(/\s+/)[1] || 'w';
}

export function formatScore(score, mate) {
  if (mate !== null && mate !== undefined) return (mate > 0 ? '+M' : mate < 0 ? '-M' : 'M') + Math.abs(mate);
  if (score === null || score === undefined) return '';
  // The small games score a won position from 10,000 up: a win, not pawns.
  if (Math.abs(score) >= 10000) return score > 0 ? '1-0' : '0-1';
  const pawns = score / 100;
  return (pawns > 0 ? '+' : '') + pawns.toFixed(2);
}

// Scores on the page are the first player's (Red's; Dodgem's Black, who
// moves first and whose win the result 1-0 is); the server's are by side w.
export function firstView(value) {
  const st = app.state;
  return value === null || value === undefined || !st || FIRST_SIDE[st.variant] !== 'b' ? value : -value;
}

// Red's (the first player's) expected share: mates are certain, centipawns squashed.
export function winShare(score, mate) {
  if (mate !== null && mate !== undefined) return mate > 0 ? 1 : mate < 0 ? 0 : 0.5;
  if (score === null || score === undefined) return null;
  return 1 / (1 + Math.exp(-score / 400));
}

export function formatClock(seconds) {
  const s = Math.max(0, Math.ceil(seconds));
  const mm = Math.floor(s / 60), ss = s % 60;
  return `${String(mm).padStart(2, '0')}:${String(ss).padStart(2, '0')}`;
}

export function formatCount(n) {
  if (n >= 1e6) return `${(n / 1e6).toFixed(1)}M`;
  if (n >= 1e3) return `${(n / 1e3).toFixed(0)}k`;
  return String(n);
}

// Coalesce bursts (analysis lines arrive many times a second) into one redraw.
const pending = new Set();
let pendingTimer = null;
export function schedule(...jobs) {
  jobs.forEach((job) => pending.add(job));
  if (pendingTimer === null) {
    pendingTimer = setTimeout(() => {
      pendingTimer = null;
      const run = [...pending];
      pending.clear();
      run.forEach((job) => job());
    }, 30);
  }
}

export function download(text, name) {
  const blob = new Blob([text], { type: 'application/x-chess-pgn;charset=utf-8' });
  const url = URL.createObjectURL(blob);
  const link = html('a', { href: url, download: name }, document.body);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 2000);
}
