// tuong-web: the page. It draws the server's `state` and sends intentions;
// the server (tools/web/session.py) owns the game and checks everything.
// Messages: docs/web-protocol.md. Plain ES2020 modules, no build step, no
// libraries; this one starts the page (docs/guide/web.md, "The page",
// lists the others).

import { $ } from './dom.js';
import { load } from './storage.js';
import { app, probe } from './state.js';
import { translatePage } from './i18n.js';
import { connect, dispatch, send } from './socket.js';
import { savedGame } from './tree.js';
import { renderAll, renderClocks, renderStatus } from './panels.js';
import { showLevelKind, wantedNotation } from './controls.js';
import { libraryText } from './library.js';
import { applyTheme, wireControls } from './wiring.js';
import * as database from './database.js';

// What automated tests (and the curious) can read and call.
window.tuong = Object.assign(probe, {
  send, nodes: () => [...app.nodes.entries()], root: () => app.root,
  saved: () => (app.state ? savedGame(app.state) : null),
  libraryText: () => libraryText(), receive: (message) => dispatch(message),
});

function start() {
  database.wire();
  wireControls();
  applyTheme(app.theme);
  $('#lang').value = app.lang;
  $('#player').value = app.player;
  $('#multipv').value = String(load('tuong.multipv', 1));
  $('#notation').value = wantedNotation();
  translatePage();
  $('#pieces-style').value = app.pieceStyle;
  showLevelKind();
  renderAll();
  // Clocks count down between states; the status counts down to a reconnect.
  setInterval(() => {
    renderClocks();
    if (!app.connected) renderStatus();
  }, 200);
  connect();
}

if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
else start();
