"""This installation's version, as pyproject.toml says it (tests/test_packaging.py checks).

Its own module, low in the tree, so that a module that prints the version never imports
the face (`semlith/__init__.py`), which re-exports the library above it.
"""

__version__ = "0.1.0"
