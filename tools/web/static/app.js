// tuong-web: the page. It draws the server's `state` and sends intentions;
// the server (tools/web/session.py) owns the game and checks everything.
// Messages: docs/web-protocol.md. Plain ES2020, no build step, no libraries.
'use strict';

(() => {

// ---------------------------------------------------------------- constants

const SVGNS = 'http://www.w3.org/2000/svg';
const XQ_START = 'rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR';
const CHINESE = {
  R: '俥', N: '傌', B: '相', A: '仕', K: '帥', C: '炮', P: '兵',
  r: '車', n: '馬', b: '象', a: '士', k: '將', c: '砲', p: '卒',
};
// WXF letters (H horse, E elephant), as the default notation writes moves.
const LETTERS = { R: 'R', N: 'H', B: 'E', A: 'A', K: 'K', C: 'C', P: 'P' };
const PIECE_NAMES = { R: 'chariot', N: 'horse', B: 'elephant', A: 'advisor', K: 'general', C: 'cannon', P: 'soldier' };
const SIDE_NAMES = {
  xiangqi: { w: 'Red', b: 'Black' },
  tictactoe: { w: 'X', b: 'O' },
  dodgem: { w: 'White', b: 'Black' },
  queens: { w: 'First player', b: 'Second player' },
};
// The side whose moves fill the move list's first column.
const FIRST_SIDE = { xiangqi: 'w', tictactoe: 'w', dodgem: 'b', queens: 'w' };
const LEVEL_DEFAULTS = { nodes: 20000, depth: 8, movetime: 1, clock: 5 };
const LEVEL_UNITS = { nodes: 'nodes', depth: 'plies', movetime: 's', clock: 'min' };
const MARK_CLASSES = { '??': 'mark-blunder', '?': 'mark-mistake', '?!': 'mark-inaccuracy' };

// ---------------------------------------------------------------- page state

const app = {
  ws: null,
  connected: false,
  retryDelay: 500,          // reconnect backoff (ms), doubled up to 10 s
  retryAt: 0,               // when the next attempt is due (for the status line)
  state: null,              // the last `state` from the server
  infos: {},                // multipv -> latest `info` for the shown position
  hint: null,               // the last `hint`, while its position is shown
  hintFen: null,
  flipped: false,
  pieceStyle: load('tuong.pieces', 'chinese'),
  selected: null,           // square of the picked-up piece
  drag: null,               // pointer drag in progress
  downSquare: null,         // square of a pointerdown that may become a click
  movesFrom: new Map(),     // from-square -> legal moves (two-square moves)
  placements: new Set(),    // one-square legal moves (tic-tac-toe, queens)
  setup: null,              // set-up editor: {grid, side, stamp, pending}
  clockAt: 0,               // performance.now() when the clocks arrived
  synced: {},               // server values last copied into the controls
  geo: null,                // the board geometry last drawn
  boardKey: null,           // its shape: a change rebuilds the board
  pointEls: new Map(),      // square -> its SVG group
};

// What automated tests (and the curious) can read; kept up to date.
window.tuong = { state: null, infos: app.infos, lastHint: null, lastPgn: null, send };

// ---------------------------------------------------------------- small helpers

const $ = (sel) => document.querySelector(sel);

function svg(tag, attrs = {}, parent = null, text = null) {
  const node = document.createElementNS(SVGNS, tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value !== null && value !== undefined) node.setAttribute(key, value);
  }
  if (text !== null) node.textContent = text;
  if (parent) parent.appendChild(node);
  return node;
}

function html(tag, attrs = {}, parent = null, text = null) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value !== null && value !== undefined) node.setAttribute(key, value);
  }
  if (text !== null) node.textContent = text;
  if (parent) parent.appendChild(node);
  return node;
}

// localStorage can be missing or full (private windows): never let it break the page.
function load(key, fallback = null) {
  try {
    const text = localStorage.getItem(key);
    return text === null ? fallback : JSON.parse(text);
  } catch (e) {
    return fallback;
  }
}

function store(key, value) {
  try { localStorage.setItem(key, JSON.stringify(value)); } catch (e) { /* ignore */ }
}

// Squares: a file letter and a rank number ("e3", "a10", "d2").
function parseSquare(name) {
  const m = /^([a-z])(\d+)$/.exec(name);
  return m ? { f: m[1].charCodeAt(0) - 97, r: parseInt(m[2], 10) } : null;
}

function squareName(f, r) {
  return String.fromCharCode(97 + f) + r;
}

// A move's squares: one (placement) or two (from, to).
function moveSquares(move) {
  return String(move).match(/[a-z]\d+/g) || [];
}

function sideName(side, variant) {
  const names = SIDE_NAMES[variant || (app.state && app.state.variant) || 'xiangqi'];
  return names[side] || side;
}

function fenSide(fen) {
  return (fen || '').split(/\s+/)[1] || 'w';
}

