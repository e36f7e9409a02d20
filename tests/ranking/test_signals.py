"""Each ranking signal changes a ranking the way it says, alone (semlith/ranking/)."""

from __future__ import annotations

import pytest

from semlith.base.roles import TEST_KIND, Role, file_role
from semlith.base.text import doer
from semlith.base.weights import Weights
from semlith.ranking import files, fusion, paths, priors
from semlith.ranking.context import Context, Lists, Scores
from semlith.ranking.pipeline import DEPTH, REACH, places, rank
from semlith.ranking.query import QueryKind, analyse
from semlith.ranking.select import order
from semlith.types import ChunkRecord


def records(*paths_: str) -> dict[int, ChunkRecord]:
    """Chunk i+1 in file paths_[i] (a path may repeat: several chunks of one file)."""
    return {n: ChunkRecord(n, path, n, n * 10, n * 10 + 5, "function", "", "text")
            for n, path in enumerate(paths_, start=1)}


def ctx(query: str, recs: dict[int, ChunkRecord], lists: Lists | None = None,
        **weights: float) -> Context:
    return Context(analyse(query), lists or Lists(), recs, Weights(**weights))


def best_first(scores: Scores) -> list[int]:
    return sorted(scores, key=lambda cid: -scores[cid])


# -- query analysis ----------------------------------------------------------------------

@pytest.mark.parametrize(("text", "kind"), [
    ("Session.send", QueryKind.IDENTIFIER), ("parse_args", QueryKind.IDENTIFIER),
    ("how are retries scheduled", QueryKind.PHRASE),
    ("where does HTTPAdapter retry", QueryKind.MIXED)])
def test_query_kinds(text: str, kind: QueryKind) -> None:
    assert analyse(text).kind is kind


def test_a_query_naming_a_role_asks_for_it() -> None:
    assert Role.TEST in analyse("how are the tests of the router set up").asks
    assert Role.CHANGELOG in analyse("what changed in the last release").asks
    assert not analyse("how are routes registered").asks


# -- priors ------------------------------------------------------------------------------

def test_priors_put_source_above_a_test_and_a_changelog_that_score_the_same() -> None:
    recs = records("tests/test_router.py", "HISTORY.md", "src/router.py")
    scores = {1: 1.0, 2: 1.0, 3: 1.0}
    ranked = best_first(priors.apply(scores, ctx("how are routes matched", recs, priors=1)))
    assert ranked == [3, 1, 2]  # source, then the mild tier, then the strong one


@pytest.mark.parametrize(("text", "asks"), [
    ("where are the tests for blueprints", True), ("how is the pool tested", True),
    ("the router test", True), ("test cases for the context", True),
    ("test for the retry middleware", True), ("test files for json tagging", True),
    ("testing client", False), ("how does the test client simulate requests", False),
    ("test runner for commands in isolation", False), ("mock handler for responses", False),
    ("spec conformance validator", False)])
def test_a_test_word_naming_a_thing_does_not_ask_for_tests(text: str, asks: bool) -> None:
    assert (Role.TEST in analyse(text).asks) is asks


def test_test_code_in_a_source_file_is_weighed_as_a_test() -> None:
    """A Rust `#[cfg(test)] mod tests` at the foot of `src/parse.rs`: its chunks (kind
    `test`) repeat the names they test and scored as the source does."""
    recs = {1: ChunkRecord(1, "src/parse.rs", 1, 1, 20, "function", "parse", "text"),
            2: ChunkRecord(2, "src/parse.rs", 2, 30, 60, TEST_KIND, "parses", "text")}
    scores = {1: 0.9, 2: 1.0}
    assert best_first(priors.apply(scores, ctx("how is a header parsed", recs, priors=1))) \
        == [1, 2]
    asked = priors.apply(scores, ctx("where are the tests for parsing", recs, priors=1))
    assert best_first(asked) == [2, 1]


