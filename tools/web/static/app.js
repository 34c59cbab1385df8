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
// Letter pieces follow the notation's letters: WXF's (H horse, E elephant),
// or the Vietnamese federation's (X xe, M mã, T tượng, S sĩ, Tg tướng, P pháo,
// B binh for Red's soldiers and C chốt for Black's).
const LETTER_SETS = {
  wxf: { R: 'R', N: 'H', B: 'E', A: 'A', K: 'K', C: 'C', P: 'P' },
  vietnamese: { R: 'X', N: 'M', B: 'T', A: 'S', K: 'Tg', C: 'P', P: 'B', p: 'C' },
};
// The notation a language writes by default.
const LANG_NOTATION = { en: 'wxf', vi: 'vietnamese', 'zh-Hans': 'chinese', 'zh-Hant': 'chinese' };
const LANGS = ['en', 'vi', 'zh-Hans', 'zh-Hant'];
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
  flipped: load('tuong.flip', false),
  pieceStyle: load('tuong.pieces', 'chinese'),
  lang: chooseLang(),
  sound: load('tuong.sound', true),
  theme: load('tuong.theme', 'light'),
  player: load('tuong.player', ''),
  nodes: new Map(),         // the game tree as the server sent it: id -> node
  root: null,               // the start position's node id
  library: null,            // pending: a game to keep in the library when its PGN comes
  restoreSent: null,        // the game asked back at connect, until its restore is answered
  lastShown: null,          // {fen, id} last drawn, for sounds and animation
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
window.tuong = {
  state: null, infos: app.infos, lastHint: null, lastPgn: null, send,
  nodes: () => [...app.nodes.entries()], root: () => app.root,
  saved: () => (app.state ? savedGame(app.state) : null),
  libraryText: () => libraryText(), receive: (message) => dispatch(message),
  // For database.js (the Database tab, the master moves, the library in the database).
  api: { t, send, html, replaceGame, confirmThen, displayText, sendMove, setError, savedGame, keepLocal,
    renderLibrary, gameTitle, lang: () => app.lang, state: () => app.state },
};

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
  try {
    localStorage.setItem(key, JSON.stringify(value));
  } catch (e) {
    // Said once: the page goes on, but the player must know it keeps nothing now.
    if (!store.warned) {
      store.warned = true;
      onNotice({ text: t("the browser keeps nothing more (its storage is full or off): export the games you want to keep") });
    }
  }
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
  return t(names[side] || side);
}

// The interface's words (i18n.js holds the dictionaries, keyed by the English text).
function chooseLang() {
  const kept = load('tuong.lang', null);
  if (LANGS.includes(kept)) return kept;
  for (const wanted of navigator.languages || [navigator.language || 'en']) {
    const code = String(wanted).toLowerCase();
    if (code.startsWith('vi')) return 'vi';
    if (/^zh-(tw|hk|mo)|^zh-hant/.test(code)) return 'zh-Hant';
    if (code.startsWith('zh')) return 'zh-Hans';
    if (code.startsWith('en')) return 'en';
  }
  return 'en';
}

function t(text, values = null) {
  const table = (window.TUONG_I18N || {})[app.lang] || {};
  let out = table[text] || text;
  if (values) for (const [key, value] of Object.entries(values)) out = out.split(`{${key}}`).join(value);
  return out;
}

// Translate the page's fixed words: every text node, title, placeholder and
// aria-label whose English is in the dictionary (the English is kept aside).
const englishOf = new WeakMap();
function translatePage() {
  document.documentElement.lang = app.lang;
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    if (node.parentElement && node.parentElement.closest('svg, kbd, #movelist, #analysis-lines, #summary, textarea, .dynamic')) continue;
    const english = englishOf.get(node) || node.nodeValue.trim().replace(/\s+/g, ' ');
    if (!english) continue;
    englishOf.set(node, english);
    const lead = node.nodeValue.match(/^\s*/)[0], tail = node.nodeValue.match(/\s*$/)[0];
    node.nodeValue = lead + t(english) + tail;
  }
  for (const el of document.querySelectorAll('[title], [placeholder], [aria-label]')) {
    for (const attr of ['title', 'placeholder', 'aria-label']) {
      if (!el.hasAttribute(attr)) continue;
      const key = `data-en-${attr}`;
      if (!el.hasAttribute(key)) el.setAttribute(key, el.getAttribute(attr));
      el.setAttribute(attr, t(el.getAttribute(key)));
    }
  }
}

function fenSide(fen) {
  return (fen || '').split(/\s+/)[1] || 'w';
}

