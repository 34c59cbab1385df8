"""The API reference (docs/api/*.md) is complete; the API and guide pages' examples run.

- Every public name the reference renders has a docstring: each `::: name`
  directive of docs/api/*.md is loaded with griffe from the source tree, as
  mkdocstrings loads it for the site (mkdocs.yml: `paths: [build/docs-src]`,
  no inspection, the Cython core read from its .pyi stubs), and every public
  member (a module's `__all__`, else the names without a leading `_`; the
  members of its public classes, inherited ones included) is counted.
- Every public function and method of those modules is typed: each
  parameter and its return annotated.
- Every ```python block of an API page and of a guide page (docs/guide/*.md)
  runs, in a fresh interpreter with a temporary folder as its working
  directory; a block that starts the engine finds `tuong` on PATH (the
  running interpreter's scripts folder first), and $XDG_DATA_HOME is a
  temporary folder too (the games database's default place). A comment on
  the line before a block's fence (a blank line may stand between) says
  what else it needs, `;` between several:
      <!-- test: skip REASON -->        not run (the reason is required)
      <!-- test: needs PROGRAM -->      needs PROGRAM on PATH (skipped locally
                                          without it, a failure in CI)
      <!-- test: files DEST=SOURCE -->  copies the repository's SOURCE (a file
                                          or a folder) to DEST in its folder first
  The comment is HTML: the page shows nothing of it.

    python tests/test_api_reference.py      prints the coverage and what lacks a docstring
"""
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT, need, need_module

API_PAGES = sorted((ROOT / "docs" / "api").glob("*.md"))
GUIDE_PAGES = sorted((ROOT / "docs" / "guide").glob("*.md"))
# The script writer's tasks: each page has a block that runs.
SCRIPTING_PAGES = ("scripting", "engine-match", "game-files", "probing")
DIRECTIVE = re.compile(r"^::: *([\w.]+)", re.M)
CODE_BLOCK = re.compile(r"(?:^<!-- test: (.*?) -->\n\n?)?^```python\n(.*?)^```", re.M | re.S)


def documented_paths():
    """The object paths of every `:::` directive of docs/api/*.md, in page order."""
    return [path for page in API_PAGES for path in DIRECTIVE.findall(page.read_text())]


def source_tree():
    """build/docs-src/tuong/{engine,protocol,tools} (and __init__.py): the
    links docs/hooks.py makes for the site, made here too by its own code so
    the test runs without a site build."""
    import importlib.util
    spec = importlib.util.spec_from_file_location("docs_hooks", ROOT / "docs" / "hooks.py")
    hooks = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(hooks)
    return hooks.link_sources(ROOT)


def public_members(obj):
    """The public members griffe would render of a module or a class: a
    module's exported names (its `__all__`, else names without `_`, never
    submodules), a class's names without `_`, inherited ones included."""
    if obj.is_module:
        members = [(name, member) for name, member in obj.members.items()
                   if member.is_public and not member.is_module]
    else:
        members = [(name, member) for name, member in obj.all_members.items()
                   if not name.startswith("_")]
    for name, member in members:
        if member.is_alias:
            try:
                member = member.final_target
            except Exception:        # an alias to something outside the sources (stdlib)
                continue
        yield name, member


def walk(obj, seen):
    """(path, object) of `obj` and of every public name under it."""
    if obj.path in seen:
        return
    seen.add(obj.path)
    yield obj.path, obj
    if obj.is_module or obj.is_class:
        for name, member in public_members(obj):
            if member.is_class:
                yield from walk(member, seen)
            elif member.path not in seen:
                seen.add(member.path)
                yield f"{obj.path}.{name}", member


def untyped(function):
    """The parameters of a function without an annotation, and `return`
    when it has none (`__init__` needs none; `self`, `cls` neither)."""
    missing = [p.name for p in function.parameters
               if p.annotation is None and p.name not in ("self", "cls")]
    if function.returns is None and function.name != "__init__":
        missing.append("return")
    return missing


def collect():
    """{documented directive's module: [(path, object)]}, loaded once."""
    import griffe
    loader = griffe.GriffeLoader(search_paths=[str(source_tree())], allow_inspection=False)
    found = {}
    for path in documented_paths():
        name = _module_of(path)
        module = loader.load(name)
        obj = module
        for part in path[len(name) + 1:].split(".") if path != name else []:
            obj = obj.members[part]
            if obj.is_alias:
                obj = obj.final_target
        key = module.path
        seen = {p for p, _ in found.get(key, [])}
        found.setdefault(key, []).extend(walk(obj, seen))
    loader.resolve_aliases(implicit=True, external=False)
    return found


@pytest.fixture(scope="module")
def documented():
    need_module("griffe")
    return collect()


def _is_module_path(path):
    parts = path.split(".")
    return (ROOT.joinpath(*parts[1:]).is_dir() or
            ROOT.joinpath(*parts[1:-1], parts[-1] + ".py").exists() or
            ROOT.joinpath(*parts[1:-1], parts[-1] + ".pyi").exists())


