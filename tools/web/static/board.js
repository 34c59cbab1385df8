// tuong-web: drawing the board: its lines (or cells) and edges, each square
// with its marks (last move, check, destinations) and its piece, and the
// slide of the piece just moved.

import { $, svg } from './dom.js';
import { app } from './state.js';
import { t } from './i18n.js';
import { moveSquares, parseSquare, squareName } from './helpers.js';
import { displayGrid, geometry, isOffBoard, pieceAt } from './geometry.js';
import { drawSmallPiece, drawXiangqiPiece } from './pieces.js';
import { renderArrows } from './arrows.js';
import { wantedNotation } from './controls.js';
import * as edges from './edges.js';

// The board is redrawn in place: a square's group (and its piece, while it
// stays) is the same element from state to state, so a reference to it, held
// by a gesture in progress or by a test, stays good. Only a change of the
// board's shape (game, size, flip, piece style) rebuilds everything.
export function renderBoard() {
  const geo = geometry();
  const key = [geo.kind, geo.variant || '', geo.files, geo.ranks, app.flipped, app.pieceStyle,
    boardNotation(), app.lang].join('|');
  if (key !== app.boardKey) {
    app.boardKey = key;
    app.geo = geo;
    $('#board').setAttribute('viewBox', `0 0 ${geo.width} ${geo.height}`);
    const bg = $('#board-bg');
    bg.textContent = '';
    $('#board-points').textContent = '';
    app.pointEls = new Map();
    if (geo.kind === 'xiangqi') drawXiangqiLines(bg, geo);
    else drawCellsFrame(bg, geo);
  }
  $('#board-drag').textContent = '';
  const grid = displayGrid(), marks = boardMarks(), wanted = new Set();
  grid.forEach((row, i) => row.forEach((letter, f) => {
    const name = squareName(f, app.geo.rankOfRow(i));
    wanted.add(name);
    updatePoint(name, letter, marks, false);
  }));
  for (const name of exitSquares()) {
    wanted.add(name);
    updatePoint(name, '', marks, true);
  }
  for (const [name, g] of app.pointEls) {
    if (!wanted.has(name)) {
      g.remove();
      app.pointEls.delete(name);
    }
  }
  renderArrows();
}

// The marks that belong on squares: last move, check, destinations of the picked-up piece.
function boardMarks() {
  const st = app.state, marks = { last: new Set(), check: null, hints: new Map() };
  if (app.setup || !st) return marks;
  if (st.last) moveSquares(st.last).forEach((sq) => marks.last.add(sq));
  marks.check = st.check || null;
  if (app.selected) {
    for (const move of app.movesFrom.get(app.selected) || []) {
      const to = moveSquares(move)[1];
      marks.hints.set(to, Boolean(pieceAt(to)));
    }
  }
  return marks;
}

// Dodgem: a car leaves by moving just past the edge; such squares get targets
// while a legal move goes there.
function exitSquares() {
  const exits = new Set();
  if (app.setup || !app.state || app.state.variant !== 'dodgem') return exits;
  for (const moves of app.movesFrom.values()) {
    for (const move of moves) {
      const to = moveSquares(move)[1];
      if (isOffBoard(to)) exits.add(to);
    }
  }
  return exits;
}