def test_priors_step_aside_when_the_query_names_the_role() -> None:
    recs = records("tests/test_router.py", "src/router.py")
    scores = {1: 1.0, 2: 0.9}
    asked = priors.apply(scores, ctx("how are the router tests written", recs, priors=1))
    assert best_first(asked) == [1, 2]
    off = priors.apply(scores, ctx("how are routes matched", recs, priors=0))
    assert off == scores


def test_roles_follow_each_ecosystems_test_convention() -> None:
    assert file_role("lib/bats-core/test_functions.bash") is Role.SOURCE  # not a bats test
    assert file_role("tests/test_app.py") is Role.TEST
    assert file_role("absl/strings/str_cat_test.cc") is Role.TEST
    assert file_role("src/router.test.ts") is Role.TEST
    assert file_role("src/main/java/FooTest.java") is Role.TEST
    assert file_role("src/latest.py") is Role.SOURCE
    # Rust's `mod tests;` lives in `tests.rs` beside the code (hyperium/http's uri/tests.rs
    # was source); Zig and C name theirs `test.zig`, `tests.c`.
    assert file_role("src/uri/tests.rs") is Role.TEST
    assert file_role("src/test.zig") is Role.TEST
    assert file_role("src/attest.rs") is Role.SOURCE
    # Fuzzing harnesses: cargo-fuzz's `fuzz/fuzz_targets/`, OSS-Fuzz's `fuzzing/`.
    assert file_role("fuzz/fuzz_targets/parse_request.rs") is Role.TEST
    assert file_role("tests/fuzzing/json.c") is Role.TEST
    assert file_role("src/fuzzy.py") is Role.SOURCE
    # .NET test projects named for what they test, and `*-tests` packages.
    assert file_role("src/Newtonsoft.Json.Tests/Support/Comparer.cs") is Role.TEST
    assert file_role("Foo.UnitTests/Helpers.cs") is Role.TEST
    assert file_role("runtime-tests/deno/app.ts") is Role.TEST
    assert file_role("src/Newtonsoft.Json/JsonConvert.cs") is Role.SOURCE
    assert file_role("lib/rails/generators/rails/system_test/system_test_generator.rb") \
        is Role.SOURCE  # the generator of system tests


@pytest.mark.parametrize(("path", "role"), [
    ("ChangeLog", Role.CHANGELOG), ("CHANGES", Role.CHANGELOG), ("NEWS", Role.CHANGELOG),
    ("docs/History.md", Role.CHANGELOG), ("CHANGELOG.md", Role.CHANGELOG),
    ("src/history.py", Role.SOURCE), ("lib/changes.rb", Role.SOURCE),
    ("bin/migrate", Role.SOURCE), ("scripts/release", Role.SOURCE)])
def test_changelogs_by_name_with_or_without_a_suffix(path: str, role: Role) -> None:
    assert file_role(path) is role


@pytest.mark.parametrize(("path", "role"), [
    ("Alamofire.xcodeproj/project.pbxproj", Role.CONFIG), ("Config/Base.xcconfig", Role.CONFIG),
    ("Package.swift", Role.CONFIG), ("Package.resolved", Role.GENERATED),
    ("build.zig", Role.CONFIG), ("build.zig.zon", Role.CONFIG), ("src/main.zig", Role.SOURCE),
    ("settings.gradle.kts", Role.CONFIG), ("src/App/App.csproj", Role.CONFIG),
    ("Directory.Build.props", Role.CONFIG), ("lume-2.3.0-0.rockspec", Role.CONFIG),
    ("Serilog.sln.DotSettings", Role.CONFIG),  # Rider's and ReSharper's settings
    # Interface Builder's XML, which Xcode writes as it writes `project.pbxproj`: its
    # `<collectionViewCell>` markup matched questions about collection views as well as
    # the view controllers did (Kingfisher's demo, an example there anyway).
    ("App/Base.lproj/Main.storyboard", Role.CONFIG), ("Views/Cell.xib", Role.CONFIG),
    ("Sources/Package/Resolver.swift", Role.SOURCE)])
