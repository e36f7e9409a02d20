"""Which files an import names: module strings as written -> files of the corpus.

Per language family, from paths alone (no build files read): Python dotted and relative
modules (`pkg.mod`, `..mod`, a package's `__init__.py`), JavaScript/TypeScript relative
specifiers (`./m`, `../lib`, with the extensions and `index` files a bundler tries), Go
import paths (the directory whose path ends with the import path's longest suffix),
Java and Kotlin packages (`a.b.C` -> `a/b/C.java`), Rust `crate::`, `self::` and
`super::` paths. A module that names no file of the corpus (the standard library, a
dependency) gives no files: calls into it are not edges into the corpus.

Files are looked up when an import names them (indexed queries in store/edges.py) and
remembered for the resolver's life: a question pays for the files it touches, not for
the corpus. Loading every file with edges first cost a cold question 40-80 ms on a
112k-chunk store (docs/performance.md, "Code graph").
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable, Iterable

from semlith.graph.rules import family, languages_of, rules
from semlith.store.graph import EdgeFile, GraphDef, GraphStore

__all__ = ["ModuleMap", "family", "languages_of", "nearest"]
PYTHON_ROOTS = ("", "src/")  # where an absolute import starts, as pyright's roots
_JS_SUFFIXES = ("", ".ts", ".tsx", ".js", ".jsx", ".mjs", ".cjs", ".mts", ".cts", ".d.ts",
                "/index.ts", "/index.tsx", "/index.js", "/index.jsx", "/index.mjs")


def _python_name(path: str, is_package: Callable[[str], bool]) -> str:
    """`src/shop/models.py` -> `shop.models` when `src/shop` is a package and `src` is
    not; a package's `__init__` is the package."""
    stem = path.rsplit(".", 1)[0].removesuffix("/__init__")
    parts = stem.split("/")
    start = len(parts) - 1
    while start > 0 and is_package("/".join(parts[:start])):
        start -= 1
    return ".".join(parts[start:])


