// tuong-web: the boards' geometry (Xiangqi's intersections, the small
// games' cells; either way up), the grid shown, and placements <-> grids.

import { XQ_START } from './constants.js';
import { app } from './state.js';
import { parseSquare } from './helpers.js';

// Xiangqi: pieces on the intersections of 9 files x 10 ranks (ranks 0-9).
function xiangqiGeometry() {
  const C = 60, P = 64, flip = app.flipped;     // the margin holds the files' numbers
  return {
    kind: 'xiangqi', files: 9, ranks: 10, unit: C, pad: P,
    width: 8 * C + 2 * P, height: 9 * C + 2 * P,
    xy(f, r) {
      const col = flip ? 8 - f : f, row = flip ? r : 9 - r;
      return { x: P + col * C, y: P + row * C };
    },
    rankOfRow: (i) => 9 - i,
    rowOfRank: (r) => 9 - r,
  };
}

// Small games: pieces inside cells, ranks 1..N from the bottom. Dodgem gets a
// margin of a cell's width around the grid for the exit targets.
function cellsGeometry(variant, files, ranks) {
  const C = 100, P = variant === 'dodgem' ? 100 : 40, flip = app.flipped;
  return {
    kind: 'cells', variant, files, ranks, unit: C, pad: P,
    width: files * C + 2 * P, height: ranks * C + 2 * P,
    xy(f, r) {
      const col = flip ? files - 1 - f : f, row = flip ? r - 1 : ranks - r;
      return { x: P + col * C + C / 2, y: P + row * C + C / 2 };
    },
    rankOfRow: (i) => ranks - i,
    rowOfRank: (r) => ranks - r,
  };
}

export function geometry() {
  const st = app.state;
  if (app.setup || !st || st.variant === 'xiangqi') return xiangqiGeometry();
  return cellsGeometry(st.variant, st.files || st.grid[0].length, st.ranks || st.grid.length);
}

export function displayGrid() {
  if (app.setup) return app.setup.grid;
  return app.state ? app.state.grid : placementToGrid(XQ_START);
}

export function pieceAt(square) {
  const geo = app.geo, p = parseSquare(square), grid = displayGrid();
  if (!geo || !p) return '';
  const row = grid[geo.rowOfRank(p.r)];
  return (row && row[p.f]) || '';
}

export function placementToGrid(placement) {
  return placement.split('/').map((text) => {
    const row = [];
    for (const token of text.match(/\d+|\D/g) || []) {
      if (/\d/.test(token)) for (let i = 0; i < Number(token); i++) row.push('');
      else row.push(token);
    }
    return row;
  });
}

export function gridToPlacement(grid) {
  return grid.map((row) => {
    let out = '', empty = 0;
    for (const cell of row) {
      if (cell) {
        if (empty) out += empty;
        out += cell;
        empty = 0;
      } else {
        empty++;
      }
    }
    return empty ? out + empty : out;
  }).join('/');
}

export function isOffBoard(sq) {
  const geo = app.geo, p = parseSquare(sq);
  return geo && geo.kind === 'cells' && (p.f >= geo.files || p.r > geo.ranks || p.r < 1);
}
