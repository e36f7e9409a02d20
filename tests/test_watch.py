"""The watcher with real inotify events and real files, asserted through searches."""

from __future__ import annotations

import errno
import os
import shutil
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from semlith.base.settings import Settings
from semlith.index import watch as watch_module
from semlith.index.watch import StoreWatcher
from semlith.types import IndexReport
from tests.watch_util import Watched, eventually

SAMPLE = Path(__file__).resolve().parent.parent / "fixtures" / "sample"
@pytest.fixture
def watched(tmp_path: Path, settings: Settings) -> Iterator[Watched]:
    root = tmp_path / "proj"
    shutil.copytree(SAMPLE, root, ignore=shutil.ignore_patterns(".semlith"))
    w = Watched(root, None, settings)
    w.watcher.start(catch_up=True)
    eventually(lambda: w.watcher.state.batches >= 1 and w.has("net/retry.py"))
    yield w
    w.close()


def test_create_modify_delete(watched: Watched) -> None:
    (watched.root / "net" / "quota.py").write_text("def zanzibar_quota():\n    return 7\n")
    eventually(lambda: watched.paths("zanzibar_quota")[:1] == ["net/quota.py"])
    (watched.root / "net" / "quota.py").write_text("def kilimanjaro_limit():\n    return 8\n")
    eventually(lambda: watched.paths("kilimanjaro_limit")[:1] == ["net/quota.py"])
    assert watched.holding("zanzibar_quota") == []
    (watched.root / "net" / "quota.py").unlink()
    eventually(lambda: watched.gone("net/quota.py"))
    assert watched.holding("kilimanjaro_limit") == []


def test_rename_and_move_across_folders_are_not_reembedded(watched: Watched) -> None:
    before = watched.embedded
    os.rename(watched.root / "net" / "retry.py", watched.root / "net" / "backoff.py")
    eventually(lambda: watched.has("net/backoff.py") and watched.gone("net/retry.py"))
    os.rename(watched.root / "net" / "backoff.py", watched.root / "web" / "backoff.py")
    eventually(lambda: watched.has("web/backoff.py") and watched.gone("net/backoff.py"))
    assert watched.paths("RetryPolicy")[0] == "web/backoff.py"
    assert watched.embedded == before  # moves cost no embedding


def test_atomic_save_via_rename_is_one_edit(watched: Watched) -> None:
    batches = watched.watcher.state.batches
    target = watched.root / "auth" / "tokens.go"
    tmp = target.with_name(".tokens.go.swp")
    tmp.write_text("package auth\n\nfunc PapayaWhip() string { return \"x\" }\n")
    os.replace(tmp, target)
    # A file is keyword-searchable before its batch ends (progressive writes).
    eventually(lambda: watched.holding("PapayaWhip") == ["auth/tokens.go"]
               and watched.watcher.state.batches > batches)
    assert watched.watcher.state.batches == batches + 1
    assert watched.gone("auth/.tokens.go.swp")


def test_ignored_changes_cost_nothing_and_gitignore_edits_reevaluate(watched: Watched) -> None:
    batches = watched.watcher.state.batches
    (watched.root / "node_modules").mkdir()
    (watched.root / "node_modules" / "lib.js").write_text("function umbrella() {}\n")
    (watched.root / "net" / "marker.py").write_text("MARKER_TANGERINE = 1\n")
    eventually(lambda: watched.has("net/marker.py"))
    assert watched.watcher.state.batches == batches + 1
    assert watched.gone("node_modules/lib.js")
    (watched.root / ".gitignore").write_text("docs/\n")
    eventually(lambda: watched.gone("docs/deployment.md"))
    (watched.root / ".gitignore").write_text("")
    eventually(lambda: watched.has("docs/deployment.md"))


def test_a_burst_of_2000_files_ends_exactly_like_a_full_index(watched: Watched,
                                                               tmp_path: Path,
                                                               settings: Settings) -> None:
    burst = watched.root / "burst"
    for n in range(2000):
        folder = burst / f"d{n // 100:02d}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"f{n:04d}.py").write_text(f"VALUE_{n} = {n}  # burst file\n")
    for n in range(0, 2000, 7):  # and some churn inside the burst
        (burst / f"d{n // 100:02d}" / f"f{n:04d}.py").write_text(f"CHANGED_{n} = 1\n")
    eventually(lambda: watched.has("burst/d19/f1999.py"), timeout=120)
    eventually(lambda: watched.watcher.state.pending == 0, timeout=120)
    fresh = Watched(watched.root, tmp_path / "fresh-store", settings)
    fresh.indexer.run()
    ours = {f.path: f.hash for f in watched.store.catalog.files()}
    theirs = {f.path: f.hash for f in fresh.store.catalog.files()}
    fresh.store.close()
    assert ours == theirs and len(ours) == 2009


