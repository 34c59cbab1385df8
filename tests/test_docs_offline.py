"""The documentation site works offline: built (`mkdocs build --strict`, as
tests/test_docs_and_lint.py builds it), no page, stylesheet or script loads
anything from another host (no Google Fonts, no CDN), the search index is
there in the form a site opened from disk reads (Material's offline plugin:
search/search_index.js), and, where Chromium is installed, a search run on
pages opened from disk, with every other host unreachable, finds results.
Also: long module names in the API index wrap at their dots, not mid-word
(docs/hooks.py, docs/assets/extra.css).

Links in the text to other sites (`<a href="https://...">`) are no asset and
are allowed: they load nothing until followed."""
import json
import os
import re
import shutil
import subprocess
import sys
from html.parser import HTMLParser

import pytest

from conftest import ROOT, need, need_module

EXTERNAL = re.compile(r"^\s*(https?:)?//", re.I)
# <link rel=...> values that name a page to go to, not something the page loads.
NAVIGATION_RELS = {"canonical", "alternate", "next", "prev", "author", "license", "help", "me"}
# The attributes that load something, by tag (`style` attributes and <style> are read as CSS).
ASSET_ATTRIBUTES = {
    "script": ("src",), "img": ("src", "srcset"), "source": ("src", "srcset"),
    "iframe": ("src",), "embed": ("src",), "object": ("data",), "video": ("src", "poster"),
    "audio": ("src",), "track": ("src",), "input": ("src",), "image": ("href", "xlink:href"),
    "use": ("href", "xlink:href"), "link": ("href",)}
CSS_URL = re.compile(r"""url\(\s*['"]?\s*((?:https?:)?//[^'")\s]*)""", re.I)
CSS_IMPORT = re.compile(r"""@import\s+['"]\s*((?:https?:)?//[^'"\s]*)""", re.I)
JS_URL = re.compile(r"""["'`](https?://[^"'`\s]*)""")
# The URLs Material's script names, each fetched only under a condition this site never meets
# (checked below): (pattern, why it is never fetched here).
JS_CONDITIONAL = (
    (re.compile(r"https://api\.github\.com/"),
     "the repository's stars and forks for the header, only with repo_url (mkdocs.yml has none)"),
    (re.compile(r"https://\$\{\w+\}/api/v4/"),
     "the same for a GitLab repository, only with repo_url"),
    (re.compile(r"https://unpkg\.com/resize-observer-polyfill"),
     "a polyfill for a browser without ResizeObserver (every current browser has it)"),
    (re.compile(r"https://unpkg\.com/mermaid@\d+/"),
     "mermaid, only for a page with a mermaid diagram (the site has none)"),
)


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    for module in ("mkdocs", "material", "mkdocstrings", "mkdocstrings_handlers.python"):
        need_module(module)
    site = tmp_path_factory.mktemp("docs") / "site"
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir",
                           str(site)], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return site


def built(site, *suffixes):
    """The built files with these endings (source maps left out: only a browser's
    developer tools read them)."""
    return sorted(path for path in site.rglob("*") if path.suffix in suffixes)


def css_loads(text):
    """The external URLs a stylesheet's text loads (url(...) and @import)."""
    return CSS_URL.findall(text) + CSS_IMPORT.findall(text)


class AssetFinder(HTMLParser):
    """Collects `(tag, attribute, URL)` of every external URL a page loads."""

    def __init__(self):
        super().__init__()
        self.found = []
        self.in_style = False

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        self.in_style = tag == "style"
        if tag == "link" and set((attrs.get("rel") or "").lower().split()) <= NAVIGATION_RELS \
                and attrs.get("rel"):
            return
        for name in ASSET_ATTRIBUTES.get(tag, ()):
            value = attrs.get(name) or ""
            urls = [part.split()[0] for part in value.split(",") if part.strip()] \
                if name == "srcset" else [value]
            self.found += [(tag, name, url) for url in urls if EXTERNAL.match(url)]
        self.found += [(tag, "style", url) for url in css_loads(attrs.get("style") or "")]

    handle_startendtag = handle_starttag

    def handle_endtag(self, tag):
        if tag == "style":
            self.in_style = False

    def handle_data(self, data):
        if self.in_style:
            self.found += [("style", "", url) for url in css_loads(data)]


