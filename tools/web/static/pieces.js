// tuong-web: the pieces: Xiangqi's (characters or the notation's letters)
// and the small games' (X and O, cars, queens, claimed cells, stones).

import { CHINESE, LETTER_SETS, PIECE_NAMES } from './constants.js';
import { svg } from './dom.js';
import { app } from './state.js';
import { t } from './i18n.js';

// A piece's letter in the notation shown (WXF's for the notations without letters).
export function pieceLetter(letter) {
  const notation = app.state ? app.state.notation : 'wxf';
  const set = LETTER_SETS[notation] || LETTER_SETS.wxf;
  return (letter === 'p' && set.p) || set[letter.toUpperCase()] || letter.toUpperCase();
}

export function drawXiangqiPiece(parent, letter, C) {
  const red = letter === letter.toUpperCase();
  const upper = letter.toUpperCase();
  const R = C * 0.45;
  const g = svg('g', { class: `piece ${red ? 'red' : 'black'}`, 'data-piece': letter }, parent);
  svg('title', {}, g, `${t(red ? 'Red' : 'Black')} ${t(PIECE_NAMES[upper] || upper)}`);
  svg('circle', { class: 'piece-shadow', cx: 1.5, cy: 2.5, r: R }, g);
  svg('circle', { class: 'piece-body', r: R }, g);
  svg('circle', { class: 'piece-ring', r: R - 4.5 }, g);
  if (app.pieceStyle === 'letters') {
    const text = pieceLetter(letter);
    svg('text', { class: `piece-text letter${text.length > 1 ? ' two' : ''}`, y: 1 }, g, text);
  } else {
    svg('text', { class: 'piece-text', y: 1 }, g, CHINESE[letter] || letter);
  }
  return g;
}

export function drawSmallPiece(parent, variant, letter, C) {
  const g = svg('g', { class: 'piece', 'data-piece': letter }, parent);
  const k = C / 100;   // shapes are drawn for a 100-unit cell
  if (variant === 'tictactoe') {
    if (letter === 'X') {
      svg('line', { class: 'ttt-x', x1: -28 * k, y1: -28 * k, x2: 28 * k, y2: 28 * k }, g);
      svg('line', { class: 'ttt-x', x1: 28 * k, y1: -28 * k, x2: -28 * k, y2: 28 * k }, g);
    } else {
      svg('circle', { class: 'ttt-o', r: 30 * k }, g);
    }
  } else if (variant === 'dodgem') {
    drawCar(g, letter, k);
  } else if (letter === 'Q' || letter === 'q') {
    drawQueen(g, letter, k);
  } else if (letter === 'X' || letter === 'x') {
    g.setAttribute('class', 'piece claim-cell');
    svg('rect', { class: `claim ${letter}`, x: -50 * k + 2, y: -50 * k + 2, width: 100 * k - 4, height: 100 * k - 4 }, g);
  } else if (letter === '*') {
    svg('circle', { class: 'stone', r: 30 * k }, g);
  } else {
    svg('text', { class: 'piece-text letter', y: 1 }, g, letter);
  }
  return g;
}

// A car seen from above, its nose in its direction of travel on the screen:
// Black cars drive right, White cars drive up (both reversed when flipped).
function drawCar(g, letter, k) {
  let angle = letter === 'B' ? 0 : -90;
  if (app.flipped) angle += 180;
  g.setAttribute('class', `piece car ${letter}`);
  const body = svg('g', { transform: `rotate(${angle}) scale(${k})` }, g);
  for (const [x, y] of [[-24, -27], [14, -27], [-24, 19], [14, 19]]) {
    svg('rect', { class: 'car-wheel', x, y, width: 14, height: 8, rx: 2 }, body);
  }
  svg('rect', { class: 'car-body', x: -36, y: -22, width: 74, height: 44, rx: 12 }, body);
  svg('rect', { class: 'car-glass', x: 10, y: -16, width: 12, height: 32, rx: 3 }, body);
  svg('rect', { class: 'car-glass', x: -28, y: -14, width: 8, height: 28, rx: 3 }, body);
}

function drawQueen(g, letter, k) {
  const body = svg('g', { class: `queen ${letter}`, transform: `scale(${k})` }, g);
  svg('path', { d: 'M -30 22 L 30 22 L 35 -12 L 16 6 L 0 -26 L -16 6 L -35 -12 Z' }, body);
  svg('rect', { x: -31, y: 22, width: 62, height: 9, rx: 3 }, body);
  for (const [x, y] of [[-35, -14], [0, -29], [35, -14]]) svg('circle', { cx: x, cy: y, r: 5 }, body);
}
