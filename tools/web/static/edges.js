// tuong-web: the words around the Xiangqi board. They follow the notation
// the moves are written in: Chinese, WXF and Vietnamese count the files
// 1-9 from each side's right (Red's 九 ... 一 under Red, Black's 1 ... 9
// over Black, as XQWizard and the printed boards draw them); ICCS and
// coordinates name files a-i and ranks 0-9.

import { svg } from './dom.js';

const CHINESE_NUMBERS = '一二三四五六七八九';
const COUNTED = ['chinese', 'wxf', 'vietnamese'];

// The labels for `notation`: {counted, files: [{file, red, black}] for files
// a..i (0..8)}, or for coordinates {counted: false, files: 'a'..'i', ranks}.
export function labels(notation) {
  if (!COUNTED.includes(notation)) {
    return { counted: false, files: [...'abcdefghi'], ranks: [...'0123456789'] };
  }
  const files = [];
  for (let f = 0; f <= 8; f++) {
    const red = 9 - f, black = f + 1;          // Red counts from file i, Black from file a
    files.push({ file: f, red: notation === 'chinese' ? CHINESE_NUMBERS[red - 1] : String(red), black: String(black) });
  }
  return { counted: true, files };
}

// Draw them into `layer` for the geometry `geo` (its xy(f, r)); `flipped`:
// Black at the bottom.
export function draw(layer, geo, notation, flipped) {
  const words = labels(notation), p = (f, r) => geo.xy(f, r);
  const bottom = geo.height - 18, top = 18;
  if (!words.counted) {
    for (let f = 0; f <= 8; f++) {
      svg('text', { class: 'coord file-coord', x: p(f, 0).x, y: bottom, 'text-anchor': 'middle', 'dominant-baseline': 'central', 'data-file': f }, layer, words.files[f]);
    }
    for (let r = 0; r <= 9; r++) {
      svg('text', { class: 'coord rank-coord', x: 16, y: p(0, r).y, 'text-anchor': 'middle', 'dominant-baseline': 'central', 'data-rank': r }, layer, words.ranks[r]);
    }
    return;
  }
  // Each side's numbers on its own edge, whichever way up the board is.
  const redY = flipped ? top : bottom, blackY = flipped ? bottom : top;
  for (const { file, red, black } of words.files) {
    const x = p(file, 0).x;
    svg('text', { class: 'coord file-red', x, y: redY, 'text-anchor': 'middle', 'dominant-baseline': 'central', 'data-file': file }, layer, red);
    svg('text', { class: 'coord file-black', x, y: blackY, 'text-anchor': 'middle', 'dominant-baseline': 'central', 'data-file': file }, layer, black);
  }
}
