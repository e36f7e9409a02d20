"""What part a file plays in a project, read from its path alone.

A question about how code works wants the source that does it, not its tests, its
changelog, a vendored copy or a build manifest — unless the question asks for those.
Search demotes by role (semlith/ranking/priors.py), `semlith symbol` lists tests last,
and the indexer embeds source first. The rules are conventions shared across
ecosystems (pytest, Jest, Go, Rust, RSpec, JUnit, Maven/Gradle layouts, Keep a
Changelog, GitHub community files), never names from one project.
"""

from __future__ import annotations

import functools
import itertools
import re
from enum import StrEnum
from pathlib import PurePosixPath


class Role(StrEnum):
    SOURCE = "source"
    TEST = "test"
    DOCS = "docs"  # prose: READMEs, guides, docs/ folders
    CHANGELOG = "changelog"
    COMMUNITY = "community"  # code of conduct, contributing, licence, authors, security
    EXAMPLE = "example"
    BENCHMARK = "benchmark"
    VENDORED = "vendored"
    GENERATED = "generated"
    LEGACY = "legacy"  # compat shims, deprecated copies
    DECLARATIONS = "declarations"  # type stubs: .d.ts, .pyi
    CONFIG = "config"  # build manifests, CI, lint and tool settings
    SNAPSHOT = "snapshot"  # recorded test outputs: .snap, .stderr, __snapshots__
    TRANSLATION = "translation"  # the messages in one language other than English
    PREAMBLE = "preamble"  # a file's licence banner and imports (a chunk kind, not a path)


# The kind of a chunk of test code kept in a source file (a Rust `#[cfg(test)] mod tests`,
# a Zig `test` block): the chunk planner (ingest/plan.py) marks it, search weighs it as a
# test (ranking/priors.py).
TEST_KIND = "test"
# The kind of every chunk of a small file whose header says a tool wrote it (`// Code
# generated ... DO NOT EDIT.`: ingest/generated.py; large ones are not indexed at all).
GENERATED_KIND = "generated"
# The kind of a chunk that is only a file's licence banner, package line and imports,
# above its first definition (ingest/preamble.py).
PREAMBLE_KIND = "preamble"
# What such a chunk weighs as, whatever its file's role (ranking/priors.py).
KIND_ROLES = {TEST_KIND: Role.TEST, GENERATED_KIND: Role.GENERATED}


_TEST_DIRS = frozenset({"test", "tests", "spec", "specs", "__tests__", "t",
                        "testdata", "test_data", "fixtures", "__fixtures__", "__mocks__",
                        "mocks", "e2e", "integration_tests", "unittests", "testsuite",
                        "fuzz", "fuzzing", "fuzz_targets"})  # cargo-fuzz, OSS-Fuzz harnesses
# Test file names by ecosystem: the convention of the file's own language, so a test
# framework's own `test_functions.bash` is source while `test_app.py` is a test.
_TEST_NAMES: tuple[tuple[frozenset[str], re.Pattern[str]], ...] = (
    (frozenset({".py", ".pyi"}), re.compile(r"^(test_.+|.+_tests?|conftest|tests?)$")),
    (frozenset({".go"}), re.compile(r"^.+_test$")),
    (frozenset({".js", ".jsx", ".ts", ".tsx", ".mjs", ".cjs", ".mts", ".cts"}),
     re.compile(r"^.+\.(test|spec|e2e)$|^.+[._-](test|spec)s?$")),
    (frozenset({".java", ".kt", ".kts", ".scala", ".cs", ".groovy", ".php", ".swift"}),
     re.compile(r"^.+(Tests?|Spec|IT|TestCase)$")),
    (frozenset({".rb"}), re.compile(r"^(test_.+|.+_(spec|test))$")),
    (frozenset({".ex", ".exs"}), re.compile(r"^.+_test$")),
    (frozenset({".hs"}), re.compile(r"^.+(Spec|Test|Tests)$")),
    (frozenset({".c", ".cc", ".cpp", ".cxx", ".h", ".hh", ".hpp", ".rs", ".zig", ".lua"}),
     re.compile(r"^(tests?|test_.+|.+_(test|tests|unittest)|.+-test)$")),  # Rust `tests.rs`
    (frozenset({".bats"}), re.compile(r".*")),
    (frozenset({".sh", ".bash"}), re.compile(r"^.+[._-]test$")),
)
_SOURCE_SET_TEST = re.compile(r"^[a-z][A-Za-z0-9]*Test$")  # camelCase: `jvmTest`, not `latest`
# A project or package of tests named for what it tests: .NET's `Serilog.Tests/`,
# `Foo.UnitTests/`, `Foo.Specs/`, and `runtime-tests/` (lower-cased folder names).
_TEST_PROJECT = re.compile(r"^[^.].*\.(\w*tests?|specs?)$|^.+-tests$")
_DOC_DIRS = frozenset({"doc", "docs", "documentation", "guide", "guides", "manual",
                       "man", "site", "website", "wiki"})