def test_build_manifests_of_more_ecosystems_are_config(path: str, role: Role) -> None:
    # Swift, Zig, Kotlin, C# and Lua projects, and the files Xcode writes.
    assert file_role(path) is role


@pytest.mark.parametrize(("path", "role"), [
    ("Sources/Documentation.docc/Resources/code-files/01-SampleCell-3.swift", Role.DOCS),
    ("Sources/Kingfisher.docc/Tutorials/GettingStarted.tutorial", Role.DOCS),
    ("Sources/Kingfisher.docc/Topics.md", Role.DOCS),
    ("Sources/Kingfisher/Image/ImageProcessor.swift", Role.SOURCE),
    ("Sources/Documentation.docc.swift", Role.SOURCE)])  # a file so named is not a catalog
def test_a_docc_catalog_is_documentation(path: str, role: Role) -> None:
    """Kingfisher's DocC tutorials keep each step's code as a file (eight copies of
    `01-ViewController-N.swift`): they took the first three slots from the demo and the
    source for questions about table and collection views."""
    assert file_role(path) is role


@pytest.mark.parametrize(("path", "role"), [
    ("packages/zod/src/v4/locales/da.ts", Role.TRANSLATION),
    ("src/locales/pt-BR.ts", Role.TRANSLATION), ("locales/zh_Hant.json", Role.TRANSLATION),
    ("config/locales/de.yml", Role.TRANSLATION),  # not config: a translation
    ("website/i18n/fr/docusaurus-plugin-content-docs/intro.md", Role.TRANSLATION),
    ("locale/pt_BR/LC_MESSAGES/django.po", Role.TRANSLATION),
    ("src/locales/en.ts", Role.SOURCE), ("locales/en-GB.json", Role.SOURCE),  # English
    ("src/locales/index.ts", Role.SOURCE), ("src/i18n/ui.ts", Role.SOURCE),  # no language
    ("lang/cs.ts", Role.SOURCE),  # a folder of programming languages as often as not
    ("src/v4/core/tests/locales/hr.test.ts", Role.TEST)])
def test_translations_into_languages_other_than_english(path: str, role: Role) -> None:
    assert file_role(path) is role


@pytest.mark.parametrize(("path", "role"), [
    ("api/v1/zz_generated.deepcopy.go", Role.GENERATED),  # Kubernetes' code generators
    ("pkg/apis/zz_generated.conversion.go", Role.GENERATED),
    ("pkg/apis/generated_types.go", Role.SOURCE)])
def test_kubernetes_generated_go_files_are_generated(path: str, role: Role) -> None:
    assert file_role(path) is role


@pytest.mark.parametrize(("path", "role"), [
    ("okio/src/jvmTest/kotlin/okio/TestUtil.kt", Role.TEST),
    ("okio/src/commonTest/kotlin/okio/MockSink.kt", Role.TEST),
    ("app/src/androidTest/java/com/example/Screens.kt", Role.TEST),
    ("lib/src/testFixtures/kotlin/Fixtures.kt", Role.TEST),
    ("okio/src/jvmMain/kotlin/okio/Buffer.kt", Role.SOURCE),
    ("src/latest/Release.kt", Role.SOURCE), ("src/contest/Entry.kt", Role.SOURCE),
    ("jvmTest/Helpers.kt", Role.SOURCE)])  # a source set is a folder of `src/`
def test_gradle_test_source_sets_are_tests(path: str, role: Role) -> None:
    # Kotlin Multiplatform and Android keep test helpers, not named *Test, in them.
    assert file_role(path) is role


# -- file-level evidence -------------------------------------------------------------------

