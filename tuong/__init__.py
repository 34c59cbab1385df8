"""tuong, a Xiangqi (Chinese chess) engine: the package's top, and its version.

Its parts live in the repository's top folders, engine/, protocol/ and
tools/, which install as tuong.engine, tuong.protocol and tuong.tools
(pyproject.toml maps them). This folder holds only this file, which
pyproject.toml installs as tuong/__init__.py: a package needs one to carry
`tuong.__version__` (a namespace package has no attributes of its own).

    import tuong
    print(tuong.__version__)        # '0.1.0', as `tuong --version` prints it
"""
from importlib import metadata
from pkgutil import extend_path

# Run from a checkout (this folder found first on sys.path) with tuong
# installed elsewhere, the installed tuong/ joins this one: tuong.engine and
# the rest are found there. An editable install finds them by its own map.
__path__ = extend_path(__path__, __name__)

try:
    __version__: str = metadata.version("tuong")
    """The installed package's version (pyproject.toml's `version`, read from
    the installed metadata): `tuong --version` prints the same."""
except metadata.PackageNotFoundError:      # a checkout never installed
    __version__ = "unknown (not installed)"

__all__ = ["__version__"]
