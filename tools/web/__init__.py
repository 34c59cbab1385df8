"""tuong-web: play and analyse in the browser, served by tuong itself.

    tuong-web [--host 127.0.0.1] [--port 8731] [--no-browser] [--engine CMD]
              [--protocol uci|ucci] [--max-sessions 8] [--idle-timeout 3600]
              [--db PATH]

Starts a local web server (the `web` extra: Starlette and uvicorn) and opens
the page in the browser. Every asset is served from the package: nothing is
fetched from the internet. Each page holds one WebSocket (/ws) and one engine
process (tuong by default, any UCI or UCCI engine with --engine), started on
the page's first search and ended, reaped, when the page closes, goes idle
for --idle-timeout seconds, or the server stops. The page's messages are in
docs/web-protocol.md; tools/web/session.py checks and carries them out.
The games database (--db, default tuong-db's) holds the Database tab's
games, the explorer's master moves and the page's library (tools/web/database.py).

Safety: the server binds to 127.0.0.1 unless --host says otherwise (and then
warns); a WebSocket whose Origin is not this server's is refused (another
site open in the same browser cannot drive it); messages are limited in size
and validated; at most --max-sessions pages at once.
"""
import asyncio
import collections
import contextlib
import errno
import ipaddress
import json
import os
import shlex
import socket
import sys
import threading
import traceback
import webbrowser
from urllib.parse import urlsplit

from tuong.tools.cli import ArgumentParser, default_engine, integer, real

STATIC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "static")
MAX_MESSAGE = 4 * 1024 * 1024          # bytes of one WebSocket frame (an uploaded file)
# One address from run to run: the browser keeps the library, the saved game and the
# settings for each address (origin), so a new port each time would seem to lose them.
DEFAULT_PORT = 8731
OUTBOX_BYTES = 4 * 1024 * 1024         # queued for a page that reads too slowly
# One message alone may be larger (an export): at most this, as much as a game
# that a page keeps can be written (5,000 moves, each a 2,000-character comment).
MAX_SENT = 64 * 1024 * 1024
SECURITY_HEADERS = {
    "Content-Security-Policy": "default-src 'self'; img-src 'self' data: blob:; "
                               "style-src 'self' 'unsafe-inline'; connect-src 'self'",
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "no-referrer",
}
# The page's scripts are ES modules (static/main.js and what it imports): a
# browser runs a module only when it comes as JavaScript, and the stylesheet
# only as CSS (nosniff). Python's mimetypes reads the system's own table (on
# Windows the registry, where .js can be text/plain): these are said here.
MEDIA_TYPES = {".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8"}


def origin_allowed(origin, host, names):
    """A page may open the WebSocket only when the Host it asked for is one
    of this server's own `names` (a rebinding site's name is not: DNS
    rebinding) and its Origin names that same Host. A client that sends no
    Origin is not a browser page."""
    try:
        hostname = urlsplit(f"//{host or ''}").hostname
    except ValueError:
        return False
    if hostname is None:
        return False
    if hostname.lower() not in names and not ("*" in names and _is_address(hostname)):
        return False
    if origin is None:
        return True
    parts = urlsplit(origin)
    return parts.scheme in ("http", "https") and parts.netloc.lower() == (host or "").lower()


