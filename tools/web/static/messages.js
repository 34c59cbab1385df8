// tuong-web: the server's messages (docs/web-protocol.md): a state, analysis
// lines, hints, PGN texts, the annotation's progress, notices and errors,
// each taken into the page's state and shown.

import { MAX_IMPORT } from './constants.js';
import { $ } from './dom.js';
import { store } from './storage.js';
import { app, probe } from './state.js';
import { displayText, t } from './i18n.js';
import { download, firstView, formatScore, moveSquares, schedule } from './helpers.js';
import { lineOf, savedGame, takeNodes } from './tree.js';
import { animateMove, renderBoard } from './board.js';
import { renderArrows } from './arrows.js';
import { cancelDrag } from './input.js';
import { leaveSetup } from './setup.js';
import { renderAll } from './panels.js';
import { renderAnalysis, renderEvalBar } from './analysis.js';
import { syncControls } from './controls.js';
import { keepInLibrary } from './library.js';
import { playSound } from './sound.js';
import * as database from './database.js';
import * as keep from './keep.js';
import * as serverTexts from './server-texts.js';

export function onState(st) {
  const prev = app.state;
  takeNodes(st);
  st.moves = lineOf(st.cursor);        // the shown line: its moves to the cursor, then on
  app.state = st;
  probe.state = st;
  setError('');
  // The game kept in the browser is replaced only once the server has
  // answered the restore of it (a state first, then its answer).
  if (st.restored) app.restoring = false;
  if (!app.restoring) store('tuong.game', savedGame(st));
  database.onState(st, app.restoring);
  if (app.editBefore) {          // the deletion's answer: keep its undo
    keep.pushEdit(app.editBefore, savedGame(st));
    app.editBefore = null;
  }

  const moved = !prev || prev.fen !== st.fen || prev.cursor !== st.cursor || prev.variant !== st.variant;
  if (moved) {
    clearInfos();
    app.selected = null;
  }
  if (app.hint && app.hintFen !== st.fen) clearHint();
  indexLegal(st);
  if (app.selected && !app.movesFrom.has(app.selected)) app.selected = null;
  cancelDrag();
  app.clockAt = performance.now();
  if (!st.analysing && !st.thinking) trimInfos(0);
  // A FEN from the editor was accepted: the new game is on the board.
  if (app.setup && app.setup.pending) leaveSetup(false);
  syncControls(st);
  const stepped = moved && prev && prev.variant === st.variant && st.last &&
    app.nodes.get(st.cursor) && app.nodes.get(st.cursor).parent === prev.cursor;
  renderAll();
  if (stepped) {
    animateMove(st.last);
    playSound(st.check ? 'check' : app.nodes.get(st.cursor).capture ? 'capture' : 'move');
  }
}

export function onInfo(info) {
  const st = app.state;
  if (!st) return;
  // Lines of another position (a late line after a move) are dropped.
  if (info.fen ? info.fen !== st.fen : (info.ply != null && info.ply !== st.ply)) return;
  app.infos[info.multipv || 1] = info;
  schedule(renderAnalysis, renderArrows, renderEvalBar);
}

export function onHint(hint) {
  app.hint = hint;
  app.hintFen = app.state ? app.state.fen : null;
  probe.lastHint = hint;
  const source = hint.source === 'new search' ? t('a new search') : t('the last search');
  const box = $('#hint-text');
  box.textContent = t('Hint: {line} (from {source})', { line: displayText(hint.line) || (hint.pv || [hint.move]).join(' '), source });
  box.title = formatScore(firstView(hint.score), firstView(hint.mate));
  renderArrows();
}

export function onPgn(message) {
  probe.lastPgn = message.text;
  if (app.library) {                 // asked for to keep the game, not to download it
    keepInLibrary(app.library, message.text || '');
    app.library = null;
    return;
  }
  download(message.text || '', message.name || 'tuong-game.pgn');
}

export function onAnnotation(message) {
  const done = message.done || 0, total = message.total || 0;
  const finished = total > 0 && done >= total;
  $('#annotation-progress').textContent = finished ? t('annotated {n} positions', { n: total })
    : t('annotating {done} / {total}', { done, total });
}

export function onNotice(message) {
  const box = $('#notice');
  box.textContent = localize(message.text || '', message);
  box.classList.remove('stale');
  clearTimeout(onNotice.timer);
  // Notices stay readable but fade, so a new one stands out.
  onNotice.timer = setTimeout(() => box.classList.add('stale'), 10000);
}

// The server's refusals and notices in the page's language: in the page's
// words (server-texts.js), else as the server said them in it (`local`).
function localize(text, message = null) {
  const said = serverTexts.localize(text, t, message);
  if (said !== text || app.lang === 'en') return said;
  const local = message && message.local;
  return typeof local === 'string' && local && app.state && app.state.lang === app.lang ? local : said;
}

export function onError(message) {
  setError(localize(message.message || 'error', message));
  app.editBefore = null;                      // a refused deletion leaves nothing to undo
  // A refused annotation has not started: its "annotating..." goes.
  if ($('#annotation-progress').textContent === t('annotating...')) $('#annotation-progress').textContent = '';
  if (app.restoring) {
    // The restore is the first thing a page asks, so this answers it: the
    // kept game could not be brought back. It goes to the library rather
    // than away (its moves may be read again from there).
    app.restoring = false;
    const saved = app.restoreSent;      // a link's game, or the one kept before the reload
    app.restoreSent = null;
    if (saved) keepInLibrary({ id: Date.now(), title: t('A game that could not be restored'),
      date: new Date().toISOString().slice(0, 16).replace('T', ' '), saved }, '');
  }
  if (app.setup) app.setup.pending = false;   // stay in the editor to fix the position
  renderBoard();                              // a dropped piece goes back if its move was refused
}

export function clearNotice() {
  clearTimeout(onNotice.timer);
  $('#notice').textContent = '';
}

export function setError(text) {
  $('#error').textContent = text;
}

// The file chosen in a file input, read for the server: `onData(base64, name)`
// once it is read (a data: URL's text after the comma is the file in base64).
// A file over MAX_IMPORT, which the server would refuse, or one that cannot be
// read is an error shown here instead; the input is cleared either way.
export function readChosenFile(input, onData) {
  const file = input.files && input.files[0];
  if (!file) return;
  if (file.size > MAX_IMPORT) {
    setError(t('{name} is too large to import (over 2 MB)', { name: file.name }));
    input.value = '';
    return;
  }
  const reader = new FileReader();
  reader.addEventListener('load', () => {
    const url = String(reader.result);
    onData(url.slice(url.indexOf(',') + 1), file.name);
    input.value = '';
  });
  reader.addEventListener('error', () => setError(t('could not read {name}', { name: file.name })));
  reader.readAsDataURL(file);
}

function clearInfos() {
  app.infos = {};
  probe.infos = app.infos;
}

// Drop the lines above `keep` (a smaller multipv, or analysis off: keep = 0).
export function trimInfos(keep) {
  for (const key of Object.keys(app.infos)) if (Number(key) > keep) delete app.infos[key];
}

function clearHint() {
  app.hint = null;
  app.hintFen = null;
  $('#hint-text').textContent = '';
}

function indexLegal(st) {
  app.movesFrom = new Map();
  app.placements = new Set();
  for (const move of st.legal || []) {
    const squares = moveSquares(move);
    if (squares.length === 1) {
      app.placements.add(squares[0]);
    } else if (squares.length === 2) {
      if (!app.movesFrom.has(squares[0])) app.movesFrom.set(squares[0], []);
      app.movesFrom.get(squares[0]).push(move);
    }
  }
}