_PROSE = frozenset({".md", ".markdown", ".mdx", ".rst", ".txt", ".adoc", ".asciidoc",
                    ".org", ".textile", ".pod", ".rdoc", ".texi", ".1", ".3", ".5", ".7"})
_CHANGELOG = re.compile(r"^(change(s|log)?|history|news|releases?|release[-_]notes|"
                        r"upgrad(e|ing)|migrat(e|ion|ing)|whatsnew)([-_.].*)?$", re.I)
# Without a suffix (`ChangeLog`, `NEWS`) only the names that are never a script's.
_CHANGELOG_BARE = re.compile(r"^(change(s|log)|history|news|release[-_]notes|whatsnew)$",
                             re.I)
_COMMUNITY = re.compile(r"^(code[-_]of[-_]conduct|contributing|contributors|authors|"
                        r"maintainers|security|support|governance|licen[cs]e|copying|"
                        r"notice|funding|codeowners|patents)([-_.].*)?$", re.I)
_EXAMPLE_DIRS = frozenset({"example", "examples", "_example", "_examples", "sample", "samples",
                           "demo", "demos", "tutorial", "tutorials", "cookbook", "playground",
                           "sandbox", "docs_src"})
_BENCH_DIRS = frozenset({"bench", "benches", "benchmark", "benchmarks", "perf"})
_BENCH_FILE = re.compile(r"^.+[_-](benchmark|benchmarks|bench)$")
_VENDOR_DIRS = frozenset({"vendor", "vendored", "third_party", "third-party", "thirdparty",
                          "external", "extern", "deps", "node_modules", "bower_components",
                          "_vendor", "site-packages"})
_GENERATED_DIRS = frozenset({"generated", "gen", "__generated__", "autogen", "dist",
                             "build", "out", "target"})
_GENERATED_FILE = re.compile(
    r"(\.min\.(js|css)|\.bundle\.js|_pb2(_grpc)?\.pyi?|\.pb\.(go|cc|h)|\.pb\.gw\.go|"
    r"_generated\.\w+|\.generated\.\w+|\.g\.(dart|cs)|\.designer\.cs|\.lock|-lock\.json|"
    r"\.map|^package\.resolved|^zz_generated\..+)$", re.I)
_LEGACY_DIRS = frozenset({"compat", "legacy", "deprecated", "old", "obsolete", "_compat",
                          "backport", "backports", "polyfills"})
