"""tuong-web as a process: the HTTP side, the WebSocket's guards, hostile
messages, and a load test (20 pages analysing at once, then everything
they started gone). Needs the `web` extra and the websockets client."""
import asyncio
import json
import os
import pathlib
import re
import subprocess
import sys
import time
import urllib.parse
import urllib.request

import pytest

from conftest import HANG, need_module

need_module("starlette")
need_module("uvicorn")
websockets = need_module("websockets")
from websockets.asyncio.client import connect  # noqa: E402


def children(pid):
    """Live processes whose parent is `pid` (the engines a server started)."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid and fields[0] != "Z":
                found.append(int(entry))
    return found


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as f:
        return int(re.search(r"VmRSS:\s+(\d+)", f.read()).group(1))


@pytest.fixture(scope="module")
def server():
    process = subprocess.Popen(
        [sys.executable, "-m", "tuong.tools.web", "--no-browser", "--port", "0",
         "--max-sessions", "24", "--idle-timeout", "30"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = process.stdout.readline()
    match = re.search(r"http://([\d.]+):(\d+)/", line)
    assert match, line + process.stderr.read()
    process.url = match.group(0)
    process.ws = f"ws://{match.group(1)}:{match.group(2)}/ws"
    yield process
    process.terminate()
    process.wait(HANG)


def run(coroutine):
    return asyncio.run(asyncio.wait_for(coroutine, HANG * 12))


async def receive(ws, kind):
    while True:
        message = json.loads(await ws.recv())
        if message["type"] == kind:
            return message


def test_page_and_assets_are_served_locally(server):
    with urllib.request.urlopen(server.url, timeout=HANG) as response:
        page = response.read().decode()
        assert "default-src 'self'" in response.headers["Content-Security-Policy"]
    assert '<script type="module" src="/static/main.js">' in page
    # No asset from elsewhere: every src/href is a local path.
    for url in re.findall(r'(?:src|href)="([^"]+)"', page):
        assert (url.startswith("/") and not url.startswith("//")) or url.startswith("data:"), url
    with urllib.request.urlopen(server.url + "static/style.css", timeout=HANG) as response:
        assert response.headers["Content-Type"].startswith("text/css")
        assert_local(response.read().decode(), "style.css")


def assert_local(body, name):
    assert "http://" not in body.replace("http://www.w3.org", "") and \
        "https://" not in body.replace("https://www.w3.org", ""), name


# What a module imports (or exports from): `import x from './a.js'`,
# `import { a,\n b } from './b.js'`, `import './c.js'`, `export { a } from './d.js'`.
IMPORT = re.compile(r"""^\s*(?:import|export)\b[^'";]*?\bfrom\s*['"]([^'"]+)['"]"""
                    r"""|^\s*import\s*['"]([^'"]+)['"]""", re.M)


def test_every_module_is_served_as_javascript(server):
    """The page's scripts are ES modules: a browser runs one only when it
    comes as JavaScript. Every module the entry imports, and every module
    those import, is served so, from here; and every script in static/ is
    one of them (none is left over, none is loaded another way)."""
    base = server.url + "static/"
    waiting, seen = [base + "main.js"], set()
    while waiting:
        url = waiting.pop()
        if url in seen:
            continue
        seen.add(url)
        with urllib.request.urlopen(url, timeout=HANG) as response:
            assert response.headers["Content-Type"].split(";")[0] == "text/javascript", \
                (url, response.headers["Content-Type"])
            assert response.headers["Cache-Control"] == "no-cache", url
            body = response.read().decode()
        assert_local(body, url)
        for match in IMPORT.finditer(body):
            target = match.group(1) or match.group(2)
            assert target.startswith(("./", "../")), (url, target)   # no build step: paths
            waiting.append(urllib.parse.urljoin(url, target))
    static = pathlib.Path(__file__).resolve().parent.parent / "tools" / "web" / "static"
    files = {base + path.relative_to(static).as_posix() for path in static.rglob("*.js")}
    assert seen == files, (sorted(files - seen), sorted(seen - files))
    assert len(seen) > 20



def test_every_file_of_the_page_is_installed():
    """pyproject.toml's package data names every file of static/ (a folder is
    not matched by "*": the dictionaries in static/i18n/ are named apart), so
    an installed tuong-web serves the same page as the repository's."""
    import glob
    import tomllib
    web = pathlib.Path(__file__).resolve().parent.parent / "tools" / "web"
    config = tomllib.loads((web.parent.parent / "pyproject.toml").read_text())
    patterns = config["tool"]["setuptools"]["package-data"]["tuong.tools.web"]
    installed = {pathlib.Path(found) for pattern in patterns
                 for found in glob.glob(str(web / pattern), recursive=True)
                 if os.path.isfile(found)}
    files = {path for path in (web / "static").rglob("*") if path.is_file()}
    assert files == installed, sorted(map(str, files - installed))