function formatScore(score, mate) {
  if (mate !== null && mate !== undefined) return (mate > 0 ? '+M' : mate < 0 ? '-M' : 'M') + Math.abs(mate);
  if (score === null || score === undefined) return '';
  // The small games score a won position from 10,000 up: a win, not pawns.
  if (Math.abs(score) >= 10000) return score > 0 ? '1-0' : '0-1';
  const pawns = score / 100;
  return (pawns > 0 ? '+' : '') + pawns.toFixed(2);
}

// Scores on the page are the first player's (Red's; Dodgem's Black, who
// moves first and whose win the result 1-0 is); the server's are by side w.
function firstView(value) {
  const st = app.state;
  return value === null || value === undefined || !st || FIRST_SIDE[st.variant] !== 'b' ? value : -value;
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
    // Bring back the game a link names, else the game of before the reload
    // (the server checks it); then the page's settings.
    const linked = app.linkUsed ? null : linkedGame();
    const kept = (window.TuongDatabase && window.TuongDatabase.keptGame()) || load('tuong.game');
    const saved = linked || kept;
    if (linked) {
      app.linkUsed = true;
      // The game of before goes to the library, not away (as when a game replaces it).
      if (kept && Array.isArray(kept.nodes) && kept.nodes.length) {
        const entry = { id: Date.now(), title: t('The game before the link'),
          date: new Date().toISOString().slice(0, 16).replace('T', ' '), saved: kept };
        // A game the database keeps in this tab's row stays there, not copied.
        if (!(window.TuongDatabase && window.TuongDatabase.keepInRow(entry))) keepInLibrary(entry, '');
      }
      if (window.TuongDatabase) window.TuongDatabase.detach();   // the linked game: a row of its own
      // The address no longer names the game: a reload brings back what was played since.
      history.replaceState(null, '', location.pathname);
    }
    app.restoring = Boolean(saved);
    app.restoreSent = saved;          // the game that goes to the library if it cannot come back
    if (saved) sendRaw({ type: 'restore', game: { ...saved, lang: app.lang } });
    sendSettings();
    if (window.TuongDatabase) window.TuongDatabase.onOpen();
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
  if (!sendRaw(message)) setError(t('not connected to the server'));
}

const HANDLERS = {
  state: onState, info: onInfo, hint: onHint, pgn: onPgn,
  annotation: onAnnotation, notice: onNotice, error: onError,
};

function dispatch(message) {
  const handler = HANDLERS[message.type];
  if (handler) handler(message);
  else if (window.TuongDatabase) window.TuongDatabase.receive(message);
}

// ---------------------------------------------------------------- messages

function onState(st) {
  const prev = app.state;
  takeNodes(st);
  st.moves = lineOf(st.cursor);        // the shown line: its moves to the cursor, then on
  app.state = st;
  window.tuong.state = st;
  setError('');
  // The game kept in the browser is replaced only once the server has
  // answered the restore of it (a state first, then its answer).
  if (st.restored) app.restoring = false;
  if (!app.restoring) store('tuong.game', savedGame(st));
  if (window.TuongDatabase) window.TuongDatabase.onState(st, app.restoring);
  if (app.editBefore && window.TuongKeep) {          // the deletion's answer: keep its undo
    window.TuongKeep.pushEdit(app.editBefore, savedGame(st));
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

// ---------------------------------------------------------------- the game tree

// The nodes a state carries are new or changed ones (all of them after `reset`).
function takeNodes(st) {
  if (st.reset) app.nodes = new Map();
  for (const node of st.nodes || []) {
    app.nodes.set(node.id, node);
    if (node.parent === null) app.root = node.id;
  }
}

// The line through a node: the moves that lead to it, then first children.
function lineOf(id) {
  const path = [];
  let node = app.nodes.get(id);
  const start = node;
  while (node && node.parent !== null) {
    path.push(node);
    node = app.nodes.get(node.parent);
  }
  path.reverse();
  node = start;
  while (node && node.children.length) {
    node = app.nodes.get(node.children[0]);
    if (node) path.push(node);
  }
  return path;
}

// The game as the page keeps it (localStorage, the library, `restore`):
// nodes in order, each [parent index, move, comment, mark, result].
const MANUAL_ENDS = ['resignation', 'time forfeit', 'agreement', 'illegal move'];
const MAX_IMPORT = 2000000;          // bytes of an imported file (tools/web/game.py)
function savedGame(st) {
  const order = [], index = new Map(), stack = [app.root];
  while (stack.length) {
    const node = app.nodes.get(stack.pop());
    if (!node) continue;
    index.set(node.id, order.length);
    order.push(node);
    for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i]);
  }
  const manual = (r) => (r && MANUAL_ENDS.includes(r.termination) ? r : null);
  return {
    variant: st.variant, start_fen: st.start_fen, comment: order.length ? order[0].comment : null,
    nodes: order.slice(1).map((n) => [index.get(n.parent), n.move, n.comment, n.mark, manual(n.result)]),
    cursor: index.get(st.cursor) || 0, play: index.get(st.play) || 0,
    mode: st.mode, notation: st.notation, lang: st.lang, headers: st.headers,
    clocks: st.clocks ? { w: st.clocks.w, b: st.clocks.b } : null,
  };
}

