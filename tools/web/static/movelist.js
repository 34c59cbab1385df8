// tuong-web: the move list (the main line, variations in brackets), the
// shown move's comment and notes, and the tree's edits (delete, and its
// undo, which outlives a reload).

import { FIRST_SIDE, MARK_CLASSES } from './constants.js';
import { $, html } from './dom.js';
import { app } from './state.js';
import { displayText, t } from './i18n.js';
import { fenSide } from './helpers.js';
import { send } from './socket.js';
import { isMain, nodeKey, savedGame } from './tree.js';
import { confirmThen } from './controls.js';
import * as keep from './keep.js';

// The move list: the main line in columns, each variation in brackets
// under the move it branches from, nested ones inside; every move a link.
export function renderMoves() {
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

// Scroll the list (not the page) so that the current move shows.
function keepVisible(container, el) {
  const top = el.offsetTop - container.offsetTop, bottom = top + el.offsetHeight;
  if (top < container.scrollTop) container.scrollTop = top - 4;
  else if (bottom > container.scrollTop + container.clientHeight) container.scrollTop = bottom - container.clientHeight + 4;
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
    const draft = !app.restoring ? keep.takeDraft(nodeKey(node.id)) : null;
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
export function fitField(field) {
  field.style.height = 'auto';
  field.style.height = `${Math.min(field.scrollHeight + 2, 240)}px`;
}

// The game before the last deletion, kept in the browser (keep.js), while the
// game on the board is the one that deletion left.
function keptEdit() {
  return app.state ? keep.editFor(() => savedGame(app.state)) : null;
}

export function deleteMove() {
  const st = app.state;
  if (!st || st.cursor === app.root) return;
  confirmThen(t('Delete this move and what follows it? Undo edit brings it back.'), () => {
    app.editBefore = savedGame(app.state);
    send({ type: 'delete', node: app.state.cursor });
  });
}

export function undoEdit() {
  const before = keptEdit();
  if (app.state && app.state.can_undo_edit) {
    if (before) keep.popEdit();
    send({ type: 'undo_edit' });
  } else if (before) {                   // the server's undo went with a reload: the kept game
    keep.popEdit();
    send({ type: 'restore', game: before });
  }
}