def _module_of(path):
    while not _is_module_path(path):
        path = path.rsplit(".", 1)[0]
    return path


@pytest.mark.parametrize("module", sorted({_module_of(p) for p in documented_paths()}))
def test_every_public_name_has_a_docstring(documented, module):
    names = documented[module]
    missing = [path for path, obj in names if not (obj.docstring and obj.docstring.value.strip())]
    assert not missing, f"{len(missing)} of {len(names)} public names of {module} have no " \
        "docstring:\n  " + "\n  ".join(missing)


@pytest.mark.parametrize("module", sorted({_module_of(p) for p in documented_paths()}))
def test_every_public_function_is_typed(documented, module):
    bare = [f"{path}({', '.join(untyped(obj))})" for path, obj in documented[module]
            if obj.is_function and untyped(obj)]
    assert not bare, "not typed:\n  " + "\n  ".join(bare)


def test_stub_docstrings_are_not_read_as_html(documented):
    """A docstring's `<placement>` outside backticks is an HTML tag to
    Markdown, and the page shows nothing in its place."""
    tag = re.compile(r"<[a-z][^>]*>")
    for names in documented.values():
        for path, obj in names:
            text = obj.docstring.value if obj.docstring else ""
            # Leave out code spans and indented code blocks.
            prose = re.sub(r"`[^`]*`", "", text)
            prose = "\n".join(line for line in prose.splitlines() if not line.startswith("    "))
            assert not tag.search(prose), f"{path}: {tag.search(prose).group()} is read as HTML"


def code_blocks(pages=API_PAGES):
    """(page's path under docs/, block number, code, its test comment or "")
    of every ```python block of the pages."""
    return [(str(page.relative_to(ROOT / "docs")), number, code, setup) for page in pages
            for number, (setup, code) in enumerate(CODE_BLOCK.findall(page.read_text()), 1)]


EXAMPLES = code_blocks(API_PAGES + GUIDE_PAGES)


def test_every_api_page_has_an_example():
    pages = {Path(page).stem for page, _, _, _ in code_blocks()}
    assert pages == {page.stem for page in API_PAGES if page.stem != "index"}, \
        f"pages without a ```python example: {sorted({p.stem for p in API_PAGES} - pages)}"


def test_every_scripting_page_has_an_example_that_runs():
    runs = {Path(page).stem for page, _, _, setup in code_blocks(GUIDE_PAGES)
            if not setup.startswith("skip")}
    assert set(SCRIPTING_PAGES) <= runs, f"without one: {sorted(set(SCRIPTING_PAGES) - runs)}"


def prepare(setup, folder):
    """Carry out a block's test comment in its folder: skip it, check what it
    needs, copy the files it reads."""
    for item in filter(None, (part.strip() for part in setup.split(";"))):
        word, _, rest = item.partition(" ")
        if word == "skip":
            assert rest.strip(), "a skipped block says why: <!-- test: skip REASON -->"
            pytest.skip(rest.strip())
        elif word == "needs":
            for program in rest.split():
                need(shutil.which(program), f"{program} is not on PATH")
        elif word == "files":
            for pair in rest.split():
                dest, _, source = pair.partition("=")
                source_path = ROOT / source
                assert source_path.exists(), f"files: {source} is not in the repository"
                target = folder / dest
                target.parent.mkdir(parents=True, exist_ok=True)
                if source_path.is_dir():
                    shutil.copytree(source_path, target)
                else:
                    shutil.copy(source_path, target)
        else:
            raise AssertionError(f"unknown test comment {item!r}: skip, needs or files")


@pytest.mark.parametrize("page,number,code,setup", EXAMPLES,
                         ids=[f"{page[:-3]}-{number}" for page, number, _, _ in EXAMPLES])
def test_the_pages_examples_run(page, number, code, setup, tmp_path):
    prepare(setup, tmp_path)
    env = dict(os.environ)
    # `open_engine("tuong")` as a reader runs it: the venv's scripts on PATH.
    env["PATH"] = os.path.dirname(sys.executable) + os.pathsep + env.get("PATH", "")
    env["XDG_DATA_HOME"] = str(tmp_path / "xdg-data")
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, f"docs/{page}, block {number}:\n{code}\n" \
        f"{done.stdout[-2000:]}{done.stderr[-3000:]}"


if __name__ == "__main__":
    total = bare = 0
    for module, names in collect().items():
        missing = [path for path, obj in names if not obj.docstring]
        untyped_ = [path for path, obj in names if obj.is_function and untyped(obj)]
        total += len(names)
        bare += len(missing)
        print(f"{module}: {len(names)} names, {len(missing)} without a docstring, "
              f"{len(untyped_)} functions untyped")
        for path in missing:
            print(f"    {path}")
        for path in untyped_:
            print(f"    untyped: {path}")
    print(f"all: {total} names, {total - bare} with a docstring "
          f"({100 * (total - bare) / max(total, 1):.1f}%)")