def test_root_deleted_and_recreated(tmp_path: Path, settings: Settings,
                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """The deletion arrives as an event: the watcher does not wait for its slow look at
    the root (an hour here) to notice it (issue #25)."""
    monkeypatch.setattr(watch_module, "ROOT_CHECK_SECONDS", 3600.0)
    root = tmp_path / "proj"
    shutil.copytree(SAMPLE, root, ignore=shutil.ignore_patterns(".semlith"))
    w = Watched(root, tmp_path / "store", settings)  # the store lives outside the root
    w.watcher.start(catch_up=True)
    try:
        eventually(lambda: w.has("net/retry.py"))
        shutil.rmtree(root)
        eventually(lambda: w.watcher.state.mode == "root missing")
        root.mkdir()
        (root / "fresh.py").write_text("def phoenix_rises():\n    return True\n")
        eventually(lambda: w.watcher.state.mode == "events")
        eventually(lambda: w.paths("phoenix_rises")[:1] == ["fresh.py"])
        eventually(lambda: w.gone("net/retry.py"))
    finally:
        w.close()


def test_a_vanished_root_stops_its_observer_without_holding_the_watcher(
        tmp_path: Path, settings: Settings) -> None:
    """watchdog dispatches events holding its observer's lock, and `stop()` needs that
    lock: an observer stopped while the watcher held its own lock deadlocked with an
    event waiting for it (the full suite hung in the test above). This observer, like
    watchdog's, delivers one pending event from its dispatch thread when stopped and
    waits for it."""
    dispatched: list[bool] = []

    class Dispatching:
        def schedule(self, handler: object, path: str, recursive: bool = False,
                     event_filter: object = None) -> None:
            self.handler, self.path = handler, path

        def start(self) -> None:
            pass

        def stop(self) -> None:
            event = type("Event", (), {"event_type": "deleted", "is_directory": True,
                                       "src_path": self.path})()  # the root's deletion
            thread = threading.Thread(target=self.handler.dispatch, args=(event,),  # type: ignore[attr-defined]
                                      daemon=True)
            thread.start()
            thread.join(timeout=5)
            dispatched.append(not thread.is_alive())

        def join(self, timeout: float | None = None) -> None:
            pass

    root = tmp_path / "proj"
    shutil.copytree(SAMPLE, root, ignore=shutil.ignore_patterns(".semlith"))
    Watched.observer_factory = Dispatching
    try:
        w = Watched(root, tmp_path / "store", settings)
    finally:
        Watched.observer_factory = None
    w.watcher.start(catch_up=True)
    try:
        eventually(lambda: w.has("net/retry.py"))
        shutil.rmtree(root)
        w.watcher.event(str(root))  # the root's own deletion event
        eventually(lambda: w.watcher.state.mode == "root missing" and bool(dispatched))
        assert dispatched == [True]  # the event got the lock while the observer stopped
    finally:
        w.close()


def test_watch_limit_falls_back_to_rescans(tmp_path: Path, settings: Settings,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """The OS refusing more watches (inotify limit) is simulated at the observer."""
    monkeypatch.setattr("semlith.index.watch.RESCAN_SECONDS", 0.5)

    class Refusing:
        def schedule(self, *args: object, **kwargs: object) -> None:
            raise OSError(errno.ENOSPC, "inotify watch limit reached")

    root = tmp_path / "proj"
    shutil.copytree(SAMPLE, root, ignore=shutil.ignore_patterns(".semlith"))
    Watched.observer_factory = Refusing
    try:
        w = Watched(root, None, settings)
    finally:
        Watched.observer_factory = None
    w.watcher.start(catch_up=True)
    try:
        eventually(lambda: w.has("net/retry.py"))
        assert w.watcher.state.mode.startswith("rescanning")
        assert "fs.inotify.max_user_watches" in w.watcher.state.mode
        (root / "late.py").write_text("def nightingale():\n    return 1\n")
        eventually(lambda: w.paths("nightingale")[:1] == ["late.py"])
    finally:
        w.close()


def test_ten_saves_in_six_seconds(watched: Watched) -> None:
    """An editor saving every 0.6 s: the first save is indexed at once, the rest are
    coalesced by the cooldown (0.3 s here, 3 s by default)."""
    target = watched.root / "web" / "router.js"
    batches = watched.watcher.state.batches
    for n in range(10):
        target.write_text(f"// revision {n}\nfunction route_{n}() {{}}\n")
        time.sleep(0.05)
    eventually(lambda: watched.paths("route_9")[:1] == ["web/router.js"])
    assert watched.watcher.state.batches - batches <= 3


@pytest.mark.slow
@pytest.mark.model
def test_daemon_catches_up_then_follows_edits(tmp_path: Path) -> None:
    """The real daemon: a change made while it was stopped is caught up at start, and
    an edit while it runs becomes searchable, both through `semlith search`."""
    import json

    from tests.daemon_util import indexed_sample, semlith, start_daemon

    home = tmp_path / "home"
    root = indexed_sample(tmp_path, home)
    (root / "net" / "offline.py").write_text("def albatross_offline():\n    return 1\n")
    daemon = start_daemon(home)
    try:
        def found(word: str) -> bool:
            done = semlith(home, "search", word, "--json", "-k", "3", cwd=root)
            return done.returncode == 0 and any(
                word in hit["text"] for hit in json.loads(done.stdout or "[]"))

        eventually(lambda: found("albatross_offline"), timeout=120)
        # A file is keyword-searchable before its run ends and logs (progressive writes).
        log = home / "test-daemon.log"
        eventually(lambda: "caught up with changes made while no daemon ran: 1 indexed"
                   in log.read_text(), timeout=60)
        (root / "auth" / "fresh.py").write_text("def cormorant_online():\n    return 2\n")
        eventually(lambda: found("cormorant_online"), timeout=60)
        status = semlith(home, "stats", cwd=root)
        assert f"daemon     served by pid {daemon.proc.pid}" in status.stdout, status.stdout
        assert "watch: events, 0 pending" in status.stdout, status.stdout
    finally:
        assert daemon.stop() == 0


@pytest.mark.slow
@pytest.mark.model
def test_semlith_watch_in_the_foreground(tmp_path: Path) -> None:
    import signal
    import subprocess
    import sys

    from tests.daemon_util import env_for, indexed_sample, interruptible, semlith

    home = tmp_path / "home"
    root = indexed_sample(tmp_path, home)
    proc = subprocess.Popen([sys.executable, "-m", "semlith", "watch", str(root)],
                            env=env_for(home), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, preexec_fn=interruptible)
    try:
        def listed(rel: str) -> bool:
            done = semlith(home, "files", "--store", str(root / ".semlith"))
            return f"{rel}\tindexed" in done.stdout

        (root / "web" / "extra.js").write_text("function pelican() { return 1 }\n")
        eventually(lambda: listed("web/extra.js"), timeout=60)
        locked = semlith(home, "index", str(root))
        assert locked.returncode == 1 and "semlith watch" in locked.stderr
    finally:
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
    assert proc.returncode == 0, err
    assert "1 indexed" in out + err  # batch summaries go to stderr with the status lines
    assert semlith(home, "index", str(root)).returncode == 0  # the lock was released


def test_a_name_that_is_not_utf8_does_not_stop_the_watcher(watched: Watched) -> None:
    try:
        (watched.root / os.fsdecode(b"caf\xe9.py")).write_text("def espresso():\n    pass\n")
    except (OSError, UnicodeEncodeError) as exc:
        pytest.skip(f"this file system refuses non-UTF-8 names: {exc}")
    (watched.root / "net" / "after.py").write_text("def ristretto_after():\n    pass\n")
    eventually(lambda: watched.has("net/after.py"))
    assert watched.watcher.state.last_error is None
    # A full pass (the catch-up of a daemon) records it as skipped and goes on.
    watched.watcher.request_full_pass()
    eventually(lambda: "caf\\xe9.py" in watched.store.catalog.skipped())
    assert watched.watcher.state.last_error is None and watched.has("net/retry.py")


# -- how long a batch waits (issue #25) ---------------------------------------------------

def test_a_lone_save_waits_the_short_quiet_and_a_stream_the_long(tmp_path: Path) -> None:
    """The wait is decided on the events' own times (no clock in the assertion)."""
    watcher = StoreWatcher(tmp_path, tmp_path / ".semlith", lambda rels: IndexReport(),
                           debounce=0.5, first_debounce=0.15, cooldown=3.0)
    with watcher._cond:
        for t in (100.0, 100.001, 100.002):  # one save: truncate, write, close
            watcher._note("a.py", t)
        assert watcher._due(100.002) == pytest.approx(0.15)
        assert watcher._due(100.2) == 0.0
        for t in (100.1, 100.2, 100.3):  # events that keep coming: a stream
            watcher._note("b.py", t)
        assert watcher._due(100.3) == pytest.approx(0.5)
        assert watcher._due(100.5) == pytest.approx(0.3)
        watcher._paths.clear()
        watcher._note("c.py", 200.0)  # the next batch starts short again
        assert watcher._due(200.0) == pytest.approx(0.15)


def test_the_short_quiet_never_exceeds_the_debounce(tmp_path: Path) -> None:
    watcher = StoreWatcher(tmp_path, tmp_path / ".semlith", lambda rels: IndexReport(),
                           debounce=0.1)
    assert watcher.first_debounce == 0.1


def test_a_files_first_rewrite_is_free_and_its_next_waits_out_the_cooldown(
        tmp_path: Path) -> None:
    """A save, then a formatter's rewrite: two writes, the second not held 3 s. A third
    save within the cooldown is held (an editor saving every second). Times are the
    events' own (no clock in the assertion)."""
    watcher = StoreWatcher(tmp_path, tmp_path / ".semlith", lambda rels: IndexReport(),
                           debounce=0.5, first_debounce=0.15, cooldown=3.0)
    with watcher._cond:
        watcher._note_written(["a.py"], 100.2, since=100.0)  # the save's batch
        watcher._note("a.py", 100.3)  # the formatter's rewrite
        assert watcher._due(100.3) == pytest.approx(0.15)
        watcher._paths.clear()
        watcher._note_written(["a.py"], 100.5, since=100.3)  # now the file is hot
        watcher._note("a.py", 101.0)
        watcher._note("b.py", 101.0)  # another file's first save shares the wait
        assert watcher._due(101.0) == pytest.approx(2.5)
        watcher._paths.clear()
        watcher._note("a.py", 104.0)  # after a quiet cooldown: a first save again
        assert watcher._due(104.0) == pytest.approx(0.15)


def test_saves_that_kept_coming_while_a_file_was_held_keep_it_hot(tmp_path: Path) -> None:
    """An editor saving every 0.6 s: the held batch runs after the debounce, past the
    cooldown of the write that held it; the file stays hot (no free write per cycle)."""
    watcher = StoreWatcher(tmp_path, tmp_path / ".semlith", lambda rels: IndexReport(),
                           debounce=0.5, first_debounce=0.15, cooldown=3.0)
    with watcher._cond:
        watcher._note_written(["a.py"], 0.2, since=0.0)
        watcher._note_written(["a.py"], 0.8, since=0.6)  # the free rewrite: hot
        watcher._note_written(["a.py"], 4.1, since=1.2)  # saves 1.2 ... 3.6, held
        watcher._note("a.py", 4.2)
        assert watcher._due(4.2) == pytest.approx(2.9)


def test_reads_are_not_asked_of_the_os(tmp_path: Path) -> None:
    """The watcher asks the OS for changes only: files opened and read (a grep, `read`,
    an indexing pass) deliver no event to its thread, which took the GIL for each; a
    write still does."""
    from watchdog.observers import Observer

    target = tmp_path / "a.py"
    target.write_text("x = 1\n")
    seen: list[str] = []

    class Recording:
        def dispatch(self, event: object) -> None:
            seen.append(getattr(event, "event_type", ""))

    observer = Observer()
    observer.schedule(Recording(), str(tmp_path), recursive=True,
                      event_filter=watch_module._changes())
    observer.start()
    try:
        for _ in range(20):
            target.read_bytes()
        target.write_text("x = 2\n")
        eventually(lambda: "modified" in seen or "closed" in seen)
    finally:
        observer.stop()
        observer.join(timeout=10)
    assert not {"opened", "closed_no_write"} & set(seen), seen
