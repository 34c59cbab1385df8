"""The house imports one way: tools -> protocol -> engine, and within
protocol/ and tools/ without a cycle. In protocol/, the shared text helpers
and the output writer live in protocol/text.py, which imports nothing of
the package, and nothing but __main__ imports session.py. In tools/,
tuong-match's parts build on each other in one direction: its command line
(tools/match/cli.py) on runtime, stats and cluster, cluster on runtime, never
back."""
import ast
import re
import subprocess
import sys

import pytest
from conftest import ROOT

HOUSE = ("engine", "protocol", "tools")
PROTOCOL = sorted(".".join(path.relative_to(ROOT / "protocol").with_suffix("").parts)
                  .removesuffix(".__init__") for path in (ROOT / "protocol").rglob("*.py")
                  if path.name != "__init__.py" or path.parent != ROOT / "protocol")


def _module(package, name):
    """`from package import name`: the module (or subpackage) package.name,
    or the package itself when name is something its __init__ defines."""
    folder = ROOT.joinpath(*package.split("."))
    if any((folder / f"{name}{ext}").exists() for ext in (".py", ".pyx")) \
            or (folder / name / "__init__.py").exists():
        return f"{package}.{name}"
    return package


def _is_package(module):
    return (ROOT.joinpath(*module.split(".")) / "__init__.py").exists()


