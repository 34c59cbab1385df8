// tuong-web: the set-up editor: a Xiangqi position put together piece by
// piece from a palette, then played from.

import { CHINESE, PIECE_NAMES, XQ_START } from './constants.js';
import { $, html } from './dom.js';
import { app } from './state.js';
import { t } from './i18n.js';
import { parseSquare } from './helpers.js';
import { gridToPlacement, placementToGrid } from './geometry.js';
import { renderBoard } from './board.js';
import { pieceLetter } from './pieces.js';
import { cancelDrag } from './input.js';
import { renderAll } from './panels.js';
import { replaceGame } from './controls.js';

export function enterSetup() {
  const st = app.state;
  const fromGame = st && st.variant === 'xiangqi';
  app.setup = {
    grid: fromGame ? st.grid.map((row) => row.slice()) : placementToGrid(XQ_START),
    side: fromGame ? st.turn : 'w',
    stamp: null,
    pending: false,
  };
  app.selected = null;
  cancelDrag();
  $('#setup-side').value = app.setup.side;
  buildPalette();
  $('#setup-panel').hidden = false;
  $('#setup-panel').scrollIntoView({ block: 'nearest' });
  renderAll();
}

export function leaveSetup(redraw = true) {
  app.setup = null;
  $('#setup-panel').hidden = true;
  // The palette exists only while editing, so that [data-piece] means board pieces otherwise.
  $('#setup-palette').textContent = '';
  if (redraw) renderAll();
}

export function buildPalette() {
  const box = $('#setup-palette');
  box.textContent = '';
  // Red's pieces and the eraser on the first row, Black's on the second.
  for (const letter of ['K', 'A', 'B', 'N', 'R', 'C', 'P', '', 'k', 'a', 'b', 'n', 'r', 'c', 'p']) {
    if (!letter) {
      html('button', { type: 'button', class: 'pal-piece eraser', 'data-piece': '', title: t('Eraser (or right-click a square)'), 'aria-pressed': 'false' }, box, '✕');
      continue;
    }
    const red = letter === letter.toUpperCase();
    const label = app.pieceStyle === 'letters' ? pieceLetter(letter) : CHINESE[letter];
    html('button', {
      type: 'button', class: `pal-piece ${red ? 'red' : 'black'}${app.pieceStyle === 'letters' ? ' letters' : ''}`,
      'data-piece': letter, title: `${t(red ? 'Red' : 'Black')} ${t(PIECE_NAMES[letter.toUpperCase()])}`, 'aria-pressed': 'false',
    }, box, label);
  }
  renderPalette();
}

function renderPalette() {
  if (!app.setup) return;
  for (const button of document.querySelectorAll('#setup-palette [data-piece]')) {
    const on = button.dataset.piece === app.setup.stamp;
    button.classList.toggle('active', on);
    button.setAttribute('aria-pressed', String(on));
  }
}

export function onPaletteClick(event) {
  const button = event.target.closest('[data-piece]');
  if (!button || !app.setup) return;
  // Always a choice, never a toggle: "pick R, click a square" works however often it is repeated.
  app.setup.stamp = button.dataset.piece;
  renderPalette();
}

// Place the chosen piece, erase, or (nothing chosen) lift a piece to place it elsewhere.
export function setupClick(sq, erase) {
  const s = app.setup, p = parseSquare(sq);
  const row = s.grid[9 - p.r];
  if (!row || p.f < 0 || p.f > 8) return;
  if (erase || s.stamp === '') {
    row[p.f] = '';
  } else if (s.stamp) {
    row[p.f] = s.stamp;
  } else if (row[p.f]) {
    s.stamp = row[p.f];
    row[p.f] = '';
    renderPalette();
  }
  renderBoard();
}

function setupFen() {
  return `${gridToPlacement(app.setup.grid)} ${app.setup.side} - - 0 1`;
}

export function setupDone() {
  if (!app.setup) return;
  replaceGame({ type: 'new', variant: 'xiangqi', fen: setupFen() }, 'Play from this position? The game on the board goes to the library.');
  if (app.setup) app.setup.pending = true;    // leave the editor when the server's state comes
}
