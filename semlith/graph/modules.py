"""Which files an import names: module strings as written -> files of the corpus.

Per language family, from paths alone (no build files read): Python dotted and relative
modules (`pkg.mod`, `..mod`, a package's `__init__.py`), JavaScript/TypeScript relative
specifiers (`./m`, `../lib`, with the extensions and `index` files a bundler tries), Go
import paths (the directory whose path ends with the import path's longest suffix),
Java and Kotlin packages (`a.b.C` -> `a/b/C.java`), Rust `crate::`, `self::` and
`super::` paths. A module that names no file of the corpus (the standard library, a
dependency) gives no files: calls into it are not edges into the corpus.
"""

from __future__ import annotations

import posixpath
from collections import defaultdict
from collections.abc import Iterable

from semlith.store.edges import EdgeFile

FAMILIES = {"javascript": "js", "typescript": "js", "tsx": "js"}
_JS_SUFFIXES = ("", ".ts", ".tsx", ".js", ".jsx", ".mjs", ".cjs", ".mts", ".cts", ".d.ts",
                "/index.ts", "/index.tsx", "/index.js", "/index.jsx", "/index.mjs")


def family(lang: str) -> str:
    """Languages whose files import each other (JS, TS and TSX are one)."""
    return FAMILIES.get(lang, lang)


def _python_name(path: str, packages: set[str]) -> str:
    """`src/shop/models.py` -> `shop.models` when `src/shop` is a package and `src` is
    not; a package's `__init__` is the package."""
    stem = path.rsplit(".", 1)[0].removesuffix("/__init__")
    parts = stem.split("/")
    start = len(parts) - 1
    while start > 0 and "/".join(parts[:start]) in packages:
        start -= 1
    return ".".join(parts[start:])