_LEGACY_FILE = re.compile(r"^(_?compat|legacy|deprecated|backports?)(_.*)?$", re.I)
_DECLARATIONS = re.compile(r"(\.d\.[cm]?ts|\.pyi)$")
_CONFIG_NAMES = frozenset({
    "package.json", "pyproject.toml", "setup.py", "setup.cfg", "cargo.toml", "go.mod",
    "go.sum", "gemfile", "rakefile", "makefile", "gnumakefile", "cmakelists.txt",
    "build.gradle", "build.gradle.kts", "settings.gradle", "pom.xml", "build.sbt",
    "composer.json", "tsconfig.json", "jsconfig.json", "babel.config.js", "webpack.config.js",
    "rollup.config.js", "vite.config.ts", "vite.config.js", "jest.config.js", "tox.ini",
    "noxfile.py", ".eslintrc", ".eslintrc.js", ".eslintrc.json", ".prettierrc", "mkdocs.yml",
    "dockerfile", "docker-compose.yml", "meson.build", "configure.ac", "bower.json",
    "manifest.in", "requirements.txt", "pipfile", "justfile", "stack.yaml", "cabal.project",
    "package.yaml", "dune-project", "mix.exs", "deno.json", "renovate.json",
    "package.swift", "podfile", "cartfile", "build.zig", "build.zig.zon",
    "settings.gradle.kts", "gradle.properties", "plugins.sbt", "directory.build.props",
    "directory.build.targets", "global.json", "nuget.config"})
# Build settings that IDEs write (Xcode's project and schemes, MSBuild projects) too.
_CONFIG_SUFFIXES = (".gemspec", ".cabal", ".csproj", ".sln", ".podspec", ".nuspec",
                    ".yml", ".yaml", ".toml", ".ini", ".cfg", ".conf", ".editorconfig",
                    ".pbxproj", ".xcconfig", ".xcscheme", ".xcworkspacedata", ".fsproj",
                    ".vbproj", ".vcxproj", ".rockspec", ".dotsettings", ".storyboard", ".xib")
_CONFIG_DIRS = frozenset({".github", ".circleci", ".gitlab", ".buildkite", "ci", ".ci"})
# A project's messages in each language: `locales/de.ts`, `i18n/fr/docs/intro.md`,
# `locale/pt_BR/LC_MESSAGES/app.po`, `translations/zh-CN.json`. The part after such a
# folder is a language: an ISO 639-1 code, a few common others (`kh`, `ua`, `ckb`),
# with a region or script (`pt-BR`, `zh_Hant`); `i18n/ui.ts` is code. English is the
# one the code is written against, so it is source; `lang/` is left out (a folder of
# programming languages: `lang/cs.ts`, `lang/ts.ts`).
_TRANSLATION_DIRS = frozenset({"locale", "locales", "i18n", "l10n", "translations",
                               "translation"})
_LANGUAGES = frozenset("""
    aa ab ae af ak am an ar as av ay az ba be bg bh bi bm bn bo br bs ca ce ch co cr cs cu
    cv cy da de dv dz ee el en eo es et eu fa ff fi fj fo fr fy ga gd gl gn gu gv ha he hi
    ho hr ht hu hy hz ia id ie ig ii ik io is it iu ja jv ka kg ki kj kk kl km kn ko kr ks
    ku kv kw ky la lb lg li ln lo lt lu lv mg mh mi mk ml mn mr ms mt my na nb nd ne ng nl
    nn no nr nv ny oc oj om or os pa pi pl ps pt qu rm rn ro ru rw sa sc sd se sg si sk sl
    sm sn so sq sr ss st su sv sw ta te tg th ti tk tl tn to tr ts tt tw ty ug uk ur uz ve
    vi vo wa wo xh yi yo za zh zu  kh ua  ckb ota fil yue haw ast kab sah chr gsw nds
    """.split())
_LANGUAGE = re.compile(r"([a-z]{2,3})(?:[-_](?:[a-z]{2}|[a-z]{4}|\d{3}))?")


def translation_language(path: str) -> str | None:
    """The language (`de` of `locales/de-AT.json`) a file translates the project's messages
    into, or None for English and for files that are no translation."""
    parts = path.lower().split("/")
    for folder, part in itertools.pairwise(parts):
        if folder in _TRANSLATION_DIRS:
            match = _LANGUAGE.fullmatch(part.split(".", 1)[0])
            language = match.group(1) if match else None
            return language if language in _LANGUAGES and language != "en" else None
    return None


