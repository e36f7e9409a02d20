"""The last steps of resolution, by name alone: the one definition among the files
the caller imports, the only definition of the name in the language, a directory
tie-break; otherwise ambiguous with every candidate (issue #22)."""

from __future__ import annotations

from collections.abc import Callable

from semlith.base.roles import is_test
from semlith.graph.context import FileContext
from semlith.graph.modules import ModuleMap, family, nearest
from semlith.graph.rules import rules
from semlith.graph.status import Resolution, Status
from semlith.ingest.graph.records import Call, QualifierKind
from semlith.store.graph import GraphDef

# A method on a receiver of unknown type is not settled by being the only one of its
# name: on flask 7 of 16 such claims were wrong (the receiver was a dict, a Jinja loader).
UNIQUE_METHODS = False

# Calls on receivers of unknown type whose name is this common are not settled by "the
# only definition of that name": `d.get()`, `rows.append()` are a dict's and a list's.
COMMON = frozenset("""get set put pop push append extend insert remove update add clear
copy keys values items join split strip format replace read write close open send run
start stop next then catch map filter reduce find index count sort apply call bind emit
on off log info debug warn warning error exception toString valueOf has delete encode
decode lower upper startswith endswith match search sub test exec parse load dump dumps
loads length size len String Error Errorf Sprintf Printf Println New Lock Unlock Wait
Done Add Get Set Close Write Read""".split()) | frozenset(
    name for kind in (dict, list, str, set, bytes, int, float, tuple, object)
    for name in dir(kind)) | frozenset("""forEach some every concat slice splice shift
unshift includes indexOf trim substring charAt resolve reject finally assign freeze
keys entries hasOwnProperty isArray from of""".split())
_Key = tuple[str, str, bool, bool]  # name, language family, bare, from a test


class ByName:
    """The by-name step of one resolver, with what it remembers between calls: a
    name's candidates, a file's tie-break among them, a file's imported files. It sees
    the resolver through three parts only (the definitions of a name in a language, a
    file's context, the module map), so it does not depend on the resolver."""

    def __init__(self, named: Callable[[str, str], list[GraphDef]],
                 context: Callable[[int], FileContext], modules: ModuleMap) -> None:
        self.named, self.context, self.modules = named, context, modules
        self.candidates: dict[_Key, list[GraphDef]] = {}
        self.nearest: dict[tuple[_Key, int], list[int]] = {}
        self.imported_files: dict[int, set[int]] = {}

    def resolve(self, ctx: FileContext, call: Call) -> Resolution | None:
        """The only definition of the name in the language, the ones the caller's
        imports reach, a directory tie-break; else ambiguous."""
        bare = call.qualifier_kind is QualifierKind.NONE and \
            not rules(ctx.file.lang).bare_call_may_be_method
        key = (call.name, family(ctx.file.lang), bare, is_test(ctx.file.path))
        candidates = self._candidates(key, ctx.file.lang)
        if not candidates:
            return None
        imported = self._imported_files(ctx)
        common = call.name in COMMON or (call.name.startswith("__") and
                                           call.qualifier_kind is not QualifierKind.NONE)
        near = [d for d in candidates if d.file_id in imported]
        if len(near) == 1 and not common:
            return Resolution(Status.RESOLVED, (near[0],))
        if len(candidates) == 1 and not common and (bare or UNIQUE_METHODS):
            return Resolution(Status.RESOLVED, (candidates[0],))
        # The same for every call of the name in the file; computed per call, the
        # tie-break was a tenth of a cold `impact` (cProfile, 112k chunks; #22).
        ids = self.nearest.get((key, ctx.file.id))
        if ids is None:
            ids = nearest(ctx.file.path, {d.file_id: d.path for d in candidates})
            self.nearest[(key, ctx.file.id)] = ids
        close = [d for d in candidates if d.file_id in ids]
        if len(close) == 1 and len(candidates) > 1 and not common and \
                ctx.file.path.count("/") - close[0].path.count("/") in (-1, 0, 1):
            return Resolution(Status.RESOLVED, (close[0],))
        return Resolution(Status.AMBIGUOUS, tuple(candidates))

    def _candidates(self, key: _Key, lang: str) -> list[GraphDef]:
        """The same for every call of the name (one `impact`: thousands)."""
        candidates = self.candidates.get(key)
        if candidates is None:
            name, _, bare, from_test = key
            candidates = [d for d in self.named(name, lang) if
                          ((d.kind != "method" and "." not in d.qualname) if bare else
                           self._is_member(d))]
            if not from_test:  # code does not call into its tests
                candidates = [d for d in candidates if not is_test(d.path)]
            self.candidates[key] = candidates
        return candidates

    def _imported_files(self, ctx: FileContext) -> set[int]:
        """The files the imports of `ctx`'s file name (once per file, not per call)."""
        found = self.imported_files.get(ctx.file.id)
        if found is None:
            found = {f for imp in ctx.edges.imports
                     for f in self.modules.resolve(ctx.file.id, imp.module)}
            self.imported_files[ctx.file.id] = found
        return found

    def _is_member(self, d: GraphDef) -> bool:
        """Whether `d` belongs to a type (what `FileContext.owner` holds), reading its
        file only for a method named without its type (Go's): reading every candidate's
        file made most of a cold `impact`'s time on a 112k-chunk store (cProfile)."""
        if "." in d.qualname:
            return bool(d.qualname.rsplit(".", 1)[0])
        return d.kind == "method" and bool(self.context(d.file_id).owner.get(d.qualname))
