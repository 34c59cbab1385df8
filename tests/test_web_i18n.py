"""The page's words in every language it offers: each English sentence the
page shows (index.html's text and titles, the t() calls of its modules and
the server texts it translates) has a translation in vi, zh-Hans and
zh-Hant (one dictionary a language, static/i18n/<lang>.js), and each
translation keeps its placeholders ({n}, {loser}, {0})."""
import html.parser
import json
import pathlib
import re

STATIC = pathlib.Path(__file__).resolve().parent.parent / "tools" / "web" / "static"
LANGS = ("vi", "zh-Hans", "zh-Hant")


def tables():
    """Each language's dictionary: static/i18n/<lang>.js, an ES module whose
    default export is the table (JSON)."""
    found = {}
    for lang in LANGS:
        source = (STATIC / "i18n" / f"{lang}.js").read_text()
        start = source.index("export default ") + len("export default ")
        found[lang] = json.loads(source[start:].rstrip().rstrip(";"))
    return found


def modules():
    """The page's modules (static/*.js and below) but the dictionaries."""
    return {path: path.read_text() for path in sorted(STATIC.rglob("*.js"))
            if path.parent.name != "i18n"}


def test_each_language_has_its_dictionary_and_the_same_words():
    """One file a language, each loaded by i18n.js, each translating the
    same English texts: a text missing in one language fails here."""
    assert {path.stem for path in (STATIC / "i18n").glob("*.js")} == set(LANGS)
    loader = (STATIC / "i18n.js").read_text()
    for lang in LANGS:
        assert re.search(rf"""^import \w+ from '\./i18n/{lang}\.js';$""", loader, re.M), lang
    known = tables()
    english = set(known["vi"])
    assert len(english) > 300
    for lang, table in known.items():
        assert set(table) == english, (lang, sorted(english - set(table)),
                                       sorted(set(table) - english))
        assert all(isinstance(text, str) and text.strip() for text in table.values()), lang


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
    """The page's English that must be translated (index.html and every
    module but the dictionaries): texts of two words or more
    (single words such as key names, notation names and the games' own names
    may stay as they are)."""
    app = "\n".join(modules().values())
    found = {m.group(2).replace("\\'", "'") for m in re.finditer(
        r"""\bt\(\s*(['"])((?:\\.|(?!\1).)*)\1""", app)}
    found |= {m.group(2).replace("\\'", "'") for m in re.finditer(   # server-texts.js
        r"""^\s*\[/.*/,\s*(['"])((?:\\.|(?!\1).)*)\1(?:,\s*'\w+')?\],?$""", app, re.M)}
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


# Characters written only in simplified Chinese (each has a different
# traditional form): none may appear on the traditional page. Characters
# that both scripts write (后 in 皇后, 里, 制, 几, 于, 干, 台, 才, 只 ...) are not listed.
SIMPLIFIED_ONLY = set(
    "车马进帅将红边过这对时说为们个来开关门问间还让认识读写请转选择数据图输显设载网络钟从应该样"
    "压无动毙负军胁绝杀评视实战内长复严误缓着损与业乐体删务双变启声处学导层师帮库当执换摆断条标"
    "栏没浅浏点爱盘确离类终结给续编胜节获览计议记试语谱贴赛轮辑达违连释链销键闭难页题级线经发现"
    "机钱亲觉观见规轻较运远兑诱弃尽闲谋势赢坏惯颗枪弹")


def test_traditional_chinese_is_traditional_throughout():
    """zh-Hant is traditional: no simplified-only character in its table,
    and none in what the page converts for it (displayText's map turns
    the server's simplified words into traditional ones)."""
    table = tables()["zh-Hant"]
    found = {english: text for english, text in table.items()
             if SIMPLIFIED_ONLY & set(text)}
    assert not found, found
    # Every simplified-only character the simplified table uses has its
    # traditional counterpart in the same sentence of the traditional one.
    simplified = tables()["zh-Hans"]
    used = {c for text in simplified.values() for c in text} & SIMPLIFIED_ONLY
    assert len(used) > 40                    # the list covers the page's words
    # The page's own Chinese (the pieces, the river) too; and the server's
    # Chinese words (moves, notes, openings), where they come simplified,
    # are turned into traditional ones for every simplified-only character
    # they use (i18n.js's displayText).
    app = "\n".join(modules().values())
    pieces = re.search(r"const CHINESE = \{(.*?)\};", app, re.S).group(1)
    assert not SIMPLIFIED_ONLY & set(pieces)
    source = re.search(r"const HANT_FROM = '(.*?)';", app).group(1)
    target = re.search(r"const HANT_TO = '(.*?)';", app).group(1)
    assert len(source) == len(target) and not SIMPLIFIED_ONLY & set(target)
    records = STATIC.parent.parent / "records"
    server = {c for name in ("commentary.py", "annotate.py", "notation.py", "opening_names.py")
              for c in (records / name).read_text() if c in SIMPLIFIED_ONLY}
    assert {"车", "马", "进", "红", "评"} <= server
    assert not server - set(source), sorted(server - set(source))


def test_the_date_field_shows_an_example_not_a_date():
    """Issue 54, 18: the Date field's placeholder looks empty, not filled in."""
    page = (STATIC / "index.html").read_text()
    placeholder = re.search(r'id="header-Date"[^>]*placeholder="([^"]*)"', page).group(1)
    assert not re.search(r"\d", placeholder)
    assert re.search(r"::placeholder\s*\{[^}]*(opacity|font-style: italic)",
                     (STATIC / "style.css").read_text())


def test_the_servers_traditional_chinese_has_no_simplified_only_character():
    """Every refusal and notice the server says on a zh-Hant page (the
    catalog of tools/web/words.py), in traditional characters: none of the
    simplified-only characters the server's Chinese has used (选 for 選, ...)."""
    from tuong.tools.web import words
    simplified_only = set("选编择盘当适车马进后帅将门两为这个们还边么从时说请让开关单"
                          "线过签标须换号导数据节载读处结轮没试给时间继续这经删销页达变"
                          "条认输与断议错启释执谱闭长点图库")
    import string
    for key in words.CATALOG:
        params = {name: "x" for _, name, _, _ in string.Formatter().parse(key) if name}
        said = words.local(key, params, lang="zh-Hant")
        assert said != key.format(**params), key          # said in Chinese
        assert not set(said) & simplified_only, (key, said)
