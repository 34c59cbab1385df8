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
the working tree, never from an installed copy that may be older. The Cython
core's modules are read from their .pyi stubs (mkdocs.yml turns griffe's
inspection off), so nothing needs to be compiled or imported for the site.
"""
import os
from pathlib import Path

from mkdocs.plugins import event_priority

PACKAGES = ("engine", "protocol", "tools")


# Before mkdocstrings' own on_config (priority 0): that one makes the python
# handler, which keeps only the `paths` that exist at that moment.
@event_priority(100)
def on_config(config):
    root = Path(config.config_file_path).resolve().parent
    tuong = root / "build" / "docs-src" / "tuong"
    tuong.mkdir(parents=True, exist_ok=True)
    for name in PACKAGES:
        link = tuong / name
        target = Path("..", "..", "..", name)        # relative: the checkout may move
        if link.is_symlink() and os.readlink(link) == str(target):
            continue
        if link.is_symlink() or link.is_file():
            link.unlink()
        elif link.exists():
            raise SystemExit(f"hooks.py: {link} is a folder, not the symlink the docs need; "
                             "remove it")
        link.symlink_to(target, target_is_directory=True)
    return config