def test_no_page_or_stylesheet_loads_from_another_host(site):
    pages = built(site, ".html")
    assert len(pages) > 30, [str(p) for p in pages]
    bad = []
    for page in pages:
        finder = AssetFinder()
        finder.feed(page.read_text(encoding="utf-8"))
        bad += [f"{page.relative_to(site)}: <{tag} {name}={url}>"
                for tag, name, url in finder.found]
    for sheet in built(site, ".css"):
        bad += [f"{sheet.relative_to(site)}: {url}" for url in
                css_loads(sheet.read_text(encoding="utf-8", errors="replace"))]
    assert not bad, "loaded from another host:\n  " + "\n  ".join(bad)
    index = (site / "index.html").read_text(encoding="utf-8")
    assert "fonts.googleapis" not in index and "fonts.gstatic" not in index


def test_scripts_fetch_nothing_from_another_host(site):
    """Every URL a script names is one of Material's conditional fetches, under
    a condition checked here never to hold."""
    found = {}
    for script in built(site, ".js"):
        for url in JS_URL.findall(script.read_text(encoding="utf-8", errors="replace")):
            found.setdefault(url, script.relative_to(site))
    unexplained = [f"{script}: {url}" for url, script in found.items()
                   if not any(pattern.match(url) for pattern, _ in JS_CONDITIONAL)]
    assert not unexplained, "scripts that fetch from another host:\n  " + "\n  ".join(unexplained)
    config = (ROOT / "mkdocs.yml").read_text()
    assert not re.search(r"^repo_url\s*:", config, re.M), "repo_url: the header fetches from GitHub"
    assert not [page for page in built(site, ".html")
                if 'class="mermaid"' in page.read_text(encoding="utf-8")], "a mermaid diagram"


def test_the_search_index_is_there_for_a_site_opened_from_disk(site):
    # Served, search reads search_index.json; from disk (file://), search_index.js.
    served = json.loads((site / "search" / "search_index.json").read_text(encoding="utf-8"))
    script = (site / "search" / "search_index.js").read_text(encoding="utf-8")
    assert script.startswith("var __index = ")
    offline = json.loads(script[len("var __index = "):])
    assert offline == served
    locations = {doc["location"].split("#")[0] for doc in offline["docs"]}
    assert {"guide/scripting.html", "api/board.html", "guide/network.html"} <= locations
    # Pages link to pages, not folders (from disk a folder shows its listing, not its page).
    index = (site / "index.html").read_text(encoding="utf-8")
    assert 'href="guide/install.html"' in index
    # The worker runs through the shim on file:// pages, loaded from the site itself.
    assert (site / "assets" / "iframe-worker" / "shim.js").is_file()
    for page in built(site, ".html"):
        assert "iframe-worker/shim.js" in page.read_text(encoding="utf-8"), page


def test_search_works_from_disk_with_no_other_host(site, tmp_path):
    """Headless Chromium opens the built pages from disk, every host name
    unresolvable, with a search in the address (`?q=`), and lists results."""
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    need(chromium, "Chromium is not installed (Debian: chromium)")
    for page, query, expected in (("index.html", "perft", "api/board.html"),
                                  ("guide/book.html", "tablebase", "guide/egtb.html")):
        url = (site / page).as_uri() + f"?q={query}"
        done = subprocess.run(
            [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
             f"--user-data-dir={tmp_path / 'profile'}", "--host-resolver-rules=MAP * ~NOTFOUND",
             "--virtual-time-budget=15000", "--dump-dom", url],
            capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr[-2000:]
        meta = re.search(r'md-search-result__meta">([^<]*)<', done.stdout)
        assert meta and re.match(r"\d+ matching documents?", meta.group(1)), \
            f"{page}?q={query}: {meta.group(1) if meta else 'no search results shown'}"
        assert expected in done.stdout, f"{page}?q={query}: no result in {expected}"


def test_module_names_wrap_at_their_dots(site):
    index = (site / "api" / "index.html").read_text(encoding="utf-8")
    assert "<code>tuong.<wbr>tools.<wbr>records.<wbr>notation</code>" in index
    names = re.findall(r"<code>(tuong\.[^<]*)</code>", index.replace("<wbr>", ""))
    assert len(names) >= 10
    assert "<code>tuong.tools" not in index      # every one has its break points
    # Inline code breaks at those points, not anywhere (Material's word-break: break-word).
    assert 'href="../assets/extra.css"' in index
    css = (site / "assets" / "extra.css").read_text()
    assert re.search(r"\.md-typeset code\s*\{[^}]*word-break:\s*normal", css)
    # Code blocks are left alone.
    board = (site / "api" / "board.html").read_text(encoding="utf-8")
    blocks = re.findall(r"<pre.*?</pre>", board, re.S)
    assert blocks and not any("<wbr>" in block for block in blocks)