class ModuleMap:
    """Module strings -> file ids, over the files that have edges, looked up on demand."""

    def __init__(self, graph: GraphStore) -> None:
        self.graph = graph
        self._files: dict[int, EdgeFile | None] = {}
        self._ids: dict[str, int | None] = {}
        self._folders: dict[str, list[int]] = {}
        self._resolved: dict[tuple[int, str], list[int]] = {}
        self._namespaces: dict[str, bool] = {}

    # -- files --------------------------------------------------------------------------

    def _keep(self, files: Iterable[EdgeFile]) -> list[EdgeFile]:
        kept = list(files)
        for f in kept:
            self._files[f.id] = f
            self._ids[f.path] = f.id
        return kept

    def load(self, ids: Iterable[int]) -> None:
        """Look up the files `ids` not yet known in one query."""
        wanted = {i for i in ids if i not in self._files}
        if wanted:
            self._keep(self.graph.files_by_id(wanted))
            for i in wanted:
                self._files.setdefault(i, None)

    def get(self, file_id: int) -> EdgeFile | None:
        """The file `file_id` if it has edges."""
        if file_id not in self._files:
            self.load([file_id])
        return self._files[file_id]

    def with_edges(self, defs: list[GraphDef]) -> list[GraphDef]:
        """Those of `defs` whose file has edges (the graph knows nothing of the rest)."""
        self.load(d.file_id for d in defs)
        return [d for d in defs if self.get(d.file_id) is not None]

    def file(self, file_id: int) -> EdgeFile:
        found = self.get(file_id)
        if found is None:
            raise KeyError(file_id)
        return found

    def ids_at(self, paths: Iterable[str]) -> dict[str, int]:
        """path -> id of those of `paths` that are files with edges."""
        wanted = list(dict.fromkeys(paths))
        unknown = [p for p in wanted if p not in self._ids]
        if unknown:
            self._keep(self.graph.files_at(unknown))
            for p in unknown:
                self._ids.setdefault(p, None)
        return {p: i for p in wanted if (i := self._ids[p]) is not None}

    def id_at(self, path: str) -> int | None:
        return self.ids_at([path]).get(path)

    @property
    def loaded(self) -> int:
        """How many files with edges it has looked up so far."""
        return sum(1 for f in self._files.values() if f is not None)

    def all_files(self) -> list[EdgeFile]:
        """Every file with edges (for benchmarks and tests that walk the whole graph)."""
        return self._keep(self.graph.all_files())

    def in_folder(self, folder: str) -> list[int]:
        """The files with edges directly in `folder`."""
        found = self._folders.get(folder)
        if found is None:
            found = [f.id for f in self._keep(self.graph.files_in(folder))]
            self._folders[folder] = found
        return found

    def _folders_ending(self, module: str) -> dict[str, list[int]]:
        """folder -> its files, of the folders whose path ends with `module`'s last
        segment (the only ones any suffix of `module` can name)."""
        out: dict[str, list[int]] = {}
        for f in self._keep(self.graph.files_in_folders_named([module.rsplit("/", 1)[-1]])):
            out.setdefault(posixpath.dirname(f.path), []).append(f.id)
        return out

    def same_directory(self, file_id: int) -> list[int]:
        """The files beside `file_id` of its language family (a Go package, a Java one)."""
        me = self.file(file_id)
        return [i for i in self.in_folder(posixpath.dirname(me.path))
                if family(self.file(i).lang) == family(me.lang)]

    # -- modules ------------------------------------------------------------------------

    def resolve(self, file_id: int, module: str) -> list[int]:
        """The files `module` (as written in file `file_id`) names; [] outside the corpus."""
        key = (file_id, module)
        found = self._resolved.get(key)
        if found is None:
            found = self._resolve(file_id, module)
            self._resolved[key] = found
        return list(found)

    def _resolve(self, file_id: int, module: str) -> list[int]:
        me = self.get(file_id)
        if me is None or not module:
            return []
        how = rules(me.lang).modules  # each language's own way, by name: the rules row's
        resolver = {"python": self._python, "js": self._js, "go": self._go,
                    "java": self._java, "rust": self._rust}.get(how)
        return resolver(me, module) if resolver is not None else []

    def _python(self, me: EdgeFile, module: str) -> list[int]:
        if module.startswith("."):
            level = len(module) - len(module.lstrip("."))
            base = posixpath.dirname(me.path)
            for _ in range(level - 1):
                base = posixpath.dirname(base)
            rest = module[level:].replace(".", "/")
            target = posixpath.join(base, rest) if rest else base
            at = self.ids_at([f"{target}.py", f"{target}/__init__.py"])
            return list(at.values())
        found = {f.id: f.path for f in self._python_named(module, me.lang)}
        if len(found) > 1:  # `utils` in two packages: the one nearest the importer
            return nearest(me.path, found)
        return list(found) or self._from_root(module)

    def _from_root(self, module: str) -> list[int]:
        """`a.b.c` as a path from the root or `src/`, as pyright resolves imports: the
        module of a namespace package (folders without `__init__.py`, issue #47)."""
        tried = [f"{root}{module.replace('.', '/')}{end}" for root in PYTHON_ROOTS
                 for end in (".py", "/__init__.py")]
        at = self.ids_at(tried)  # one query for both roots: most such imports are stdlib
        return next(([at[p] for p in tried[n:n + 2] if p in at]
                     for n in range(0, len(tried), 2) if tried[n] in at or tried[n + 1] in at),
                    [])

    def is_namespace(self, file_id: int, module: str) -> bool:
        """Whether `module` (absolute, written in file `file_id`) is a folder from the
        root or `src/` that holds Python files and no `__init__.py`: a namespace
        package, which is the corpus's though no file is its module."""
        me = self.get(file_id)
        if me is None or module.startswith(".") or rules(me.lang).modules != "python":
            return False
        found = self._namespaces.get(module)
        if found is None:  # the same for every file that imports it
            found = any(f.lang == me.lang for root in PYTHON_ROOTS
                        for f in self.graph.files_under(root + module.replace(".", "/")))
            self._namespaces[module] = found
        return found

    def _python_named(self, module: str, lang: str) -> list[EdgeFile]:
        """The Python files whose absolute module name is `module`. A module's name
        starts below the outermost folder of its package (the folders with an
        `__init__.py`), so that `import logging` in flask/app.py is the standard
        library, not flask/logging.py."""
        parts = module.split(".")
        tails = [".".join(parts[n:]) for n in range(len(parts))]
        candidates = [f for tail in tails for f in self.graph.files_stemmed(tail)]
        candidates += [f for f in self.graph.files_in_folders_named(tails)
                       if posixpath.basename(f.path).startswith("__init__.")]
        self._keep(candidates)

        def is_package(folder: str) -> bool:
            return self.id_at(f"{folder}/__init__.py") is not None

        found = {f.id: f for f in candidates
                 if f.lang == lang and _python_name(f.path, is_package) == module}
        return [found[i] for i in sorted(found)]

    def _js(self, me: EdgeFile, module: str) -> list[int]:
        if not module.startswith("."):
            return []  # a package from node_modules (or a path alias we do not read)
        base = posixpath.normpath(posixpath.join(posixpath.dirname(me.path), module))
        stem = base
        for ext in (".js", ".mjs", ".cjs", ".jsx"):  # TS imports `./m.js` meaning `./m.ts`
            if base.endswith(ext):
                stem = base[: -len(ext)]
        tried = [candidate + suffix for candidate in (base, stem) for suffix in _JS_SUFFIXES]
        at = self.ids_at(tried)
        return next(([at[p]] for p in tried if p in at), [])

    def _suffix_dir(self, module: str, lang: str) -> list[int]:
        """The files of the directory whose path ends with the most of `module`."""
        parts = module.split("/")
        folders = self._folders_ending(module)
        for n in range(len(parts)):
            suffix = "/".join(parts[n:])
            dirs = [d for d in folders if d == suffix or d.endswith("/" + suffix)]
            if n == len(parts) - 1 and len(parts) > 1:
                break  # only the last segment left: too weak to name a package
            if dirs:
                return [i for d in dirs for i in folders[d]
                        if family(self.file(i).lang) == lang]
        if len(parts) == 1:
            return [i for i in self.in_folder(parts[0]) if family(self.file(i).lang) == lang]
        return []

    def _go(self, me: EdgeFile, module: str) -> list[int]:
        """An import path: not the standard library (no dot in its first segment); the
        directory its longest suffix names, else the package of that name nearest the
        root (a module's root package, `github.com/go-chi/chi/v5`)."""
        module = module.strip('"')
        parts = module.split("/")
        if "." not in parts[0]:
            return []
        folders = self._folders_ending(module)
        for n in range(1, len(parts)):
            suffix = "/".join(parts[n:])
            dirs = [d for d in folders if d == suffix or d.endswith("/" + suffix)]
            if dirs:
                return [i for d in dirs for i in folders[d] if self.file(i).lang == me.lang]
        name = parts[-2] if len(parts) > 1 and parts[-1][1:].isdigit() else parts[-1]
        found = [f for f in self._keep(self.graph.files_of_package(name))
                 if f.lang == me.lang]
        if not found:
            return []
        depth = min(f.path.count("/") for f in found)
        return [f.id for f in found if f.path.count("/") == depth]

    def _java(self, me: EdgeFile, module: str) -> list[int]:
        """`a.b.C` (a class: its file) or `a.b` (a package: its directory)."""
        path, lang = module.replace(".", "/"), family(me.lang)
        exts = rules(me.lang).extensions
        named = self._keep(self.graph.files_named([path.rsplit("/", 1)[-1] + e
                                                   for e in exts]))
        files = [f.id for f in named
                 if any(f.path == path + e or f.path.endswith("/" + path + e) for e in exts)]
        return files or self._suffix_dir(path, lang) if "/" in path else files

    def _rust(self, me: EdgeFile, module: str) -> list[int]:
        start = self._rust_start(me, module.split("::"))
        if start is None:
            return []
        head, parts = start
        while parts:  # the longest prefix that is a file: the rest are items in it
            target = posixpath.join(head, *parts)
            found = self._first_at((f"{target}.rs", f"{target}/mod.rs"))
            if found is not None:
                return [found]
            parts = parts[:-1]
        found = self._first_at((f"{head}/mod.rs", f"{head}/lib.rs", f"{head}/main.rs"))
        return [found] if found is not None else []

    def _rust_start(self, me: EdgeFile, parts: list[str]) -> tuple[str, list[str]] | None:
        """The folder a Rust path starts from and the parts below it; None for a path
        into the standard library or another crate."""
        head = posixpath.dirname(me.path)  # the folder of this file's own module
        if posixpath.basename(me.path) not in ("main.rs", "lib.rs", "mod.rs"):
            inner = posixpath.join(head, posixpath.basename(me.path).removesuffix(".rs"))
        else:
            inner, head = head, posixpath.dirname(head)
        if parts[0] == "crate":
            src = me.path.split("/src/")[0] + "/src" if "/src/" in me.path else \
                ("src" if me.path.startswith("src/") else head)
            return src, parts[1:]
        if parts[0] == "super":
            return head, parts[1:]
        if parts[0] == "self":
            return inner, parts[1:]
        if parts[0] in ("std", "core", "alloc"):
            return None
        # a module declared in this one (2018 paths), else one beside it, else a crate
        for folder in (inner, posixpath.dirname(me.path)):
            if self.ids_at(f"{posixpath.join(folder, parts[0])}{e}" for e in (".rs", "/mod.rs")):
                return folder, parts
        return None

    def _first_at(self, paths: Iterable[str]) -> int | None:
        """The id of the first of `paths` that is a file with edges."""
        return next((i for p in paths if (i := self.id_at(p)) is not None), None)


def nearest(path: str, candidates: dict[int, str]) -> list[int]:
    """The directory tie-break: of the candidates (id -> path), those whose path shares
    the longest directory prefix with `path`."""
    mine = path.split("/")[:-1]

    def shared(other: str) -> int:
        theirs = other.split("/")[:-1]
        n = 0
        while n < min(len(mine), len(theirs)) and mine[n] == theirs[n]:
            n += 1
        return n
    if not candidates:
        return []
    scores = {i: shared(p) for i, p in candidates.items()}
    best = max(scores.values())
    return [i for i, score in scores.items() if score == best]
