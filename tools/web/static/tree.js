// tuong-web: the game tree as the server sends it (nodes by id): the shown
// line, the game as the page keeps it (savedGame), a move's place that
// outlives a reload.

import { app } from './state.js';

// The nodes a state carries are new or changed ones (all of them after `reset`).
export function takeNodes(st) {
  if (st.reset) app.nodes = new Map();
  for (const node of st.nodes || []) {
    app.nodes.set(node.id, node);
    if (node.parent === null) app.root = node.id;
  }
}

// The line through a node: the moves that lead to it, then first children.
export function lineOf(id) {
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
export function savedGame(st) {
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

// A move's place that outlives a reload (node ids do not): its line from the start.
export function nodeKey(id) {
  const moves = [];
  for (let node = app.nodes.get(id); node && node.parent !== null; node = app.nodes.get(node.parent)) moves.push(node.move);
  return `${app.state ? app.state.start_fen : ''}|${moves.reverse().join(' ')}`;
}

export function isMain(node) {
  while (node && node.parent !== null) {
    const parent = app.nodes.get(node.parent);
    if (parent.children[0] !== node.id) return false;
    node = parent;
  }
  return true;
}