def test_several_good_chunks_of_one_file_outweigh_one_slightly_better_chunk() -> None:
    others = [f"other{n}.py" for n in range(30)]
    recs = records("routing.py", "routing.py", "routing.py", "small.py", *others)
    scores = {1: 0.50, 2: 0.45, 3: 0.40, 4: 0.55,
              **{5 + n: 0.10 + 0.003 * n for n in range(30)}}  # the weak rest of the head
    assert best_first(scores)[0] == 4
    ranked = best_first(files.apply(scores, ctx("how are routes registered", recs, files=0.5)))
    assert ranked[0] == 1 and ranked.index(1) < ranked.index(2) < ranked.index(3)
    assert files.apply(scores, ctx("x", recs, files=0)) == scores


def test_many_weak_chunks_of_one_file_do_not_outweigh_one_strong_answer() -> None:
    """A small project: every chunk is a candidate, most barely match. Only what a chunk
    scores above most candidates counts as evidence for its file."""
    recs = records("tokens.go", "tokens.go", "tokens.go", "tokens.go", "schema.sql",
                   "router.js", "cache.ts", "retry.py")
    scores = {1: 0.0315, 2: 0.0313, 3: 0.0312, 4: 0.0311, 5: 0.0328,
              6: 0.0301, 7: 0.0300, 8: 0.0299}
    whole = Lists(whole=True)  # the store holds just these candidates
    ranked = best_first(files.apply(scores, ctx("database tables", recs, whole, files=0.2)))
    assert ranked[0] == 5
    # In a store larger than its candidates, every candidate's score is evidence.
    larger = Lists()
    assert best_first(files.apply(scores, ctx("database tables", recs, larger,
                                              files=0.2)))[0] == 1


def test_a_chunk_both_rankings_put_first_counts_its_file_twice() -> None:
    """A small file whose one chunk heads the dense and the keyword list lost to a long
    module of many middling chunks (pandoc: `Writers/CommonMark.hs`, first in both, to
    `Writers/Markdown.hs`)."""
    recs = records("CommonMark.hs", *["Markdown.hs"] * 5)
    scores = {1: 0.0328, 2: 0.029, 3: 0.02, 4: 0.02, 5: 0.02, 6: 0.02}
    apart = Lists(dense=[(2, 0.7), (1, 0.6)], keyword=[(1, 9.0), (2, 8.0)])
    assert best_first(files.apply(scores, ctx("x", recs, apart, files=0.2)))[0] == 2
    agreed = Lists(dense=[(1, 0.7), (2, 0.6)], keyword=[(1, 9.0), (2, 8.0)])
    assert agreed.agreed() == {1}
    assert best_first(files.apply(scores, ctx("x", recs, agreed, files=0.2)))[0] == 1
    # Never more than the largest file's share: its lead over that file stays its own.
    lifted = files.apply(scores, ctx("x", recs, agreed, files=0.2))
    assert lifted[1] - scores[1] <= lifted[2] - scores[2] + 1e-12


# -- words of the query in the path ------------------------------------------------------

def test_a_folder_named_by_the_query_lifts_its_file() -> None:
    recs = records("v1/client.py", "v2/client.py", "net/transport.py")
    scores = {1: 0.30, 2: 0.29, 3: 0.31}
    lifted = paths.apply(scores, ctx("how does the transport send requests", recs, path=1))
    assert best_first(lifted)[0] == 3 and lifted[3] > scores[3]
    same = paths.apply(scores, ctx("how does the transport send requests", recs, path=0))
    assert same == scores


def test_an_abbreviated_file_name_meets_the_word_it_shortens() -> None:
    recs = records("src/Core.hs", "src/Config.hs")
    scores = {1: 0.31, 2: 0.30}
    lifted = paths.apply(scores, ctx("how is the user configuration read", recs, path=1))
    assert best_first(lifted) == [2, 1]

    def meets(question: str, path: str) -> bool:
        return paths.apply({1: 1.0}, ctx(question, records(path), path=1))[1] > 1.0
    assert meets("authentication", "src/auth/session.py")
    assert meets("implementation details", "core/impl.go")
    assert not meets("log", "src/login.py")  # under four letters: only the same word
    assert meets("log", "src/log.py")


