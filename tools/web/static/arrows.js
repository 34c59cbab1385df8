// tuong-web: the arrows over the board: the analysis lines' first moves and
// the hint.

import { $, svg } from './dom.js';
import { app } from './state.js';
import { moveSquares, parseSquare } from './helpers.js';
import { multipv } from './analysis.js';

export function renderArrows() {
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