function formatScore(score, mate) {
  if (mate !== null && mate !== undefined) return (mate > 0 ? '+M' : mate < 0 ? '-M' : 'M') + Math.abs(mate);
  if (score === null || score === undefined) return '';
  const pawns = score / 100;
  return (pawns > 0 ? '+' : '') + pawns.toFixed(2);
}

// Red's (the first player's) expected share: mates are certain, centipawns squashed.
function winShare(score, mate) {
  if (mate !== null && mate !== undefined) return mate > 0 ? 1 : mate < 0 ? 0 : 0.5;
  if (score === null || score === undefined) return null;
  return 1 / (1 + Math.exp(-score / 400));
}

function formatClock(seconds) {
  const s = Math.max(0, Math.ceil(seconds));
  const mm = Math.floor(s / 60), ss = s % 60;
  return `${String(mm).padStart(2, '0')}:${String(ss).padStart(2, '0')}`;
}

// Coalesce bursts (analysis lines arrive many times a second) into one redraw.
const pending = new Set();
let pendingTimer = null;
function schedule(...jobs) {
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

// ---------------------------------------------------------------- connection

function connect() {
  const proto = location.protocol === 'https:' ? 'wss:' : 'ws:';
  let ws;
  try {
    ws = new WebSocket(`${proto}//${location.host}/ws`);
  } catch (e) {
    scheduleReconnect();
    return;
  }
  app.ws = ws;
  ws.addEventListener('open', () => {
    app.connected = true;
    app.retryDelay = 500;
    // Bring back the game of before the reload (the server checks it).
    const saved = load('tuong.game');
    if (saved) sendRaw({ type: 'restore', game: saved });
    renderStatus();
  });
  ws.addEventListener('message', (event) => {
    let message;
    try { message = JSON.parse(event.data); } catch (e) { return; }
    if (message && typeof message.type === 'string') dispatch(message);
  });
  ws.addEventListener('close', () => {
    if (app.ws !== ws) return;
    app.ws = null;
    app.connected = false;
    scheduleReconnect();
  });
}

function scheduleReconnect() {
  const delay = app.retryDelay;
  app.retryDelay = Math.min(app.retryDelay * 2, 10000);
  app.retryAt = performance.now() + delay;
  setTimeout(connect, delay);
  renderStatus();
}

function sendRaw(message) {
  if (!app.ws || app.ws.readyState !== WebSocket.OPEN) return false;
  app.ws.send(JSON.stringify(message));
  return true;
}

function send(message) {
  if (!sendRaw(message)) setError('not connected to the server');
}

const HANDLERS = {
  state: onState, info: onInfo, hint: onHint, pgn: onPgn,
  annotation: onAnnotation, notice: onNotice, error: onError,
};

function dispatch(message) {
  const handler = HANDLERS[message.type];
  if (handler) handler(message);
}

// ---------------------------------------------------------------- messages

function onState(st) {
  const prev = app.state;
  app.state = st;
  window.tuong.state = st;
  setError('');
  if (st.saved) store('tuong.game', st.saved);

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
  renderAll();
}

function onInfo(info) {
  const st = app.state;
  if (!st) return;
  // Lines of another position (a late line after a move) are dropped.
  if (info.fen ? info.fen !== st.fen : (info.ply != null && info.ply !== st.cursor)) return;
  app.infos[info.multipv || 1] = info;
  schedule(renderAnalysis, renderArrows, renderEvalBar);
}

function onHint(hint) {
  app.hint = hint;
  app.hintFen = app.state ? app.state.fen : null;
  window.tuong.lastHint = hint;
  const source = hint.source === 'new search' ? 'a new search' : 'the last search';
  const box = $('#hint-text');
  box.textContent = `Hint: ${hint.line || (hint.pv || [hint.move]).join(' ')} (from ${source})`;
  box.title = formatScore(hint.score, hint.mate);
  renderArrows();
}

function onPgn(message) {
  window.tuong.lastPgn = message.text;
  download(message.text || '', message.name || 'tuong-game.pgn');
}

function onAnnotation(message) {
  const done = message.done || 0, total = message.total || 0;
  const finished = total > 0 && done >= total;
  $('#annotation-progress').textContent = finished ? `annotated ${total} positions` : `annotating ${done} / ${total}`;
  if (message.summary !== undefined) renderSummary(message.summary);
}

function onNotice(message) {
  const box = $('#notice');
  box.textContent = message.text || '';
  box.classList.remove('stale');
  clearTimeout(onNotice.timer);
  // Notices stay readable but fade, so a new one stands out.
  onNotice.timer = setTimeout(() => box.classList.add('stale'), 10000);
}

function onError(message) {
  setError(message.message || 'error');
  if (app.setup) app.setup.pending = false;   // stay in the editor to fix the position
  renderBoard();                              // a dropped piece goes back if its move was refused
}

function setError(text) {
  $('#error').textContent = text;
}

function clearInfos() {
  app.infos = {};
  window.tuong.infos = app.infos;
}

// Drop the lines above `keep` (a smaller multipv, or analysis off: keep = 0).
function trimInfos(keep) {
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

function download(text, name) {
  const blob = new Blob([text], { type: 'application/x-chess-pgn;charset=utf-8' });
  const url = URL.createObjectURL(blob);
  const link = html('a', { href: url, download: name }, document.body);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 2000);
}

// ---------------------------------------------------------------- geometry

// Xiangqi: pieces on the intersections of 9 files x 10 ranks (ranks 0-9).
function xiangqiGeometry() {
  const C = 60, P = 54, flip = app.flipped;
  return {
    kind: 'xiangqi', files: 9, ranks: 10, unit: C, pad: P,
    width: 8 * C + 2 * P, height: 9 * C + 2 * P,
    xy(f, r) {
      const col = flip ? 8 - f : f, row = flip ? r : 9 - r;
      return { x: P + col * C, y: P + row * C };
    },
    rankOfRow: (i) => 9 - i,
    rowOfRank: (r) => 9 - r,
  };
}

// Small games: pieces inside cells, ranks 1..N from the bottom. Dodgem gets a
// margin of a cell's width around the grid for the exit targets.
function cellsGeometry(variant, files, ranks) {
  const C = 100, P = variant === 'dodgem' ? 100 : 40, flip = app.flipped;
  return {
    kind: 'cells', variant, files, ranks, unit: C, pad: P,
    width: files * C + 2 * P, height: ranks * C + 2 * P,
    xy(f, r) {
      const col = flip ? files - 1 - f : f, row = flip ? r - 1 : ranks - r;
      return { x: P + col * C + C / 2, y: P + row * C + C / 2 };
    },
    rankOfRow: (i) => ranks - i,
    rowOfRank: (r) => ranks - r,
  };
}

function geometry() {
  const st = app.state;
  if (app.setup || !st || st.variant === 'xiangqi') return xiangqiGeometry();
  return cellsGeometry(st.variant, st.files || st.grid[0].length, st.ranks || st.grid.length);
}

function displayGrid() {
  if (app.setup) return app.setup.grid;
  return app.state ? app.state.grid : placementToGrid(XQ_START);
}

function pieceAt(square) {
  const geo = app.geo, p = parseSquare(square), grid = displayGrid();
  if (!geo || !p) return '';
  const row = grid[geo.rowOfRank(p.r)];
  return (row && row[p.f]) || '';
}

function placementToGrid(placement) {
  return placement.split('/').map((text) => {
    const row = [];
    for (const token of text.match(/\d+|\D/g) || []) {
      if (/\d/.test(token)) for (let i = 0; i < Number(token); i++) row.push('');
      else row.push(token);
    }
    return row;
  });
}

function gridToPlacement(grid) {
  return grid.map((row) => {
    let out = '', empty = 0;
    for (const cell of row) {
      if (cell) {
        if (empty) out += empty;
        out += cell;
        empty = 0;
      } else {
        empty++;
      }
    }
    return empty ? out + empty : out;
  }).join('/');
}

// ---------------------------------------------------------------- board drawing

// The board is redrawn in place: a square's group (and its piece, while it
// stays) is the same element from state to state, so a reference to it, held
// by a gesture in progress or by a test, stays good. Only a change of the
// board's shape (game, size, flip, piece style) rebuilds everything.
function renderBoard() {
  const geo = geometry();
  const key = [geo.kind, geo.variant || '', geo.files, geo.ranks, app.flipped, app.pieceStyle].join('|');
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
  // Coordinates: files a-i, ranks 0-9 as the moves write them.
  for (let f = 0; f <= 8; f++) {
    const x = p(f, 0).x;
    svg('text', { class: 'coord', x, y: geo.height - 12, 'text-anchor': 'middle' }, layer, String.fromCharCode(97 + f));
  }
  for (let r = 0; r <= 9; r++) {
    const y = p(0, r).y;
    svg('text', { class: 'coord', x: 16, y, 'text-anchor': 'middle', 'dominant-baseline': 'central' }, layer, String(r));
  }
}

function drawPositionMark(layer, geo, f, r) {
  const { x, y } = geo.xy(f, r), gap = 5, len = 10;
  for (const dx of [-1, 1]) {
    // On the board's edge only the inner half is drawn.
    if ((f === 0 && dx < 0) || (f === 8 && dx > 0)) continue;
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
    svg('title', {}, g, 'Leave the board');
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

function drawXiangqiPiece(parent, letter, C) {
  const red = letter === letter.toUpperCase();
  const upper = letter.toUpperCase();
  const R = C * 0.45;
  const g = svg('g', { class: `piece ${red ? 'red' : 'black'}`, 'data-piece': letter }, parent);
  svg('title', {}, g, `${red ? 'Red' : 'Black'} ${PIECE_NAMES[upper] || upper}`);
  svg('circle', { class: 'piece-shadow', cx: 1.5, cy: 2.5, r: R }, g);
  svg('circle', { class: 'piece-body', r: R }, g);
  svg('circle', { class: 'piece-ring', r: R - 4.5 }, g);
  if (app.pieceStyle === 'letters') {
    svg('text', { class: 'piece-text letter', y: 1 }, g, LETTERS[upper] || upper);
  } else {
    svg('text', { class: 'piece-text', y: 1 }, g, CHINESE[letter] || letter);
  }
  return g;
}

function drawSmallPiece(parent, variant, letter, C) {
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

// ---------------------------------------------------------------- arrows

function renderArrows() {
  const layer = $('#board-arrows'), geo = app.geo, st = app.state;
  layer.textContent = '';
  if (!geo || !st || app.setup) return;
  if (st.analysing) {
    const lines = Object.values(app.infos)
      .filter((info) => info.pv && info.pv.length && (info.multipv || 1) <= multipv())
      .sort((a, b) => (b.multipv || 1) - (a.multipv || 1));   // line 1 drawn last, on top
    for (const info of lines) {
      const first = (info.multipv || 1) === 1;
      drawArrow(layer, geo, info.pv[0], `arrow pv-${info.multipv || 1}`, first ? 0.2 : 0.11);
    }
  }
  if (app.hint && app.hint.move && app.hintFen === st.fen) {
    drawArrow(layer, geo, app.hint.move, 'arrow hint-arrow', 0.16);
  }
}

// An arrow from a move's first square to its second (widths in cells); a
// one-square move gets a ring.
function drawArrow(layer, geo, move, cls, width) {
  const squares = moveSquares(move).map(parseSquare);
  if (!squares.length || squares.some((s) => !s)) return;
  const C = geo.unit;
  const a = geo.xy(squares[0].f, squares[0].r);
  if (squares.length === 1) {
    svg('circle', { class: cls.replace('arrow', 'arrow-ring'), cx: a.x, cy: a.y, r: C * 0.38, 'data-move': move }, layer);
    return;
  }
  const b = geo.xy(squares[1].f, squares[1].r);
  const dx = b.x - a.x, dy = b.y - a.y, len = Math.hypot(dx, dy);
  if (len < 1) return;
  const ux = dx / len, uy = dy / len, nx = -uy, ny = ux;
  const w = width * C, head = w * 2.4, headW = w * 1.5;
  const sx = a.x + ux * C * 0.18, sy = a.y + uy * C * 0.18;   // leave the piece readable
  const tx = b.x - ux * C * 0.12, ty = b.y - uy * C * 0.12;
  const hx = tx - ux * head, hy = ty - uy * head;
  const pts = [
    [sx + nx * w / 2, sy + ny * w / 2], [hx + nx * w / 2, hy + ny * w / 2], [hx + nx * headW, hy + ny * headW],
    [tx, ty],
    [hx - nx * headW, hy - ny * headW], [hx - nx * w / 2, hy - ny * w / 2], [sx - nx * w / 2, sy - ny * w / 2],
  ];
  svg('polygon', { class: cls, points: pts.map((p) => p.map((v) => v.toFixed(1)).join(',')).join(' '), 'data-move': move }, layer);
}

// ---------------------------------------------------------------- board input

function squareOf(target) {
  const el = target && target.closest ? target.closest('[data-square]') : null;
  return el && $('#board-points').contains(el) ? el.dataset.square : null;
}

function onBoardPointerDown(event) {
  const sq = squareOf(event.target);
  if (app.setup) {
    if (sq && (event.button === 0 || event.button === 2)) {
      event.preventDefault();
      setupClick(sq, event.button === 2);
    }
    return;
  }
  if (event.button !== 0 || !app.state) return;
  if (!sq) {
    deselect();    // a click beside the board puts the piece down
    return;
  }
  // Second click of click-click: a destination of the picked-up piece.
  if (app.selected && app.selected !== sq) {
    const move = app.selected + sq;
    if (app.state.legal.includes(move)) {
      event.preventDefault();
      sendMove(move);
      return;
    }
  }
  if (app.movesFrom.has(sq)) {
    event.preventDefault();
    const wasSelected = app.selected === sq;
    select(sq);
    app.drag = { square: sq, pointerId: event.pointerId, x0: event.clientX, y0: event.clientY, moved: false, wasSelected, el: null };
    return;
  }
  app.downSquare = sq;
}

function onPointerMove(event) {
  const drag = app.drag;
  if (!drag || event.pointerId !== drag.pointerId) return;
  if (!drag.moved) {
    if (Math.hypot(event.clientX - drag.x0, event.clientY - drag.y0) < 5) return;
    // Lift the piece into the top layer so it passes over the others.
    const piece = document.querySelector(`#board-points [data-square="${drag.square}"] .piece`);
    if (!piece) return;
    drag.moved = true;
    drag.el = piece;
    piece.classList.add('dragging');
    $('#board-drag').appendChild(piece);
  }
  const p = clientToSvg(event.clientX, event.clientY);
  drag.el.setAttribute('transform', `translate(${p.x} ${p.y})`);
}

function onPointerUp(event) {
  const drag = app.drag;
  if (drag && event.pointerId === drag.pointerId) {
    app.drag = null;
    if (drag.moved) dropPiece(event, drag);
    else if (drag.wasSelected) deselect();     // a second click on the piece puts it down
    return;
  }
  const sq = squareOf(event.target);
  if (app.downSquare && sq === app.downSquare) clickSquare(sq);
  app.downSquare = null;
}

function dropPiece(event, drag) {
  const target = squareAtClient(event.clientX, event.clientY);
  const move = target ? drag.square + target : null;
  if (move && target !== drag.square && app.state.legal.includes(move)) {
    // Leave the piece where it was dropped until the new state redraws the board.
    const p = parseSquare(target), at = app.geo.xy(p.f, p.r);
    drag.el.setAttribute('transform', `translate(${at.x} ${at.y})`);
    sendMove(move, false);
  } else {
    // Back to its square, still picked up.
    drag.el.classList.remove('dragging');
    drag.el.removeAttribute('transform');
    const g = app.pointEls.get(drag.square);
    if (g) g.appendChild(drag.el);
    renderBoard();
  }
}

function squareAtClient(x, y) {
  for (const el of document.elementsFromPoint(x, y)) {
    const sq = squareOf(el);
    if (sq) return sq;
  }
  return null;
}

function clientToSvg(x, y) {
  const board = $('#board'), pt = board.createSVGPoint();
  pt.x = x;
  pt.y = y;
  return pt.matrixTransform(board.getScreenCTM().inverse());
}

// A click that is not a pick-up: a placement, an exit target, or a miss.
function clickSquare(sq) {
  if (app.placements.has(sq)) {
    sendMove(sq);
    return;
  }
  // An exit target clicked with no car picked up: fine if only one car can leave there.
  const into = (app.state.legal || []).filter((m) => moveSquares(m)[1] === sq);
  if (!app.selected && into.length === 1 && parseSquare(sq) && isOffBoard(sq)) {
    sendMove(into[0]);
    return;
  }
  deselect();
}

function isOffBoard(sq) {
  const geo = app.geo, p = parseSquare(sq);
  return geo && geo.kind === 'cells' && (p.f >= geo.files || p.r > geo.ranks || p.r < 1);
}

function select(sq) {
  app.selected = sq;
  renderBoard();
}

function deselect() {
  if (app.selected === null) return;
  app.selected = null;
  renderBoard();
}

function cancelDrag() {
  app.drag = null;
  app.downSquare = null;
}

function sendMove(move, redraw = true) {
  if (!app.state || !app.state.legal.includes(move)) return;   // the server would refuse it anyway
  app.selected = null;
  const sent = sendRaw({ type: 'move', move });
  if (!sent) setError('not connected to the server');
  if (redraw || !sent) renderBoard();
}

// ---------------------------------------------------------------- set-up editor

function enterSetup() {
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

function leaveSetup(redraw = true) {
  app.setup = null;
  $('#setup-panel').hidden = true;
  // The palette exists only while editing, so that [data-piece] means board pieces otherwise.
  $('#setup-palette').textContent = '';
  if (redraw) renderAll();
}

function buildPalette() {
  const box = $('#setup-palette');
  box.textContent = '';
  // Red's pieces and the eraser on the first row, Black's on the second.
  for (const letter of ['K', 'A', 'B', 'N', 'R', 'C', 'P', '', 'k', 'a', 'b', 'n', 'r', 'c', 'p']) {
    if (!letter) {
      html('button', { type: 'button', class: 'pal-piece eraser', 'data-piece': '', title: 'Eraser (or right-click a square)', 'aria-pressed': 'false' }, box, '✕');
      continue;
    }
    const red = letter === letter.toUpperCase();
    const label = app.pieceStyle === 'letters' ? LETTERS[letter.toUpperCase()] : CHINESE[letter];
    html('button', {
      type: 'button', class: `pal-piece ${red ? 'red' : 'black'}${app.pieceStyle === 'letters' ? ' letters' : ''}`,
      'data-piece': letter, title: `${red ? 'Red' : 'Black'} ${PIECE_NAMES[letter.toUpperCase()]}`, 'aria-pressed': 'false',
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

function onPaletteClick(event) {
  const button = event.target.closest('[data-piece]');
  if (!button || !app.setup) return;
  // Always a choice, never a toggle: "pick R, click a square" works however often it is repeated.
  app.setup.stamp = button.dataset.piece;
  renderPalette();
}

// Place the chosen piece, erase, or (nothing chosen) lift a piece to place it elsewhere.
function setupClick(sq, erase) {
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

function setupDone() {
  if (!app.setup) return;
  app.setup.pending = true;    // leave the editor when the server's state comes
  send({ type: 'new', variant: 'xiangqi', fen: setupFen() });
}

// ---------------------------------------------------------------- panel rendering

function renderAll() {
  renderBoard();
  renderStatus();
  renderClocks();
  renderMoves();
  renderAnalysis();
  renderEvalBar();
  renderGraph();
  renderButtons();
}

function statusText() {
  const st = app.state;
  if (!app.connected) {
    if (!app.retryAt) return { text: 'Connecting...', cls: 'offline' };
    const wait = Math.max(0, Math.ceil((app.retryAt - performance.now()) / 1000));
    return { text: `Disconnected: reconnecting${wait ? ` in ${wait} s` : '...'}`, cls: 'offline' };
  }
  if (app.setup) return { text: 'Setting up a position', cls: '' };
  if (!st) return { text: 'Waiting for the server...', cls: '' };
  if (st.result) {
    const r = st.result;
    // "1-0 Red mates (checkmate)"; the termination only when the reason does not say it.
    const reason = r.reason || '', term = r.termination || '';
    const why = term && !reason.toLowerCase().includes(term.toLowerCase()) ? `${reason} (${term})` : reason || term;
    return { text: `${r.result} ${why}`.trim(), cls: 'over' };
  }
  if (st.thinking) return { text: `${st.engine_name || 'tuong'} is thinking...`, cls: 'thinking' };
  return { text: `${sideName(st.turn)} to move`, cls: '' };
}

function renderStatus() {
  const { text, cls } = statusText();
  const el = $('#status');
  el.textContent = text;
  el.className = cls;
}

function renderClocks() {
  const st = app.state, clocks = st && st.clocks;
  $('#clocks').hidden = !clocks;
  if (!clocks) return;
  const elapsed = (performance.now() - app.clockAt) / 1000;
  for (const side of ['w', 'b']) {
    const running = clocks.running === side && !st.result;
    const left = (clocks[side] || 0) - (running ? elapsed : 0);
    const el = $(`#clock-${side}`);
    el.textContent = formatClock(left);
    el.classList.toggle('running', running);
    el.classList.toggle('low', running && left < 20);
    $(`#clock-label-${side}`).textContent = sideName(side);
  }
}

function renderMoves() {
  const list = $('#movelist'), st = app.state;
  list.textContent = '';
  if (!st) return;
  const moves = st.moves || [];
  // Annotated games carry a sentence a move: one move a row then, so it can be read.
  const annotated = moves.some((m) => m.comment);
  list.classList.toggle('annotated', annotated);
  if (!moves.length) {
    html('div', { class: 'empty-note' }, list, 'No moves yet');
  }
  const first = FIRST_SIDE[st.variant] || 'w';
  const fields = (st.start_fen || '').split(/\s+/);
  let number = (st.variant === 'xiangqi' && parseInt(fields[5], 10)) || 1;
  let column = fenSide(st.start_fen) === first ? 0 : 1;
  if (column === 1 && moves.length && !annotated) {
    html('div', { class: 'num' }, list, `${number}.`);
    html('div', { class: 'mv placeholder' }, list, '...');
  }
  let current = null;
  moves.forEach((m, i) => {
    if (annotated) html('div', { class: 'num' }, list, `${number}${column === 0 ? '.' : '...'}`);
    else if (column === 0) html('div', { class: 'num' }, list, `${number}.`);
    const el = moveElement(m, i + 1, st.cursor);
    list.appendChild(el);
    if (i + 1 === st.cursor) current = el;
    column = 1 - column;
    if (column === 0) number++;
  });
  const comment = st.cursor > 0 && moves[st.cursor - 1] ? moves[st.cursor - 1].comment : null;
  $('#current-comment').textContent = comment || '';
  if (current) keepVisible(list, current);
}

function moveElement(m, ply, cursor) {
  const el = html('div', { class: 'mv' + (ply === cursor ? ' current' : ''), 'data-ply': ply, title: m.comment || m.move });
  html('span', { class: 'mv-text' }, el, m.text || m.move);
  if (m.mark) html('span', { class: `mark ${MARK_CLASSES[m.mark] || ''}` }, el, m.mark);
  if (m.comment) html('div', { class: 'comment' }, el, m.comment);
  return el;
}

// Scroll the list (not the page) so that the current move shows.
function keepVisible(container, el) {
  const top = el.offsetTop - container.offsetTop, bottom = top + el.offsetHeight;
  if (top < container.scrollTop) container.scrollTop = top - 4;
  else if (bottom > container.scrollTop + container.clientHeight) container.scrollTop = bottom - container.clientHeight + 4;
}

function multipv() {
  return parseInt($('#multipv').value, 10) || 1;
}

function renderAnalysis() {
  const list = $('#analysis-lines');
  list.textContent = '';
  const lines = Object.values(app.infos)
    .filter((info) => (info.multipv || 1) <= multipv())
    .sort((a, b) => (a.multipv || 1) - (b.multipv || 1));
  for (const info of lines) {
    const li = html('li', { class: 'pv-line', 'data-multipv': info.multipv || 1 }, list);
    html('span', { class: 'pv-depth' }, li, `d${info.depth ?? '?'}`);
    li.appendChild(document.createTextNode(' '));
    html('span', { class: 'pv-score' }, li, formatScore(info.score, info.mate));
    li.appendChild(document.createTextNode(' '));
    html('span', { class: 'pv-moves' }, li, info.line || (info.pv || []).join(' '));
  }
  const top = app.infos[1];
  $('#analysis-stats').textContent = top && top.nodes ?
    `${formatCount(top.nodes)} nodes${top.nps ? `, ${formatCount(top.nps)}/s` : ''}` : '';
}

function formatCount(n) {
  if (n >= 1e6) return `${(n / 1e6).toFixed(1)}M`;
  if (n >= 1e3) return `${(n / 1e3).toFixed(0)}k`;
  return String(n);
}

// The bar shows the latest line 1; without one, the score recorded for the shown move.
function renderEvalBar() {
  const st = app.state;
  let score = null, mate = null;
  const top = app.infos[1];
  if (top) {
    score = top.score;
    mate = top.mate;
  } else if (st && st.cursor > 0 && st.moves[st.cursor - 1]) {
    score = st.moves[st.cursor - 1].score;
    mate = st.moves[st.cursor - 1].mate;
  }
  const share = winShare(score, mate);
  const bar = $('#eval-bar');
  bar.classList.toggle('flipped', app.flipped);
  $('#eval-fill').style.height = `${((share === null ? 0.5 : share) * 100).toFixed(1)}%`;
  $('#eval-text').textContent = share === null ? '' : formatScore(score, mate);
  bar.dataset.share = share === null ? '' : share.toFixed(3);
}

function renderSummary(summary) {
  const box = $('#summary');
  box.textContent = '';
  const lines = Array.isArray(summary) ? summary
    : typeof summary === 'string' ? [summary]
    : summary && typeof summary === 'object' ? Object.entries(summary).map(([k, v]) => `${k}: ${v}`) : [];
  for (const line of lines) html('p', {}, box, String(line));
}

// The score graph: Red's share after each move; a click goes to that ply.
function renderGraph() {
  const graph = $('#eval-graph'), st = app.state;
  const w = graph.clientWidth || 250, h = graph.clientHeight || 100;
  graph.setAttribute('viewBox', `0 0 ${w} ${h}`);
  graph.textContent = '';
  svg('rect', { class: 'graph-bg', x: 0, y: 0, width: w, height: h }, graph);
  const moves = (st && st.moves) || [];
  const X = (ply) => 8 + (w - 16) * ply / Math.max(1, moves.length);
  const Y = (share) => 6 + (h - 12) * (1 - share);
  svg('line', { class: 'graph-mid', x1: 0, y1: Y(0.5), x2: w, y2: Y(0.5) }, graph);
  const points = [];
  moves.forEach((m, i) => {
    const share = winShare(m.score, m.mate);
    if (share !== null) points.push({ ply: i + 1, share, mark: m.mark });
  });
  if (!points.length) {
    svg('text', { class: 'graph-empty', x: w / 2, y: h / 2 - 8, 'text-anchor': 'middle' }, graph,
      moves.length ? 'no scores yet (annotate the game)' : 'scores will show here');
  } else {
    const path = points.map((p) => `L ${X(p.ply).toFixed(1)} ${Y(p.share).toFixed(1)}`).join(' ');
    svg('path', { class: 'graph-area', d: `M ${X(0)} ${h} L ${X(0)} ${Y(0.5)} ${path} L ${X(points[points.length - 1].ply)} ${h} Z` }, graph);
    svg('path', { class: 'graph-line', d: `M ${X(0)} ${Y(0.5)} ${path}` }, graph);
  }
  if (st && moves.length) {
    svg('line', { class: 'graph-cursor', x1: X(st.cursor), y1: 0, x2: X(st.cursor), y2: h }, graph);
  }
  for (const p of points) {
    const cls = ['graph-point', MARK_CLASSES[p.mark] || '', st && st.cursor === p.ply ? 'current' : ''].join(' ').trim();
    const dot = svg('circle', { class: cls, cx: X(p.ply), cy: Y(p.share), r: 3.5, 'data-ply': p.ply }, graph);
    svg('title', {}, dot, `${p.ply}: ${formatScore(moves[p.ply - 1].score, moves[p.ply - 1].mate)}`);
  }
  graph.dataset.plies = String(moves.length);
}

function onGraphClick(event) {
  const st = app.state;
  if (!st || !st.moves.length) return;
  const dot = event.target.closest('[data-ply]');
  if (dot) {
    goto(Number(dot.dataset.ply));
    return;
  }
  // Elsewhere on the graph: the nearest ply.
  const graph = $('#eval-graph'), rect = graph.getBoundingClientRect();
  const w = graph.clientWidth || rect.width;
  const ply = Math.round((event.clientX - rect.left - 8) / (w - 16) * st.moves.length);
  goto(Math.max(0, Math.min(st.moves.length, ply)));
}

function renderButtons() {
  const st = app.state;
  const analysing = Boolean(st && st.analysing);
  const button = $('#analyse');
  button.setAttribute('aria-pressed', String(analysing));
  button.textContent = analysing ? 'Stop analysis' : 'Analyse';
  $('#flip').setAttribute('aria-pressed', String(app.flipped));
  $('#setup').setAttribute('aria-pressed', String(Boolean(app.setup)));
  $('#pieces-style').value = app.pieceStyle;
  markModeDirty();
}

// ---------------------------------------------------------------- controls

// Copy a server value into a control only when the server's value changes,
// so a choice the user is still making is not overwritten by every state.
function syncOnce(key, value, apply) {
  const text = JSON.stringify(value);
  if (app.synced[key] === text) return;
  app.synced[key] = text;
  apply(value);
}

function syncControls(st) {
  syncOnce('variant', st.variant, (v) => {
    $('#variant').value = v;
    relabelSides(v);
  });
  syncOnce('mode', st.mode || null, (mode) => setModeControls(mode));
  syncOnce('notation', st.notation, (v) => { if (v) $('#notation').value = v; });
  syncOnce('lang', st.lang, (v) => { if (v) $('#lang').value = v; });
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

function showLevelKind() {
  const kind = $('#level-kind').value;
  $('#level-inc-box').hidden = kind !== 'clock';
  $('#level-unit').textContent = LEVEL_UNITS[kind] || '';
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

function modeFromControls() {
  return { engine: $('#engine-side').value || null, level: levelFromControls() };
}

// Show that Apply has something to apply.
function markModeDirty() {
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

function goto(ply) {
  const st = app.state;
  if (!st) return;
  const target = Math.max(0, Math.min(st.moves.length, ply));
  if (target !== st.cursor) send({ type: 'goto', ply: target });
}

function toggleAnalysis() {
  const on = !(app.state && app.state.analysing);
  send({ type: 'analyse', on, multipv: multipv() });
}

function newGame() {
  if (app.setup) leaveSetup();
  send({ type: 'new', variant: $('#variant').value });
}

function flip() {
  app.flipped = !app.flipped;
  renderAll();
}

function exportGame() {
  send({ type: 'export' });
}

function sendSettings() {
  send({ type: 'settings', notation: $('#notation').value, lang: $('#lang').value });
}

function importFile() {
  const input = $('#file-input'), file = input.files && input.files[0];
  if (!file) return;
  const reader = new FileReader();
  reader.addEventListener('load', () => {
    // A data: URL's text after the comma is the file in base64.
    const url = String(reader.result);
    send({ type: 'import', data: url.slice(url.indexOf(',') + 1), name: file.name });
    input.value = '';
  });
  reader.addEventListener('error', () => setError(`could not read ${file.name}`));
  reader.readAsDataURL(file);
}

function on(id, event, handler) {
  $(id).addEventListener(event, handler);
}

function wireControls() {
  on('#new', 'click', newGame);
  on('#flip', 'click', flip);
  on('#undo', 'click', () => send({ type: 'undo' }));
  on('#hint', 'click', () => send({ type: 'hint' }));
  on('#go', 'click', () => send({ type: 'go' }));
  on('#resign', 'click', () => send({ type: 'resign' }));
  on('#draw', 'click', () => send({ type: 'draw' }));
  on('#apply-mode', 'click', () => send({ type: 'mode', ...modeFromControls() }));
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
    trimInfos(multipv());
    if (app.state && app.state.analysing) send({ type: 'analyse', on: true, multipv: multipv() });
    renderAnalysis();
    renderArrows();
  });
  on('#annotate', 'click', () => {
    $('#annotation-progress').textContent = 'annotating...';
    send({ type: 'annotate' });
  });
  on('#notation', 'change', sendSettings);
  on('#lang', 'change', sendSettings);
  on('#pieces-style', 'change', () => {
    app.pieceStyle = $('#pieces-style').value === 'letters' ? 'letters' : 'chinese';
    store('tuong.pieces', app.pieceStyle);
    if (app.setup) buildPalette();
    renderBoard();
  });
  on('#import-button', 'click', () => {
    const text = $('#import-text').value.trim();
    if (text) send({ type: 'import', text });
    else setError('nothing to import: paste a FEN, EPD or PGN first');
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
    const el = event.target.closest('[data-ply]');
    if (el) goto(Number(el.dataset.ply));
  });
  on('#eval-graph', 'click', onGraphClick);
  on('#nav-first', 'click', () => goto(0));
  on('#nav-prev', 'click', () => app.state && goto(app.state.cursor - 1));
  on('#nav-next', 'click', () => app.state && goto(app.state.cursor + 1));
  on('#nav-last', 'click', () => app.state && goto(app.state.moves.length));
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
  ArrowLeft: () => app.state && goto(app.state.cursor - 1),
  ArrowRight: () => app.state && goto(app.state.cursor + 1),
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
    if (!$('#help').hidden) $('#help').hidden = true;
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
  if (target && (target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName))) return;
  if (event.ctrlKey || event.metaKey || event.altKey) return;
  const action = KEYS[event.key] || KEYS[event.key.toLowerCase && event.key.length === 1 ? event.key.toLowerCase() : ''];
  if (!action) return;
  event.preventDefault();
  action();
}

// ---------------------------------------------------------------- start

function start() {
  wireControls();
  $('#pieces-style').value = app.pieceStyle;
  showLevelKind();
  renderAll();
  // Clocks count down between states; the status counts down to a reconnect.
  setInterval(() => {
    renderClocks();
    if (!app.connected) renderStatus();
  }, 200);
  connect();
}

if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
else start();

})();
