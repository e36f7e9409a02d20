#!/usr/bin/env bash
# Run the README's two quick-start commands the way a newcomer would: a fresh clone of the
# committed HEAD, a fresh virtualenv, nothing from your working tree or your installed packages.
# usage: scripts/fresh-check.sh [REPO_DIR]    (default: the current git repository)
set -uo pipefail
repo=$(git -C "${1:-.}" rev-parse --show-toplevel) || { echo "not in a git repository"; exit 2; }
tmp=$(mktemp -d /tmp/fresh-XXXX)
trap 'rm -rf "$tmp"' EXIT
git clone --quiet "$repo" "$tmp/clone" || exit 2
cd "$tmp/clone"
python3 -m venv "$tmp/venv" && . "$tmp/venv/bin/activate"
export SEMLITH_HOME="$tmp/home"
# the first two fenced shell blocks of the README are the quick start
python3 - README.md "$tmp" <<'PY'
import re, sys, pathlib
text = pathlib.Path(sys.argv[1]).read_text()
blocks = re.findall(r"```(?:sh|bash|shell|console)?\n(.*?)```", text, re.S)
if len(blocks) < 2:
    sys.exit("README has fewer than two fenced command blocks")
for i, b in enumerate(blocks[:2], 1):
    lines = [l[2:] if l.startswith("$ ") else l for l in b.splitlines() if l.strip() and not l.lstrip().startswith("#")]
    pathlib.Path(sys.argv[2], f"step{i}.sh").write_text("set -e\n" + "\n".join(lines) + "\n")
PY
[ -f "$tmp/step1.sh" ] || exit 1
for i in 1 2; do
  echo "== README command block $i =="; cat "$tmp/step$i.sh" | sed 1d
  start=$(date +%s)
  if ! bash "$tmp/step$i.sh" >"$tmp/out$i" 2>&1; then
    tail -20 "$tmp/out$i"; echo "FAILED: README block $i on a fresh clone and venv"; exit 1
  fi
  tail -3 "$tmp/out$i"; echo "ok in $(( $(date +%s) - start )) s"
done
echo "both README commands pass on a fresh clone"
