"""The instruction block `semlith setup CLIENT` offers for a client's instruction file.

A connected agent that is never told when semlith helps keeps reaching for grep and
whole-file reads. The block says when to call which tool, in a few lines. It lives
between two marker lines, so writing it again replaces it (or changes nothing) and the
rest of the file is left as it was.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path, PurePath

from semlith.setup.places import Places

BEGIN = "<!-- semlith: begin (written by `semlith setup`; edits here are replaced) -->"
END = "<!-- semlith: end -->"
BLOCK = """## Code search: semlith

- For a question about this code ("where is X handled?", "how does Y work?"), call
  `semlith_search` before grep or reading whole files: it answers with
  `path:start-end` locators, best first. `semlith_brief` answers in one call with the
  best locators, their callers and callees, and the best passage.
- Then `semlith_read` just the lines you need (a locator, or a symbol name), and
  `semlith_symbol` to find where a function, class or type is defined.
- Before changing a function, `semlith_impact` shows what calls it, transitively, and
  `semlith_neighbors` its callers and callees.
- Keep grep for exact strings you already know.
"""
CURSOR_RULE = ("---\ndescription: When to use semlith's code search tools\n"
               "alwaysApply: true\n---\n")
WINDSURF_RULE = "---\ntrigger: always_on\n---\n"  # a rule Cascade always applies


@dataclass(frozen=True, slots=True)
class InstructionFile:
    user: Callable[[Places], PurePath] | None  # None: the client keeps them in its UI
    project: str | None  # relative to --project DIR
    head: str = ""  # what the file must start with (a Cursor rule's front matter)


# Where each client reads instructions (its docs, cited in semlith/setup/clients.py; the
# rules pages beside them): the user's file, the project's, and the head a new one needs.
FILES = {
    "claude-code": InstructionFile(lambda p: p.home / ".claude" / "CLAUDE.md", "CLAUDE.md"),
    "codex": InstructionFile(lambda p: p.codex_home / "AGENTS.md", "AGENTS.md"),
    "cursor": InstructionFile(None, ".cursor/rules/semlith.mdc", CURSOR_RULE),
    "vscode": InstructionFile(None, ".github/copilot-instructions.md"),
    "zed": InstructionFile(None, ".rules"),
    "gemini": InstructionFile(lambda p: p.home / ".gemini" / "GEMINI.md", "GEMINI.md"),
    "claude-desktop": InstructionFile(None, None),
    # docs.windsurf.com/windsurf/cascade/memories: global_rules.md, .windsurf/rules/
    "windsurf": InstructionFile(
        lambda p: p.home / ".codeium" / "windsurf" / "memories" / "global_rules.md",
        ".windsurf/rules/semlith.md", WINDSURF_RULE),
    # docs.cline.bot/features/cline-rules: Documents/Cline/Rules, .clinerules/
    "cline": InstructionFile(lambda p: p.home / "Documents" / "Cline" / "Rules" / "semlith.md",
                             ".clinerules/semlith.md"),
    # docs.roocode.com/features/custom-instructions: ~/.roo/rules/, .roo/rules/
    "roo-code": InstructionFile(lambda p: p.home / ".roo" / "rules" / "semlith.md",
                                ".roo/rules/semlith.md"),
    # kilo.ai/docs/customize/agents-md: AGENTS.md (the config folder's for the user)
    "kilo-code": InstructionFile(lambda p: p.xdg_config / "kilo" / "AGENTS.md", "AGENTS.md"),
    # docs.continue.dev/customize/deep-dives/rules: ~/.continue/rules/, .continue/rules/
    "continue": InstructionFile(lambda p: p.home / ".continue" / "rules" / "semlith.md",
                                ".continue/rules/semlith.md"),
    # opencode.ai/docs/rules: ~/.config/opencode/AGENTS.md, AGENTS.md
    "opencode": InstructionFile(lambda p: p.xdg_config / "opencode" / "AGENTS.md",
                                "AGENTS.md"),
    # block.github.io/goose/docs/guides/context-engineering/using-goosehints
    "goose": InstructionFile(lambda p: (p.app_data / "Block" / "goose" / "config"
                                        if p.system == "win32" else p.xdg_config / "goose")
                             / ".goosehints", ".goosehints"),
    # AI Assistant's rules are files, but whether one applies is kept in its settings
    # (jetbrains.com/help/ai-assistant/configure-project-rules.html): pasted there too
    "jetbrains": InstructionFile(None, None),
}


def instruction_path(client: str, places: Places, project: Path | None) -> Path | None:
    """Where `client` reads instructions (the project's with `project`); None: no file."""
    where = FILES[client]
    if project is not None:
        return project / where.project if where.project else None
    return Path(where.user(places)) if where.user else None


def with_block(text: str, head: str = "") -> str:
    """`text` with semlith's block in it: replaced between the markers, else appended."""
    block = f"{BEGIN}\n{BLOCK}{END}\n"
    if BEGIN in text and END in text.split(BEGIN, 1)[1]:
        before, rest = text.split(BEGIN, 1)
        return before + block + rest.split(END, 1)[1].lstrip("\n")
    if not text.strip():
        return head + block
    return text.rstrip("\n") + "\n\n" + block


def write_block(path: Path, head: str = "") -> bool:
    """Put the block into `path` (created if need be); False when it was there already."""
    try:
        current = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        current = ""
    wanted = with_block(current, head)
    if wanted == current:
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(wanted, encoding="utf-8")
    os.replace(tmp, path)
    return True
