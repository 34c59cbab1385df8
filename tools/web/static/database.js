// tuong-web: the games database in the page (tools/web/database.py serves it;
// docs/web-protocol.md, "The database"): the Database tab (search, the list
// of games, open one to study, export a selection, import a file), the
// explorer's master moves beside the book, a file of many games as a list
// to choose from, and the library kept in the database. Each page keeps its
// game in a row of its own (its id in sessionStorage, so a reload finds it
// and a second page never writes over it); the browser's library is the
// fallback when the database cannot be opened, and its games move into the
// database once it can. app.js calls in through window.TuongDatabase and
// lends its helpers through window.tuong.api.
'use strict';

window.TuongDatabase = (() => {

const PAGE = 50;                      // games a search shows at once
const $ = (sel) => document.querySelector(sel);
const api = () => window.tuong.api;
const t = (text, values) => api().t(text, values);

const db = {
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

function session(key, value) {
  try {
    if (value === undefined) return JSON.parse(sessionStorage.getItem(key) || 'null');
    if (value === null) sessionStorage.removeItem(key);
    else sessionStorage.setItem(key, JSON.stringify(value));
  } catch (e) { /* storage off: the page keeps the game in memory only */ }
  return null;
}

{
  const row = session('tuong.row');
  if (Number.isInteger(row)) db.rowOf.set(0, row);
}

function send(message) {
  api().send(message);
}

// ---------------------------------------------------------------- app.js's hooks

// At each connection: what the database holds, and the library.
function onOpen() {
  send({ type: 'db_info' });
  send({ type: 'library_list' });
}

// The game this tab kept (a reload brings back its own game, not another tab's).
function keptGame() {
  const game = session('tuong.game');
  db.ownGame = Boolean(game && typeof game === 'object');
  return db.ownGame ? game : null;
}

// The library is the database's unless the server says it cannot open it
// (until it says, a game kept is sent to it: the answer tells where it went).
function hasLibrary() {
  return db.available !== false;
}

// The library's games but the one on the board (this tab writes it as it goes).
function libraryGames() {
  const mine = db.rowOf.has(db.gen) ? db.rowOf.get(db.gen) : null;
  return db.games.filter((g) => g.id !== mine);
}

// Each state: the tab keeps its game, and the library row of it follows.
function onState(st, restoring) {
  if (restoring) return;
  const saved = api().savedGame(st);
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
  saveRow(saved, api().gameTitle(st), db.gen);
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
function keepCurrent() {
  if (db.available !== true) return false;
  const st = api().state();
  if (st) autosave(st, api().savedGame(st), true);
  detach();
  return true;
}

// What the page shows next is another game, for another row.
function detach() {
  db.gen += 1;
  db.lastText = null;
  session('tuong.row', null);
}

// A game kept aside (before a link, one that could not be restored): a new row.
function keep(entry, pgn) {
  const ref = db.ref++;
  db.refs.set(ref, { kind: 'keep', entry, pgn });
  send({ type: 'library_save', id: null, title: entry.title || '?', saved: entry.saved, ref });
}

function libraryClick(event) {
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
    const st = api().state();
    if (st && st.moves && st.moves.length) api().confirmThen(t('Open this game? The one on the board goes to the library.'), open);
    else open();
  } else {
    api().confirmThen(t('Delete this game from the library?'), () => send({ type: 'library_delete', id }));
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
      const st = api().state();
      if (st) autosave(st, api().savedGame(st));
    } else {
      // The library stays in the browser: what waited for the database goes there.
      for (const [ref, what] of db.refs) {
        if (what.kind === 'keep') api().keepLocal(what.entry, what.pgn);
        db.refs.delete(ref);
      }
    }
    render(api().state());
    api().renderLibrary();
  },
  library(message) {
    if (!message.available) return;
    db.games = (message.games || []).map((g) => ({ id: g.id, title: g.title, date: g.date, saved: g.saved }));
    api().renderLibrary();
  },
  library_saved(message) {
    const what = db.refs.get(message.ref);
    db.refs.delete(message.ref);
    if (!what) return;
    if (!message.available) {
      if (what.kind === 'keep') api().keepLocal(what.entry, what.pgn);
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
    api().renderLibrary();
  },
  db_games(message) {
    db.results = message;
    db.lang = api().lang();
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

function receive(message) {
  const handler = RECEIVERS[message.type];
  if (handler) handler(message);
  return Boolean(handler);
}

// ---------------------------------------------------------------- the browser's library moves in

function localGames() {
  try {
    const games = JSON.parse(localStorage.getItem('tuong.library') || '[]');
    return Array.isArray(games) ? games : [];
  } catch (e) {
    return [];
  }
}

function forgetLocal(id) {
  try {
    localStorage.setItem('tuong.library', JSON.stringify(localGames().filter((g) => g.id !== id)));
  } catch (e) { /* nothing to forget */ }
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

// ---------------------------------------------------------------- the explorer's master moves

function pct(n, total) {
  return total ? Math.round((100 * n) / total) : 0;
}

function renderMasters(st) {
  const body = $('#masters-body'), box = $('#masters');
  if (!body || !box) return;
  body.textContent = '';
  const masters = st && st.masters;
  box.hidden = !masters;
  if (!masters) return;
  $('#masters-total').textContent = t('{n} games reach this position', { n: masters.games });
  for (const m of masters.moves) {
    const tr = api().html('tr', { 'data-move': m.move, class: st.legal.includes(m.move) ? 'playable' : '' }, body);
    api().html('td', { class: 'ex-move' }, tr, api().displayText(m.text));
    api().html('td', {}, tr, String(m.games));
    const scored = m.red + m.draw + m.black;
    const red = pct(m.red, scored), draw = pct(m.draw, scored), black = scored ? 100 - red - draw : 0;
    const cell = api().html('td', { class: 'ex-score' }, tr);
    const bar = api().html('div', { class: 'score-bar', title: t('Red wins {red}%, draws {draw}%, Black wins {black}%', { red, draw, black }) }, cell);
    api().html('span', { class: 'sb-red', style: `width:${red}%` }, bar);
    api().html('span', { class: 'sb-draw', style: `width:${draw}%` }, bar);
    api().html('span', { class: 'sb-black', style: `width:${black}%` }, bar);
    api().html('span', { class: 'small' }, cell, scored ? `${red} / ${draw} / ${black}` : '');
    api().html('td', {}, tr, m.average_year ? String(Math.round(m.average_year)) : '');
  }
  $('#masters-empty').hidden = masters.moves.length > 0;
}

// ---------------------------------------------------------------- the Database tab

function renderStatus() {
  const box = $('#db-status');
  if (!box) return;
  if (db.available === null) box.textContent = '';
  else if (!db.available) box.textContent = `${t('The games database cannot be opened: searches and master moves need it; the library is kept in this browser.')} ${db.problem ? `(${db.problem})` : ''}`;
  else box.textContent = t('{games} games in the database, {library} in the library', { games: db.info.games, library: db.info.library });
  for (const el of document.querySelectorAll('#sec-database .db-needs')) el.disabled = db.available !== true;
}

function fields() {
  const value = (id) => $(id).value.trim();
  return {
    player: value('#db-player'), event: value('#db-event'), date_from: value('#db-from'),
    date_to: value('#db-to'), result: $('#db-result').value, ecco: value('#db-ecco'),
    position: $('#db-position').checked,
  };
}

function search(offset = 0) {
  db.query = fields();
  db.selected.clear();
  send({ type: 'db_search', ...db.query, limit: PAGE, offset });
}

function renderResults() {
  const body = $('#db-body'), found = db.results;
  if (!body) return;
  body.textContent = '';
  $('#db-count').textContent = found ? t('{total} games found', { total: found.total }) : '';
  const games = found ? found.games : [];
  for (const g of games) {
    const tr = api().html('tr', { 'data-id': g.id }, body);
    const pick = api().html('td', {}, tr);
    const box = api().html('input', { type: 'checkbox', class: 'db-pick', 'data-id': g.id, 'aria-label': t('Select this game') }, pick);
    box.checked = db.selected.has(g.id);
    api().html('td', {}, tr, `${g.red || '?'} - ${g.black || '?'}`);
    api().html('td', {}, tr, g.date || '');
    api().html('td', {}, tr, g.result);
    api().html('td', { title: g.ecco_name ? api().displayText(g.ecco_name) : '' }, tr, g.ecco || '');
    api().html('td', { class: 'db-event' }, tr, g.event || '');
    const open = api().html('td', {}, tr);
    api().html('button', { type: 'button', class: 'db-open', 'data-id': g.id }, open, t('Open'));
  }
  $('#db-prev').disabled = !found || found.offset <= 0;
  $('#db-next').disabled = !found || found.offset + games.length >= found.total;
  renderSelection();
}

function renderSelection() {
  const games = db.results ? db.results.games : [];
  $('#db-export').disabled = db.selected.size === 0;
  $('#db-all').checked = games.length > 0 && games.every((g) => db.selected.has(g.id));
}

function onResultsClick(event) {
  const open = event.target.closest('button.db-open');
  if (open) {
    api().replaceGame({ type: 'db_open', id: Number(open.dataset.id) }, 'Load this game? The one on the board goes to the library.');
    return;
  }
  const pick = event.target.closest('input.db-pick');
  if (pick) {
    const id = Number(pick.dataset.id);
    if (pick.checked) db.selected.add(id);
    else db.selected.delete(id);
    renderSelection();
  }
}

function importIntoDatabase() {
  const input = $('#db-file'), file = input.files && input.files[0];
  if (!file) return;
  if (file.size > 2000000) {
    api().setError(t('{name} is too large to import (over 2 MB)', { name: file.name }));
    input.value = '';
    return;
  }
  const reader = new FileReader();
  reader.addEventListener('load', () => {
    const url = String(reader.result);
    $('#db-imported').textContent = t('importing {name}...', { name: file.name });
    send({ type: 'db_import', data: url.slice(url.indexOf(',') + 1), name: file.name });
    input.value = '';
  });
  reader.addEventListener('error', () => api().setError(t('could not read {name}', { name: file.name })));
  reader.readAsDataURL(file);
}

// ---------------------------------------------------------------- a file of many games

function renderFileGames() {
  const box = $('#file-games'), list = $('#file-games-list'), found = db.fileGames;
  if (!box || !list) return;
  box.hidden = !found || !found.games.length;
  list.textContent = '';
  if (!found) return;
  $('#file-games-title').textContent = t('{n} games in {name}: choose one to study', { n: found.games.length, name: found.name });
  for (const g of found.games) {
    const li = api().html('li', {}, list);
    const words = [`${g.red || '?'} - ${g.black || '?'}`, g.date, g.result, g.ecco, g.event].filter(Boolean).join(' · ');
    api().html('button', { type: 'button', class: 'file-pick', 'data-index': g.index }, li, words);
  }
}

function onFileGamesClick(event) {
  const button = event.target.closest('button.file-pick');
  if (button) api().replaceGame({ type: 'import_pick', index: Number(button.dataset.index) }, 'Load this game? The one on the board goes to the library.');
}

// Everything the database shows, in the page's language (app.js's renderExplorer).
function render(st) {
  renderMasters(st);
  renderStatus();
  if (db.results && db.lang !== api().lang() && db.query) {
    db.lang = api().lang();                 // the ECCO names in the page's language
    send({ type: 'db_search', ...db.query, limit: PAGE, offset: db.results.offset });
  }
  if (db.drawnLang !== api().lang()) {      // the lists' own words
    db.drawnLang = api().lang();
    renderResults();
    renderFileGames();
  }
}

function wire() {
  const on = (sel, kind, handler) => { const el = $(sel); if (el) el.addEventListener(kind, handler); };
  on('#db-search', 'click', () => search(0));
  on('#db-form', 'keydown', (event) => { if (event.key === 'Enter') search(0); });
  on('#db-prev', 'click', () => db.results && send({ type: 'db_search', ...db.query, limit: PAGE, offset: Math.max(0, db.results.offset - PAGE) }));
  on('#db-next', 'click', () => db.results && send({ type: 'db_search', ...db.query, limit: PAGE, offset: db.results.offset + PAGE }));
  on('#db-body', 'click', onResultsClick);
  on('#db-all', 'change', () => {
    for (const g of (db.results ? db.results.games : [])) {
      if ($('#db-all').checked) db.selected.add(g.id);
      else db.selected.delete(g.id);
    }
    renderResults();
  });
  on('#db-export', 'click', () => db.selected.size && send({ type: 'db_export', ids: [...db.selected] }));
  on('#db-file', 'change', importIntoDatabase);
  on('#file-games-list', 'click', onFileGamesClick);
  on('#file-games-close', 'click', () => { db.fileGames = null; renderFileGames(); });
  on('#masters-body', 'click', (event) => {
    const row = event.target.closest('tr[data-move]'), st = api().state();
    if (row && st && st.legal.includes(row.dataset.move)) api().sendMove(row.dataset.move);
  });
  // Another page may have kept games meanwhile.
  window.addEventListener('focus', () => { if (db.available) send({ type: 'library_list' }); });
}

if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', wire);
else wire();

// A game kept aside that this tab's row already holds (the game before a
// link): the row takes its last state and the title, and is left to it.
// False when the tab has no row (the caller keeps the game as a new one).
function keepInRow(entry) {
  const row = session('tuong.row');
  if (row === null) return false;
  const ref = db.ref++;
  db.refs.set(ref, { kind: 'keep', entry, pgn: '' });
  send({ type: 'library_save', id: row, title: entry.title || '?', saved: entry.saved, ref });
  return true;
}

return { onOpen, keptGame, keepInRow, hasLibrary, libraryGames, onState, keepCurrent, detach, keep,
  libraryClick, receive, render, state: () => db };
})();