function onInfo(info) {
  const st = app.state;
  if (!st) return;
  // Lines of another position (a late line after a move) are dropped.
  if (info.fen ? info.fen !== st.fen : (info.ply != null && info.ply !== st.ply)) return;
  app.infos[info.multipv || 1] = info;
  schedule(renderAnalysis, renderArrows, renderEvalBar);
}

function onHint(hint) {
  app.hint = hint;
  app.hintFen = app.state ? app.state.fen : null;
  window.tuong.lastHint = hint;
  const source = hint.source === 'new search' ? t('a new search') : t('the last search');
  const box = $('#hint-text');
  box.textContent = t('Hint: {line} (from {source})', { line: displayText(hint.line) || (hint.pv || [hint.move]).join(' '), source });
  box.title = formatScore(firstView(hint.score), firstView(hint.mate));
  renderArrows();
}

function onPgn(message) {
  window.tuong.lastPgn = message.text;
  if (app.library) {                 // asked for to keep the game, not to download it
    keepInLibrary(app.library, message.text || '');
    app.library = null;
    return;
  }
  download(message.text || '', message.name || 'tuong-game.pgn');
}

function onAnnotation(message) {
  const done = message.done || 0, total = message.total || 0;
  const finished = total > 0 && done >= total;
  $('#annotation-progress').textContent = finished ? t('annotated {n} positions', { n: total })
    : t('annotating {done} / {total}', { done, total });
}

function onNotice(message) {
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
  const said = window.TuongServerTexts ? window.TuongServerTexts.localize(text, t, message) : text;
  if (said !== text || app.lang === 'en') return said;
  const local = message && message.local;
  return typeof local === 'string' && local && app.state && app.state.lang === app.lang ? local : said;
}