class Server:
    """The sessions of one tuong-web process."""

    def __init__(self, engine_argv, protocol="uci", max_sessions=8, idle_timeout=3600.0,
                 host="127.0.0.1", db_path=None):
        self.engine_argv, self.protocol = engine_argv, protocol
        self.db_path = db_path           # the games database (None: the pages have none)
        # The names a page may reach us by: loopback's, and the one we bind to.
        self.names = {"127.0.0.1", "localhost", "::1", host.strip("[]").lower()}
        if host in ("0.0.0.0", "::", ""):
            self.names.add("*")          # every address of this machine, by number
        self.max_sessions, self.idle_timeout = max_sessions, idle_timeout
        self.sessions = set()
        from tuong.tools.web.clock import ClockKeeper
        self.keeper = ClockKeeper(keep_for=idle_timeout)   # a reloaded page's clocks
        self.engine_name = os.path.basename(engine_argv[0]) if engine_argv[0] != sys.executable \
            else "tuong"

    def open_engine(self):
        from tuong.protocol.client import open_engine
        return open_engine(self.engine_argv, self.protocol)

    def app(self):
        from starlette.applications import Starlette
        from starlette.responses import FileResponse, JSONResponse
        from starlette.routing import Mount, Route, WebSocketRoute
        from starlette.staticfiles import StaticFiles

        class Static(StaticFiles):
            def file_response(self, full_path, stat_result, scope, status_code=200):
                response = super().file_response(full_path, stat_result, scope, status_code)
                media_type = MEDIA_TYPES.get(os.path.splitext(str(full_path))[1])
                if media_type and response.status_code != 304:
                    response.headers["content-type"] = media_type
                # Asked again each time (a 304 while unchanged): the modules
                # import each other, and a page made of a new main.js and an
                # old module from the browser's cache would not start.
                response.headers["cache-control"] = "no-cache"
                return response

        async def index(request):
            return FileResponse(os.path.join(STATIC, "index.html"),
                                headers={"cache-control": "no-cache"})

        async def health(request):
            return JSONResponse({"sessions": len(self.sessions),
                                 "max_sessions": self.max_sessions})

        routes = [Route("/", index), Route("/health", health),
                  WebSocketRoute("/ws", self.websocket),
                  Mount("/static", Static(directory=STATIC, check_dir=False), name="static")]

        @contextlib.asynccontextmanager
        async def lifespan(app):
            yield
            await asyncio.gather(*(s.close() for s in list(self.sessions)),
                                 return_exceptions=True)

        return _with_headers(Starlette(routes=routes, lifespan=lifespan))

    async def websocket(self, ws):
        from starlette.websockets import WebSocketDisconnect
        from tuong.tools.web import words
        from tuong.tools.web.session import STATE, Session

        if not origin_allowed(ws.headers.get("origin"), ws.headers.get("host"), self.names):
            await ws.close(code=1008, reason="origin not allowed")
            return
        await ws.accept()
        if len(self.sessions) >= self.max_sessions:
            await ws.send_text(json.dumps({
                "type": "error", "message": f"too many pages open (at most {self.max_sessions})",
                "key": "too many pages open (at most {n})", "params": {"n": self.max_sessions}},
                ensure_ascii=False))
            await ws.close(code=1013, reason="too many sessions")
            return
        # The outbox: texts waiting to be written, bounded in bytes, and at
        # most one STATE marker, built into the state when it is written (a
        # page that reads slowly gets the latest state once, never a queue).
        outbox, wake = collections.deque(), asyncio.Event()
        queued = {"bytes": 0, "state": False, "dropped": 0}
        peer = f"{ws.client.host}:{ws.client.port}" if ws.client else "a page"

        def emit(message):
            if message is STATE:
                if not queued["state"]:
                    queued["state"] = True
                    outbox.append(STATE)
                    wake.set()
                return
            # UTF-8 JSON: a Chinese character is 3 bytes, not a 6-byte \u escape.
            text = json.dumps(message, ensure_ascii=False)
            size = len(text.encode())
            # One message larger than the outbox (a large export) goes when
            # nothing else waits: the game it comes from is bounded (MAX_NODES
            # moves, MAX_TEXT a comment), so it is as much as the page holds.
            if queued["bytes"] + size > OUTBOX_BYTES and \
                    not (queued["bytes"] == 0 and size <= MAX_SENT):
                if message.get("type") == "info":       # analysis lines go first
                    queued["dropped"] += 1
                    if queued["dropped"] in (1, 100, 10_000):
                        print(f"tuong-web: {peer} reads slowly: {queued['dropped']} analysis "
                              "lines dropped", file=sys.stderr)
                    return
                print(f"tuong-web: {peer} read nothing of {queued['bytes']} bytes: let go",
                      file=sys.stderr)
                receiving.cancel()
                return
            queued["bytes"] += size
            outbox.append((text, size))
            wake.set()

        session = Session(self.open_engine, emit, self.engine_name, self.keeper, self.db_path)
        self.sessions.add(session)

        async def writer():
            while True:
                await wake.wait()
                wake.clear()
                while outbox:
                    item = outbox.popleft()
                    if item is STATE:
                        queued["state"] = False
                        try:
                            text = json.dumps(session.state(), ensure_ascii=False)
                        except Exception as error:   # a fault of ours: said and logged
                            traceback.print_exc(file=sys.stderr)
                            text = json.dumps({"type": "error",
                                               "message": f"internal error: {error!r}"},
                                              ensure_ascii=False)
                    else:
                        text, size = item
                        queued["bytes"] -= size
                    await ws.send_text(text)

        sending = asyncio.create_task(writer())
        receiving = asyncio.current_task()
        try:
            emit(STATE)
            while True:
                try:
                    text = await asyncio.wait_for(ws.receive_text(), self.idle_timeout)
                except asyncio.TimeoutError:
                    emit(words.notice("closed after being idle", session.lang))
                    await asyncio.sleep(0.1)
                    await ws.close(code=1000, reason="idle")
                    break
                except KeyError:            # starlette: a binary frame has no text
                    emit({"type": "error", "message": "text frames only"})
                    continue
                if len(text) > MAX_MESSAGE:
                    emit({"type": "error", "message": "message too large"})
                    continue
                try:
                    message = json.loads(text)
                except (ValueError, RecursionError):
                    emit({"type": "error", "message": "not JSON (or nested too deeply)"})
                    continue
                try:
                    await session.handle(message)
                except Exception as error:  # a fault of ours: said, logged, and the page goes on
                    traceback.print_exc(file=sys.stderr)
                    emit({"type": "error", "message": f"internal error: {error!r}"})
        except (WebSocketDisconnect, asyncio.CancelledError):
            pass                            # the page went away, or lagged and was let go
        except RuntimeError as error:       # starlette: the socket is no longer connected
            print(f"tuong-web: a page's connection ended: {error}", file=sys.stderr)
        finally:
            sending.cancel()
            self.sessions.discard(session)
            await session.close()