def test_foreign_origin_is_refused(server):
    async def body():
        with pytest.raises(websockets.exceptions.InvalidStatus):
            async with connect(server.ws, origin="http://evil.example"):
                pass
        # A rebinding site: its own name in Host and Origin, our address underneath.
        with pytest.raises(websockets.exceptions.InvalidStatus):
            async with connect(server.ws, origin="http://evil.example:80",
                               additional_headers={"Host": "evil.example:80"}):
                pass
        host = server.url.split("/")[2]
        async with connect(server.ws, origin=f"http://{host}") as ws:
            assert (await receive(ws, "state"))["variant"] == "xiangqi"
    run(body())


def test_hostile_messages_get_errors_and_the_session_goes_on(server):
    async def body():
        async with connect(server.ws, max_size=None) as ws:
            await receive(ws, "state")
            for text in ["not json", "[]", "null", '{"type": "move"}', '{"type": "x" }',
                         json.dumps({"type": "move", "move": "h2e2\nquit"}),
                         json.dumps({"type": "import", "text": "\x00" * 1000}),
                         json.dumps({"type": "new", "fen": "9/9/9 w"}),
                         json.dumps({"type": "goto", "ply": -1}),
                         json.dumps({"type": "move", "move": {"$gt": 1}}),
                         "{" * 10000, "[" * 100_000,
                         # A file of about 3.5 MB in base64: over the limit, said.
                         json.dumps({"type": "import", "data": "A" * 4_700_000})]:
                await ws.send(text)
                assert (await receive(ws, "error"))["message"]
            await ws.send(b"\x00\x01binary")        # a binary frame: an error, and on
            assert (await receive(ws, "error"))["message"] == "text frames only"
            await ws.send(json.dumps({"type": "mode", "engine": None}))
            await receive(ws, "state")
        async with connect(server.ws) as ws:
            await receive(ws, "state")
            await ws.send(json.dumps({"type": "mode", "engine": None}))
            await receive(ws, "state")
            await ws.send(json.dumps({"type": "move", "move": "h2e2"}))
            state = await receive(ws, "state")
            assert [n["move"] for n in state["nodes"] if n["id"] == state["cursor"]] == ["h2e2"]
    run(body())


# A legal game of 1,000 plies: the horses out and back (drawn by repetition
# long before its end, which a restore does not mind).
LONG_GAME = ["h0g2", "h9g7", "g2h0", "g7h9"] * 250


def test_twenty_pages_one_hostile_the_others_answer_and_all_is_returned(server):
    """Twenty pages at once. One is hostile: it restores a 1,000-ply game
    again and again, floods `goto`, sends frames nested too deep, and reads
    nothing. The other nineteen keep answering (every message of theirs
    gets its state: the round trips' times are a benchmark's figure, printed
    with the machine's load beside them, never asserted: a busy machine is
    slower, not wrong), then analyse; after they all close, every engine is
    gone and the server's memory is back near where it started."""
    baseline_children = children(server.pid)
    baseline_rss = rss_kib(server.pid)

    async def hostile(done):
        async with connect(server.ws, max_size=None) as ws:
            await receive(ws, "state")
            game = {"variant": "xiangqi", "moves": LONG_GAME, "cursor": 1000}
            for _ in range(5):
                await ws.send(json.dumps({"type": "restore", "game": game}))
            for ply in range(2000):
                await ws.send(json.dumps({"type": "goto", "ply": ply % 1000}))
            for _ in range(20):
                await ws.send("[" * 100_000)
            await done.wait()                 # and never read a thing

    async def page(number, times, results):
        async with connect(server.ws) as ws:
            await receive(ws, "state")
            await ws.send(json.dumps({"type": "mode", "engine": None}))
            await receive(ws, "state")
            line = ["h2e2", "h9g7", "h0g2", "i9h9", "i0h0"]
            for ply, move in enumerate(line):
                # A move, then back to the start: each state timed from the send.
                for message in ({"type": "move", "move": move}, {"type": "goto", "ply": 0}):
                    start = time.perf_counter()
                    await ws.send(json.dumps(message))
                    await receive(ws, "state")
                    times.append(time.perf_counter() - start)
                await ws.send(json.dumps({"type": "goto", "node": -1}))   # refused: an error
                await receive(ws, "error")
                await ws.send(json.dumps({"type": "restore", "game": {
                    "variant": "xiangqi", "moves": line[:ply + 1]}}))   # where the line was
                assert (await receive(ws, "state"))["ply"] == ply + 1
            await ws.send(json.dumps({"type": "analyse", "on": True, "multipv": 2}))
            results[number] = await receive(ws, "info")
            await asyncio.sleep(0.5)

    async def body():
        results, times, done = {}, [], asyncio.Event()
        attacker = asyncio.create_task(hostile(done))
        await asyncio.sleep(0.5)              # the flood is under way
        await asyncio.gather(*(page(n, times, results) for n in range(19)))
        done.set()
        await attacker
        return results, times

    results, times = run(body())
    assert len(results) == 19 and all(r["pv"] for r in results.values())
    assert len(times) == 19 * 10                      # every page answered every message
    times.sort()
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"\n19 pages beside a hostile one: {len(times)} round trips, median "
          f"{1000 * times[len(times) // 2]:.1f} ms, slowest {1000 * times[-1]:.1f} ms "
          f"(load average {load:.1f} on {os.cpu_count()} processors)")
    deadline = time.monotonic() + HANG * 2
    while children(server.pid) != baseline_children and time.monotonic() < deadline:
        time.sleep(0.2)
    assert children(server.pid) == baseline_children
    # The sessions' memory is returned (a generous bound: allocators keep some).
    assert rss_kib(server.pid) < baseline_rss + 60_000, (baseline_rss, rss_kib(server.pid))