def test_a_test_named_for_the_question_gains_only_when_tests_are_asked_for() -> None:
    """A test is named for what it tests: its name matched "error handlers" better than
    the source's did, and the name's gain outweighed its prior."""
    recs = records("tests/test_user_error_handler.py", "src/app/scaffold.py")
    scores = {1: 0.25, 2: 0.31}
    question = "error handlers"
    named = paths.apply(scores, ctx(question, recs, path=2))
    assert named[1] == scores[1]
    assert best_first(priors.apply(named, ctx(question, recs))) == [2, 1]
    asked = paths.apply(scores, ctx("tests of the error handlers", recs, path=2))
    assert asked[1] > scores[1]


@pytest.mark.parametrize(("query", "wanted"), [
    ("how does it read a document", "Readers/RST.hs"),
    ("how does it write a document", "Writers/RST.hs"),
    ("how are options parsed", "parser/options.py"),
    ("how are values formatted", "formatters/values.py")])
def test_a_doer_folder_meets_its_verb(query: str, wanted: str) -> None:
    recs = records("Readers/RST.hs", "Writers/RST.hs", "parser/options.py",
                   "formatters/values.py", "misc/document.py")
    scores = dict.fromkeys(recs, 0.3)
    first = best_first(paths.apply(scores, ctx(query, recs)))[0]
    assert recs[first].path == wanted


@pytest.mark.parametrize(("text", "words"), [
    ("toString builder", {"string", "build"}), ("how does HTTPAdapter retry", {"http", "adapt",
                                                                               "retri"}),
    ("parse_args", {"pars", "arg"}), ("the", {"the"})])
def test_query_words_are_read_as_file_names_are(text: str, words: set[str]) -> None:
    assert analyse(text).file_words == words


def test_a_camel_case_word_in_the_question_meets_the_file_it_names() -> None:
    recs = records("lang3/builder/HashCodeBuilder.java", "lang3/StringUtils.java",
                   "lang3/builder/ToStringBuilder.java")
    scores = dict.fromkeys(recs, 0.3)
    first = best_first(paths.apply(scores, ctx("toString builder for descriptions", recs)))[0]
    assert recs[first].path == "lang3/builder/ToStringBuilder.java"


def test_a_name_of_short_camel_case_parts_counts_whole() -> None:
    """`LaTeX.hs` and `TeX.hs` split into parts of under three letters, which name words
    leave out: the files had no name words at all. Such a word now counts whole, in
    the file's name and in the question."""
    assert paths.name_words("src/Writers/LaTeX.hs") == {"writ", "latex"}
    assert paths.name_words("src/TeX.hs") == {"src", "tex"}
    assert "latex" in analyse("how is a document converted to LaTeX").file_words
    recs = records("src/Readers/Markdown.hs", "src/TeX.hs")
    scores = {1: 0.31, 2: 0.30}
    assert best_first(paths.apply(scores, ctx("how is TeX parsed", recs))) == [2, 1]


@pytest.mark.parametrize(("word", "root"), [
    ("reader", "read"), ("read", "read"), ("writer", "writ"), ("write", "writ"),
    ("parser", "pars"), ("pars", "pars"), ("formatt", "format"), ("format", "format"),
    ("handler", "handl"), ("handl", "handl"), ("user", "user"), ("order", "order")])
def test_doer_roots(word: str, root: str) -> None:
    assert doer(word) == root


# -- fusion -----------------------------------------------------------------------------

def test_identifier_queries_lean_on_the_keyword_list_when_told() -> None:
    recs = records("a.py", "b.py")
    lists = Lists(dense=[(1, 0.9), (2, 0.8)], keyword=[(2, 9.0), (1, 1.0)])
    even = fusion.fuse(ctx("parse_args", recs, lists))
    assert even[1] == pytest.approx(even[2])
    leaning = fusion.fuse(ctx("parse_args", recs, lists, ident_keyword=2.0))
    assert best_first(leaning) == [2, 1]
    phrase = fusion.fuse(ctx("how are arguments parsed", recs, lists, ident_keyword=2.0))
    assert phrase[1] == pytest.approx(phrase[2])  # not an identifier query: untouched


