// tuong-web: the connection to the server: the WebSocket, reconnecting with
// a backoff, what the page asks at each connection (the game to bring back,
// its settings), and each message handed to its handler.

import { load } from './storage.js';
import { app } from './state.js';
import { t } from './i18n.js';
import { onAnnotation, onError, onHint, onInfo, onNotice, onPgn, onState, setError } from './messages.js';
import { renderStatus } from './panels.js';
import { sendSettings } from './controls.js';
import { keepInLibrary } from './library.js';
import { linkedGame } from './links.js';
import * as database from './database.js';

export function connect() {
  const proto = location.protocol === 'https:' ? 'wss:' : 'ws:';
  let ws;
  try {
    ws = new WebSocket(`${proto}//${location.host}/ws`);
  } catch (e) {
    scheduleReconnect();
    return;
  }
  app.ws = ws;
  ws.addEventListener('open', () => {
    app.connected = true;
    app.retryDelay = 500;
    // Bring back the game a link names, else the game of before the reload
    // (the server checks it); then the page's settings.
    const linked = app.linkUsed ? null : linkedGame();
    const kept = database.keptGame() || load('tuong.game');
    const saved = linked || kept;
    if (linked) {
      app.linkUsed = true;
      // The game of before goes to the library, not away (as when a game replaces it).
      if (kept && Array.isArray(kept.nodes) && kept.nodes.length) {
        const entry = { id: Date.now(), title: t('The game before the link'),
          date: new Date().toISOString().slice(0, 16).replace('T', ' '), saved: kept };
        // A game the database keeps in this tab's row stays there, not copied.
        if (!database.keepInRow(entry)) keepInLibrary(entry, '');
      }
      database.detach();   // the linked game: a row of its own
      // The address no longer names the game: a reload brings back what was played since.
      history.replaceState(null, '', location.pathname);
    }
    app.restoring = Boolean(saved);
    app.restoreSent = saved;          // the game that goes to the library if it cannot come back
    if (saved) sendRaw({ type: 'restore', game: { ...saved, lang: app.lang } });
    sendSettings();
    database.onOpen();
    renderStatus();
  });
  ws.addEventListener('message', (event) => {
    let message;
    try { message = JSON.parse(event.data); } catch (e) { return; }
    if (message && typeof message.type === 'string') dispatch(message);
  });
  ws.addEventListener('close', () => {
    if (app.ws !== ws) return;
    app.ws = null;
    app.connected = false;
    scheduleReconnect();
  });
}

function scheduleReconnect() {
  const delay = app.retryDelay;
  app.retryDelay = Math.min(app.retryDelay * 2, 10000);
  app.retryAt = performance.now() + delay;
  setTimeout(connect, delay);
  renderStatus();
}

export function sendRaw(message) {
  if (!app.ws || app.ws.readyState !== WebSocket.OPEN) return false;
  app.ws.send(JSON.stringify(message));
  return true;
}

export function send(message) {
  if (!sendRaw(message)) setError(t('not connected to the server'));
}

const HANDLERS = {
  state: onState, info: onInfo, hint: onHint, pgn: onPgn,
  annotation: onAnnotation, notice: onNotice, error: onError,
};

export function dispatch(message) {
  const handler = HANDLERS[message.type];
  if (handler) handler(message);
  else database.receive(message);
}
