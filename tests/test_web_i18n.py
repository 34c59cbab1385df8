"""The page's words in every language it offers: each English sentence the
page shows (index.html's text and titles, app.js's t() calls and the server
texts it translates) has a translation in vi, zh-Hans and zh-Hant, and each
translation keeps its placeholders ({n}, {loser}, {0})."""
import html.parser
import json
import pathlib
import re

STATIC = pathlib.Path(__file__).resolve().parent.parent / "tools" / "web" / "static"
LANGS = ("vi", "zh-Hans", "zh-Hant")


def tables():
    source = (STATIC / "i18n.js").read_text()
    start = source.index("window.TUONG_I18N = ") + len("window.TUONG_I18N = ")
    return json.loads(source[start:].rstrip().rstrip(";"))


class _Words(html.parser.HTMLParser):
    """Text nodes and titles of index.html, as translatePage() reads them."""

    def __init__(self):
        super().__init__()
        self.found, self.open = set(), []

    def handle_starttag(self, tag, attrs):
        self.open.append(tag)
        for name, value in attrs:
            if name in ("title", "placeholder", "aria-label") and value:
                self.found.add(value)

    def handle_endtag(self, tag):
        while self.open and self.open.pop() != tag:
            pass

    def handle_data(self, data):
        text = " ".join(data.split())
        if text and not {"svg", "script", "style"} & set(self.open):
            self.found.add(text)


def shown_sentences():
    """The page's English that must be translated: texts of two words or more
    (single words such as key names, notation names and the games' own names
    may stay as they are)."""
    app = (STATIC / "app.js").read_text()
    found = {m.group(2).replace("\\'", "'") for m in re.finditer(
        r"""\bt\(\s*(['"])((?:\\.|(?!\1).)*)\1""", app)}
    found |= {m.group(2).replace("\\'", "'") for m in re.finditer(   # SERVER_TEXTS
        r"""^\s*\[/.*/,\s*(['"])((?:\\.|(?!\1).)*)\1\],?$""", app, re.M)}
    words = _Words()
    words.feed((STATIC / "index.html").read_text())
    found |= words.found
    fen = re.compile(r"[1-9a-zA-Z/]+ [wbr]\b")            # a placeholder FEN
    return {text for text in found if len(re.findall(r"\b[A-Za-z]{2,}\b", text)) >= 2
            and not fen.match(text)}


def test_every_sentence_the_page_shows_is_in_every_language():
    sentences, known = shown_sentences(), tables()
    assert len(sentences) > 120                      # the extraction still finds the page's words
    for lang in LANGS:
        missing = sorted(s for s in sentences if s not in known[lang])
        assert not missing, (lang, missing)


def test_translations_keep_their_placeholders():
    for lang, table in tables().items():
        for english, translated in table.items():
            assert sorted(re.findall(r"\{\w+\}", english)) == \
                sorted(re.findall(r"\{\w+\}", translated)), (lang, english, translated)
