// tuong-web: what the page keeps in the browser beside the game itself, so
// that a reload loses nothing the player did: the comment being typed (a
// draft), the games before each deletion (its undo outlives a reload), and
// a PGN for a library game kept without one (the game before a link).

import { load, storeQuietly } from './storage.js';

const XQ_START_FEN = 'rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1';
const MAX_EDITS = 10;

// ---- the comment being typed: one draft, for one move (its line from the start)

export function saveDraft(key, text) {
  storeQuietly('tuong.draft', { key, text });
}

// The draft for `key`, taken (it is gone from the browser once returned), or null.
export function takeDraft(key) {
  const draft = load('tuong.draft', null);
  if (!draft || draft.key !== key || typeof draft.text !== 'string') return null;
  storeQuietly('tuong.draft', null);
  return draft.text;
}

export function clearDraft() {
  storeQuietly('tuong.draft', null);
}

// ---- deletions: the game before each, while the game is still the one after it

export function fingerprint(saved) {
  return saved ? JSON.stringify([saved.variant, saved.start_fen, saved.nodes]) : '';
}

export function pushEdit(before, after) {
  const edits = load('tuong.edits', []);
  edits.push({ before, after: fingerprint(after) });
  storeQuietly('tuong.edits', edits.slice(-MAX_EDITS));
}

// The game before the last deletion when the game now (`current()`) is the
// one it left, else null.
export function editFor(current) {
  const edits = load('tuong.edits', []);
  const last = Array.isArray(edits) && edits.length ? edits[edits.length - 1] : null;
  return last && last.after === fingerprint(current()) ? last.before : null;
}

export function popEdit() {
  const edits = load('tuong.edits', []);
  if (Array.isArray(edits)) storeQuietly('tuong.edits', edits.slice(0, -1));
}

// ---- a PGN of a kept game (moves in coordinates, as tuong reads them)

function clean(text) {
  return String(text).replace(/["\\\r\n]/g, ' ').trim();
}

export function pgnOf(saved) {
  const nodes = (saved && Array.isArray(saved.nodes)) ? saved.nodes : [];
  const headers = (saved && saved.headers) || {};
  const start = (saved && saved.start_fen) || XQ_START_FEN;
  const variant = (saved && saved.variant) || 'xiangqi';
  const kids = nodes.map(() => []);
  kids.push([]);
  nodes.forEach((node, i) => { if (kids[node[0]]) kids[node[0]].push(i + 1); });
  const at = (index) => nodes[index - 1];
  const fields = start.split(/\s+/);
  const redFirst = (fields[1] || 'w') !== 'b';
  const base = (parseInt(fields[5], 10) || 1);
  const number = (ply, force) => {
    const red = (ply % 2 === 0) === redFirst;
    const n = base + Math.floor((ply + (redFirst ? 0 : 1)) / 2);
    return red ? `${n}. ` : force ? `${n}... ` : '';
  };
  const comment = (text) => (text ? `{${String(text).replace(/[{}]/g, '')}}` : null);
  const move = (index, ply, force) => {
    const [, text, , mark] = at(index);
    return `${number(ply, force)}${text}${mark || ''}`;
  };
  // The line on from `parent`: its first child, the others in brackets, on.
  const line = (parent, ply, out, force) => {
    while (kids[parent] && kids[parent].length) {
      const [main, ...others] = kids[parent];
      out.push(move(main, ply, force));
      force = false;
      const said = comment(at(main)[2]);
      if (said) { out.push(said); force = true; }
      for (const other of others) {
        const sub = [move(other, ply, true)];
        const note = comment(at(other)[2]);
        if (note) sub.push(note);
        line(other, ply + 1, sub, true);
        out.push(`(${sub.join(' ')})`);
        force = true;
      }
      parent = main;
      ply += 1;
    }
    return out;
  };
  const result = ['1-0', '0-1', '1/2-1/2'].includes(headers.Result) ? headers.Result : '*';
  const tags = [];
  for (const name of ['Event', 'Site', 'Date', 'Round', 'White', 'Black']) {
    tags.push(`[${name} "${clean(headers[name] || (name === 'Event' ? 'tuong' : '?'))}"]`);
  }
  tags.push(`[Result "${result}"]`);
  for (const [name, value] of Object.entries(headers)) {
    if (!['Event', 'Site', 'Date', 'Round', 'White', 'Black', 'Result', 'FEN', 'SetUp', 'Variant'].includes(name) && value) {
      tags.push(`[${clean(name).replace(/\s/g, '')} "${clean(value)}"]`);
    }
  }
  if (variant !== 'xiangqi') tags.push(`[Variant "${clean(variant)}"]`);
  if (start !== XQ_START_FEN || variant !== 'xiangqi') tags.push(`[FEN "${clean(start)}"]`);
  const body = [];
  const first = comment(saved && saved.comment);
  if (first) body.push(first);
  line(0, 0, body, true);
  body.push(result);
  return `${tags.join('\n')}\n\n${body.join(' ')}\n`;
}
