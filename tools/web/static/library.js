// tuong-web: the library: games kept in the browser, or in the games
// database when the server has one (database.js).

import { $, html } from './dom.js';
import { load, store } from './storage.js';
import { app } from './state.js';
import { t } from './i18n.js';
import { download } from './helpers.js';
import { send } from './socket.js';
import { savedGame } from './tree.js';
import { confirmThen, replaceGame } from './controls.js';
import * as database from './database.js';
import * as keep from './keep.js';

// Games kept in the browser: [{id, title, date, saved, pgn}], newest first.
function libraryGames() {
  if (dbLibrary()) return dbLibrary().libraryGames();
  const games = load('tuong.library', []);
  return Array.isArray(games) ? games : [];
}

export function gameTitle(st) {
  const h = st.headers || {};
  const names = h.White || h.Black ? `${h.White || '?'} - ${h.Black || '?'}` : t(st.variant === 'xiangqi' ? 'Xiangqi' : st.variant);
  const n = savedGame(st).nodes.length;
  return `${names}${h.Event ? `, ${h.Event}` : ''} (${t(n === 1 ? '{n} move' : '{n} moves', { n })})`;
}

// The library in the games database (database.js), or null: the browser keeps it.
const dbLibrary = () => (database.hasLibrary() ? database : null);

// Keep the game on the board: its PGN comes from the server, then it is stored.
export function keepCurrent() {
  const st = app.state;
  if (!st) return;
  if (dbLibrary() && dbLibrary().keepCurrent()) return;
  app.library = { id: Date.now(), title: gameTitle(st), date: new Date().toISOString().slice(0, 16).replace('T', ' '), saved: savedGame(st) };
  send({ type: 'export', annotations: false });
}

export function keepInLibrary(entry, pgn) {
  if (dbLibrary()) dbLibrary().keep(entry, pgn);
  else keepLocal(entry, pgn);
}

export function keepLocal(entry, pgn) {
  const games = libraryGames();
  games.unshift({ ...entry, pgn });
  store('tuong.library', games.slice(0, 50));
  renderLibrary();
}

export function renderLibrary() {
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

export function onLibraryClick(event) {
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
export function libraryText() {
  const pgn = (g) => (g.pgn || (g.saved ? keep.pgnOf(g.saved) : '')).trim();
  return libraryGames().map(pgn).filter(Boolean).join('\n\n') + '\n';
}

export function downloadLibrary() {
  download(libraryText(), 'tuong-library.pgn');
}
