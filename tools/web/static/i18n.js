// tuong-web: the interface's words. The dictionaries, one a language
// (i18n/vi.js, i18n/zh-Hans.js, i18n/zh-Hant.js), are keyed by the English
// text, which is English's own. Here: the language chosen (the player's
// choice, else the browser's), t() and the page's fixed words in it, the
// sides' names, and the server's Chinese in traditional characters for a
// traditional-Chinese reader.

import vi from './i18n/vi.js';
import zhHans from './i18n/zh-Hans.js';
import zhHant from './i18n/zh-Hant.js';
import { LANGS, SIDE_NAMES } from './constants.js';
import { load } from './storage.js';
import { app } from './state.js';

const TABLES = { vi, 'zh-Hans': zhHans, 'zh-Hant': zhHant };

export function chooseLang() {
  const kept = load('tuong.lang', null);
  if (LANGS.includes(kept)) return kept;
  for (const wanted of navigator.languages || [navigator.language || 'en']) {
    const code = String(wanted).toLowerCase();
    if (code.startsWith('vi')) return 'vi';
    if (/^zh-(tw|hk|mo)|^zh-hant/.test(code)) return 'zh-Hant';
    if (code.startsWith('zh')) return 'zh-Hans';
    if (code.startsWith('en')) return 'en';
  }
  return 'en';
}

export function t(text, values = null) {
  const table = TABLES[app.lang] || {};
  let out = table[text] || text;
  if (values) for (const [key, value] of Object.entries(values)) out = out.split(`{${key}}`).join(value);
  return out;
}

// Translate the page's fixed words: every text node, title, placeholder and
// aria-label whose English is in the dictionary (the English is kept aside).
const englishOf = new WeakMap();
export function translatePage() {
  document.documentElement.lang = app.lang;
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    if (node.parentElement && node.parentElement.closest('svg, kbd, #movelist, #analysis-lines, #summary, textarea, .dynamic')) continue;
    const english = englishOf.get(node) || node.nodeValue.trim().replace(/\s+/g, ' ');
    if (!english) continue;
    englishOf.set(node, english);
    const lead = node.nodeValue.match(/^\s*/)[0], tail = node.nodeValue.match(/\s*$/)[0];
    node.nodeValue = lead + t(english) + tail;
  }
  for (const el of document.querySelectorAll('[title], [placeholder], [aria-label]')) {
    for (const attr of ['title', 'placeholder', 'aria-label']) {
      if (!el.hasAttribute(attr)) continue;
      const key = `data-en-${attr}`;
      if (!el.hasAttribute(key)) el.setAttribute(key, el.getAttribute(attr));
      el.setAttribute(attr, t(el.getAttribute(key)));
    }
  }
}

export function sideName(side, variant) {
  const names = SIDE_NAMES[variant || (app.state && app.state.variant) || 'xiangqi'];
  return t(names[side] || side);
}

// The server's Chinese (moves, hints, notes, openings) in traditional
// characters for a traditional-Chinese reader, where it sends simplified.
const HANT_FROM = '车马进帅将后红严损着缓误内军动复实对应战无杀毙绝胁视评负长过门边头顺风转单双飞横兑连骑调盘势胜';
const HANT_TO = '車馬進帥將後紅嚴損著緩誤內軍動複實對應戰無殺斃絕脅視評負長過門邊頭順風轉單雙飛橫兌連騎調盤勢勝';
export function displayText(text) {
  if (app.lang !== 'zh-Hant' || !text) return text;
  return String(text).replace(/[\u4e00-\u9fff]/g, (c) => {
    const i = HANT_FROM.indexOf(c);
    return i < 0 ? c : HANT_TO[i];
  });
}
