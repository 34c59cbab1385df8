// tuong-web: the games database in the page (tools/web/database.py serves it;
// docs/web-protocol.md, "The database"): the library kept in the database and
// the server's answers; the Database tab itself is database-tab.js. Each
// page keeps its game in a row of its own (its id in sessionStorage, so a
// reload finds it and a second page never writes over it); the browser's
// library is the fallback when the database cannot be opened, and its games
// move into the database once it can. The page's other modules call in
// through this module's exports.

import { $ } from './dom.js';
import { load, session, storeQuietly } from './storage.js';
import { app } from './state.js';
import { t } from './i18n.js';
import { send } from './socket.js';
import { savedGame } from './tree.js';
import { confirmThen } from './controls.js';
import { gameTitle, keepLocal, renderLibrary } from './library.js';
import { render, renderFileGames, renderResults } from './database-tab.js';

export const db = {
  available: null,                    // null until the server says (db_info)
  info: null,
  problem: '',                        // why the database cannot be opened, in the page's words
  games: [],                          // the library's games (the last `library`)
  results: null,                      // the last `db_games`
  lang: null,                         // the language the results were asked in
  query: null,                        // the last search's fields
  selected: new Set(),
  ref: 1,
  refs: new Map(),                    // ref -> what a library_save was for
  gen: 0,                             // the page's game: a keepCurrent() starts the next
  rowOf: new Map(),                   // gen -> its library row
  creating: new Set(),                // gens whose row is being made
  queued: new Map(),                  // gen -> the save waiting for its row
  lastText: null,                     // the page's game last saved (moves, headers)
  fileGames: null,                    // the last `file_games`
  ownGame: false,                     // the game restored was this tab's own
  migrating: new Set(),               // ids of the browser's library games on their way
};

{
  const row = session('tuong.row');
  if (Number.isInteger(row)) db.rowOf.set(0, row);
}

// ---------------------------------------------------------------- the page's hooks

// At each connection: what the database holds, and the library.
export function onOpen() {
  send({ type: 'db_info' });
  send({ type: 'library_list' });
}

// The game this tab kept (a reload brings back its own game, not another tab's).
export function keptGame() {
  const game = session('tuong.game');
  db.ownGame = Boolean(game && typeof game === 'object');
  return db.ownGame ? game : null;
}

// The library is the database's unless the server says it cannot open it
// (until it says, a game kept is sent to it: the answer tells where it went).
export function hasLibrary() {
  return db.available !== false;
}

// The library's games but the one on the board (this tab writes it as it goes).
export function libraryGames() {
  const mine = db.rowOf.has(db.gen) ? db.rowOf.get(db.gen) : null;
  return db.games.filter((g) => g.id !== mine);
}

// Each state: the tab keeps its game, and the library row of it follows.
export function onState(st, restoring) {
  if (restoring) return;
  const saved = savedGame(st);
  session('tuong.game', saved);
  if (st.restored && !db.ownGame) {
    // Another tab's last game (the browser's): in the library already; a copy
    // is kept only once this tab changes it.
    db.ownGame = true;
    db.lastText = fingerprint(saved);
    return;
  }
  autosave(st, saved);
}

function fingerprint(saved) {
  const { cursor, play, clocks, ...rest } = saved;    // browsing alone writes nothing
  return JSON.stringify(rest);
}

function autosave(st, saved, force = false) {
  if (db.available !== true || !st || !saved || !saved.nodes.length) return;
  const text = fingerprint(saved);
  if (text === db.lastText && !force) return;
  db.lastText = text;
  saveRow(saved, gameTitle(st), db.gen);
}

function saveRow(saved, title, gen) {
  const row = db.rowOf.has(gen) ? db.rowOf.get(gen) : null;
  if (row === null && db.creating.has(gen)) {          // its row is on its way
    db.queued.set(gen, { saved, title });
    return;
  }
  if (row === null) db.creating.add(gen);
  const ref = db.ref++;
  db.refs.set(ref, { kind: 'row', gen });
  send({ type: 'library_save', id: row, title, saved, ref });
}

// Keep the game on the board: its row stays as it is now, and what the page
// plays next goes to a row of its own.
// False while the database has not answered: the browser keeps it then.
export function keepCurrent() {
  if (db.available !== true) return false;
  const st = app.state;
  if (st) autosave(st, savedGame(st), true);
  detach();
  return true;
}

// What the page shows next is another game, for another row.
export function detach() {
  db.gen += 1;
  db.lastText = null;
  session('tuong.row', null);
}

// A game kept aside (before a link, one that could not be restored): a new row.
export function keep(entry, pgn) {
  const ref = db.ref++;
  db.refs.set(ref, { kind: 'keep', entry, pgn });
  send({ type: 'library_save', id: null, title: entry.title || '?', saved: entry.saved, ref });
}

