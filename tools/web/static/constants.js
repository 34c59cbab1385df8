// tuong-web: the games' fixed facts as the page draws and says them: the
// Xiangqi start, the pieces' characters, letters and names, the sides'
// names, the levels' defaults and units, the marks' colours, and the limits
// the server keeps too.

export const XQ_START = 'rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR';
export const CHINESE = {
  R: '俥', N: '傌', B: '相', A: '仕', K: '帥', C: '炮', P: '兵',
  r: '車', n: '馬', b: '象', a: '士', k: '將', c: '砲', p: '卒',
};
// Letter pieces follow the notation's letters: WXF's (H horse, E elephant),
// or the Vietnamese federation's (X xe, M mã, T tượng, S sĩ, Tg tướng, P pháo,
// B binh for Red's soldiers and C chốt for Black's).
export const LETTER_SETS = {
  wxf: { R: 'R', N: 'H', B: 'E', A: 'A', K: 'K', C: 'C', P: 'P' },
  vietnamese: { R: 'X', N: 'M', B: 'T', A: 'S', K: 'Tg', C: 'P', P: 'B', p: 'C' },
};
// The notation a language writes by default.
export const LANG_NOTATION = { en: 'wxf', vi: 'vietnamese', 'zh-Hans': 'chinese', 'zh-Hant': 'chinese' };
export const LANGS = ['en', 'vi', 'zh-Hans', 'zh-Hant'];
export const PIECE_NAMES = { R: 'chariot', N: 'horse', B: 'elephant', A: 'advisor', K: 'general', C: 'cannon', P: 'soldier' };
export const SIDE_NAMES = {
  xiangqi: { w: 'Red', b: 'Black' },
  tictactoe: { w: 'X', b: 'O' },
  dodgem: { w: 'White', b: 'Black' },
  queens: { w: 'First player', b: 'Second player' },
};
// The side whose moves fill the move list's first column.
export const FIRST_SIDE = { xiangqi: 'w', tictactoe: 'w', dodgem: 'b', queens: 'w' };
export const LEVEL_DEFAULTS = { nodes: 20000, depth: 8, movetime: 1, clock: 5 };
export const LEVEL_UNITS = { nodes: 'nodes', depth: 'plies', movetime: 's', clock: 'min' };
export const MARK_CLASSES = { '??': 'mark-blunder', '?': 'mark-mistake', '?!': 'mark-inaccuracy' };
export const MAX_IMPORT = 2000000;          // bytes of an imported file (tools/web/game.py)
export const HEADER_FIELDS = ['Event', 'Site', 'Date', 'Round', 'White', 'Black', 'Result', 'Opening', 'ECCO'];
