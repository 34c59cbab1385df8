// tuong-web: the page's controls wired to what they do, the keyboard's
// shortcuts, the theme and the import of a file.

import { HEADER_FIELDS, LEVEL_DEFAULTS, XQ_START } from './constants.js';
import { $ } from './dom.js';
import { store } from './storage.js';
import { app } from './state.js';
import { t } from './i18n.js';
import { schedule } from './helpers.js';
import { send } from './socket.js';
import { clearNotice, readChosenFile, setError, trimInfos } from './messages.js';
import { nodeKey } from './tree.js';
import { placementToGrid } from './geometry.js';
import { renderBoard } from './board.js';
import { renderArrows } from './arrows.js';
import { cancelDrag, onBoardPointerDown, onPointerMove, onPointerUp, sendMove } from './input.js';
import { buildPalette, enterSetup, leaveSetup, onPaletteClick, setupDone } from './setup.js';
import { renderButtons, saveHeaders } from './panels.js';
import { deleteMove, fitField, undoEdit } from './movelist.js';
import { multipv, onGraphClick, renderAnalysis, renderGraph } from './analysis.js';
import { answerConfirm, confirmThen, exportGame, flip, goto, gotoNode, markModeDirty,
  modeFromControls, newGame, replaceGame, sendSettings, setLang, showLevelKind, toggleAnalysis } from './controls.js';
import { downloadLibrary, keepCurrent, onLibraryClick } from './library.js';
import { copyText, gameLink } from './links.js';
import * as keep from './keep.js';

export function applyTheme(theme) {
  app.theme = theme === 'dark' ? 'dark' : 'light';
  store('tuong.theme', app.theme);
  document.documentElement.dataset.theme = app.theme;
  $('#theme').value = app.theme;
}

function importFile() {
  readChosenFile($('#file-input'), (data, name) => replaceGame(
    { type: 'import', data, name }, 'Load this game? The one on the board goes to the library.'));
}

function on(id, event, handler) {
  $(id).addEventListener(event, handler);
}

