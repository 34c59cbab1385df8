// tuong-web: the annotation's summary, per side, as analysis boards show it:
// each player's average loss and how many blunders (??), mistakes (?) and
// inaccuracies (?!). The numbers are the server's (state `summary_sides`);
// its sentences (`summary`, in the page's language) are the table's
// tooltip, and shown as they are by a server that sends only them.

const MARKS = [['??', 'mark-blunder', 'Blunders'], ['?', 'mark-mistake', 'Mistakes'],
  ['?!', 'mark-inaccuracy', 'Inaccuracies']];

function el(tag, attrs, parent, text) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) node.setAttribute(key, value);
  if (text !== undefined && text !== null) node.textContent = text;
  if (parent) parent.appendChild(node);
  return node;
}

// Into `box`: `sides` [{side, name, moves, acpl, loss, marks}], `lines` the
// sentences; `t` the page's words, `sideName(side)` a side's name.
export function render(box, sides, lines, t, sideName) {
  box.textContent = '';
  const sentences = Array.isArray(lines) ? lines : typeof lines === 'string' ? [lines] : [];
  if (!Array.isArray(sides) || !sides.length) {
    for (const line of sentences) el('p', {}, box, String(line));
    return;
  }
  el('h3', {}, box, t('The annotation in numbers'));
  const table = el('table', { id: 'summary-table', title: sentences.join('\n') }, box);
  const head = el('tr', {}, el('thead', {}, table));
  el('th', {}, head, '');
  el('th', { title: t('average loss a move, in hundredths of a soldier') }, head, t('Average loss'));
  for (const [mark, cls, words] of MARKS) el('th', { class: cls, title: t(words) }, head, mark);
  const body = el('tbody', {}, table);
  for (const s of sides) {
    const row = el('tr', { 'data-side': s.side }, body);
    const who = el('th', { scope: 'row' }, row, sideName(s.side));
    if (s.name) el('span', { class: 'summary-name' }, who, ` ${s.name}`);
    el('td', { class: 'summary-loss' }, row, t('{n} cp', { n: Math.round(Number(s.acpl) || 0) }));
    for (const [mark, cls] of MARKS) el('td', { class: `summary-count ${cls}`, 'data-mark': mark }, row, String((s.marks || {})[mark] || 0));
  }
}
