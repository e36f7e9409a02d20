"""The per-user folders MCP clients keep their config in, on each system.

`Places.here()` is this machine's; `Places.of()` any system's given its environment (the
tests use it); `Places.symbolic()` the folders as the docs write them (`~`, `%APPDATA%`).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path, PurePath, PurePosixPath, PureWindowsPath

SYSTEMS = {"linux": "Linux", "darwin": "macOS", "win32": "Windows"}


@dataclass(frozen=True, slots=True)
class Places:
    """The per-user folders clients keep their config in, on one system."""

    system: str  # a sys.platform value: linux, darwin, win32
    home: PurePath
    app_data: PurePath  # Electron's: XDG config, ~/Library/Application Support, %APPDATA%
    # $XDG_CONFIG_HOME (Linux) or ~/.config: where Zed, opencode, Kilo and goose look on
    # Linux and macOS (opencode and Kilo on Windows too, under the user's profile)
    xdg_config: PurePath
    codex_home: PurePath  # $CODEX_HOME or ~/.codex

    @classmethod
    def of(cls, system: str, environ: Mapping[str, str], home: Path) -> Places:
        """The real folders on `system`, given its environment and home folder."""
        def var(name: str, default: Path) -> Path:
            return Path(environ[name]) if environ.get(name, "").strip() else default

        # Zed honours XDG_CONFIG_HOME on Linux only (zed.dev/docs/configuring-zed).
        xdg = var("XDG_CONFIG_HOME", home / ".config") if system not in SYSTEMS or \
            system == "linux" else home / ".config"
        app_data = {"win32": var("APPDATA", home / "AppData" / "Roaming"),
                    "darwin": home / "Library" / "Application Support"}.get(system, xdg)
        return cls(system, home, app_data, xdg, var("CODEX_HOME", home / ".codex"))

    @classmethod
    def here(cls) -> Places:
        return cls.of(sys.platform, os.environ, Path.home())

    @classmethod
    def symbolic(cls, system: str) -> Places:
        """The folders as the docs write them (`~`, `%APPDATA%`)."""
        if system == "win32":
            profile = PureWindowsPath("%USERPROFILE%")
            appdata = PureWindowsPath("%APPDATA%")
            return cls(system, profile, appdata, profile / ".config", profile / ".codex")
        home = PurePosixPath("~")
        app_data = home / "Library/Application Support" if system == "darwin" \
            else home / ".config"
        return cls(system, home, app_data, home / ".config", home / ".codex")