def _with_headers(app):
    """The app, with SECURITY_HEADERS on every HTTP response."""
    extra = [(k.lower().encode(), v.encode()) for k, v in SECURITY_HEADERS.items()]

    async def wrapped(scope, receive, send):
        if scope["type"] != "http":
            return await app(scope, receive, send)

        async def send_with_headers(message):
            if message["type"] == "http.response.start":
                names = {k for k, _ in message.get("headers", [])}
                message["headers"] = list(message.get("headers", [])) + \
                    [(k, v) for k, v in extra if k not in names]
            await send(message)
        return await app(scope, receive, send_with_headers)
    return wrapped


def _is_address(name):
    """An IP address written out (a rebinding attack needs a DNS name)."""
    try:
        ipaddress.ip_address(name)
        return True
    except ValueError:
        return False


def _loopback(host):
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return host == "localhost"


def main(argv=None):
    parser = ArgumentParser(prog="tuong-web", description=__doc__.split("\n\n")[0])
    parser.add_argument("--host", default="127.0.0.1",
                        help="address to bind (default 127.0.0.1: this machine only)")
    parser.add_argument("--port", type=integer(0, 65535),
                        help=f"port (default {DEFAULT_PORT}, or a free one when it is taken; "
                             "0: a free one)")
    parser.add_argument("--no-browser", action="store_true", help="do not open a browser")
    parser.add_argument("--engine", help="engine command (default: tuong)")
    parser.add_argument("--protocol", choices=("uci", "ucci"), default="uci")
    parser.add_argument("--max-sessions", type=integer(1), default=8,
                        help="pages (and engines) at once (default 8)")
    parser.add_argument("--idle-timeout", type=real(0, strict=True), default=3600.0,
                        help="seconds without a message before a page is closed (default 3600)")
    parser.add_argument("--db", metavar="PATH",
                        help="the games database: the Database tab, the explorer's master "
                             "moves and the library (default: tuong-db's, "
                             "$XDG_DATA_HOME/tuong/games.sqlite)")
    args = parser.parse_args(argv)
    try:
        import uvicorn
        import starlette  # noqa: F401
    except ImportError:
        parser.error("tuong-web needs the web extra: pip install 'tuong[web]' "
                     "(or pip install '.[web]' in a clone)")
    engine = shlex.split(args.engine) if args.engine else default_engine()
    from tuong.tools.db import default_path
    server = Server(engine, args.protocol, args.max_sessions, args.idle_timeout, args.host,
                    args.db or str(default_path()))
    if not _loopback(args.host):
        print(f"tuong-web: WARNING: listening on {args.host}: anyone who can reach this "
              "address can use the page and start engines on this machine", file=sys.stderr)
    family = socket.AF_INET6 if ":" in args.host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    port = DEFAULT_PORT if args.port is None else args.port
    try:
        try:
            sock.bind((args.host, port))
        except OSError as error:
            if args.port is not None or error.errno != errno.EADDRINUSE:
                raise
            port = 0
            sock.bind((args.host, port))
            print(f"tuong-web: port {DEFAULT_PORT} is taken ({error.strerror}), so a free one: "
                  "the browser keeps the library and the saved game for each address, so "
                  f"this page starts without those kept at port {DEFAULT_PORT}",
                  file=sys.stderr)
        sock.listen(128)           # connections wait in the backlog until uvicorn runs
    except OSError as error:
        parser.error(f"cannot listen on {args.host}:{port}: {error.strerror}")
    port = sock.getsockname()[1]
    shown = f"[{args.host}]" if family == socket.AF_INET6 else args.host
    url = f"http://{shown}:{port}/"
    print(f"tuong-web: {url} (engine: {' '.join(engine)}; Ctrl-C stops)", flush=True)
    # Frames up to twice the limit reach the check above and get an answer; larger
    # ones close the connection before they fill memory.
    config = uvicorn.Config(server.app(), log_level="warning", ws_max_size=2 * MAX_MESSAGE,
                            ws_ping_interval=20, ws_ping_timeout=20, lifespan="on")
    if not args.no_browser:
        threading.Timer(0.5, webbrowser.open, (url,)).start()
    try:
        uvicorn.Server(config).run(sockets=[sock])
    finally:
        from tuong.protocol.client import close_all
        close_all()

