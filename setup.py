"""Builds the Cython core. Metadata lives in pyproject.toml.

The repository keeps engine/, protocol/ and tools/ at its top; installed,
they are tuong.engine, tuong.protocol and tuong.tools (pyproject.toml maps
the folders). The core's modules are compiled under those names, and their
cimports (`from tuong.engine.position cimport ...`) find the .pxd files
through build/cython-include/tuong/engine, a symlink to engine/ made here:
Cython looks a cimported module up by its package path."""
from pathlib import Path

from Cython.Build import cythonize
from setuptools import Extension, setup

# Hot code is written C-style inside `with nogil:`; these directives remove the
# remaining Python-level safety checks from it.
DIRECTIVES = {
    "language_level": 3,
    "boundscheck": False,
    "wraparound": False,
    "initializedcheck": False,
    "nonecheck": False,
    "cdivision": True,
    "infer_types": False,
}
INCLUDE = Path("build") / "cython-include"
alias = INCLUDE / "tuong" / "engine"
if not alias.is_symlink():
    alias.parent.mkdir(parents=True, exist_ok=True)
    alias.symlink_to(Path("..", "..", "..", "engine"))
extensions = [
    Extension(f"tuong.engine.{path.stem}", [str(path)], extra_compile_args=["-O3"])
    for path in sorted(Path("engine").glob("*.pyx"))
]

setup(ext_modules=cythonize(extensions, include_path=[str(INCLUDE)],
                            compiler_directives=DIRECTIVES))
