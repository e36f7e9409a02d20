"""A real headless Chromium for tests, driven by Selenium through the system's driver.

The browser and its chromedriver are the system's (`python scripts/test-deps` installs
Debian's `chromium` and `chromium-driver`), named by an explicit Service, so Selenium
never downloads anything. Without them the caller skips with one line, unless
SEMLITH_REQUIRE_BROWSER=1 (CI), where that is a failure.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import pytest

BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
# Before any script of a page runs (and outside its CSP): keep every CSP violation.
RECORD_CSP = ("window.__csp = []; document.addEventListener('securitypolicyviolation', "
              "e => window.__csp.push(e.violatedDirective + ' ' + e.blockedURI));")


def browser_paths() -> tuple[str, str]:
    """(chromium, chromedriver), or skip (fail under SEMLITH_REQUIRE_BROWSER=1)."""
    browser = os.environ.get("SEMLITH_CHROMIUM") or next(
        (p for p in map(shutil.which, BROWSERS) if p), None)
    driver = os.environ.get("SEMLITH_CHROMEDRIVER") or shutil.which("chromedriver")
    if browser and driver:
        return browser, driver
    why = ("no Chromium with a chromedriver on this machine "
           "(`python scripts/test-deps` installs or names them)")
    if os.environ.get("SEMLITH_REQUIRE_BROWSER") == "1":
        pytest.fail(why)
    pytest.skip(why)


def start_chromium(profile: Path) -> Any:
    """A headless Chromium at a desktop size, recording console messages and CSP
    violations."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    browser, driver = browser_paths()
    options = webdriver.ChromeOptions()
    options.binary_location = browser
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--window-size=1280,900", "--no-first-run", "--no-default-browser-check",
                "--disable-extensions", "--disable-background-networking", "--disable-sync",
                "--disable-component-update", "--disable-default-apps",
                f"--user-data-dir={profile}"):
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    chrome = webdriver.Chrome(service=Service(executable_path=driver), options=options)
    chrome.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": RECORD_CSP})
    return chrome


def problems(chrome: Any) -> list[str]:
    """Console errors and CSP violations since the last call (and the page's load)."""
    found = [f"console: {e['message']}" for e in chrome.get_log("browser")
             if e.get("level") == "SEVERE"]
    found += [f"CSP: {v}" for v in chrome.execute_script("return window.__csp || []")]
    chrome.execute_script("window.__csp = []")
    return found


def emulate(chrome: Any, *, width: int | None = None, dark: bool | None = None) -> None:
    """A phone's viewport (`width` CSS px) and/or prefers-color-scheme; None: reset."""
    if width is None:
        chrome.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
    else:
        chrome.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
            "width": width, "height": 844, "deviceScaleFactor": 1, "mobile": True})
    scheme = "" if dark is None else ("dark" if dark else "light")
    chrome.execute_cdp_cmd("Emulation.setEmulatedMedia", {
        "features": [{"name": "prefers-color-scheme", "value": scheme}]})
