"""The walk: `walk_files` over a synthetic tree with realistic ignore files."""

from __future__ import annotations

from pathlib import Path

from harness import Context, Result, scenario, timed

from semlith.ingest.walk import Skipped, walk_files

# A Python + JavaScript project's .gitignore (GitHub's templates, abridged): 30 patterns of
# every kind the matcher handles (names, extensions, classes, anchored, folders, `**`, !).
ROOT_GITIGNORE = """\
__pycache__/
*.py[cod]
*$py.class
*.so
build/
dist/
/lib/
*.egg-info/
*.egg
MANIFEST
*.manifest
pip-log.txt
htmlcov/
.coverage
.coverage.*
*.cover
*.log
!important.log
local_settings.py
db.sqlite3
docs/_build/
target/
.ipynb_checkpoints
.env
venv/
node_modules/
**/tmp/
logs/**
!logs/keep.txt
*.tmp.[jt]s
"""
# Each package folder has its own: a second layer every path below it is judged against.
PACKAGE_GITIGNORE = "/fixtures/generated/\n*.snap\n!keep.snap\ncoverage-*.json\n"
EXTENSIONS = [".py", ".py", ".pyc", ".js", ".ts", ".md", ".json", ".txt", ".log", ".snap",
              ".tmp.js", ".cfg"]


def write_tree(root: Path, files: int) -> None:
    """`files` files, 40 per folder, 10 folders per package, a few ignored folders."""
    root.mkdir(parents=True)
    (root / ".gitignore").write_text(ROOT_GITIGNORE)
    for n in range(files):
        package = root / "src" / f"pkg{n // 400:03d}"
        if n % 400 == 0:
            package.mkdir(parents=True)
            (package / ".gitignore").write_text(PACKAGE_GITIGNORE)
            for ignored in ("build", "tmp", "fixtures/generated"):
                (package / ignored).mkdir(parents=True)
                (package / ignored / "out.py").write_text("x = 1\n")
        folder = package / f"mod{(n // 40) % 10}"
        folder.mkdir(exist_ok=True)
        (folder / f"file{n:05d}{EXTENSIONS[n % len(EXTENSIONS)]}").write_text(f"v = {n}\n")


@scenario("walk", sizes=[20_000], fast_sizes=[2_000])
def walk(ctx: Context, sizes: list[int]) -> Result:
    """walk_files over a tree with a 30-pattern .gitignore and one per package (sizes = files)."""
    out: Result = {}
    for files in sizes:
        root = ctx.workdir / f"walk-{files}"
        if not root.exists():
            write_tree(root, files)
        results = list(walk_files(root))
        skipped = sum(isinstance(item, Skipped) for item in results)
        runs = 5 if ctx.fast else 15
        out[files] = {**timed(lambda r=root: list(walk_files(r)), runs=runs, warmup=2),
                      "files": files, "candidates": len(results) - skipped,
                      "skipped": skipped}
        ctx.log(f"walk {files}: {out[files]}")
    return out