def test_a_definition_met_only_in_another_case_counts_as_one_more_list() -> None:
    """"via LaTeX" names a format, not a function `latex`: a definition spelled another
    way weighs as one more list's entry, not as the symbol list's first place; one
    spelled as written keeps it."""
    recs = records("Writers/LaTeX.hs", "Citeproc/BibTeX.hs")
    query = "how pandoc generates PDF output via LaTeX"
    heads = {"dense": [(1, 0.6)], "keyword": [(1, 20.0)]}
    cased = fusion.fuse(ctx(query, recs, Lists(**heads, symbol={2: ("latex", "function")})))
    assert best_first(cased) == [1, 2]
    assert cased[2] == pytest.approx(1 / 61)
    spelled = fusion.fuse(ctx(query, recs, Lists(**heads, symbol={2: ("LaTeX", "type")})))
    assert best_first(spelled) == [2, 1]
    off = fusion.fuse(ctx(query, recs, Lists(**heads, symbol={2: ("latex", "function")}),
                          symbol_case=0))
    assert 2 not in off


def test_a_module_level_name_weighs_fully_only_when_the_query_is_names() -> None:
    """`g` alone asks where flask's `g` is bound; a sentence or an issue naming a setting
    (`linkcheck_anchors`, which a test root's conf.py binds) asks about the code that acts
    on it: there the binding weighs as one more list's entry."""
    recs = records("sphinx/builders/linkcheck.py", "tests/roots/conf.py")
    heads = {"dense": [(1, 0.6)], "keyword": [(1, 20.0)]}
    bound = Lists(**heads, symbol={2: ("linkcheck_anchors", "variable")})
    asked = fusion.fuse(ctx("why does linkcheck_anchors report 404 errors", recs, bound))
    assert best_first(asked) == [1, 2]
    assert asked[2] == pytest.approx(1 / 61)
    named = fusion.fuse(ctx("linkcheck_anchors", recs, bound))
    assert best_first(named) == [2, 1]


def test_score_aware_fusion_tells_a_landslide_from_a_near_tie() -> None:
    recs = records("a.py", "b.py", "c.py")
    # Dense: chunk 1 by a landslide. Keyword: a near-tie in which 1 comes third.
    lists = Lists(dense=[(1, 0.90), (2, 0.20), (3, 0.19)],
                  keyword=[(2, 5.0), (3, 4.99), (1, 4.98)])
    ranks_only = fusion.fuse(ctx("how", recs, lists))
    assert best_first(ranks_only)[0] == 2
    scored = fusion.fuse(ctx("how", recs, lists, scores=2.0))
    assert best_first(scored)[0] == 1


# -- final order ------------------------------------------------------------------------

def test_one_hit_per_file_then_the_held_back_chunks() -> None:
    recs = records("a.py", "a.py", "b.py")
    ranked = order({1: 0.9, 2: 0.8, 3: 0.1}, ctx("x", recs))
    assert [cid for cid, _ in ranked] == [1, 3, 2]
    assert ranked[2][1] < ranked[1][1]
    unlimited = order({1: 0.9, 2: 0.8, 3: 0.1}, ctx("x", recs, per_file=0))
    assert [cid for cid, _ in unlimited] == [1, 2, 3]


def test_entries_deeper_than_the_head_follow_it_by_their_best_rank() -> None:
    n = 80
    recs = records(*[f"f{i}.py" for i in range(n)])
    lists = Lists(dense=[(i, 1 - i / n) for i in range(1, n + 1)],
                  keyword=[(i, float(n - i)) for i in range(n, 0, -1)])
    ranked = rank(analyse("x"), lists, recs, Weights())
    assert len(ranked) == n and len({cid for cid, _ in ranked}) == n
    scores = [s for _, s in ranked]
    assert scores == sorted(scores, reverse=True)


