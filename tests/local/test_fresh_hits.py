"""A hit whose file changed on disk since it was indexed says so (issue #45)."""

from __future__ import annotations

import os
from pathlib import Path

from semlith.base.settings import Settings
from semlith.local import LocalLibrary
from semlith.server.answers import locate
from semlith.types import Scope
from tests.conftest import HashEmbedder


def test_a_hit_of_a_file_changed_since_it_was_indexed_is_marked(tmp_path: Path,
                                                                settings: Settings) -> None:
    root = tmp_path / "app"
    root.mkdir()
    (root / "retry.py").write_text("def retry_backoff(attempt):\n    return 2 ** attempt\n")
    (root / "other.py").write_text("def unrelated():\n    return 1\n")
    library = LocalLibrary(settings, embedder_factory=HashEmbedder)
    try:
        library.index([str(root)])
        scope = Scope((str(root),))
        before = library.search("retry backoff attempt", k=2, scope=scope).hits
        assert before[0].path == "retry.py" and not any(h.changed for h in before)
        (root / "retry.py").write_text("def retry_backoff(attempt):\n    return 3 ** attempt\n")
        stat = (root / "retry.py").stat()
        os.utime(root / "retry.py", ns=(stat.st_atime_ns, stat.st_mtime_ns + 10**9))
        after = library.search("retry backoff attempt", k=2, scope=scope).hits
        assert after[0].path == "retry.py" and after[0].changed
        assert not any(h.changed for h in after if h.path != "retry.py")
        assert "[changed since indexed" in locate(after, 2000, False)
        assert library.read("retry.py", scope=scope).changed  # read shows it as it is now
        (root / "retry.py").unlink()
        assert library.search("retry backoff attempt", k=1, scope=scope).hits[0].changed
    finally:
        library.close()