export function libraryClick(event) {
  const button = event.target.closest('button[data-game]');
  if (!button) return;
  const id = Number(button.dataset.game), game = db.games.find((g) => g.id === id);
  if (!game) return;
  if (button.classList.contains('lib-open')) {
    const open = () => {
      keepCurrent();
      db.rowOf.set(db.gen, id);          // the game opened goes on in its own row
      session('tuong.row', id);
      send({ type: 'restore', game: game.saved });
    };
    const st = app.state;
    if (st && st.moves && st.moves.length) confirmThen(t('Open this game? The one on the board goes to the library.'), open);
    else open();
  } else {
    confirmThen(t('Delete this game from the library?'), () => send({ type: 'library_delete', id }));
  }
}

// ---------------------------------------------------------------- the server's answers

const RECEIVERS = {
  db_info(message) {
    db.info = message;
    db.available = Boolean(message.available);
    db.problem = message.available ? '' : (message.local || message.message || '');
    if (db.available) {
      migrate();
      const st = app.state;
      if (st) autosave(st, savedGame(st));
    } else {
      // The library stays in the browser: what waited for the database goes there.
      for (const [ref, what] of db.refs) {
        if (what.kind === 'keep') keepLocal(what.entry, what.pgn);
        db.refs.delete(ref);
      }
    }
    render(app.state);
    renderLibrary();
  },
  library(message) {
    if (!message.available) return;
    db.games = (message.games || []).map((g) => ({ id: g.id, title: g.title, date: g.date, saved: g.saved }));
    renderLibrary();
  },
  library_saved(message) {
    const what = db.refs.get(message.ref);
    db.refs.delete(message.ref);
    if (!what) return;
    if (!message.available) {
      if (what.kind === 'keep') keepLocal(what.entry, what.pgn);
      return;
    }
    if (what.kind === 'row') {
      db.rowOf.set(what.gen, message.id);
      db.creating.delete(what.gen);
      if (what.gen === db.gen) session('tuong.row', message.id);
      const queued = db.queued.get(what.gen);
      if (queued) {
        db.queued.delete(what.gen);
        saveRow(queued.saved, queued.title, what.gen);
      }
    } else if (what.kind === 'migrate') {
      forgetLocal(what.entry.id);
      db.migrating.delete(what.entry.id);
    }
    send({ type: 'library_list' });
  },
  library_deleted(message) {
    db.games = db.games.filter((g) => g.id !== message.id);
    for (const [gen, row] of db.rowOf) if (row === message.id) db.rowOf.delete(gen);
    if (!db.rowOf.has(db.gen)) db.lastText = null;      // the next change makes a new row
    renderLibrary();
  },
  db_games(message) {
    db.results = message;
    db.lang = app.lang;
    renderResults();
  },
  db_imported(message) {
    $('#db-imported').textContent = t('{games} games added, {duplicates} already in, {problems} not read',
      { games: message.games, duplicates: message.duplicates, problems: message.problems }) +
      (message.said && message.said.length ? ` (${message.said.join('; ')})` : '');
    send({ type: 'db_info' });
  },
  file_games(message) {
    db.fileGames = message;
    db.drawnLang = null;
    renderFileGames();
    const box = $('#file-games');
    if (box && !box.hidden) box.scrollIntoView({ behavior: 'smooth', block: 'nearest' });
  },
};

export function receive(message) {
  const handler = RECEIVERS[message.type];
  if (handler) handler(message);
  return Boolean(handler);
}

// ---------------------------------------------------------------- the browser's library moves in

function localGames() {
  const games = load('tuong.library', []);
  return Array.isArray(games) ? games : [];
}

function forgetLocal(id) {
  storeQuietly('tuong.library', localGames().filter((g) => g.id !== id));
}

// Each game of the browser's library goes to the database, and leaves the
// browser once the database has it.
function migrate() {
  for (const entry of localGames()) {
    if (!entry || !entry.saved || typeof entry.saved !== 'object' || db.migrating.has(entry.id)) continue;
    db.migrating.add(entry.id);
    const ref = db.ref++;
    db.refs.set(ref, { kind: 'migrate', entry });
    send({ type: 'library_save', id: null, title: String(entry.title || '?').slice(0, 200), saved: entry.saved, ref });
  }
}

// A game kept aside that this tab's row already holds (the game before a
// link): the row takes its last state and the title, and is left to it.
// False when the tab has no row (the caller keeps the game as a new one).
export function keepInRow(entry) {
  const row = session('tuong.row');
  if (row === null) return false;
  const ref = db.ref++;
  db.refs.set(ref, { kind: 'keep', entry, pgn: '' });
  send({ type: 'library_save', id: row, title: entry.title || '?', saved: entry.saved, ref });
  return true;
}

// The Database tab's, for the page.
export { render, wire } from './database-tab.js';
