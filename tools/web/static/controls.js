// tuong-web: the controls: the server's values copied into them, the mode
// and level asked for, going through the game, new games (a replaced game
// goes to the library), the flip, the language and notation, and the
// confirmations.

import { LANG_NOTATION, LANGS, LEVEL_DEFAULTS, LEVEL_UNITS, SIDE_NAMES } from './constants.js';
import { $ } from './dom.js';
import { load, store } from './storage.js';
import { app } from './state.js';
import { sideName, t, translatePage } from './i18n.js';
import { send } from './socket.js';
import { clearNotice } from './messages.js';
import { buildPalette, leaveSetup } from './setup.js';
import { renderAll } from './panels.js';
import { multipv } from './analysis.js';
import { keepCurrent } from './library.js';

// Copy a server value into a control only when the server's value changes,
// so a choice the user is still making is not overwritten by every state.
function syncOnce(key, value, apply) {
  const text = JSON.stringify(value);
  if (app.synced[key] === text) return;
  app.synced[key] = text;
  apply(value);
}

export function syncControls(st) {
  syncOnce('variant', st.variant, (v) => {
    $('#variant').value = v;
    relabelSides(v);
  });
  syncOnce('mode', st.mode || null, (mode) => setModeControls(mode));
  // The board turns to the player: Red at the bottom, unless the engine takes Red.
  // (Only when the side changes: a page that opens keeps the flip it had.)
  const known = 'engine-side' in app.synced;
  syncOnce('engine-side', st.mode ? st.mode.engine : null, (engine) => {
    if (known && (engine === 'w' || engine === 'b')) setFlipped(st.variant === 'xiangqi' && engine === 'w');
  });
  syncOnce('notation', st.notation, (v) => { if (v) $('#notation').value = v; });
  // The page's language and notation are the player's: a server that
  // differs (a new page, a restore) is told.
  // (A first state may come before the server has heard the settings.)
  if (st.lang !== app.lang || st.player !== (app.player || 'Player') ||
      (st.variant === 'xiangqi' && st.notation !== wantedNotation())) {
    if (!syncControls.asked) {
      syncControls.asked = true;
      sendSettings();
    }
  } else {
    syncControls.asked = false;
  }
}

// Side names differ by game: "tuong plays Black" / "O" / "Second player".
function relabelSides(variant) {
  for (const option of $('#engine-side').options) {
    if (option.value) option.textContent = sideName(option.value, variant);
  }
  const names = SIDE_NAMES[variant] || SIDE_NAMES.xiangqi;
  $('#clock-label-w').textContent = names.w;
  $('#clock-label-b').textContent = names.b;
}

function setModeControls(mode) {
  if (!mode) return;
  $('#engine-side').value = mode.engine || '';
  const level = mode.level || {};
  if (level.kind) $('#level-kind').value = level.kind;
  if (level.kind === 'clock') {
    $('#level-value').value = String(+(level.base / 60).toFixed(2));
    $('#level-inc').value = String(level.inc || 0);
  } else if (level.value !== undefined) {
    $('#level-value').value = String(level.value);
  }
  $('#level-strength').value = level.elo ? String(level.elo) : '';
  showLevelKind();
  markModeDirty();
}

export function showLevelKind() {
  const kind = $('#level-kind').value;
  $('#level-inc-box').hidden = kind !== 'clock';
  $('#level-unit').textContent = t(LEVEL_UNITS[kind] || '');
}

function levelFromControls() {
  const kind = $('#level-kind').value;
  const value = parseFloat($('#level-value').value);
  const number = Number.isFinite(value) && value > 0 ? value : LEVEL_DEFAULTS[kind];
  const elo = $('#level-strength').value ? Number($('#level-strength').value) : null;
  if (kind === 'clock') {
    const inc = parseFloat($('#level-inc').value);
    return { kind, base: Math.round(number * 60), inc: Number.isFinite(inc) && inc > 0 ? inc : 0, elo };
  }
  if (kind === 'movetime') return { kind, value: number, elo };
  return { kind, value: Math.round(number), elo };
}

export function modeFromControls() {
  return { engine: $('#engine-side').value || null, level: levelFromControls() };
}

// Show that Apply has something to apply.
export function markModeDirty() {
  const st = app.state;
  if (!st || !st.mode) return;
  const wanted = modeFromControls(), mode = st.mode, level = mode.level || {};
  const same = (wanted.engine || null) === (mode.engine || null) && wanted.level.kind === level.kind &&
    (wanted.level.elo || null) === (level.elo || null) &&
    (wanted.level.kind === 'clock'
      ? wanted.level.base === level.base && wanted.level.inc === (level.inc || 0)
      : wanted.level.value === level.value);
  $('#apply-mode').classList.toggle('dirty', !same);
}

// Go to a ply of the shown line (0: the start).
export function goto(ply) {
  const st = app.state;
  if (!st) return;
  const target = Math.max(0, Math.min(st.moves.length, ply));
  gotoNode(target === 0 ? app.root : st.moves[target - 1].id);
}

export function gotoNode(id) {
  if (app.state && id !== null && id !== undefined && id !== app.state.cursor) send({ type: 'goto', node: id });
}

export function toggleAnalysis() {
  const on = !(app.state && app.state.analysing);
  send({ type: 'analyse', on, multipv: multipv() });
}

// Replacing a game asks first when it has moves; the replaced game goes to
// the library, and `reopen` brings it back.
export function replaceGame(message, question) {
  const root = app.nodes.get(app.root);
  const go = () => {
    if (root && root.children.length) keepCurrent();
    clearNotice();                   // a notice about the game replaced goes with it
    send(message);
  };
  if (root && root.children.length) confirmThen(t(question), go);
  else go();
}

export function newGame() {
  if (app.setup) leaveSetup();
  replaceGame({ type: 'new', variant: $('#variant').value }, 'Start a new game? This one goes to the library.');
}

export function flip() {
  setFlipped(!app.flipped);
}

function setFlipped(on) {
  app.flipped = Boolean(on);
  store('tuong.flip', app.flipped);
  renderAll();
}

export function exportGame() {
  send({ type: 'export', annotations: $('#export-notes').checked });
}

// The notation the player wants: the one chosen, else the language's.
export function wantedNotation() {
  return load('tuong.notation', null) || LANG_NOTATION[app.lang];
}

export function sendSettings() {
  const notation = wantedNotation();
  // No name: "Player", which the server writes in the page's language.
  send({ type: 'settings', notation, lang: app.lang, player: app.player || 'Player' });
}

export function setLang(lang) {
  if (!LANGS.includes(lang)) return;
  app.lang = lang;
  store('tuong.lang', lang);
  $('#lang').value = lang;
  // The notation follows the language unless the player chose one.
  $('#notation').value = wantedNotation();
  translatePage();
  if (app.setup) buildPalette();
  sendSettings();
  renderAll();
}

// ---------------------------------------------------------------- confirmations

export function confirmThen(question, action) {
  const box = $('#confirm');
  $('#confirm-text').textContent = question;
  box.hidden = false;
  $('#confirm-yes').focus();
  confirmThen.action = action;
}

export function answerConfirm(yes) {
  $('#confirm').hidden = true;
  const action = confirmThen.action;
  confirmThen.action = null;
  if (yes && action) action();
}
