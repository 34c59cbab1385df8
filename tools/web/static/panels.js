// tuong-web: the panels beside the board: everything redrawn at once
// (renderAll), the status line and the result in words, the clocks, the
// buttons' states, the FEN field, the game's headers and the opening
// explorer.

import { FIRST_SIDE, HEADER_FIELDS } from './constants.js';
import { $, html } from './dom.js';
import { app } from './state.js';
import { displayText, sideName, t } from './i18n.js';
import { formatClock } from './helpers.js';
import { send } from './socket.js';
import { renderBoard } from './board.js';
import { renderMoves } from './movelist.js';
import { renderAnalysis, renderEvalBar, renderGraph, renderSummary } from './analysis.js';
import { markModeDirty } from './controls.js';
import { renderLibrary } from './library.js';
import { playSound } from './sound.js';
import * as database from './database.js';

export function renderAll() {
  renderBoard();
  renderStatus();
  renderClocks();
  renderMoves();
  renderAnalysis();
  renderEvalBar();
  renderGraph();
  renderSummary();
  renderButtons();
}

function statusText() {
  const st = app.state;
  if (!app.connected) {
    if (!app.retryAt) return { text: t('Connecting...'), cls: 'offline' };
    const wait = Math.max(0, Math.ceil((app.retryAt - performance.now()) / 1000));
    return { text: wait ? t('Disconnected: reconnecting in {n} s', { n: wait }) : t('Disconnected: reconnecting...'), cls: 'offline' };
  }
  if (app.setup) return { text: t('Setting up a position'), cls: '' };
  if (!st) return { text: t('Waiting for the server...'), cls: '' };
  if (st.result) {
    // Dodgem's 1-0 is Black's (the first player's) win: said in words only.
    const score = FIRST_SIDE[st.variant] === 'w' ? st.result.result : '';
    return { text: `${score} ${resultWords(st.result, st.variant)}`.trim(), cls: 'over' };
  }
  if (st.thinking) return { text: t('{engine} is thinking...', { engine: st.engine_name || 'tuong' }), cls: 'thinking' };
  return { text: t('{side} to move', { side: sideName(st.turn) }), cls: '' };
}

// A result in the page's language, from its termination and score (the
// server's sentence is English; its facts are these).
function resultWords(r, variant) {
  const winner = r.result === '1-0' ? 'w' : r.result === '0-1' ? 'b' : null;
  const first = variant === 'dodgem' ? 'b' : 'w';
  // A Dodgem "1-0" is the first player's (Black's) win.
  const side = winner && variant === 'dodgem' ? (winner === 'w' ? first : 'w') : winner;
  const name = side ? sideName(side, variant) : '', loser = side ? sideName(side === 'w' ? 'b' : 'w', variant) : '';
  const words = {
    checkmate: '{winner} mates', stalemate: '{loser} has no legal move and loses',
    'perpetual check': '{loser} loses by perpetual check', 'perpetual chase': '{loser} loses by perpetual chase',
    repetition: 'Draw by repetition', 'move limit': 'Draw by the move limit',
    'time forfeit': '{loser} loses on time', resignation: '{loser} resigns',
    agreement: 'Draw by agreement', 'illegal move': '{loser} played an illegal move',
    'game over': side ? '{winner} wins' : 'Draw',
  }[r.termination];
  return words ? t(words, { winner: name, loser }) : (r.reason || r.termination || '');
}

export function renderStatus() {
  const { text, cls } = statusText();
  const el = $('#status');
  el.textContent = text;
  el.className = cls;
  $('#opening').textContent = displayText((app.state && app.state.opening) || '');
}

export function renderClocks() {
  const st = app.state, clocks = st && st.clocks;
  $('#clocks').hidden = !clocks;
  if (!clocks) return;
  // Beside the board: the side at the top of the board has the top clock.
  const top = app.flipped ? 'w' : 'b';
  $('#clocks').style.flexDirection = top === 'b' ? 'column' : 'column-reverse';
  const elapsed = (performance.now() - app.clockAt) / 1000;
  for (const side of ['w', 'b']) {
    const running = clocks.running === side && !st.result;
    const left = (clocks[side] || 0) - (running ? elapsed : 0);
    const el = $(`#clock-${side}`);
    el.textContent = formatClock(left);
    el.classList.toggle('running', running);
    const low = running && left < 20;
    if (low && !el.classList.contains('low')) playSound('low');
    el.classList.toggle('low', low);
    $(`#clock-label-${side}`).textContent = sideName(side);
  }
}

export function renderButtons() {
  const st = app.state;
  const analysing = Boolean(st && st.analysing);
  const button = $('#analyse');
  button.setAttribute('aria-pressed', String(analysing));
  button.textContent = analysing ? t('Stop analysis') : t('Analyse');
  $('#flip').setAttribute('aria-pressed', String(app.flipped));
  $('#setup').setAttribute('aria-pressed', String(Boolean(app.setup)));
  $('#pieces-style').value = app.pieceStyle;
  $('#sound').setAttribute('aria-pressed', String(app.sound));
  $('#reopen').hidden = !(st && st.can_reopen);
  // Xiangqi's tools have nothing to do in the small games.
  const xiangqi = !st || st.variant === 'xiangqi';
  document.querySelectorAll('.xq-only').forEach((el) => { el.hidden = !xiangqi; });
  markModeDirty();
  renderFen();
  renderHeaders();
  renderExplorer();
  renderLibrary();
}

// ---------------------------------------------------------------- the FEN

function renderFen() {
  const st = app.state;
  const field = $('#fen-text');
  if (st && document.activeElement !== field) field.value = st.fen;
}

// ---------------------------------------------------------------- headers

function renderHeaders() {
  const st = app.state;
  if (!st) return;
  for (const name of HEADER_FIELDS) {
    const field = $(`#header-${name}`);
    if (field && document.activeElement !== field && !field.dataset.dirty) field.value = (st.headers || {})[name] || '';
  }
}

export function saveHeaders() {
  const headers = {};
  for (const name of HEADER_FIELDS) {
    const field = $(`#header-${name}`);
    headers[name] = field.value.trim();
    delete field.dataset.dirty;
  }
  send({ type: 'headers', headers });
}

// ---------------------------------------------------------------- the opening explorer

function renderExplorer() {
  const st = app.state, body = $('#explorer-body');
  body.textContent = '';
  const moves = (st && st.book) || [];
  $('#explorer-empty').hidden = moves.length > 0;
  database.render(st);
  for (const m of moves) {
    const tr = html('tr', { 'data-move': m.move, class: st.legal.includes(m.move) ? 'playable' : '' }, body);
    html('td', { class: 'ex-move' }, tr, displayText(m.text));
    html('td', {}, tr, `${m.share}%`);
    html('td', {}, tr, m.games ? String(m.games) : '');
    html('td', {}, tr, m.score === null || m.score === undefined ? '' : String(m.score));
  }
}
