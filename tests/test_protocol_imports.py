"""The modules of protocol/ import each other without a cycle: the shared
text helpers and the output writer live in protocol/text.py, which imports
nothing of the package, and nothing but __main__ imports session.py."""
import ast
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
