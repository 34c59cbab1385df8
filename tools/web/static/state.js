// tuong-web: the page's state, one object that every module reads and
// writes (what the server last sent, the tree of the game, the choices the
// browser keeps, the gestures in progress), and the probe that tests read.
// Its first values come from load() and chooseLang(): they may use no
// module's values but constants.js's, since the modules import one another
// and this one can run before the others have.

import { load } from './storage.js';
import { chooseLang } from './i18n.js';

export const app = {
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

// What automated tests (and the curious) read as window.tuong; kept up to
// date (main.js adds what they may call).
export const probe = { state: null, infos: app.infos, lastHint: null, lastPgn: null };
