"""Builds the Cython core. Metadata lives in pyproject.toml."""
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
extensions = [
    Extension(f"engine.{path.stem}", [str(path)], extra_compile_args=["-O3"])
    for path in sorted(Path("engine").glob("*.pyx"))
]

setup(ext_modules=cythonize(extensions, compiler_directives=DIRECTIVES))