export function wireControls() {
  on('#new', 'click', newGame);
  on('#flip', 'click', flip);
  on('#undo', 'click', () => send({ type: 'undo' }));
  on('#hint', 'click', () => send({ type: 'hint' }));
  on('#go', 'click', () => send({ type: 'go' }));
  on('#resign', 'click', () => confirmThen(t('Resign this game?'), () => send({ type: 'resign' })));
  on('#reopen', 'click', () => { clearNotice(); send({ type: 'reopen' }); });
  on('#confirm-yes', 'click', () => answerConfirm(true));
  on('#confirm-no', 'click', () => answerConfirm(false));
  on('#tree-promote', 'click', () => app.state && send({ type: 'promote', node: app.state.cursor }));
  on('#tree-delete', 'click', deleteMove);
  on('#tree-undo', 'click', undoEdit);
  on('#comment-text', 'input', () => {
    const field = $('#comment-text');
    fitField(field);
    keep.saveDraft(nodeKey(Number(field.dataset.node)), field.value);
  });
  on('#comment-text', 'change', () => {
    const field = $('#comment-text');
    keep.clearDraft();
    send({ type: 'comment', node: Number(field.dataset.node), text: field.value });
  });
  on('#fen-copy', 'click', () => app.state && copyText(app.state.fen, 'FEN'));
  on('#link-copy', 'click', () => app.state && copyText(gameLink(), 'Link'));
  on('#headers-save', 'click', saveHeaders);
  for (const name of HEADER_FIELDS) on(`#header-${name}`, 'input', (event) => { event.target.dataset.dirty = '1'; });
  on('#library-save', 'click', keepCurrent);
  on('#library-download', 'click', downloadLibrary);
  on('#library-list', 'click', onLibraryClick);
  on('#explorer-body', 'click', (event) => {
    const row = event.target.closest('tr[data-move]');
    if (row && app.state && app.state.legal.includes(row.dataset.move)) sendMove(row.dataset.move);
  });
  on('#sound', 'click', () => {
    app.sound = !app.sound;
    store('tuong.sound', app.sound);
    renderButtons();
  });
  on('#theme', 'change', () => applyTheme($('#theme').value));
  on('#player', 'change', () => {
    app.player = $('#player').value.trim();
    store('tuong.player', app.player);
    sendSettings();
  });
  on('#draw', 'click', () => confirmThen(t('Offer a draw? If it is accepted, the game ends.'), () => send({ type: 'draw' })));
  on('#apply-mode', 'click', () => {
    const mode = modeFromControls(), st = app.state;
    // A studied record's game against the engine is a record of its own: the studied one is kept first.
    if (st && st.record_names && mode.engine && !st.mode.engine && st.moves.length) keepCurrent();
    send({ type: 'mode', ...mode });
  });
  on('#level-kind', 'change', () => {
    // The old number means nothing in the new unit.
    $('#level-value').value = String(LEVEL_DEFAULTS[$('#level-kind').value]);
    showLevelKind();
    markModeDirty();
  });
  for (const id of ['#engine-side', '#level-value', '#level-inc', '#level-strength']) {
    on(id, 'input', markModeDirty);
    on(id, 'change', markModeDirty);
  }
  on('#analyse', 'click', toggleAnalysis);
  on('#multipv', 'change', () => {
    store('tuong.multipv', multipv());
    trimInfos(multipv());
    if (app.state && app.state.analysing) send({ type: 'analyse', on: true, multipv: multipv() });
    renderAnalysis();
    renderArrows();
  });
  on('#annotate', 'click', () => {
    $('#annotation-progress').textContent = t('annotating...');
    send({ type: 'annotate' });
  });
  on('#notation', 'change', () => {
    store('tuong.notation', $('#notation').value);     // chosen: no longer the language's
    sendSettings();
  });
  on('#lang', 'change', () => setLang($('#lang').value));
  on('#pieces-style', 'change', () => {
    app.pieceStyle = $('#pieces-style').value === 'letters' ? 'letters' : 'chinese';
    store('tuong.pieces', app.pieceStyle);
    if (app.setup) buildPalette();
    renderBoard();
  });
  on('#import-button', 'click', () => {
    const text = $('#import-text').value.trim();
    if (text) replaceGame({ type: 'import', text }, 'Load this game? The one on the board goes to the library.');
    else setError(t('nothing to import: paste a FEN, EPD or PGN first'));
  });
  on('#file-input', 'change', importFile);
  on('#export', 'click', exportGame);
  on('#setup', 'click', () => (app.setup ? leaveSetup() : enterSetup()));
  on('#setup-palette', 'click', onPaletteClick);
  on('#setup-side', 'change', () => { if (app.setup) app.setup.side = $('#setup-side').value; });
  on('#setup-clear', 'click', () => {
    if (!app.setup) return;
    app.setup.grid = app.setup.grid.map((row) => row.map(() => ''));
    renderBoard();
  });
  on('#setup-start', 'click', () => {
    if (!app.setup) return;
    app.setup.grid = placementToGrid(XQ_START);
    app.setup.side = 'w';
    $('#setup-side').value = 'w';
    renderBoard();
  });
  on('#setup-done', 'click', setupDone);
  on('#setup-cancel', 'click', () => leaveSetup());
  on('#movelist', 'click', (event) => {
    const el = event.target.closest('[data-node]');
    if (el) gotoNode(Number(el.dataset.node));
  });
  on('#eval-graph', 'click', onGraphClick);
  on('#nav-first', 'click', () => goto(0));
  on('#nav-prev', 'click', () => app.state && goto(app.state.ply - 1));
  on('#nav-next', 'click', () => app.state && goto(app.state.ply + 1));
  on('#nav-last', 'click', () => app.state && goto(app.state.moves.length));
  // A choice made in a drop-down is done: the arrow keys go back to the game.
  document.querySelectorAll('select').forEach((el) => el.addEventListener('change', () => el.blur()));
  on('#help-button', 'click', toggleHelp);
  on('#help-close', 'click', toggleHelp);
  // The "tabs" scroll to their section: every control stays in the page.
  for (const button of document.querySelectorAll('#tabs [data-target]')) {
    button.addEventListener('click', () => {
      document.querySelectorAll('#tabs [data-target]').forEach((b) => b.classList.toggle('active', b === button));
      document.getElementById(button.dataset.target).scrollIntoView({ behavior: 'smooth', block: 'start' });
    });
  }

  const board = $('#board');
  board.addEventListener('pointerdown', onBoardPointerDown);
  board.addEventListener('contextmenu', (event) => { if (app.setup) event.preventDefault(); });
  window.addEventListener('pointermove', onPointerMove);
  window.addEventListener('pointerup', onPointerUp);
  window.addEventListener('pointercancel', () => { if (app.drag) { cancelDrag(); renderBoard(); } });
  window.addEventListener('resize', () => schedule(renderGraph));
  document.addEventListener('keydown', onKey);
}

function toggleHelp() {
  $('#help').hidden = !$('#help').hidden;
}

// ---------------------------------------------------------------- keyboard

const KEYS = {
  ArrowLeft: () => app.state && goto(app.state.ply - 1),
  ArrowRight: () => app.state && goto(app.state.ply + 1),
  Home: () => goto(0),
  End: () => app.state && goto(app.state.moves.length),
  f: flip,
  u: () => send({ type: 'undo' }),
  h: () => send({ type: 'hint' }),
  a: toggleAnalysis,
  n: newGame,
  g: () => send({ type: 'go' }),
  e: exportGame,
  s: () => (app.setup ? leaveSetup() : enterSetup()),
  '?': toggleHelp,
  Escape: () => {
    if (!$('#confirm').hidden) answerConfirm(false);
    else if (!$('#help').hidden) $('#help').hidden = true;
    else if (app.setup) leaveSetup();
    else {
      if (app.drag) cancelDrag();
      app.selected = null;
      renderBoard();
    }
  },
};

function onKey(event) {
  // Typing in a field is not a command.
  const target = event.target;
  if (target && (target.isContentEditable || /^(INPUT|TEXTAREA)$/.test(target.tagName))) return;
  // A focused drop-down keeps its up/down keys; left and right step through the game.
  if (target && target.tagName === 'SELECT' && !['ArrowLeft', 'ArrowRight'].includes(event.key)) return;
  if (!$('#confirm').hidden && event.key !== 'Escape') return;
  if (event.ctrlKey || event.metaKey || event.altKey) return;
  const action = KEYS[event.key] || KEYS[event.key.toLowerCase && event.key.length === 1 ? event.key.toLowerCase() : ''];
  if (!action) return;
  event.preventDefault();
  action();
}