class ModuleMap:
    """Module strings -> file ids, over the files that have edges."""

    def __init__(self, files: Iterable[EdgeFile]) -> None:
        self.files: dict[int, EdgeFile] = {}
        self.by_path: dict[str, int] = {}
        self.by_dir: dict[str, list[int]] = defaultdict(list)
        # Python: absolute module names -> files. A module's name starts below the
        # outermost folder of its package (the folders with an `__init__.py`), so that
        # `import logging` in flask/app.py is the standard library, not flask/logging.py.
        self.py_modules: dict[str, list[int]] = defaultdict(list)
        for f in files:
            self.files[f.id] = f
            self.by_path[f.path] = f.id
            self.by_dir[posixpath.dirname(f.path)].append(f.id)
        packages = {posixpath.dirname(p) for p in self.by_path if p.endswith("/__init__.py")}
        for f in self.files.values():
            if f.lang == "python":
                self.py_modules[_python_name(f.path, packages)].append(f.id)

    def same_directory(self, file_id: int) -> list[int]:
        """The files beside `file_id` of its language family (a Go package, a Java one)."""
        me = self.files[file_id]
        return [i for i in self.by_dir[posixpath.dirname(me.path)]
                if family(self.files[i].lang) == family(me.lang)]

    def resolve(self, file_id: int, module: str) -> list[int]:
        """The files `module` (as written in file `file_id`) names; [] outside the corpus."""
        me = self.files.get(file_id)
        if me is None or not module:
            return []
        lang = family(me.lang)
        if lang == "python":
            return self._python(me, module)
        if lang == "js":
            return self._js(me, module)
        if lang == "go":
            return self._go(module.strip('"'))
        if lang in ("java", "kotlin", "scala"):
            return self._java(module, lang)
        if lang == "rust":
            return self._rust(me, module)
        return []

    def _python(self, me: EdgeFile, module: str) -> list[int]:
        if module.startswith("."):
            level = len(module) - len(module.lstrip("."))
            base = posixpath.dirname(me.path)
            for _ in range(level - 1):
                base = posixpath.dirname(base)
            rest = module[level:].replace(".", "/")
            target = posixpath.join(base, rest) if rest else base
            return [i for i in (self.by_path.get(f"{target}.py"),
                                self.by_path.get(f"{target}/__init__.py")) if i is not None]
        found = self.py_modules.get(module, [])
        if len(found) > 1:  # `utils` in two packages: the one nearest the importer
            return _nearest(me.path, found, self.files)
        return list(found)

    def _js(self, me: EdgeFile, module: str) -> list[int]:
        if not module.startswith("."):
            return []  # a package from node_modules (or a path alias we do not read)
        base = posixpath.normpath(posixpath.join(posixpath.dirname(me.path), module))
        stem = base
        for ext in (".js", ".mjs", ".cjs", ".jsx"):  # TS imports `./m.js` meaning `./m.ts`
            if base.endswith(ext):
                stem = base[: -len(ext)]
        for candidate in (base, stem):
            for suffix in _JS_SUFFIXES:
                found = self.by_path.get(candidate + suffix)
                if found is not None:
                    return [found]
        return []

    def _suffix_dir(self, module: str, lang: str) -> list[int]:
        """The files of the directory whose path ends with the most of `module`."""
        parts = module.split("/")
        for n in range(len(parts)):
            suffix = "/".join(parts[n:])
            dirs = [d for d in self.by_dir if d == suffix or d.endswith("/" + suffix)]
            if n == len(parts) - 1 and len(parts) > 1:
                break  # only the last segment left: too weak to name a package
            if dirs:
                return [i for d in dirs for i in self.by_dir[d]
                        if family(self.files[i].lang) == lang]
        if len(parts) == 1 and parts[0] in self.by_dir:
            return [i for i in self.by_dir[parts[0]] if family(self.files[i].lang) == lang]
        return []

    def _go(self, module: str) -> list[int]:
        """An import path: not the standard library (no dot in its first segment); the
        directory its longest suffix names, else the package of that name nearest the
        root (a module's root package, `github.com/go-chi/chi/v5`)."""
        parts = module.split("/")
        if "." not in parts[0]:
            return []
        for n in range(1, len(parts)):
            suffix = "/".join(parts[n:])
            dirs = [d for d in self.by_dir if d == suffix or d.endswith("/" + suffix)]
            if dirs:
                return [i for d in dirs for i in self.by_dir[d] if self.files[i].lang == "go"]
        name = parts[-2] if len(parts) > 1 and parts[-1][1:].isdigit() else parts[-1]
        found = [i for i, f in self.files.items() if f.lang == "go" and f.package == name]
        if not found:
            return []
        depth = min(self.files[i].path.count("/") for i in found)
        return [i for i in found if self.files[i].path.count("/") == depth]

    def _java(self, module: str, lang: str) -> list[int]:
        """`a.b.C` (a class: its file) or `a.b` (a package: its directory)."""
        path = module.replace(".", "/")
        exts = {"java": (".java",), "kotlin": (".kt", ".kts"), "scala": (".scala",)}[lang]
        files = [i for p, i in self.by_path.items()
                 if any(p == path + e or p.endswith("/" + path + e) for e in exts)]
        return files or self._suffix_dir(path, lang) if "/" in path else files

    def _rust(self, me: EdgeFile, module: str) -> list[int]:
        parts = module.split("::")
        head = posixpath.dirname(me.path)  # the folder of this file's own module
        if posixpath.basename(me.path) not in ("main.rs", "lib.rs", "mod.rs"):
            inner = posixpath.join(head, posixpath.basename(me.path).removesuffix(".rs"))
        else:
            inner, head = head, posixpath.dirname(head)
        if parts[0] == "crate":
            src = me.path.split("/src/")[0] + "/src" if "/src/" in me.path else \
                ("src" if me.path.startswith("src/") else head)
            head, parts = src, parts[1:]
        elif parts[0] == "super":
            parts = parts[1:]
        elif parts[0] == "self":
            head, parts = inner, parts[1:]
        elif parts[0] in ("std", "core", "alloc"):
            return []
        else:  # a module declared in this one (2018 paths), else an external crate
            head = inner
            if not any(f"{posixpath.join(head, parts[0])}{e}" in self.by_path
                       for e in (".rs", "/mod.rs")):
                head = posixpath.dirname(me.path)
                if not any(f"{posixpath.join(head, parts[0])}{e}" in self.by_path
                           for e in (".rs", "/mod.rs")):
                    return []
        while parts:  # the longest prefix that is a file: the rest are items in it
            target = posixpath.join(head, *parts)
            for candidate in (f"{target}.rs", f"{target}/mod.rs"):
                if candidate in self.by_path:
                    return [self.by_path[candidate]]
            parts = parts[:-1]
        for candidate in (f"{head}/mod.rs", f"{head}/lib.rs", f"{head}/main.rs"):
            if candidate in self.by_path:
                return [self.by_path[candidate]]
        return []


def _nearest(path: str, ids: list[int], files: dict[int, EdgeFile]) -> list[int]:
    """Of `ids`, those whose path shares the longest directory prefix with `path`."""
    def shared(other: str) -> int:
        a, b = path.split("/")[:-1], other.split("/")[:-1]
        n = 0
        while n < min(len(a), len(b)) and a[n] == b[n]:
            n += 1
        return n
    best = max(shared(files[i].path) for i in ids)
    return [i for i in ids if shared(files[i].path) == best]


def nearest(path: str, ids: list[int], files: dict[int, EdgeFile]) -> list[int]:
    """The directory tie-break: the candidates nearest `path` in the tree."""
    return _nearest(path, ids, files) if ids else []
