"""MkDocs hook: lets mkdocstrings find the tuong package in the checkout.

The folders engine/, protocol/ and tools/ install as tuong.engine,
tuong.protocol and tuong.tools (pyproject.toml maps them; tuong is a
namespace package). griffe, which reads the sources for mkdocstrings, finds a
module by its package path under a search folder, and no folder of the
checkout is called tuong; nor does it follow the editable install's import
hook (it looks for <parent of engine/>/tuong). So, as setup.py does for
Cython's cimports, this makes build/docs-src/tuong/{engine,protocol,tools},
symlinks to the three folders, before any page is rendered; mkdocs.yml gives
the python handler `paths: [build/docs-src]`. The sources are then read from
the working tree, never from an installed copy that may be older. The
checkout's tuong/__init__.py (the package's top: `tuong.__version__`), when
there is one, is linked there too: a folder with an `__init__.py` is a
regular package, which griffe takes before a namespace one, so without the
link a checkout's tuong/ (on sys.path when mkdocs runs from the checkout)
would hide build/docs-src/tuong and its three folders. The Cython
core's modules are read from their .pyi stubs (mkdocs.yml turns griffe's
inspection off), so nothing needs to be compiled or imported for the site.

It also gives long dotted names a place to wrap: in every inline code span
that is one word (`tuong.tools.records.notation`, `engine/board.pyi`), a
`<wbr>` after each dot or slash that is followed by a letter (on_page_content).
Material breaks inline code anywhere when a line is short of room, which in a
narrow table column cut module names mid-word (`tuong.tools.reco|rds`);
docs/assets/extra.css turns that off, and the name wraps at its dots instead.
`<wbr>` is no character: copying the name or searching for it is unchanged
(the search index skips the tag).
"""
import os
import re
from pathlib import Path

try:
    from mkdocs.plugins import event_priority
except ImportError:          # loaded by tests/test_api_reference.py for link_sources alone
    def event_priority(priority):
        return lambda function: function

PACKAGES = ("engine", "protocol", "tools")


def link_sources(root):
    """Make root/build/docs-src/tuong: a symlink to each of the checkout's
    three folders, and to its tuong/__init__.py where it has one; returns
    root/build/docs-src. tests/test_api_reference.py makes it the same way."""
    tuong = Path(root) / "build" / "docs-src" / "tuong"
    tuong.mkdir(parents=True, exist_ok=True)
    links = {name: Path("..", "..", "..", name) for name in PACKAGES}   # relative: the
    if (Path(root) / "tuong" / "__init__.py").is_file():               # checkout may move
        links["__init__.py"] = Path("..", "..", "..", "tuong", "__init__.py")
    elif (tuong / "__init__.py").is_symlink():
        (tuong / "__init__.py").unlink()
    for name, target in links.items():
        link = tuong / name
        if link.is_symlink() and os.readlink(link) == str(target):
            continue
        if link.is_symlink() or link.is_file():
            link.unlink()
        elif link.exists():
            raise SystemExit(f"hooks.py: {link} is a folder, not the symlink the docs need; "
                             "remove it")
        link.symlink_to(target, target_is_directory=name in PACKAGES)
    return tuong.parent


# Before mkdocstrings' own on_config (priority 0): that one makes the python
# handler, which keeps only the `paths` that exist at that moment.
@event_priority(100)
def on_config(config):
    link_sources(Path(config.config_file_path).resolve().parent)
    return config


# An inline code span (not inside a <pre> block) whose text is one word.
_PRE = re.compile(r"(<pre\b.*?</pre>)", re.S)
_CODE = re.compile(r"<code>([^<\s]+)</code>")
_JOINT = re.compile(r"(?<=\w)([./])(?=[A-Za-z_])")


def wrap_points(html):
    """`html` with `<wbr>` after the dots and slashes of one-word inline code."""
    parts = _PRE.split(html)
    for i in range(0, len(parts), 2):        # the even parts lie outside <pre> blocks
        parts[i] = _CODE.sub(lambda m: "<code>" + _JOINT.sub(r"\1<wbr>", m.group(1)) + "</code>",
                             parts[i])
    return "".join(parts)


def on_page_content(html, page, config, files):
    return wrap_points(html)
