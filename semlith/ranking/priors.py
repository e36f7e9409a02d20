"""File-role priors: a question about how code works wants the source that does it.

Tests, docs, changelogs, examples, vendored and generated files, compat shims, type
stubs, build manifests and recorded test output match a question's words as well as
the source does — a test repeats the names it tests, a changelog the features it lists
— and took the top slots on repositories with many of them (issue #10: 17 % of the
held-out set's top-10 hits were tests, 9 % docs). Their scores are multiplied by a
factor below 1, unless the query names the role ("test", "changelog", "example"...).
The factors come in two tiers; `priors` is an exponent on them (0: off, 1: as below).
A prior is evidence, not a veto: for a chunk at the head of two lists (dense and
keyword, say) it counts half (its square root) — a Markdown chunk that both rankings
put first lost to a code chunk second in one (issue #21). Reading what a question
wants from its nearest chunks instead (most of them prose: it wants prose) cost 0.02
NDCG@10 on whole packages and was dropped (docs/performance.md, "Ranking").

Old copies kept beside the current code (`v1/` beside `v2/` or beside the unversioned
tree) are legacy for a question that names no version (semlith/ranking/versions.py);
one operating system's variant of portable code (`src/win/`, `fs_windows.go`) ranks
below the portable code for a question that names no platform (ranking/platforms.py);
a file's preamble (its banner and imports: ingest/preamble.py) ranks below its code.
"""

from __future__ import annotations

from collections.abc import Callable

from semlith.base.roles import KIND_ROLES, PREAMBLE_KIND, Role, file_role
from semlith.ranking.context import Context, Placed, Places, Scores
from semlith.ranking.platforms import platform_of
from semlith.ranking.query import Query
from semlith.ranking.versions import old_copies

# Mild: often what a question wants when it says so, plausible neighbours otherwise.
# Strong: almost never the answer to a question about behaviour. Measured as 0.75 and
# 0.5 raised to a power: 1, 2, 3 gave 0.818, 0.842, 0.857 NDCG@10 on packages with
# their tests and docs (and 0.861, 0.861, 0.862 on source roots alone); 3 is kept.
MILD = 0.75**3  # 0.42
STRONG = 0.5**3  # 0.125
FACTORS: dict[Role, float] = {
    Role.SOURCE: 1.0,
    Role.TEST: MILD,
    Role.DOCS: MILD,
    Role.EXAMPLE: MILD,
    Role.BENCHMARK: MILD,
    Role.LEGACY: MILD,
    Role.DECLARATIONS: MILD,
    Role.CONFIG: MILD,
    Role.CHANGELOG: STRONG,
    Role.COMMUNITY: STRONG,
    Role.VENDORED: STRONG,
    Role.GENERATED: STRONG,
    Role.SNAPSHOT: STRONG,
    Role.TRANSLATION: STRONG,  # the English messages say the same (roles.py)
}
# One operating system's variant of portable code (ranking/platforms.py), unless the
# question names the system: the factor above times this. libuv's package scored
# 0.578 / 0.693 / 0.744 NDCG@10 at 1 / 0.75 / 0.42 (no other corpus moved); the milder
# is kept, since no development question wants a variant and the cost cannot be seen.
PLATFORM = 0.75
# A file's banner and imports above its code (the chunk kind `preamble`:
# ingest/preamble.py), unless the question asks for imports or the licence: its file's
# factor times this. 0.5 and 0.25 scored alike (docs/performance.md, "Preambles"); the
# milder is kept.
PREAMBLE = 0.5


def wanted(query: Query, records: Places, strength: float) -> Callable[[int], bool] | None:
    """Whether a candidate is of a role the question may want (the source, or a role it
    names): what fills the head of a list (semlith/ranking/context.py). None when the
    priors are off: then every role is."""
    if not strength:
        return None

    def want(cid: int) -> bool:
        record = records.get(cid)
        return record is None or query.wants(role_of(record))
    return want


def role_of(place: Placed) -> Role:
    """A candidate's role: its file's, a test's for test code kept in a source file (a
    Rust `#[cfg(test)] mod tests`, a Zig `test` block: ingest/plan.py), or generated for
    a small file whose header says a tool wrote it (cutting.py)."""
    return KIND_ROLES.get(place.kind) or file_role(place.path)


def apply(scores: Scores, ctx: Context) -> Scores:
    strength = ctx.weights.priors
    if not strength:
        return scores
    agreed = ctx.lists.agreed()
    old = old_copies([r.path for cid in scores if (r := ctx.records.get(cid)) is not None],
                     ctx.query.names_version)
    preamble = 1.0 if ctx.query.wants(Role.PREAMBLE) else PREAMBLE
    out: Scores = {}
    for cid, score in scores.items():
        record = ctx.records.get(cid)
        role = role_of(record) if record is not None else Role.SOURCE
        factor = 1.0 if ctx.query.wants(role) else FACTORS[role]
        if record is not None and (platform := platform_of(record.path)) is not None \
                and platform not in ctx.query.platforms:
            factor *= PLATFORM
        if record is not None and record.kind == PREAMBLE_KIND:
            factor *= preamble
        if cid in agreed:  # evidence from two rankings halves the prior's effect
            factor = factor ** 0.5
        if record is not None and record.path in old:  # a copy's twin agrees with it
            factor = min(factor, FACTORS[Role.LEGACY])
        out[cid] = score * factor ** strength
    return out