function onError(message) {
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

function clearNotice() {
  clearTimeout(onNotice.timer);
  $('#notice').textContent = '';
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
  const C = 60, P = 64, flip = app.flipped;     // the margin holds the files' numbers
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
  if (window.TuongEdges) window.TuongEdges.draw(layer, geo, boardNotation(), app.flipped, svg);
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

// A piece's letter in the notation shown (WXF's for the notations without letters).
function pieceLetter(letter) {
  const notation = app.state ? app.state.notation : 'wxf';
  const set = LETTER_SETS[notation] || LETTER_SETS.wxf;
  return (letter === 'p' && set.p) || set[letter.toUpperCase()] || letter.toUpperCase();
}

function drawXiangqiPiece(parent, letter, C) {
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
    app.justDropped = move;          // it is where it goes: no slide
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
  if (!sent) setError(t('not connected to the server'));
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
  replaceGame({ type: 'new', variant: 'xiangqi', fen: setupFen() }, 'Play from this position? The game on the board goes to the library.');
  if (app.setup) app.setup.pending = true;    // leave the editor when the server's state comes
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

function renderStatus() {
  const { text, cls } = statusText();
  const el = $('#status');
  el.textContent = text;
  el.className = cls;
  $('#opening').textContent = displayText((app.state && app.state.opening) || '');
}

function renderClocks() {
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

// The move list: the main line in columns, each variation in brackets
// under the move it branches from, nested ones inside; every move a link.
function renderMoves() {
  const list = $('#movelist'), st = app.state;
  list.textContent = '';
  if (!st) return;
  const root = app.nodes.get(app.root);
  if (!root || !root.children.length) {
    html('div', { class: 'empty-note' }, list, t('No moves yet'));
  }
  const first = FIRST_SIDE[st.variant] || 'w';
  const fields = (st.start_fen || '').split(/\s+/);
  const base = ((st.variant === 'xiangqi' && parseInt(fields[5], 10)) || 1) - 1;
  const shift = fenSide(st.start_fen) === first ? 0 : 1;
  const number = (ply) => base + Math.floor((ply - 1 + shift) / 2) + 1;
  const second = (ply) => (ply - 1 + shift) % 2 === 1;
  let current = null;
  const moveEl = (node) => {
    const el = html('span', { class: 'mv' + (node.id === st.cursor ? ' current' : ''), 'data-node': node.id, title: node.move });
    html('span', { class: 'mv-text' }, el, displayText(node.text) || node.move);
    const mark = node.amark || node.mark;     // the annotation's, else the record's own
    if (mark) html('span', { class: `mark ${MARK_CLASSES[mark] || ''}` }, el, mark);
    if (node.id === st.cursor) current = el;
    return el;
  };
  const comments = (node, parent) => {
    for (const [cls, text] of [['comment', node.comment], ['note', node.note]]) {
      if (text) html('div', { class: cls }, parent, cls === 'note' ? displayText(text) : text);
    }
  };
  // A variation: inline text; the alternatives to each of its moves follow
  // that move, nested in brackets, as PGN writes them.
  const variation = (start, parent) => {
    const box = html('span', { class: 'variation' }, parent);
    box.appendChild(document.createTextNode('('));
    let node = start, numbered = true;
    while (node) {
      if (!second(node.ply)) box.appendChild(document.createTextNode(` ${number(node.ply)}. `));
      else if (numbered) box.appendChild(document.createTextNode(` ${number(node.ply)}... `));
      else box.appendChild(document.createTextNode(' '));
      box.appendChild(moveEl(node));
      if (node.comment) html('span', { class: 'comment inline' }, box, node.comment);
      const alternatives = node === start ? [] :
        app.nodes.get(node.parent).children.slice(1).map((id) => app.nodes.get(id)).filter(Boolean);
      for (const other of alternatives) variation(other, box);
      numbered = alternatives.length > 0;
      node = node.children.length ? app.nodes.get(node.children[0]) : null;
    }
    box.appendChild(document.createTextNode(')'));
    return box;
  };
  let node = root, column = 0;
  if (root && root.comment) comments(root, html('div', { class: 'row-comment' }, list));
  while (node && node.children.length) {
    const main = app.nodes.get(node.children[0]);
    if (!main) break;
    if (!second(main.ply) || column === 0) {
      html('div', { class: 'num' }, list, `${number(main.ply)}.`);
      if (second(main.ply)) html('div', { class: 'mv placeholder' }, list, '...');
    }
    list.appendChild(moveEl(main)).classList.add('cell');
    column = second(main.ply) ? 0 : 1;
    const others = node.children.slice(1).map((id) => app.nodes.get(id)).filter(Boolean);
    if (main.comment || main.note || others.length) {
      if (column === 1) html('div', { class: 'mv placeholder' }, list, '...');
      const block = html('div', { class: 'row-comment' }, list);
      comments(main, block);
      for (const other of others) variation(other, block);
      column = 0;
      if (!second(main.ply) && main.children.length) {
        html('div', { class: 'num' }, list, `${number(main.ply)}...`);
        html('div', { class: 'mv placeholder' }, list, '...');
        column = 1;
      }
    }
    node = main;
  }
  renderComment();
  if (current) keepVisible(list, current);
}

// The shown move's words: the game's comment (editable), the annotation's,
// and the book's commentary on the move.
function renderComment() {
  const st = app.state, node = st && app.nodes.get(st.cursor);
  const box = $('#current-comment');
  box.textContent = '';
  if (!node || node.parent === null) {
    $('#comment-edit').hidden = true;
    return;
  }
  if (node.note) html('p', { class: 'note' }, box, displayText(node.note));
  if (st.commentary) html('p', { class: 'commentary' }, box, displayText(st.commentary));
  $('#comment-edit').hidden = false;
  const field = $('#comment-text');
  if (document.activeElement !== field || field.dataset.node !== String(node.id)) {
    field.value = node.comment || '';
    field.dataset.node = String(node.id);
    // A comment that was being typed when the page went (a reload): it is kept.
    const draft = window.TuongKeep && !app.restoring ? window.TuongKeep.takeDraft(nodeKey(node.id)) : null;
    if (draft !== null && draft !== field.value) {
      field.value = draft;
      send({ type: 'comment', node: node.id, text: draft });
    }
    fitField(field);
  }
  $('#tree-promote').disabled = node.parent === null || app.nodes.get(node.parent).children[0] === node.id && isMain(node);
  $('#tree-undo').disabled = !st.can_undo_edit && !keptEdit();
}

// A comment field as tall as its text (up to a limit, then it scrolls).
function fitField(field) {
  field.style.height = 'auto';
  field.style.height = `${Math.min(field.scrollHeight + 2, 240)}px`;
}

// A move's place that outlives a reload (node ids do not): its line from the start.
function nodeKey(id) {
  const moves = [];
  for (let node = app.nodes.get(id); node && node.parent !== null; node = app.nodes.get(node.parent)) moves.push(node.move);
  return `${app.state ? app.state.start_fen : ''}|${moves.reverse().join(' ')}`;
}

// The game before the last deletion, kept in the browser (keep.js), while the
// game on the board is the one that deletion left.
function keptEdit() {
  return window.TuongKeep && app.state ? window.TuongKeep.editFor(() => savedGame(app.state)) : null;
}

function deleteMove() {
  const st = app.state;
  if (!st || st.cursor === app.root) return;
  confirmThen(t('Delete this move and what follows it? Undo edit brings it back.'), () => {
    app.editBefore = savedGame(app.state);
    send({ type: 'delete', node: app.state.cursor });
  });
}

function undoEdit() {
  const before = keptEdit();
  if (app.state && app.state.can_undo_edit) {
    if (before) window.TuongKeep.popEdit();
    send({ type: 'undo_edit' });
  } else if (before) {                   // the server's undo went with a reload: the kept game
    window.TuongKeep.popEdit();
    send({ type: 'restore', game: before });
  }
}

function isMain(node) {
  while (node && node.parent !== null) {
    const parent = app.nodes.get(node.parent);
    if (parent.children[0] !== node.id) return false;
    node = parent;
  }
  return true;
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
    html('span', { class: 'pv-score' }, li, formatScore(firstView(info.score), firstView(info.mate)));
    li.appendChild(document.createTextNode(' '));
    html('span', { class: 'pv-moves' }, li, displayText(info.line) || (info.pv || []).join(' '));
  }
  const top = app.infos[1];
  $('#analysis-stats').textContent = !top || !top.nodes ? '' : top.nps
    ? t('{n} nodes, {nps} a second', { n: formatCount(top.nodes), nps: formatCount(top.nps) })
    : t('{n} nodes', { n: formatCount(top.nodes) });
}

function formatCount(n) {
  if (n >= 1e6) return `${(n / 1e6).toFixed(1)}M`;
  if (n >= 1e3) return `${(n / 1e3).toFixed(0)}k`;
  return String(n);
}

// The bar shows the latest line 1; without one, the score recorded for the shown move.
function renderEvalBar() {
  const st = app.state;
  let score = null, mate = null, text = null;
  const top = app.infos[1], node = st && app.nodes.get(st.cursor);
  const ended = node && node.result;
  if (ended) {                       // a finished game shows its result, not a stale score
    const r = ended.result;
    score = r === '1-0' ? 100000 : r === '0-1' ? -100000 : 0;
    text = r;
  } else if (top) {
    score = firstView(top.score);
    mate = firstView(top.mate);
  } else if (node && node.parent !== null) {
    score = firstView(node.score);
    mate = firstView(node.mate);
  }
  const share = winShare(score, mate);
  const bar = $('#eval-bar');
  bar.classList.toggle('flipped', app.flipped);
  $('#eval-fill').style.height = `${((share === null ? 0.5 : share) * 100).toFixed(1)}%`;
  $('#eval-text').textContent = text !== null ? text : share === null ? '' : formatScore(score, mate);
  bar.dataset.share = share === null ? '' : share.toFixed(3);
}

// The annotation's summary per side (summary.js).
function renderSummary() {
  const st = app.state;
  if (!window.TuongSummary) return;
  window.TuongSummary.render($('#summary'), st && st.summary_sides, st && st.summary, t, (side) => sideName(side));
}

// The score graph of the shown line: Red's share after each move; a click
// goes to the nearest move (targets as wide as a move's share of the graph).
function renderGraph() {
  const graph = $('#eval-graph'), st = app.state;
  const w = graph.clientWidth || 250, h = graph.clientHeight || 100;
  graph.setAttribute('viewBox', `0 0 ${w} ${h}`);
  graph.textContent = '';
  svg('rect', { class: 'graph-bg', x: 0, y: 0, width: w, height: h }, graph);
  const moves = (st && st.moves) || [];
  const X = (ply) => graphX(ply, moves.length, w);
  const Y = (share) => 6 + (h - 12) * (1 - share);
  svg('line', { class: 'graph-mid', x1: 0, y1: Y(0.5), x2: w, y2: Y(0.5) }, graph);
  const points = [];
  moves.forEach((m, i) => {
    const share = winShare(firstView(m.score), firstView(m.mate));
    if (share !== null) points.push({ ply: i + 1, share, mark: m.amark || m.mark });
  });
  if (!points.length) {
    svg('text', { class: 'graph-empty', x: w / 2, y: h / 2 - 8, 'text-anchor': 'middle' }, graph,
      moves.length ? t('no scores yet (annotate the game)') : t('scores will show here'));
  } else {
    const path = points.map((p) => `L ${X(p.ply).toFixed(1)} ${Y(p.share).toFixed(1)}`).join(' ');
    svg('path', { class: 'graph-area', d: `M ${X(0)} ${h} L ${X(0)} ${Y(0.5)} ${path} L ${X(points[points.length - 1].ply)} ${h} Z` }, graph);
    svg('path', { class: 'graph-line', d: `M ${X(0)} ${Y(0.5)} ${path}` }, graph);
  }
  if (st && moves.length) {
    svg('line', { class: 'graph-cursor', x1: X(st.ply), y1: 0, x2: X(st.ply), y2: h }, graph);
  }
  for (const p of points) {
    const cls = ['graph-point', MARK_CLASSES[p.mark] || '', st && st.ply === p.ply ? 'current' : ''].join(' ').trim();
    const dot = svg('circle', { class: cls, cx: X(p.ply), cy: Y(p.share), r: 5, 'data-ply': p.ply }, graph);
    svg('title', {}, dot, `${p.ply}: ${formatScore(firstView(moves[p.ply - 1].score), firstView(moves[p.ply - 1].mate))}`);
  }
  graph.dataset.plies = String(moves.length);
}

function graphX(ply, plies, w) {
  return 8 + (w - 16) * ply / Math.max(1, plies);
}

// Always the nearest move to the click's x: a dot's drawn size decides nothing.
function onGraphClick(event) {
  const st = app.state;
  if (!st || !st.moves.length) return;
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

function showLevelKind() {
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

// Go to a ply of the shown line (0: the start).
function goto(ply) {
  const st = app.state;
  if (!st) return;
  const target = Math.max(0, Math.min(st.moves.length, ply));
  gotoNode(target === 0 ? app.root : st.moves[target - 1].id);
}

function gotoNode(id) {
  if (app.state && id !== null && id !== undefined && id !== app.state.cursor) send({ type: 'goto', node: id });
}

function toggleAnalysis() {
  const on = !(app.state && app.state.analysing);
  send({ type: 'analyse', on, multipv: multipv() });
}

// Replacing a game asks first when it has moves; the replaced game goes to
// the library, and `reopen` brings it back.
function replaceGame(message, question) {
  const root = app.nodes.get(app.root);
  const go = () => {
    if (root && root.children.length) keepCurrent();
    clearNotice();                   // a notice about the game replaced goes with it
    send(message);
  };
  if (root && root.children.length) confirmThen(t(question), go);
  else go();
}

function newGame() {
  if (app.setup) leaveSetup();
  replaceGame({ type: 'new', variant: $('#variant').value }, 'Start a new game? This one goes to the library.');
}

function flip() {
  setFlipped(!app.flipped);
}

function setFlipped(on) {
  app.flipped = Boolean(on);
  store('tuong.flip', app.flipped);
  renderAll();
}

function exportGame() {
  send({ type: 'export', annotations: $('#export-notes').checked });
}

// The notation the player wants: the one chosen, else the language's.
function wantedNotation() {
  return load('tuong.notation', null) || LANG_NOTATION[app.lang];
}

function sendSettings() {
  const notation = wantedNotation();
  // No name: "Player", which the server writes in the page's language.
  send({ type: 'settings', notation, lang: app.lang, player: app.player || 'Player' });
}

function setLang(lang) {
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

function confirmThen(question, action) {
  const box = $('#confirm');
  $('#confirm-text').textContent = question;
  box.hidden = false;
  $('#confirm-yes').focus();
  confirmThen.action = action;
}

function answerConfirm(yes) {
  $('#confirm').hidden = true;
  const action = confirmThen.action;
  confirmThen.action = null;
  if (yes && action) action();
}

// ---------------------------------------------------------------- the library

// Games kept in the browser: [{id, title, date, saved, pgn}], newest first.
function libraryGames() {
  if (dbLibrary()) return dbLibrary().libraryGames();
  const games = load('tuong.library', []);
  return Array.isArray(games) ? games : [];
}

function gameTitle(st) {
  const h = st.headers || {};
  const names = h.White || h.Black ? `${h.White || '?'} - ${h.Black || '?'}` : t(st.variant === 'xiangqi' ? 'Xiangqi' : st.variant);
  const n = savedGame(st).nodes.length;
  return `${names}${h.Event ? `, ${h.Event}` : ''} (${t(n === 1 ? '{n} move' : '{n} moves', { n })})`;
}

// The library in the games database (database.js), or null: the browser keeps it.
const dbLibrary = () => (window.TuongDatabase && window.TuongDatabase.hasLibrary() ? window.TuongDatabase : null);

// Keep the game on the board: its PGN comes from the server, then it is stored.
function keepCurrent() {
  const st = app.state;
  if (!st) return;
  if (dbLibrary() && dbLibrary().keepCurrent()) return;
  app.library = { id: Date.now(), title: gameTitle(st), date: new Date().toISOString().slice(0, 16).replace('T', ' '), saved: savedGame(st) };
  send({ type: 'export', annotations: false });
}

function keepInLibrary(entry, pgn) {
  if (dbLibrary()) dbLibrary().keep(entry, pgn);
  else keepLocal(entry, pgn);
}

function keepLocal(entry, pgn) {
  const games = libraryGames();
  games.unshift({ ...entry, pgn });
  store('tuong.library', games.slice(0, 50));
  renderLibrary();
}

function renderLibrary() {
  const list = $('#library-list'), games = libraryGames();
  list.textContent = '';
  if (!games.length) html('li', { class: 'small' }, list, t('No games kept yet'));
  for (const game of games) {
    const li = html('li', { 'data-game': game.id }, list);
    html('span', { class: 'lib-title' }, li, `${game.title} · ${game.date}`);
    html('button', { type: 'button', class: 'lib-open', 'data-game': game.id }, li, t('Open'));
    html('button', { type: 'button', class: 'lib-delete', 'data-game': game.id }, li, t('Delete'));
  }
  $('#library-download').disabled = !games.length;
}

function onLibraryClick(event) {
  if (dbLibrary()) { dbLibrary().libraryClick(event); return; }
  const button = event.target.closest('button[data-game]');
  if (!button) return;
  const id = Number(button.dataset.game), game = libraryGames().find((g) => g.id === id);
  if (!game) return;
  if (button.classList.contains('lib-open')) {
    replaceGame({ type: 'restore', game: game.saved }, 'Open this game? The one on the board goes to the library.');
  } else {
    confirmThen(t('Delete this game from the library?'), () => {
      store('tuong.library', libraryGames().filter((g) => g.id !== id));
      renderLibrary();
    });
  }
}

// Every kept game as one PGN; one kept without its PGN (it could not be
// restored, or it was kept aside for a link) is written from its moves.
function libraryText() {
  const pgn = (g) => (g.pgn || (g.saved && window.TuongKeep ? window.TuongKeep.pgnOf(g.saved) : '')).trim();
  return libraryGames().map(pgn).filter(Boolean).join('\n\n') + '\n';
}

function downloadLibrary() {
  download(libraryText(), 'tuong-library.pgn');
}

// ---------------------------------------------------------------- FEN, link

function renderFen() {
  const st = app.state;
  const field = $('#fen-text');
  if (st && document.activeElement !== field) field.value = st.fen;
}

function copyText(text, what) {
  window.tuong.copied = text;
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
function gameLink() {
  const st = app.state;
  const params = new URLSearchParams();
  params.set('variant', st.variant);
  params.set('fen', st.start_fen);
  if (st.moves.length) params.set('moves', st.moves.map((m) => m.move).join(' '));
  params.set('ply', String(st.ply));
  return `${location.origin}${location.pathname}#${params.toString()}`;
}

// The game a link names, as a `restore` (the server checks every move).
function linkedGame() {
  if (!location.hash || location.hash.length < 2) return null;
  const params = new URLSearchParams(location.hash.slice(1));
  const fen = params.get('fen');
  if (!fen) return null;
  const moves = (params.get('moves') || '').split(/[\s,]+/).filter(Boolean);
  const ply = Math.max(0, Math.min(moves.length, parseInt(params.get('ply') || String(moves.length), 10) || 0));
  return { variant: params.get('variant') || 'xiangqi', start_fen: fen, moves, cursor: ply,
    mode: { engine: null }, notation: wantedNotation(), lang: app.lang };
}

// ---------------------------------------------------------------- headers

const HEADER_FIELDS = ['Event', 'Site', 'Date', 'Round', 'White', 'Black', 'Result', 'Opening', 'ECCO'];

function renderHeaders() {
  const st = app.state;
  if (!st) return;
  for (const name of HEADER_FIELDS) {
    const field = $(`#header-${name}`);
    if (field && document.activeElement !== field && !field.dataset.dirty) field.value = (st.headers || {})[name] || '';
  }
}

function saveHeaders() {
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
  if (window.TuongDatabase) window.TuongDatabase.render(st);
  for (const m of moves) {
    const tr = html('tr', { 'data-move': m.move, class: st.legal.includes(m.move) ? 'playable' : '' }, body);
    html('td', { class: 'ex-move' }, tr, displayText(m.text));
    html('td', {}, tr, `${m.share}%`);
    html('td', {}, tr, m.games ? String(m.games) : '');
    html('td', {}, tr, m.score === null || m.score === undefined ? '' : String(m.score));
  }
}

// ---------------------------------------------------------------- sound

// Short tones made on the spot (no sound files): move, capture, check, low time.
const TONES = { move: [520, 0.06], capture: [330, 0.12], check: [880, 0.18], low: [1200, 0.05] };
let audio = null;
function playSound(kind) {
  if (!app.sound || !TONES[kind]) return;
  window.tuong.lastSound = kind;
  // Browsers let a page make sound only after the player touched it.
  if (navigator.userActivation && !navigator.userActivation.hasBeenActive) return;
  try {
    audio = audio || new (window.AudioContext || window.webkitAudioContext)();
    const [freq, length] = TONES[kind];
    const osc = audio.createOscillator(), gain = audio.createGain();
    osc.frequency.value = freq;
    gain.gain.setValueAtTime(0.15, audio.currentTime);
    gain.gain.exponentialRampToValueAtTime(0.001, audio.currentTime + length);
    osc.connect(gain).connect(audio.destination);
    osc.start();
    osc.stop(audio.currentTime + length);
  } catch (e) { /* no audio here: the game goes on */ }
}

// ---------------------------------------------------------------- animation

// The piece of the move just made slides from its square (the board is
// already drawn at the new position).
function animateMove(move) {
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

// The server's Chinese (moves, hints, notes, openings) in traditional
// characters for a traditional-Chinese reader, where it sends simplified.
const HANT_FROM = '车马进帅将后红严损着缓误内军动复实对应战无杀毙绝胁视评负长过门边头顺风转单双飞横兑连骑调盘势胜';
const HANT_TO = '車馬進帥將後紅嚴損著緩誤內軍動複實對應戰無殺斃絕脅視評負長過門邊頭順風轉單雙飛橫兌連騎調盤勢勝';
function displayText(text) {
  if (app.lang !== 'zh-Hant' || !text) return text;
  return String(text).replace(/[\u4e00-\u9fff]/g, (c) => {
    const i = HANT_FROM.indexOf(c);
    return i < 0 ? c : HANT_TO[i];
  });
}

function applyTheme(theme) {
  app.theme = theme === 'dark' ? 'dark' : 'light';
  store('tuong.theme', app.theme);
  document.documentElement.dataset.theme = app.theme;
  $('#theme').value = app.theme;
}

function importFile() {
  const input = $('#file-input'), file = input.files && input.files[0];
  if (!file) return;
  if (file.size > MAX_IMPORT) {       // the server would refuse it (a larger one, drop the line)
    setError(t('{name} is too large to import (over 2 MB)', { name: file.name }));
    input.value = '';
    return;
  }
  const reader = new FileReader();
  reader.addEventListener('load', () => {
    // A data: URL's text after the comma is the file in base64.
    const url = String(reader.result);
    replaceGame({ type: 'import', data: url.slice(url.indexOf(',') + 1), name: file.name },
      'Load this game? The one on the board goes to the library.');
    input.value = '';
  });
  reader.addEventListener('error', () => setError(t('could not read {name}', { name: file.name })));
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
    if (window.TuongKeep) window.TuongKeep.saveDraft(nodeKey(Number(field.dataset.node)), field.value);
  });
  on('#comment-text', 'change', () => {
    const field = $('#comment-text');
    if (window.TuongKeep) window.TuongKeep.clearDraft();
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

// ---------------------------------------------------------------- start

function start() {
  wireControls();
  applyTheme(app.theme);
  $('#lang').value = app.lang;
  $('#player').value = app.player;
  $('#multipv').value = String(load('tuong.multipv', 1));
  $('#notation').value = wantedNotation();
  translatePage();
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
