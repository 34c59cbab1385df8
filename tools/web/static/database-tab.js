// tuong-web: the Database tab (database.js holds the database's state): search,
// the list of games, open one to study, export a selection, import a file;
// the explorer's master moves beside the book; a file of many games as a
// list to choose from.

import { $, html } from './dom.js';
import { app } from './state.js';
import { displayText, t } from './i18n.js';
import { send } from './socket.js';
import { readChosenFile } from './messages.js';
import { sendMove } from './input.js';
import { replaceGame } from './controls.js';
import { db } from './database.js';

const PAGE = 50;                      // games a search shows at once

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
    const tr = html('tr', { 'data-move': m.move, class: st.legal.includes(m.move) ? 'playable' : '' }, body);
    html('td', { class: 'ex-move' }, tr, displayText(m.text));
    html('td', {}, tr, String(m.games));
    const scored = m.red + m.draw + m.black;
    const red = pct(m.red, scored), draw = pct(m.draw, scored), black = scored ? 100 - red - draw : 0;
    const cell = html('td', { class: 'ex-score' }, tr);
    const bar = html('div', { class: 'score-bar', title: t('Red wins {red}%, draws {draw}%, Black wins {black}%', { red, draw, black }) }, cell);
    html('span', { class: 'sb-red', style: `width:${red}%` }, bar);
    html('span', { class: 'sb-draw', style: `width:${draw}%` }, bar);
    html('span', { class: 'sb-black', style: `width:${black}%` }, bar);
    html('span', { class: 'small' }, cell, scored ? `${red} / ${draw} / ${black}` : '');
    html('td', {}, tr, m.average_year ? String(Math.round(m.average_year)) : '');
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

export function renderResults() {
  const body = $('#db-body'), found = db.results;
  if (!body) return;
  body.textContent = '';
  $('#db-count').textContent = found ? t('{total} games found', { total: found.total }) : '';
  const games = found ? found.games : [];
  for (const g of games) {
    const tr = html('tr', { 'data-id': g.id }, body);
    const pick = html('td', {}, tr);
    const box = html('input', { type: 'checkbox', class: 'db-pick', 'data-id': g.id, 'aria-label': t('Select this game') }, pick);
    box.checked = db.selected.has(g.id);
    html('td', {}, tr, `${g.red || '?'} - ${g.black || '?'}`);
    html('td', {}, tr, g.date || '');
    html('td', {}, tr, g.result);
    html('td', { title: g.ecco_name ? displayText(g.ecco_name) : '' }, tr, g.ecco || '');
    html('td', { class: 'db-event' }, tr, g.event || '');
    const open = html('td', {}, tr);
    html('button', { type: 'button', class: 'db-open', 'data-id': g.id }, open, t('Open'));
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
    replaceGame({ type: 'db_open', id: Number(open.dataset.id) }, 'Load this game? The one on the board goes to the library.');
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
  readChosenFile($('#db-file'), (data, name) => {
    $('#db-imported').textContent = t('importing {name}...', { name });
    send({ type: 'db_import', data, name });
  });
}

// ---------------------------------------------------------------- a file of many games

export function renderFileGames() {
  const box = $('#file-games'), list = $('#file-games-list'), found = db.fileGames;
  if (!box || !list) return;
  box.hidden = !found || !found.games.length;
  list.textContent = '';
  if (!found) return;
  $('#file-games-title').textContent = t('{n} games in {name}: choose one to study', { n: found.games.length, name: found.name });
  for (const g of found.games) {
    const li = html('li', {}, list);
    const words = [`${g.red || '?'} - ${g.black || '?'}`, g.date, g.result, g.ecco, g.event].filter(Boolean).join(' · ');
    html('button', { type: 'button', class: 'file-pick', 'data-index': g.index }, li, words);
  }
}

function onFileGamesClick(event) {
  const button = event.target.closest('button.file-pick');
  if (button) replaceGame({ type: 'import_pick', index: Number(button.dataset.index) }, 'Load this game? The one on the board goes to the library.');
}

// Everything the database shows, in the page's language (panels.js's renderExplorer).
export function render(st) {
  renderMasters(st);
  renderStatus();
  if (db.results && db.lang !== app.lang && db.query) {
    db.lang = app.lang;                 // the ECCO names in the page's language
    send({ type: 'db_search', ...db.query, limit: PAGE, offset: db.results.offset });
  }
  if (db.drawnLang !== app.lang) {      // the lists' own words
    db.drawnLang = app.lang;
    renderResults();
    renderFileGames();
  }
}

export function wire() {
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
    const row = event.target.closest('tr[data-move]'), st = app.state;
    if (row && st && st.legal.includes(row.dataset.move)) sendMove(row.dataset.move);
  });
  // Another page may have kept games meanwhile.
  window.addEventListener('focus', () => { if (db.available) send({ type: 'library_list' }); });
}
