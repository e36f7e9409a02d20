"""The last steps of resolution, by name alone: the one definition among the files
the caller imports, the only definition of the name in the language, a directory
tie-break; otherwise ambiguous with every candidate (issue #22)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from semlith.base.roles import is_test
from semlith.graph.context import FileContext
from semlith.graph.modules import family, nearest
from semlith.graph.status import Resolution, Status
from semlith.ingest.graph.records import Call, QualifierKind
from semlith.store.edges import GraphDef

if TYPE_CHECKING:
    from semlith.graph.resolve import Resolver

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
JAVA_LIKE = frozenset({"java", "kotlin", "csharp", "scala", "cpp", "swift", "php"})


def by_name(resolver: Resolver, ctx: FileContext, call: Call) -> Resolution | None:
    """The only definition of the name in the language, the ones the caller's
    imports reach, a directory tie-break; else ambiguous."""
    lang = family(ctx.file.lang)
    bare = call.qualifier_kind is QualifierKind.NONE and ctx.file.lang not in JAVA_LIKE
    key = (call.name, lang, bare, is_test(ctx.file.path))
    candidates = resolver.candidates.get(key)
    if candidates is None:  # the same for every call of the name (one `impact`: thousands)
        candidates = [d for d in resolver.named(call.name, ctx.file.lang) if
                      ((d.kind != "method" and "." not in d.qualname) if bare else
                       _is_member(resolver, d))]
        if not key[3]:  # code does not call into its tests
            candidates = [d for d in candidates if not is_test(d.path)]
        resolver.candidates[key] = candidates
    if not candidates:
        return None
    imported = _imported_files(resolver, ctx)
    common = call.name in COMMON or (call.name.startswith("__") and
                                       call.qualifier_kind is not QualifierKind.NONE)
    near = [d for d in candidates if d.file_id in imported]
    if len(near) == 1 and not common:
        return Resolution(Status.RESOLVED, (near[0],))
    if len(candidates) == 1 and not common and (bare or UNIQUE_METHODS):
        return Resolution(Status.RESOLVED, (candidates[0],))
    # The same for every call of the name in the file; computed per call, the
    # tie-break was a tenth of a cold `impact` (cProfile, 112k chunks; #22).
    ids = resolver.nearest.get((key, ctx.file.id))
    if ids is None:
        ids = nearest(ctx.file.path, {d.file_id: d.path for d in candidates})
        resolver.nearest[(key, ctx.file.id)] = ids
    close = [d for d in candidates if d.file_id in ids]
    if len(close) == 1 and len(candidates) > 1 and not common and \
            ctx.file.path.count("/") - close[0].path.count("/") in (-1, 0, 1):
        return Resolution(Status.RESOLVED, (close[0],))
    return Resolution(Status.AMBIGUOUS, tuple(candidates))


def _imported_files(resolver: Resolver, ctx: FileContext) -> set[int]:
    """The files the imports of `ctx`'s file name (once per file, not per call)."""
    found = resolver.imported_files.get(ctx.file.id)
    if found is None:
        found = {f for imp in ctx.edges.imports
                 for f in resolver.modules.resolve(ctx.file.id, imp.module)}
        resolver.imported_files[ctx.file.id] = found
    return found


def _is_member(resolver: Resolver, d: GraphDef) -> bool:
    """Whether `d` belongs to a type (what `FileContext.owner` holds), reading its
    file only for a method named without its type (Go's): reading every candidate's
    file made most of a cold `impact`'s time on a 112k-chunk store (cProfile)."""
    if "." in d.qualname:
        return bool(d.qualname.rsplit(".", 1)[0])
    return d.kind == "method" and bool(resolver.context(d.file_id).owner.get(d.qualname))
