// tuong-web: the analysis: its lines, the eval bar, the score graph of the
// shown line and the annotation's summary.

import { MARK_CLASSES } from './constants.js';
import { $, html, svg } from './dom.js';
import { app } from './state.js';
import { displayText, sideName, t } from './i18n.js';
import { firstView, formatCount, formatScore, winShare } from './helpers.js';
import { goto } from './controls.js';
import * as summary from './summary.js';

export function multipv() {
  return parseInt($('#multipv').value, 10) || 1;
}

export function renderAnalysis() {
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

// The bar shows the latest line 1; without one, the score recorded for the shown move.
export function renderEvalBar() {
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
export function renderSummary() {
  const st = app.state;
  summary.render($('#summary'), st && st.summary_sides, st && st.summary, t, (side) => sideName(side));
}

// The score graph of the shown line: Red's share after each move; a click
// goes to the nearest move (targets as wide as a move's share of the graph).
export function renderGraph() {
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
export function onGraphClick(event) {
  const st = app.state;
  if (!st || !st.moves.length) return;
  const graph = $('#eval-graph'), rect = graph.getBoundingClientRect();
  const w = graph.clientWidth || rect.width;
  const ply = Math.round((event.clientX - rect.left - 8) / (w - 16) * st.moves.length);
  goto(Math.max(0, Math.min(st.moves.length, ply)));
}