def test_a_head_full_of_tests_reads_on_to_the_source() -> None:
    """On a package indexed whole the tests repeat the source's words: DEPTH of them
    filled the keyword head, and the module that answers, ranked after them, was never
    ranked by the signals at all (issue #21)."""
    tests = [f"tests/test_{i}.py" for i in range(DEPTH + 10)]
    recs = records(*tests, "src/router.py")
    source = len(tests) + 1
    lists = Lists(keyword=[(i, float(100 - i)) for i in range(1, source + 1)])
    ranked = [cid for cid, _ in rank(analyse("how are routes matched"), lists, recs,
                                     Weights())]
    assert ranked[0] == source  # read on to, then ranked above the tests by the priors
    off = [cid for cid, _ in rank(analyse("how are routes matched"), lists, recs,
                                  Weights(priors=0))]
    assert off[-1] == source  # no priors: every role is wanted, the head ends at DEPTH
    asked = [cid for cid, _ in rank(analyse("how are the tests of routes set up"), lists,
                                    recs, Weights())]
    assert asked[0] == 1 and asked[-1] == source  # tests asked for: they are wanted


def test_the_head_reads_no_further_than_reach() -> None:
    recs = records(*[f"tests/test_{i}.py" for i in range(REACH + 5)], "src/router.py")
    head = Lists(dense=[(i, 1.0 - i / 1000) for i in range(1, len(recs) + 1)]).head(
        DEPTH, recs, lambda cid: not recs[cid].path.startswith("tests/"), REACH)
    assert len(head.dense) == REACH


def test_places_are_read_deeper_only_for_a_list_holding_unwanted_roles() -> None:
    n = REACH + 20
    source = records(*[f"src/m{i}.py" for i in range(n)])
    reads: list[list[int]] = []

    def read(ids: object) -> dict[int, ChunkRecord]:
        reads.append(list(ids))  # type: ignore[call-overload]
        return {cid: recs[cid] for cid in reads[-1] if cid in recs}

    entries = [(i, float(n - i)) for i in range(1, n + 1)]
    recs = source
    found = places(analyse("routes"), Lists(dense=entries, keyword=entries), read,
                   Weights(), 10)
    assert len(reads) == 1 and set(found) == set(range(1, DEPTH + 1))
    recs = records(*[f"tests/test_{i}.py" for i in range(5)],
                   *[f"src/m{i}.py" for i in range(n - 5)])
    reads.clear()
    found = places(analyse("routes"), Lists(dense=entries, keyword=entries), read,
                   Weights(), 10)
    assert len(reads) == 2 and set(found) == set(range(1, REACH + 1))
    reads.clear()
    found = places(analyse("routes"), Lists(dense=entries, keyword=entries), read,
                   Weights(), DEPTH + 1)
    assert len(reads) == 1 and set(found) == set(range(1, n + 1))  # the tail may show


def test_candidates_in_a_file_an_issue_names_gain_half_the_best_score() -> None:
    """ranking/named.py: a traceback's file lifts its candidates; a named file with no
    candidate adds none, and the weight turns it off."""
    from semlith.ranking import named

    recs = records("src/shop/cart.py", "src/shop/api.py", "src/shop/cart.py")
    scores = {1: 0.02, 2: 0.03, 3: 0.01}
    lists = Lists(named_files=frozenset({"src/shop/cart.py", "src/shop/gone.py"}))
    lifted = named.apply(scores, ctx("x", recs, lists))
    assert lifted == {1: 0.02 + 0.015, 2: 0.03, 3: 0.01 + 0.015}
    assert named.apply(scores, ctx("x", recs, lists, named=0)) == scores
    assert named.apply(scores, ctx("x", recs)) == scores
    assert lists.head(1).named_files == lists.named_files