def test_session_cap(server):
    async def body():
        open_pages = []
        try:
            for _ in range(24):
                ws = await connect(server.ws)
                await receive(ws, "state")
                open_pages.append(ws)
            async with connect(server.ws) as extra:
                error = await receive(extra, "error")
                assert "too many" in error["message"]
        finally:
            for ws in open_pages:
                await ws.close()
    run(body())


def test_idle_page_is_closed():
    process = subprocess.Popen(
        [sys.executable, "-m", "tuong.tools.web", "--no-browser", "--port", "0",
         "--idle-timeout", "1"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        url = re.search(r"http://([\d.]+:\d+)/", process.stdout.readline()).group(1)

        async def body():
            async with connect(f"ws://{url}/ws") as ws:
                await receive(ws, "state")
                await ws.send(json.dumps({"type": "hint"}))   # starts the engine
                await receive(ws, "hint")
                notice = await receive(ws, "notice")
                assert "idle" in notice["text"]
                with pytest.raises(websockets.exceptions.ConnectionClosed):
                    while True:
                        await ws.recv()
        run(body())
        deadline = time.monotonic() + HANG
        while children(process.pid) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert children(process.pid) == []
    finally:
        process.terminate()
        process.wait(HANG)


def test_server_stop_reaps_its_engines():
    process = subprocess.Popen(
        [sys.executable, "-m", "tuong.tools.web", "--no-browser", "--port", "0"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    url = re.search(r"http://([\d.]+:\d+)/", process.stdout.readline()).group(1)

    async def body():
        ws = await connect(f"ws://{url}/ws")
        await receive(ws, "state")
        await ws.send(json.dumps({"type": "analyse", "on": True}))
        await receive(ws, "info")
        engines = children(process.pid)
        assert engines
        process.terminate()                 # SIGTERM: uvicorn shuts down, sessions close
        process.wait(HANG)
        return engines

    engines = run(body())
    for pid in engines:
        assert not os.path.exists(f"/proc/{pid}") or \
            open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[0] == "Z"


def test_non_loopback_host_warns():
    process = subprocess.Popen(
        [sys.executable, "-m", "tuong.tools.web", "--no-browser", "--port", "0",
         "--host", "0.0.0.0"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert "http://0.0.0.0:" in process.stdout.readline()
    finally:
        process.terminate()
        _, err = process.communicate(timeout=HANG)
    assert "WARNING" in err


def test_the_default_port_stays_the_same_from_run_to_run():
    """The browser keeps the library and the saved game per address: the
    server comes back at the same port, and says so when it cannot."""
    from tuong.tools.web import DEFAULT_PORT
    started = []
    try:
        for _ in range(2):
            process = subprocess.Popen(
                [sys.executable, "-m", "tuong.tools.web", "--no-browser"],
                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            started.append(process)
            port = int(re.search(r"http://[\d.]+:(\d+)/", process.stdout.readline()).group(1))
            process.port = port
    finally:
        errors = []
        for process in started:
            process.terminate()
            errors.append(process.communicate(timeout=HANG)[1])
    first, second = started
    assert first.port == DEFAULT_PORT or f"port {DEFAULT_PORT} is taken" in errors[0]
    assert second.port != first.port and f"port {DEFAULT_PORT} is taken" in errors[1]
