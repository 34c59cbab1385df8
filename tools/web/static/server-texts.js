// tuong-web: the server's refusals and notices in the page's language.
// The server (tools/web/session.py, game.py, __init__.py) writes English
// sentences; each it can send is matched here and said with the page's
// words (i18n/*.js, keyed by the English template), the parts in {0}, {1}
// kept as they came: the technical detail (a file's fault, a FEN) follows
// the translated sentence. A message that carries `key` (the English
// template, tools/web/words.py) and `params` is translated by its key where
// the page knows it (the detail after it); others by these patterns.

// The engine's names for the pieces (engine/board.pyx) -> the page's.
const PIECES = { king: 'general', advisor: 'advisor', elephant: 'elephant', horse: 'horse',
  rook: 'chariot', cannon: 'cannon', pawn: 'soldier' };
// The level's fields (tools/web/game.py) -> the page's words.
const LEVEL_WORDS = { movetime: 'time a move', base: 'clock', inc: 'Increment (seconds)', elo: 'Strength' };
const PIECE = /^(Red|Black) (king|advisor|elephant|horse|rook|cannon|pawn)$/;

// [pattern, the English template, 'parts' when the parts are translated too]
export const TEXTS = [
  [/^(.+) is thinking: wait for its move or take back$/, '{0} is thinking: wait for its move or take back'],
  [/^(.+) is thinking$/, '{0} is thinking...'],
  [/^the game is over(?: \((.*)\))?$/, 'the game is over'],
  [/^the game is over: no move to hint$/, 'the game is over'],
  [/^it is the engine's turn$/, "it is the engine's turn"],
  [/^illegal move '(.+)' here$/, 'illegal move {0} here'],
  [/^that move is on the main line already$/, 'that move is on the main line already'],
  [/^the start position cannot be deleted$/, 'the start position cannot be deleted'],
  [/^nothing to take back \(or its place is gone\)$/, 'nothing to take back'],
  [/^the analysis has no line yet: (?:ask|offer) again in a moment$/, 'the analysis has no line yet: try again in a moment'],
  [/^resign and draw offers are for a game against the engine$/, 'resign and draw offers are for a game against the engine'],
  [/^offer the draw on your own move(?:, not while (.+) thinks)?$/, 'offer the draw on your own move'],
  [/^go to the end of the game to offer a draw$/, 'go to the end of the game to offer a draw'],
  [/^the engine could not judge the offer$/, 'the engine could not judge the offer'],
  [/^nothing to import$/, 'nothing to import: paste a FEN, EPD or PGN first'],
  [/^cannot import: (.+)$/, 'cannot import: {0}'],
  [/^annotation is for Xiangqi games$/, 'annotation is for Xiangqi games'],
  [/^no moves to annotate$/, 'no moves to annotate'],
  [/^(.+) is playing this game: finish it, or choose .+, then annotate$/, '{0} is playing this game: finish it, or let it play nobody, then annotate'],
  [/^an annotation is under way: wait for it to finish$/, 'an annotation is under way: wait for it to finish'],
  [/^no game to bring back$/, 'no game to bring back'],
  [/^a fallen flag is not taken back/, 'a fallen flag is not taken back'],
  [/^(.+) declines the draw$/, '{0} declines the draw'],
  [/^(\d+) games in the file: the first \((.+)\) is loaded$/, '{0} games in the file: the first ({1}) is loaded'],
  [/^the game holds ([\d,]+) moves, as many as a page keeps: delete some variations first$/, 'the game holds {0} moves, as many as a page keeps: delete some variations first'],
  [/^a line of more than ([\d,]+) moves$/, 'a line of {0} moves is as long as a page keeps'],
  [/^illegal move '(.+)' at ply (\d+)$/, 'illegal move {0} at ply {1}'],
  [/^closed after being idle$/, 'closed after being idle: reload the page to go on'],
  [/^a line of ([\d,]+) moves is as long as a page keeps$/, 'a line of {0} moves is as long as a page keeps'],
  [/^cannot take back the deletion: the game would hold more than ([\d,]+) moves, as many as a page keeps$/, 'cannot take back the deletion: the game would hold more than {0} moves, as many as a page keeps'],
  [/^no hint: the engine gave no move$/, 'no hint: the engine gave no move'],
  [/^(.+) stopped \((.*)\); restarted$/, '{0} stopped ({1}); restarted'],
  [/^(.+) failed: (.+)$/, '{0} failed: {1}'],
  [/^(.+) does not play (.+)$/, '{0} does not play {1}'],
  [/^the page is closed$/, 'the page is closed'],
  [/^(nodes|depth|movetime|base|inc|elo) must be between (\S+) and (\S+)$/, 'the level must be between {1} and {2} ({0})', 'parts'],
  [/^too many pages open \(at most (\d+)\)$/, 'too many pages open (at most {0}): close one and reload'],
  [/^player may not hold quotes, backslashes or new lines$/, 'your name may not hold quotes, backslashes or new lines'],
  [/^headers: Result must be one of (.+)$/, 'the result must be one of {0}'],
  [/^headers: (\w+) may not hold quotes, backslashes or new lines$/, 'the header {0} may not hold quotes, backslashes or new lines'],
  [/^headers: '?(.+?)'? is not one of (.+)$/, 'the header {0} cannot be kept (only {1})'],
  // The games database (tools/web/database.py).
  [/^(\S+) must be a whole number from (\S+) to (\S+)$/, '{0} must be a whole number from {1} to {2}'],
  [/^position must be true or false$/, 'position must be true or false'],
  [/^a position search is for Xiangqi games$/, 'a position search is for Xiangqi games'],
  [/^the search cannot be answered(?:: (.*))?$/, 'the search cannot be answered'],
  [/^(\S+) must be a list of 1 to (\d+) game ids$/, '{0} must be a list of 1 to {1} game ids'],
  [/^no such game in the database$/, 'no such game in the database'],
  [/^an import into the database is under way: wait for it to finish$/, 'an import into the database is under way: wait for it to finish'],
  [/^no list of games to choose from: import the file again$/, 'no list of games to choose from: import the file again'],
  [/^saved must be a game as the page keeps it$/, 'saved must be a game as the page keeps it'],
  [/^the game is too large to keep in the library$/, 'the game is too large to keep in the library'],
  [/^the games database cannot be opened$/, 'the games database cannot be opened'],
  [/^result must be one of (.+)$/, 'the result must be one of {0}'],
  // A position the set-up editor (or an import) gave: what is wrong with it.
  [/^not a legal position: (.+)$/, 'not a legal position: {0}', 'parts'],
  [/^(?:the FEN is empty|empty FEN)$/, 'the position is empty'],
  [/^too many ((?:Red|Black) \w+?)s: a set has (\d+)$/, 'too many pieces: {0} (a set has {1})', 'parts'],
  [/^((?:Red|Black) \w+) outside its palace at (\w+)$/, '{0} outside its palace at {1}', 'parts'],
  [/^((?:Red|Black) \w+) off its palace diagonals at (\w+)$/, '{0} off its palace diagonals at {1}', 'parts'],
  [/^((?:Red|Black) \w+) off its seven points at (\w+)$/, '{0} off its seven points at {1}', 'parts'],
  [/^((?:Red|Black) \w+) behind its starting rank at (\w+)$/, '{0} behind its starting rank at {1}', 'parts'],
  [/^((?:Red|Black) king) missing$/, 'the {0} is missing', 'parts'],
  [/^a ((?:Red|Black) pawn) cannot stand on (\w+) \(.*\)$/, '{0} cannot stand on {1}: before the river, soldiers stand only on the files a, c, e, g and i', 'parts'],
  [/^the generals face each other on an open file$/, 'the generals face each other on an open file'],
  [/^the side not to move is in check$/, 'the side not to move is in check'],
  [/^((?:FEN|unknown piece letter|side to move must be) .+)$/, 'the FEN is malformed: {0}'],
  // A game the page kept that the server could not take back.
  [/^restore: (.+)$/, 'the game could not be restored: {0}'],
  // What only a page with a fault (or a hand-written client) meets: said as
  // a refusal, with the server's words after it.
  [/^((?:a message is|unknown message type|variant must|move must|headers must|engine must|on must|notation must|lang must|data must|data is not|import needs|annotations must|level |restore needs|text frames only|message too large|not JSON|\w+ must be (?:a number|between|a string|the id)).*)$/, 'the server did not accept the message: {0}'],
  [/^internal error: (.+)$/, 'internal error in the server: {0}'],
];

// A part of a sentence: a piece ("Red king") in the page's words, else as it came.
function part(value, t) {
  const piece = PIECE.exec(value);
  if (piece) return `${t(piece[1])} ${t(PIECES[piece[2]])}`;
  const word = t(LEVEL_WORDS[value] || value);
  if (word !== value) return word;
  return localize(value, t);
}

// `text` in the page's language (`t` the page's translation), or as it came.
export function localize(text, t, message = null) {
  if (message && typeof message.key === 'string') {
    const args = message.params || message.args || {};
    const values = Array.isArray(args) ? Object.fromEntries(args.map((v, i) => [i, v]))
      : Object.fromEntries(Object.entries(args).map(([k, v]) => [k, part(String(v), t)]));
    if (t(message.key) !== message.key) {        // a key the page has words for
      const said = t(message.key, values);
      return message.detail ? `${said}: ${message.detail}` : said;
    }
  }
  for (const [pattern, words, parts] of TEXTS) {
    const m = pattern.exec(text);
    if (m) {
      return t(words, Object.fromEntries(m.slice(1).map((v, i) => [i,
        v === undefined ? '' : parts ? part(v, t) : v])));
    }
  }
  return text;
}
