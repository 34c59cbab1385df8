// tuong-web: making the page's elements: $ finds one, svg() and html() make
// one with its attributes (null ones left out) and its text.

const SVGNS = 'http://www.w3.org/2000/svg';

export const $ = (sel) => document.querySelector(sel);

export function svg(tag, attrs = {}, parent = null, text = null) {
  const node = document.createElementNS(SVGNS, tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value !== null && value !== undefined) node.setAttribute(key, value);
  }
  if (text !== null) node.textContent = text;
  if (parent) parent.appendChild(node);
  return node;
}

export function html(tag, attrs = {}, parent = null, text = null) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value !== null && value !== undefined) node.setAttribute(key, value);
  }
  if (text !== null) node.textContent = text;
  if (parent) parent.appendChild(node);
  return node;
}