def house_imports(path, typing=False):
    """The modules of the house that a .py file imports, anywhere in it (a
    function-level import counts too), by dotted name without the `tuong.`
    they are installed under; a package's own name stands for its __init__.
    Imports under `if TYPE_CHECKING:` are left out unless `typing`: they
    name a type for the checker and never run (no cycle at run time), but
    they still lean on the module they name."""
    tree = ast.parse(path.read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and getattr(node.test, "id", None) == "TYPE_CHECKING" \
                and not typing:
            node.body = []
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = (alias.name.removeprefix("tuong.") for alias in node.names)
            found.update(name for name in names if name.split(".")[0] in HOUSE)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            module = node.module.removeprefix("tuong.")
            if module.split(".")[0] in HOUSE and _is_package(module):
                found.update(_module(module, alias.name) for alias in node.names)
            elif module.split(".")[0] in HOUSE:
                found.add(module)
    return found


def graph(package):
    """Each module of the package and its subpackages -> the modules of the
    package it imports."""
    graph = {}
    for path in sorted((ROOT / package).rglob("*.py")):
        parts = path.relative_to(ROOT).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        graph[name] = {m for m in house_imports(path) if m.split(".")[0] == package}
    return graph


def assert_no_cycle(graph):
    # A depth-first walk never meets a module it is inside.
    def walk(name, inside):
        assert name not in inside, "import cycle: " + " -> ".join(inside + [name])
        for other in graph.get(name, ()):
            walk(other, inside + [name])

    for name in graph:
        walk(name, [])


def reachable(graph, name):
    """Every module that importing `name` imports, directly or not."""
    seen, todo = set(), [name]
    while todo:
        for other in graph.get(todo.pop(), ()):
            if other not in seen:
                seen.add(other)
                todo.append(other)
    return seen


def test_the_protocol_graph_has_no_cycle_through_the_session():
    protocol = graph("protocol")
    assert_no_cycle(protocol)
    importers = sorted(name for name, imported in protocol.items()
                       if "protocol.session" in imported)
    assert importers == ["protocol.__main__"], importers
    assert protocol["protocol.text"] == set(), protocol["protocol.text"]


def test_the_tools_graph_has_no_cycle_and_match_is_on_top():
    tools = graph("tools")
    assert_no_cycle(tools)
    for name in ("tools.match.runtime", "tools.match.stats", "tools.match.cluster"):
        assert "tools.match.cli" not in reachable(tools, name), name
    # What a cluster worker loads to play needs neither the pool that sends games nor reports.
    assert not reachable(tools, "tools.match.runtime") & {"tools.match.cluster",
                                                          "tools.match.stats"}
    # A package's __init__ imports none of its modules: importing one module
    # of a job loads that module alone.
    for package in ("tools.match", "tools.training"):
        assert tools[package] == set(), (package, tools[package])


def test_lower_layers_import_no_higher_one():
    higher = {"engine": ("protocol", "tools"), "protocol": ("tools",)}
    # Cython sources are not Python: a line that starts an import is enough.
    cython = re.compile(r"^\s*(from|c?import)\s+(tuong\.)?(protocol|tools)\b", re.M)
    for package, above in higher.items():
        for path in sorted((ROOT / package).rglob("*.py")):
            wrong = {m for m in house_imports(path) if m.split(".")[0] in above}
            assert not wrong, f"{package}/{path.name} imports {sorted(wrong)}"
        for path in sorted((ROOT / package).glob("*.p[yx][xd]")):
            assert not cython.search(path.read_text()), f"{package}/{path.name}"


@pytest.mark.parametrize("lower, higher", [("tools.records", "tools.match"),
                                           ("tools.match", "tools.training")])
def test_the_rooms_of_tools_import_one_way(lower, higher):
    # Records (PGN, notations) are below the match referee, which writes its
    # games with them; training's tools run matches, so the match is below
    # training. A type named for the checker counts too.
    for path in sorted(ROOT.joinpath(*lower.split(".")).rglob("*.py")):
        wrong = {m for m in house_imports(path, typing=True)
                 if m == higher or m.startswith(higher + ".")}
        assert not wrong, f"{path.relative_to(ROOT)} imports {sorted(wrong)}"


@pytest.mark.parametrize("name", PROTOCOL)
def test_each_module_imports_first_in_a_fresh_interpreter(name):
    # Each one first, then the session: no order may meet a half-initialised module.
    code = f"import tuong.protocol.{name}; import tuong.protocol.session; print('ok')"
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr[-2000:]


# -- the engine package ---------------------------------------------------------
ENGINE = ROOT / "engine"
ENGINE_IMPORT = re.compile(r"^\s*(?:from\s+tuong\.engine\.(\w+)\s+c?import"
                           r"|from\s+tuong\.engine\s+c?import\s+(.+)"
                           r"|c?import\s+tuong\.engine\.(\w+))", re.M)


def engine_imports(path):
    """The engine modules a module of engine/ (.py, .pyx or .pxd) imports or
    cimports, anywhere in it (Cython's files by their import lines)."""
    found = set()
    if path.suffix == ".py":
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                found.update(alias.name.split(".")[2] for alias in node.names
                             if alias.name.startswith("tuong.engine."))
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                if node.module == "tuong.engine":
                    found.update(alias.name for alias in node.names)
                elif node.module.startswith("tuong.engine."):
                    found.add(node.module.split(".")[2])
        return found
    for match in ENGINE_IMPORT.finditer(path.read_text()):
        module, names, plain = match.groups()
        if names:
            found.update(name.split(" as ")[0].strip(" ()") for name in names.split(","))
        else:
            found.add(module or plain)
    return found - {""}


def test_the_engine_imports_without_a_cycle_and_weights_imports_none_of_it():
    # The weights file's format (engine/weights.py) is plain Python under the
    # core: the evaluation imports it, it imports nothing of the engine (it
    # used to install weights by importing the evaluation, which loaded
    # them by importing it: a circle).
    graph = {}
    for path in sorted(ENGINE.glob("*.py*")) + sorted(ENGINE.glob("*.pxd")):
        graph.setdefault(path.stem, set()).update(engine_imports(path) - {path.stem})
    # ... but the plain-Python leaf that reads a bounded regular file.
    assert graph["weights"] == {"files"}, graph["weights"]
    assert graph["files"] == set(), graph["files"]
    assert "weights" in graph["evaluate"]
    assert graph["report"] == set(), graph["report"]
    assert_no_cycle(graph)


def test_importing_the_weights_format_imports_no_core():
    code = ("import sys, tuong.engine.weights, tuong.engine.report; "
            "print(sorted(m for m in sys.modules if m.startswith('tuong.engine.')))")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == \
        "['tuong.engine.files', 'tuong.engine.report', 'tuong.engine.weights']"


def test_every_package_folder_is_installed():
    """pyproject.toml lists the packages by name: a new folder left out of the
    list would be missing from a wheel (an editable install hides it)."""
    tomllib = pytest.importorskip("tomllib")
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    listed = set(config["tool"]["setuptools"]["packages"])
    folders = {"tuong." + ".".join(path.parent.relative_to(ROOT).parts)
               for package in HOUSE for path in (ROOT / package).rglob("__init__.py")}
    # The top, tuong/ (its __init__.py alone, with tuong.__version__), and its data.
    assert sorted(p.name for p in (ROOT / "tuong").iterdir() if p.name != "__pycache__") == \
        ["__init__.py", "py.typed"]
    folders.add("tuong")
    assert folders == listed, (sorted(folders - listed), sorted(listed - folders))
    assert config["tool"]["setuptools"]["package-dir"]["tuong"] == "tuong"
    assert "py.typed" in config["tool"]["setuptools"]["package-data"]["tuong"]


def test_the_top_package_has_the_version_tuong_prints():
    """`import tuong; tuong.__version__` is the installed metadata's version
    (pyproject.toml's), and `tuong --version` prints the same; tuong.engine
    and the rest still import beside it, from the repository's root (where
    tuong/ is found first on sys.path) and from elsewhere."""
    from importlib import metadata
    code = ("import tuong, tuong.engine.board, tuong.protocol.client, tuong.tools.records; "
            "print(tuong.__version__)")
    for where in (ROOT, ROOT / "tests"):
        done = subprocess.run([sys.executable, "-c", code], cwd=where, capture_output=True,
                              text=True, timeout=60)
        assert done.returncode == 0, done.stderr[-2000:]
        assert done.stdout.strip() == metadata.version("tuong")
    done = subprocess.run([sys.executable, "-m", "tuong.protocol", "--version"], cwd=ROOT,
                          capture_output=True, text=True, timeout=60)
    assert done.stdout == f"tuong {metadata.version('tuong')}\n", done.stderr[-2000:]
