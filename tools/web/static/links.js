// tuong-web: copying (the FEN, a link) and links: one that opens the shown
// line at the shown move, and the game a link names.

import { html } from './dom.js';
import { app, probe } from './state.js';
import { t } from './i18n.js';
import { onNotice, setError } from './messages.js';
import { wantedNotation } from './controls.js';

export function copyText(text, what) {
  probe.copied = text;
  const done = () => onNotice({ text: t('{what} copied', { what: t(what) }) });
  if (navigator.clipboard && window.isSecureContext) {
    navigator.clipboard.writeText(text).then(done, () => fallbackCopy(text, done));
  } else {
    fallbackCopy(text, done);
  }
}

function fallbackCopy(text, done) {
  const area = html('textarea', { class: 'offscreen' }, document.body);
  area.value = text;
  area.select();
  try { document.execCommand('copy'); done(); } catch (e) { setError(t('copy it from the field')); }
  area.remove();
}

// A link that opens the shown line at the shown move (a position, or a game).
export function gameLink() {
  const st = app.state;
  const params = new URLSearchParams();
  params.set('variant', st.variant);
  params.set('fen', st.start_fen);
  if (st.moves.length) params.set('moves', st.moves.map((m) => m.move).join(' '));
  params.set('ply', String(st.ply));
  return `${location.origin}${location.pathname}#${params.toString()}`;
}

// The game a link names, as a `restore` (the server checks every move).
export function linkedGame() {
  if (!location.hash || location.hash.length < 2) return null;
  const params = new URLSearchParams(location.hash.slice(1));
  const fen = params.get('fen');
  if (!fen) return null;
  const moves = (params.get('moves') || '').split(/[\s,]+/).filter(Boolean);
  const ply = Math.max(0, Math.min(moves.length, parseInt(params.get('ply') || String(moves.length), 10) || 0));
  return { variant: params.get('variant') || 'xiangqi', start_fen: fen, moves, cursor: ply,
    mode: { engine: null }, notation: wantedNotation(), lang: app.lang };
}
