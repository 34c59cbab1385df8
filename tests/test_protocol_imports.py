"""The modules of protocol/ import each other without a cycle: the shared
text helpers and the output writer live in protocol/text.py, which imports
nothing of the package, and nothing but __main__ imports session.py."""
import ast
import re
import subprocess
import sys

import pytest
from conftest import ROOT

PACKAGE = ROOT / "protocol"
MODULES = sorted(path.stem for path in PACKAGE.glob("*.py"))


def protocol_imports(name):
    """The protocol modules that protocol/<name>.py imports, anywhere in it
    (a function-level import counts too)."""
    tree = ast.parse((PACKAGE / f"{name}.py").read_text())
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names if alias.name.startswith("protocol"))
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module == "protocol":
                found.update(f"protocol.{alias.name}" for alias in node.names)
            elif node.module.startswith("protocol."):
                found.add(node.module)
    return found


def test_the_import_graph_has_no_cycle_through_the_session():
    graph = {name: protocol_imports(name) for name in MODULES}

    # No cycle at all: a depth-first walk never meets a module it is inside.
    def walk(name, inside):
        assert name not in inside, "import cycle: " + " -> ".join(inside + [name])
        for other in graph.get(name, ()):
            walk(other.removeprefix("protocol.") if other != "protocol" else "__init__",
                 inside + [name])

    for name in MODULES:
        walk(name, [])
    importers = sorted(name for name, imported in graph.items() if "protocol.session" in imported)
    assert importers == ["__main__"], importers
    assert graph["text"] == set(), graph["text"]


@pytest.mark.parametrize("name", MODULES)
def test_each_module_imports_first_in_a_fresh_interpreter(name):
    # Each one first, then the session: no order may meet a half-initialised module.
    code = f"import protocol.{name}; import protocol.session; print('ok')"
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr[-2000:]


# -- the engine package ---------------------------------------------------------
ENGINE = ROOT / "engine"
ENGINE_IMPORT = re.compile(r"^\s*(?:from\s+engine\.(\w+)\s+c?import|from\s+engine\s+c?import\s+(.+)"
                           r"|c?import\s+engine\.(\w+))", re.M)


def engine_imports(path):
    """The engine modules a module of engine/ (.py, .pyx or .pxd) imports or
    cimports, anywhere in it (Cython's files by their import lines)."""
    found = set()
    if path.suffix == ".py":
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                found.update(alias.name.split(".")[1] for alias in node.names
                             if alias.name.startswith("engine."))
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                if node.module == "engine":
                    found.update(alias.name for alias in node.names)
                elif node.module.startswith("engine."):
                    found.add(node.module.split(".")[1])
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
    assert graph["weights"] == set(), graph["weights"]
    assert "weights" in graph["evaluate"]
    assert graph["report"] == set(), graph["report"]

    def walk(name, inside):
        assert name not in inside, "import cycle: " + " -> ".join(inside + [name])
        for other in graph.get(name, ()):
            walk(other, inside + [name])

    for name in graph:
        walk(name, [])


def test_importing_the_weights_format_imports_no_core():
    code = ("import sys, engine.weights, engine.report; "
            "print(sorted(m for m in sys.modules if m.startswith('engine.')))")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "['engine.report', 'engine.weights']"
