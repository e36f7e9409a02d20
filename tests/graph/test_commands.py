"""neighbors, impact, path through the library and the CLI (issue #22): the JSON
contract, statuses, bounds that say what they left out, names refused with the nearest
real ones, and a path that never crosses an ambiguous call unless asked."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from semlith.base.settings import Settings
from semlith.errors import BadTarget, UnknownSymbol
from semlith.local import LocalLibrary
from semlith.types import Filters, Scope
from semlith.types.graph import Brief
from tests.cli_util import run
from tests.conftest import RecordingFactory
from tests.graph.conftest import GRAPH

AMBIGUOUS = {  # notify() calls send() on an untyped parameter: Mail's or Sms's
    "mail.py": "class Mail:\n    def send(self):\n        pass\n",
    "sms.py": "class Sms:\n    def send(self):\n        pass\n",
    "app.py": "def notify(channel):\n    channel.send()\n\n\ndef main():\n    notify(None)\n",
}
ENTRY = {"store", "name", "path", "start_line", "end_line", "line", "site", "kind", "status",
         "candidates", "depth"}


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, LocalLibrary]]:
    tmp = tmp_path_factory.mktemp("cmds")
    root = tmp / "shop"
    shutil.copytree(GRAPH / "python", root, ignore=shutil.ignore_patterns("expected.json"))
    for name, text in AMBIGUOUS.items():
        (root / "notify" / name).parent.mkdir(exist_ok=True)
        (root / "notify" / name).write_text(text)
    settings = Settings.load(env={"SEMLITH_HOME": str(tmp / "home")})
    library = LocalLibrary(settings, embedder_factory=RecordingFactory())
    assert library.index([str(root)]).indexed == 9
    yield root, library
    library.close()


def scope(root: Path) -> Scope:
    return Scope((str(root),))


def test_neighbors_json_contract_and_statuses(project: tuple[Path, LocalLibrary]) -> None:
    root, library = project
    answer = library.neighbors("Base.save", kinds=("calls",), scope=scope(root)).as_json()
    assert set(answer) >= {"symbol", "callers", "callees", "omitted"}
    assert answer["symbol"]["name"] == "Base.save"
    assert all(set(e) == ENTRY for e in answer["callers"] + answer["callees"])
    callers = {(e["name"], e["site"], e["line"], e["status"]) for e in answer["callers"]}
    assert callers == {("main", "app.py", 9, "resolved"),
                       ("Cart.add", "shop/models.py", 32, "extracted")}
    assert [(e["name"], e["status"]) for e in answer["callees"]] == [
        ("Base.validate", "extracted")]


def test_kinds_inherits_and_contains(project: tuple[Path, LocalLibrary]) -> None:
    root, library = project
    base = library.neighbors("Base", kinds=("inherits", "contains"), scope=scope(root))
    assert ("Cart", "inherits") in {(e.name, e.kind) for e in base.links_in}
    assert {e.name for e in base.links_out if e.kind == "contains"} == {"Base.save",
                                                                         "Base.validate"}
    assert base.callers == base.callees == ()  # never counted as calls (issue #45)
    cart = library.neighbors("Cart", kinds=("imports",), scope=scope(root))
    assert {e.site for e in cart.links_in} >= {"app.py", "shop/__init__.py"}
    assert cart.callers == ()
    both = library.neighbors("Cart", scope=scope(root))
    assert {e.kind for e in both.callers} == {"calls"} and both.links_in and both.links_out


def test_ambiguous_callees_collapse_into_one_row_unless_all(
        project: tuple[Path, LocalLibrary]) -> None:
    root, library = project
    collapsed = library.neighbors("notify", kinds=("calls",), scope=scope(root)).callees
    assert [(e.name, e.status, e.candidates, e.path) for e in collapsed] == [
        ("channel.send", "ambiguous", 2, "")]
    every = library.neighbors("notify", kinds=("calls",), all_edges=True,
                              scope=scope(root)).callees
    assert sorted(e.name for e in every) == ["Mail.send", "Sms.send"]
    mail = library.neighbors("Mail.send", kinds=("calls",), scope=scope(root))
    assert mail.callers == () and mail.omitted == {"ambiguous_callers": 1}


def test_impact_goes_back_fewest_hops_first(project: tuple[Path, LocalLibrary]) -> None:
    root, library = project
    answer = library.impact("Base.validate", scope=scope(root))
    assert [(e.name, e.depth, f"{e.site}:{e.line}") for e in answer.entries] == [
        ("Base.save", 1, "shop/models.py:14"), ("main", 2, "app.py:9"),
        ("Cart.add", 2, "shop/models.py:32")]
    assert [e.depth for e in library.impact("Base.validate", depth=1,
                                            scope=scope(root)).entries] == [1]


def test_path_over_settled_edges(project: tuple[Path, LocalLibrary]) -> None:
    root, library = project
    answer = library.path("main", "Store.put", filters=Filters(paths=("app.py", "shop/*")),
                          scope=scope(root))
    assert [(h.name, h.evidence, h.status) for h in answer.hops] == [
        ("Cart.add", "app.py:8", "resolved"), ("Store.put", "shop/models.py:31", "resolved")]
    assert not answer.hypothesis


def test_path_refuses_to_cross_an_ambiguous_call(project: tuple[Path, LocalLibrary]) -> None:
    root, library = project
    refused = library.path("main", "Mail.send", filters=Filters(paths=("notify/*",)),
                           scope=scope(root))
    assert refused.hops == () and "channel.send" not in refused.blocked
    assert "`send` at notify/app.py:2 could mean 2 definitions" in refused.blocked
    guessed = library.path("main", "Mail.send", filters=Filters(paths=("notify/*",)),
                           all_edges=True, scope=scope(root))
    assert guessed.hypothesis and [h.status for h in guessed.hops] == ["extracted",
                                                                       "ambiguous"]


def test_unknown_names_are_refused_with_the_nearest_real_ones(
        project: tuple[Path, LocalLibrary]) -> None:
    root, library = project
    for ask in (lambda: library.neighbors("Nonexistent.save", scope=scope(root)),
                lambda: library.impact("Nonexistent.save", scope=scope(root)),
                lambda: library.path("main", "Nonexistent.save", scope=scope(root))):
        with pytest.raises(UnknownSymbol, match=r"no definition of `Nonexistent.save`.*"
                           r"nearest: Base.save"):
            ask()


def test_filters_choose_among_definitions_of_one_name(
        project: tuple[Path, LocalLibrary]) -> None:
    root, library = project
    default = library.neighbors("format", scope=scope(root))
    chosen = library.neighbors("format", filters=Filters(paths=("shop/report.py",)),
                               scope=scope(root))
    assert default.others == 1 and chosen.symbol.path == "shop/report.py"
    assert {e.name for e in chosen.callers} == {"write"}


def test_answers_are_bounded_and_say_what_they_left_out(
        project: tuple[Path, LocalLibrary]) -> None:
    root, library = project
    small = library.neighbors("Base.save", kinds=("calls",), budget=100, scope=scope(root))
    full = library.neighbors("Base.save", kinds=("calls",), scope=scope(root))
    assert len(small.callers) < len(full.callers)
    assert small.omitted["callers"] == len(full.callers) - len(small.callers)
    assert small.omitted["files"] >= 1
    with pytest.raises(ValueError, match="budget must be 100 to 25,000 tokens"):
        library.neighbors("Base.save", budget=30_000, scope=scope(root))


def test_the_cli(project: tuple[Path, LocalLibrary]) -> None:
    root, _ = project
    store = str(root / ".semlith")
    shown = run("neighbors", "Base.save", "--store", store)
    assert shown.exit_code == 0, shown.output
    assert "main  app.py:6-14  [calls, resolved]  at app.py:9" in shown.output
    missing = run("neighbors", "Nonexistent.save", "--store", store)
    assert missing.exit_code == 1
    assert "no definition of `Nonexistent.save`; nearest: Base.save" in missing.output
    hops = run("path", "main", "Store.put", "--path", "app.py", "--path", "shop/*", "--json",
               "--store", store)
    chain = json.loads(hops.output)
    assert hops.exit_code == 0 and [h["evidence"] for h in chain["hops"]] == [
        "app.py:8", "shop/models.py:31"]
    assert chain["length"] == 2 and chain["omitted"] == {} and not chain["stopped"]
    blocked = run("path", "main", "Mail.send", "--path", "notify/*", "--store", store)
    assert blocked.exit_code == 1 and "not settled (--all-edges" in blocked.output
    guess = run("path", "main", "Mail.send", "--path", "notify/*", "--all-edges",
                "--store", store)
    assert guess.exit_code == 0 and guess.output.startswith("HYPOTHESIS")
    small = run("impact", "Base.validate", "--budget", "100", "--store", store)
    assert small.exit_code == 0 and "0 of 3 entries shown" in small.output
    assert "(none shown)" in small.output and len(small.output) <= 100 * 4


def test_symbol_and_read_refuse_an_owner_that_has_no_such_method(
        project: tuple[Path, LocalLibrary]) -> None:
    root, library = project
    with pytest.raises(UnknownSymbol,
                       match=r"^no definition of `Nonexistent.save`; nearest: Base.save$"):
        library.symbol("Nonexistent.save", scope=scope(root))
    # a read names a file or a symbol: refused as either, with the nearest real names
    with pytest.raises(BadTarget, match=r"neither an indexed file nor a symbol \(no "
                                        r"definition of `Nonexistent.save`; nearest: Base.save\)"):
        library.read("Nonexistent.save", scope=scope(root))
    assert next(h.qualname for h in library.symbol("Base.save", scope=scope(root))) == \
        "Base.save"
    refused = run("symbol", "Nonexistent.save", "--store", str(root / ".semlith"))
    assert refused.exit_code == 1 and "nearest: Base.save" in refused.output


def test_brief_gives_locators_calls_and_text_within_its_budget(
        project: tuple[Path, LocalLibrary]) -> None:
    root, library = project
    answer = library.brief("notify channel send", scope=scope(root))
    assert answer.hits[0].path == "notify/app.py" and answer.symbol == "notify"
    assert [e.name for e in answer.callers] == ["main"]
    assert [(e.name, e.status) for e in answer.callees] == [("channel.send", "ambiguous")]
    assert "def notify(channel):" in answer.text and answer.trimmed == 0
    assert Brief.from_json(json.loads(json.dumps(answer.as_json()))).callers == \
        answer.callers
    full = library.brief("the base every model saves through", scope=scope(root))
    small = library.brief("the base every model saves through", budget=100,
                          scope=scope(root))
    assert full.hits[0].path == small.hits[0].path == "shop/models.py"
    assert full.trimmed == 0 and small.trimmed > 0 and small.text  # text trimmed last
    shown = run("brief", "the base every model saves through", "--budget", "100",
                "--store", str(root / ".semlith"))
    assert shown.exit_code == 0 and len(shown.output) <= 100 * 4 + 80  # + the trim note
    shown = run("brief", "notify channel send", "--store", str(root / ".semlith"))
    assert shown.exit_code == 0 and shown.output.startswith("notify/app.py:")
    assert "called by main at notify/app.py:6" in shown.output


def test_brief_reads_the_registry_once(project: tuple[Path, LocalLibrary],
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """Its search and its graph share one read of the stores (two cost ~40 ms each at
    1,500 registered stores)."""
    root, library = project
    reads = []
    resolve = library._resolve
    monkeypatch.setattr(library, "_resolve",
                        lambda *a, **k: reads.append(a) or resolve(*a, **k))
    assert library.brief("notify channel send", scope=scope(root)).symbol == "notify"
    assert len(reads) == 1
    with pytest.raises(ValueError, match="empty"):
        library.brief("  ", scope=scope(root))


def test_symbol_shows_the_callers_and_callees_of_its_best_definition(
        project: tuple[Path, LocalLibrary]) -> None:
    root, library = project
    best = library.symbol("Base.save", scope=scope(root))[0]
    assert best.callers == ("main app.py:9", "Cart.add shop/models.py:32")  # by path
    assert best.callees == ("Base.validate shop/models.py:17-18",)
    shown = run("symbol", "Base.save", "--store", str(root / ".semlith"))
    assert "    called by: main app.py:9, Cart.add shop/models.py:32" in shown.output


def test_a_name_bound_by_assignment_says_its_callers_are_not_counted(
        project: tuple[Path, LocalLibrary]) -> None:
    # shop/models.py: `log = logging.getLogger(__name__)`; `log.info(...)` calls the
    # logger, not the assignment: the graph counts no caller and says why.
    root, library = project
    answer = library.neighbors("log", kinds=("calls",), scope=scope(root))
    assert (answer.symbol.kind, answer.symbol.path) == ("variable", "shop/models.py")
    assert answer.omitted["value_binding"] == 1
    assert answer.callers_counted == "≥ 0; calls through it uncounted"
    impact = library.impact("log", depth=2, scope=scope(root))
    assert impact.omitted["value_binding"] == 1
    assert "not counted" in run("neighbors", "log", "--store", str(root)).output
    assert "value_binding" not in library.neighbors("Base.save", scope=scope(root)).omitted