function drawXiangqiLines(layer, geo) {
  const C = geo.unit, p = (f, r) => geo.xy(f, r);
  const line = (a, b, cls = 'grid-line') =>
    svg('line', { class: cls, x1: a.x, y1: a.y, x2: b.x, y2: b.y }, layer);
  svg('rect', { class: 'board-frame', x: 2, y: 2, width: geo.width - 4, height: geo.height - 4, rx: 8 }, layer);
  const corner = p(0, 9), far = p(8, 0);
  const x0 = Math.min(corner.x, far.x), y0 = Math.min(corner.y, far.y);
  svg('rect', { class: 'grid-border', x: x0 - 6, y: y0 - 6, width: 8 * C + 12, height: 9 * C + 12 }, layer);
  for (let r = 0; r <= 9; r++) line(p(0, r), p(8, r));
  // The edge files cross the river; the inner ones stop at it.
  for (let f = 0; f <= 8; f++) {
    if (f === 0 || f === 8) {
      line(p(f, 0), p(f, 9));
    } else {
      line(p(f, 0), p(f, 4));
      line(p(f, 5), p(f, 9));
    }
  }
  // The palaces' diagonals.
  line(p(3, 0), p(5, 2)); line(p(5, 0), p(3, 2));
  line(p(3, 7), p(5, 9)); line(p(5, 7), p(3, 9));
  // The river's words stay where a reader expects them, whichever way up.
  const riverY = (p(0, 4).y + p(0, 5).y) / 2;
  svg('text', { class: 'river-text', x: x0 + 2 * C, y: riverY, 'text-anchor': 'middle', 'dominant-baseline': 'central' }, layer, '楚河');
  svg('text', { class: 'river-text', x: x0 + 6 * C, y: riverY, 'text-anchor': 'middle', 'dominant-baseline': 'central' }, layer, '漢界');
  // The small marks where cannons and soldiers start.
  const marks = [[1, 2], [7, 2], [1, 7], [7, 7]];
  for (let f = 0; f <= 8; f += 2) marks.push([f, 3], [f, 6]);
  for (const [f, r] of marks) drawPositionMark(layer, geo, f, r);
  // The files' numbers as the notation counts them, or coordinates (edges.js).
  edges.draw(layer, geo, boardNotation(), app.flipped);
}

// The notation the board's edges follow: the game's (the set-up editor's: the player's).
function boardNotation() {
  return (app.state && app.state.variant === 'xiangqi' && app.state.notation) || wantedNotation();
}

function drawPositionMark(layer, geo, f, r) {
  const { x, y } = geo.xy(f, r), gap = 5, len = 10;
  const left = geo.xy(0, r).x < geo.xy(8, r).x ? 0 : 8;     // the file drawn on the left
  for (const dx of [-1, 1]) {
    // On the board's edge only the inner half is drawn (whichever way up).
    if ((f === left && dx < 0) || (f === 8 - left && dx > 0)) continue;
    for (const dy of [-1, 1]) {
      const cx = x + dx * gap, cy = y + dy * gap;
      svg('path', { class: 'pos-mark', d: `M ${cx + dx * len} ${cy} H ${cx} V ${cy + dy * len}` }, layer);
    }
  }
}

function drawCellsFrame(layer, geo) {
  svg('rect', { class: 'board-frame', x: 2, y: 2, width: geo.width - 4, height: geo.height - 4, rx: 8 }, layer);
  const C = geo.unit;
  for (let f = 0; f < geo.files; f++) {
    const { x } = geo.xy(f, 1);
    const y = geo.pad + geo.ranks * C + (geo.pad > 60 ? 22 : 26);
    svg('text', { class: 'coord cells-coord', x, y, 'text-anchor': 'middle' }, layer, String.fromCharCode(97 + f));
  }
  for (let r = 1; r <= geo.ranks; r++) {
    const { y } = geo.xy(0, r);
    svg('text', { class: 'coord cells-coord', x: geo.pad - 18, y, 'text-anchor': 'middle', 'dominant-baseline': 'central' }, layer, String(r));
  }
}

// One square: a group carrying data-square, holding its hit area, marks and piece.
function createPoint(name, exit) {
  const geo = app.geo, p = parseSquare(name), { x, y } = geo.xy(p.f, p.r), C = geo.unit;
  const g = svg('g', { 'data-square': name, transform: `translate(${x} ${y})` }, $('#board-points'));
  if (geo.kind === 'xiangqi') {
    svg('circle', { class: 'hit', r: C * 0.48 }, g);
  } else if (!exit) {
    svg('rect', { class: 'hit', x: -C / 2, y: -C / 2, width: C, height: C }, g);
  } else {
    svg('title', {}, g, t('Leave the board'));
    svg('rect', { class: 'hit', x: -C * 0.42, y: -C * 0.42, width: C * 0.84, height: C * 0.84, rx: 10 }, g);
    // A chevron pointing off the board, the way the car leaves.
    let angle = p.r > geo.ranks ? -90 : 0;
    if (app.flipped) angle += 180;
    svg('path', { class: 'exit-mark', d: 'M -10 -18 L 8 0 L -10 18', transform: `rotate(${angle})` }, g);
  }
  app.pointEls.set(name, g);
  return g;
}