_SNAPSHOT = re.compile(r"(\.snap|\.stderr|\.stdout|\.golden|\.expected|\.out|\.approved\.\w+)$",
                       re.I)


@functools.lru_cache(maxsize=65536)
def file_role(path: str) -> Role:
    """The role of a file from its path relative to its root (posix separators)."""
    original = PurePosixPath(path)
    pure = PurePosixPath(path.lower())
    name, suffix = pure.name, pure.suffix
    stem = name.split(".", 1)[0] if not name.startswith(".") else name
    folders = set(pure.parts[:-1])
    prose = suffix in _PROSE or (suffix == "" and original.name.isupper())
    if folders & _VENDOR_DIRS:
        return Role.VENDORED
    if _SNAPSHOT.search(name) or "__snapshots__" in folders:
        return Role.SNAPSHOT
    if _GENERATED_FILE.search(name) or folders & _GENERATED_DIRS:
        return Role.GENERATED
    if name in _CONFIG_NAMES:
        return Role.CONFIG
    if (prose and _CHANGELOG.match(stem)) or (suffix == "" and _CHANGELOG_BARE.match(name)):
        return Role.CHANGELOG
    if (prose or suffix == "") and _COMMUNITY.match(stem):
        return Role.COMMUNITY
    if folders & _TEST_DIRS or _test_name(original) or _test_source_set(original) or \
            any(_TEST_PROJECT.match(folder) for folder in folders):
        return Role.TEST
    if any(folder.endswith(".docc") for folder in folders):
        return Role.DOCS  # an Apple DocC catalog: its tutorials and their code steps too
    if folders & _EXAMPLE_DIRS:
        return Role.EXAMPLE
    if folders & _BENCH_DIRS or _BENCH_FILE.match(stem):
        return Role.BENCHMARK
    if translation_language(path) is not None:  # translated docs too: `i18n/fr/intro.md`
        return Role.TRANSLATION
    if prose:
        return Role.DOCS
    if _DECLARATIONS.search(name):
        return Role.DECLARATIONS
    if folders & _LEGACY_DIRS or _LEGACY_FILE.match(stem):
        return Role.LEGACY
    if name.endswith(_CONFIG_SUFFIXES) or folders & _CONFIG_DIRS:
        return Role.CONFIG
    if folders & _DOC_DIRS:
        return Role.DOCS
    return Role.SOURCE


def _test_name(path: PurePosixPath) -> bool:
    suffix = path.suffix.lower()
    stem = path.name[: -len(path.suffix)] if path.suffix else path.name
    return any(suffix in suffixes and pattern.match(stem) for suffixes, pattern in _TEST_NAMES)


def _test_source_set(path: PurePosixPath) -> bool:
    """A Gradle source set of tests: `src/test/`, and in Kotlin Multiplatform and Android
    projects `src/commonTest/`, `src/jvmTest/`, `src/androidTest/`, `src/testFixtures/`."""
    parts = path.parts[:-1]
    return any(parent == "src" and (_SOURCE_SET_TEST.match(child) is not None
                                    or child == "testFixtures")
               for parent, child in itertools.pairwise(parts))


def is_test(path: str) -> bool:
    return file_role(path) is Role.TEST


# The order files are embedded in: what questions are most often about first, so that a
# large first run answers for its source early while tests, docs and the rest catch up
# (each file is keyword-searchable as soon as it is cut, whatever its place).
_EMBED_RANK = {Role.SOURCE: 0, Role.DECLARATIONS: 1, Role.LEGACY: 1, Role.CONFIG: 2,
               Role.DOCS: 2, Role.EXAMPLE: 3, Role.TEST: 4, Role.BENCHMARK: 4,
               Role.SNAPSHOT: 5, Role.CHANGELOG: 5, Role.COMMUNITY: 5, Role.VENDORED: 6,
               Role.GENERATED: 6, Role.TRANSLATION: 5}


def embed_rank(rel: str) -> int:
    """Where a file comes in an index run's embedding order: source 0 ... generated 6."""
    return _EMBED_RANK.get(file_role(rel), 3)
