// tuong-web: what the browser keeps: localStorage (the game, the library,
// the settings, the drafts and undos of keep.js) and sessionStorage (this
// tab's own game and library row, database.js). Storage can be missing or
// full (private windows): it never breaks the page.

import { t } from './i18n.js';
import { onNotice } from './messages.js';

export function load(key, fallback = null) {
  try {
    const text = localStorage.getItem(key);
    return text === null ? fallback : JSON.parse(text);
  } catch (e) {
    return fallback;
  }
}

// `value` kept under `key` (null: the key forgotten); false when the browser would not.
function write(key, value) {
  try {
    if (value === null) localStorage.removeItem(key);
    else localStorage.setItem(key, JSON.stringify(value));
    return true;
  } catch (e) {
    return false;
  }
}

export function store(key, value) {
  // Said once: the page goes on, but the player must know it keeps nothing now.
  if (!write(key, value) && !store.warned) {
    store.warned = true;
    onNotice({ text: t("the browser keeps nothing more (its storage is full or off): export the games you want to keep") });
  }
}

// What is kept beside the game (a draft, an undo, a library game on its way
// to the database): a failure is said for the game itself, not again.
export function storeQuietly(key, value) {
  write(key, value);
}

// This tab's own (sessionStorage): `session(key)` reads, `session(key, value)` writes.
export function session(key, value) {
  try {
    if (value === undefined) return JSON.parse(sessionStorage.getItem(key) || 'null');
    if (value === null) sessionStorage.removeItem(key);
    else sessionStorage.setItem(key, JSON.stringify(value));
  } catch (e) { /* storage off: the page keeps the game in memory only */ }
  return null;
}