function updatePoint(name, letter, marks, exit) {
  const geo = app.geo, C = geo.unit;
  const g = app.pointEls.get(name) || createPoint(name, exit);
  const classes = ['point'];
  if (geo.kind === 'cells') classes.push(exit ? 'exit' : 'cell');
  if (!app.setup && app.movesFrom.has(name)) classes.push('pickable');
  if (!app.setup && app.placements.has(name)) classes.push('legal-cell');
  if (marks.hints.has(name)) classes.push('target');
  if (app.selected === name) classes.push('selected');
  g.setAttribute('class', classes.join(' '));

  g.querySelectorAll(':scope > .mark-el').forEach((el) => el.remove());
  let piece = g.querySelector(':scope > .piece');
  if (piece && piece.getAttribute('data-piece') !== letter) {
    piece.remove();
    piece = null;
  }
  if (letter && !piece) piece = geo.kind === 'xiangqi' ? drawXiangqiPiece(g, letter, C) : drawSmallPiece(g, geo.variant, letter, C);

  // Marks under the piece go before it, marks over it after it.
  const under = (tag, attrs) => g.insertBefore(svg(tag, attrs), piece);
  const over = (tag, attrs) => svg(tag, attrs, g);
  const hint = marks.hints.get(name);
  if (geo.kind === 'xiangqi') {
    if (marks.last.has(name)) under('rect', { class: 'mark-el last-move', x: -C * 0.46, y: -C * 0.46, width: C * 0.92, height: C * 0.92, rx: 6 });
    if (marks.check === name) {
      under('circle', { class: 'mark-el in-check', r: C * 0.66 });
      under('circle', { class: 'mark-el check-ring', r: C * 0.5 });
    }
    if (app.selected === name) under('circle', { class: 'mark-el select-ring', r: C * 0.5 });
    if (hint !== undefined) over('circle', { class: hint ? 'mark-el hint-dot capture' : 'mark-el hint-dot', r: hint ? C * 0.47 : C * 0.13 });
  } else {
    if (app.selected === name) under('rect', { class: 'mark-el select-ring', x: -C / 2 + 4, y: -C / 2 + 4, width: C - 8, height: C - 8, rx: 6 });
    if (marks.last.has(name)) over('rect', { class: 'mark-el last-move cell-last', x: -C / 2 + 5, y: -C / 2 + 5, width: C - 10, height: C - 10 });
    if (hint !== undefined) over('circle', { class: 'mark-el hint-dot', r: C * 0.12 });
  }
  return g;
}

// ---------------------------------------------------------------- animation

// The piece of the move just made slides from its square (the board is
// already drawn at the new position).
export function animateMove(move) {
  const squares = moveSquares(move);
  if (squares.length !== 2 || !app.geo || app.justDropped === move) {
    app.justDropped = null;
    return;
  }
  const from = parseSquare(squares[0]), to = parseSquare(squares[1]);
  if (!from || !to || isOffBoard(squares[1])) return;
  const g = app.pointEls.get(squares[1]), piece = g && g.querySelector(':scope > .piece');
  if (!piece) return;
  const a = app.geo.xy(from.f, from.r), b = app.geo.xy(to.f, to.r);
  piece.style.transition = 'none';
  piece.style.transform = `translate(${a.x - b.x}px, ${a.y - b.y}px)`;
  piece.getBoundingClientRect();    // the start is laid out before the slide
  piece.style.transition = 'transform 0.16s ease-out';
  piece.style.transform = '';
}
