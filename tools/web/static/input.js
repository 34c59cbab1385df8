// tuong-web: moving on the board: click a piece then its destination, or
// drag it; a click places a piece in the small games (the set-up editor's
// clicks go to setup.js).

import { $ } from './dom.js';
import { app } from './state.js';
import { t } from './i18n.js';
import { moveSquares, parseSquare } from './helpers.js';
import { sendRaw } from './socket.js';
import { setError } from './messages.js';
import { isOffBoard } from './geometry.js';
import { renderBoard } from './board.js';
import { setupClick } from './setup.js';

function squareOf(target) {
  const el = target && target.closest ? target.closest('[data-square]') : null;
  return el && $('#board-points').contains(el) ? el.dataset.square : null;
}

export function onBoardPointerDown(event) {
  const sq = squareOf(event.target);
  if (app.setup) {
    if (sq && (event.button === 0 || event.button === 2)) {
      event.preventDefault();
      setupClick(sq, event.button === 2);
    }
    return;
  }
  if (event.button !== 0 || !app.state) return;
  if (!sq) {
    deselect();    // a click beside the board puts the piece down
    return;
  }
  // Second click of click-click: a destination of the picked-up piece.
  if (app.selected && app.selected !== sq) {
    const move = app.selected + sq;
    if (app.state.legal.includes(move)) {
      event.preventDefault();
      sendMove(move);
      return;
    }
  }
  if (app.movesFrom.has(sq)) {
    event.preventDefault();
    const wasSelected = app.selected === sq;
    select(sq);
    app.drag = { square: sq, pointerId: event.pointerId, x0: event.clientX, y0: event.clientY, moved: false, wasSelected, el: null };
    return;
  }
  app.downSquare = sq;
}

export function onPointerMove(event) {
  const drag = app.drag;
  if (!drag || event.pointerId !== drag.pointerId) return;
  if (!drag.moved) {
    if (Math.hypot(event.clientX - drag.x0, event.clientY - drag.y0) < 5) return;
    // Lift the piece into the top layer so it passes over the others.
    const piece = document.querySelector(`#board-points [data-square="${drag.square}"] .piece`);
    if (!piece) return;
    drag.moved = true;
    drag.el = piece;
    piece.classList.add('dragging');
    $('#board-drag').appendChild(piece);
  }
  const p = clientToSvg(event.clientX, event.clientY);
  drag.el.setAttribute('transform', `translate(${p.x} ${p.y})`);
}

export function onPointerUp(event) {
  const drag = app.drag;
  if (drag && event.pointerId === drag.pointerId) {
    app.drag = null;
    if (drag.moved) dropPiece(event, drag);
    else if (drag.wasSelected) deselect();     // a second click on the piece puts it down
    return;
  }
  const sq = squareOf(event.target);
  if (app.downSquare && sq === app.downSquare) clickSquare(sq);
  app.downSquare = null;
}

function dropPiece(event, drag) {
  const target = squareAtClient(event.clientX, event.clientY);
  const move = target ? drag.square + target : null;
  if (move && target !== drag.square && app.state.legal.includes(move)) {
    // Leave the piece where it was dropped until the new state redraws the board.
    const p = parseSquare(target), at = app.geo.xy(p.f, p.r);
    drag.el.setAttribute('transform', `translate(${at.x} ${at.y})`);
    app.justDropped = move;          // it is where it goes: no slide
    sendMove(move, false);
  } else {
    // Back to its square, still picked up.
    drag.el.classList.remove('dragging');
    drag.el.removeAttribute('transform');
    const g = app.pointEls.get(drag.square);
    if (g) g.appendChild(drag.el);
    renderBoard();
  }
}

function squareAtClient(x, y) {
  for (const el of document.elementsFromPoint(x, y)) {
    const sq = squareOf(el);
    if (sq) return sq;
  }
  return null;
}

function clientToSvg(x, y) {
  const board = $('#board'), pt = board.createSVGPoint();
  pt.x = x;
  pt.y = y;
  return pt.matrixTransform(board.getScreenCTM().inverse());
}

// A click that is not a pick-up: a placement, an exit target, or a miss.
function clickSquare(sq) {
  if (app.placements.has(sq)) {
    sendMove(sq);
    return;
  }
  // An exit target clicked with no car picked up: fine if only one car can leave there.
  const into = (app.state.legal || []).filter((m) => moveSquares(m)[1] === sq);
  if (!app.selected && into.length === 1 && parseSquare(sq) && isOffBoard(sq)) {
    sendMove(into[0]);
    return;
  }
  deselect();
}

function select(sq) {
  app.selected = sq;
  renderBoard();
}

function deselect() {
  if (app.selected === null) return;
  app.selected = null;
  renderBoard();
}

export function cancelDrag() {
  app.drag = null;
  app.downSquare = null;
}

export function sendMove(move, redraw = true) {
  if (!app.state || !app.state.legal.includes(move)) return;   // the server would refuse it anyway
  app.selected = null;
  const sent = sendRaw({ type: 'move', move });
  if (!sent) setError(t('not connected to the server'));
  if (redraw || !sent) renderBoard();
}
