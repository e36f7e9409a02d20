"""The portal's HTTP face in process: its credentials and the security matrix.

The real app (`create_app`) over a real fleet holding a store indexed with the
deterministic `HashEmbedder`, driven by Starlette's TestClient. The browser tests
(tests/portal/test_portal_browser.py) drive the same routes from a real browser.
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from semlith.base.home import agent_key, control_key, portal_key, registered_stores
from semlith.base.settings import Settings
from semlith.local import Engine, LocalLibrary
from semlith.local.fleet import Fleet
from semlith.server.app import Keys, create_app
from semlith.server.portal.routes import ASSETS, CSP, METHODS, SCRIPTS
from semlith.server.portal.session import (
    LINK_SECONDS,
    SESSION_SECONDS,
    BadToken,
    Sessions,
    link_token,
)
from tests.conftest import HashEmbedder
from tests.daemon_util import semlith, start_daemon

SAMPLE = Path(__file__).resolve().parents[2] / "fixtures" / "sample"
SAME = {"Sec-Fetch-Site": "same-origin", "Content-Type": "application/json"}


class Clock:
    def __init__(self) -> None:
        self.now = 1_900_000_000.0

    def __call__(self) -> float:
        return self.now


@dataclass
class Portal:
    client: TestClient
    home: Path
    root: Path
    keys: Keys
    clock: Clock

    def link(self) -> str:
        return link_token(portal_key(self.home), now=self.clock.now)

    def session(self) -> dict[str, str]:
        answer = self.client.post("/portal/session", headers=SAME, json={"token": self.link()})
        assert answer.status_code == 200, answer.text
        return {**SAME, "X-Semlith-Session": answer.json()["session"]}


@pytest.fixture(scope="module")
def portal(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Portal]:
    tmp = tmp_path_factory.mktemp("portal")
    root = tmp / "proj"
    shutil.copytree(SAMPLE, root, ignore=shutil.ignore_patterns(".semlith"))
    config = Settings.load(env={"SEMLITH_HOME": str(tmp / "home")})
    engine = Engine(config, lambda name: HashEmbedder(name))
    LocalLibrary(config, engine=engine).index([str(root)])
    fleet = Fleet(engine)
    fleet.open(registered_stores(config.home))
    fleet.load_models()
    keys = Keys(agent_key(config.home), control_key(config.home))
    clock = Clock()
    app = create_app(config, agent=LocalLibrary(config, engine=engine, source=fleet, agent=True),
                     person=LocalLibrary(config, engine=engine, source=fleet), keys=keys,
                     sessions=Sessions(lambda: portal_key(config.home), clock))
    with TestClient(app, base_url="http://127.0.0.1:7365",
                    raise_server_exceptions=False) as client:
        yield Portal(client, config.home, root, keys, clock)
    fleet.close()
    engine.close()


# -- the page and its headers ---------------------------------------------------------

def test_the_page_without_a_token_only_explains_how_to_get_one(portal: Portal) -> None:
    page = portal.client.get("/")
    assert page.status_code == 200
    assert "semlith portal --open" in page.text
    for word in ("proj", "retry", "chunks", portal.keys.agent, portal.keys.control):
        assert word not in page.text  # no data and no key in what anyone can load


@pytest.mark.parametrize("path", ["/", *(f"/portal/static/{name}" for name in ASSETS
                                        if name != "index.html")])
def test_every_portal_answer_carries_the_csp_and_no_cors(portal: Portal, path: str) -> None:
    answer = portal.client.get(path, headers={"Origin": "http://127.0.0.1:7365"})
    assert answer.status_code == 200
    assert answer.headers["content-security-policy"] == CSP
    assert CSP.startswith("default-src 'self';")
    assert answer.headers["x-content-type-options"] == "nosniff"
    assert not [h for h in answer.headers if h.lower().startswith("access-control-")]


def test_the_assets_hold_no_inline_script_or_style() -> None:
    static = Path(__file__).resolve().parents[2] / "semlith" / "server" / "portal" / "static"
    html = (static / "index.html").read_text()
    assert "<style" not in html and " style=" not in html and "javascript:" not in html
    # every script is a file of its own, run in the order SCRIPTS says, and all ship
    assert re.findall(r'<script src="/portal/static/([\w.]+)" defer></script>', html) == \
        list(SCRIPTS) and html.count("<script") == len(SCRIPTS)
    assert {p.name for p in static.iterdir()} == set(ASSETS)
    for name in SCRIPTS:
        script = (static / name).read_text()
        assert "innerHTML" not in script and "insertAdjacentHTML" not in script  # never parsed
        assert "eval(" not in script and "new Function" not in script
    for name in ASSETS:  # offline: no CDN, no fonts
        assert "https://" not in (static / name).read_text()


def test_a_preflight_gets_no_cors_headers(portal: Portal) -> None:
    answer = portal.client.options("/portal/api/stats", headers={
        "Origin": "http://127.0.0.1:7365", "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "x-semlith-session"})
    assert answer.status_code >= 400
    assert not [h for h in answer.headers if h.lower().startswith("access-control-")]


# -- the security matrix --------------------------------------------------------------

def test_a_token_in_a_query_string_is_refused(portal: Portal) -> None:
    for path in (f"/?token={portal.link()}", "/portal/static/portal.js?token=x"):
        answer = portal.client.get(path)
        assert answer.status_code == 400 and "fragment" in answer.json()["error"]
    exchange = portal.client.post(f"/portal/session?token={portal.link()}", headers=SAME,
                                  json={})
    assert exchange.status_code == 400


@pytest.mark.parametrize("host", ["evil.example", "127.0.0.1.evil.example:7365", ""])
def test_a_foreign_host_is_refused(portal: Portal, host: str) -> None:
    for path in ("/", "/portal/static/portal.js"):
        assert portal.client.get(path, headers={"Host": host}).status_code == 400
    answer = portal.client.post("/portal/session", headers={**SAME, "Host": host},
                                json={"token": portal.link()})
    assert answer.status_code == 400


@pytest.mark.parametrize("origin", ["https://evil.example", "null",
                                    "http://localhost.evil.example"])
def test_a_foreign_origin_is_refused(portal: Portal, origin: str) -> None:
    session = portal.session()
    answer = portal.client.post("/portal/api/stats", headers={**session, "Origin": origin},
                                json={})
    assert answer.status_code == 403
    assert portal.client.get("/", headers={"Origin": origin}).status_code == 403


def test_a_cross_site_form_post_is_refused(portal: Portal) -> None:
    session = portal.session()
    form = {"Content-Type": "application/x-www-form-urlencoded",
            "Sec-Fetch-Site": "cross-site", "Origin": "http://localhost:3000"}
    for path in ("/portal/session", "/portal/api/forget", "/portal/api/index"):
        answer = portal.client.post(path, headers={**form, "X-Semlith-Session":
                                                   session["X-Semlith-Session"]},
                                    content=b"token=x&path=/&store=proj")
        assert answer.status_code == 403, (path, answer.text)
    # the same page's form (same-origin, not JSON) and another local site's fetch
    not_json = portal.client.post("/portal/api/forget", headers={
        **session, "Content-Type": "text/plain"}, content=b'{"path": "/"}')
    assert not_json.status_code == 415
    same_site = portal.client.post("/portal/api/forget", headers={
        **session, "Sec-Fetch-Site": "same-site"}, json={"path": str(portal.root)})
    assert same_site.status_code == 403
    assert len(portal.client.post("/portal/api/files", headers=session,
                                  json={}).json()) == 9  # nothing was forgotten


def test_without_a_session_every_api_route_is_401(portal: Portal) -> None:
    for method in (*METHODS, "index"):
        for headers in (SAME, {**SAME, "X-Semlith-Session": "forged"},
                        {**SAME, "Authorization": f"Bearer {portal.keys.control}"},
                        {**SAME, "X-Semlith-Session": portal.keys.agent}):
            answer = portal.client.post(f"/portal/api/{method}", headers=headers, json={})
            assert answer.status_code == 401, (method, answer.text)
            assert "semlith portal" in answer.json()["error"]


def test_the_page_learns_which_methods_the_daemon_serves(portal: Portal) -> None:
    from semlith import wire
    from semlith.server.portal.routes import GRAPH_METHODS

    assert portal.client.post("/portal/methods", headers=SAME, json={}).status_code == 401
    served = portal.client.post("/portal/methods", headers=portal.session(), json={}).json()
    assert served == [*METHODS, *(m for m in GRAPH_METHODS if m in wire.operations())]


def test_the_portal_credential_opens_nothing_else(portal: Portal) -> None:
    session = portal.session()["X-Semlith-Session"]
    for path in ("/api/status", "/mcp"):
        answer = portal.client.post(path, headers={**SAME, "Authorization": f"Bearer {session}"},
                                    json={})
        assert answer.status_code == 401


# -- tokens ---------------------------------------------------------------------------

def test_a_link_opens_one_session_once(portal: Portal) -> None:
    link = portal.link()
    first = portal.client.post("/portal/session", headers=SAME, json={"token": link})
    assert first.status_code == 200 and first.json()["expires_in"] == SESSION_SECONDS
    again = portal.client.post("/portal/session", headers=SAME, json={"token": link})
    assert again.status_code == 401 and "used already" in again.json()["error"]
    headers = {**SAME, "X-Semlith-Session": first.json()["session"]}
    stats = portal.client.post("/portal/api/stats", headers=headers, json={})
    assert stats.status_code == 200 and stats.json()[0]["files"] == 9


def test_forged_and_malformed_links_are_refused(portal: Portal) -> None:
    good = portal.link()
    forged = good[:-4] + ("0000" if not good.endswith("0000") else "1111")
    for token in (forged, "", "slp1", "x.y.z.w", link_token("another key"), 5, None):
        answer = portal.client.post("/portal/session", headers=SAME, json={"token": token})
        assert answer.status_code == 401, token
        assert "\n" not in answer.json()["error"]
    for body in (b"not json", b"[]", b'"a"'):
        answer = portal.client.post("/portal/session", headers=SAME, content=body)
        assert answer.status_code == 401


def test_links_and_sessions_expire() -> None:
    clock = Clock()
    sessions = Sessions(lambda: "k", clock)
    old = link_token("k", now=clock.now)
    clock.now += LINK_SECONDS + 1
    with pytest.raises(BadToken, match="expired"):
        sessions.exchange(old)
    token = sessions.exchange(link_token("k", now=clock.now))
    clock.now += SESSION_SECONDS - 1
    assert sessions.valid(token)
    fresh = sessions.renew(token)  # the page renews well before the end
    assert not sessions.valid(token) and sessions.valid(fresh)
    clock.now += SESSION_SECONDS + 1
    assert not sessions.valid(fresh)
    with pytest.raises(BadToken, match="ended"):
        sessions.renew(fresh)


def test_a_session_is_renewed_over_http(portal: Portal) -> None:
    session = portal.session()
    renewed = portal.client.post("/portal/renew", headers=session, json={})
    assert renewed.status_code == 200
    assert portal.client.post("/portal/api/stores", headers=session,
                              json={}).status_code == 401
    fresh = {**SAME, "X-Semlith-Session": renewed.json()["session"]}
    assert portal.client.post("/portal/api/stores", headers=fresh, json={}).status_code == 200


def test_the_api_answers_with_the_library(portal: Portal) -> None:
    """The portal's routes are /api's: the same answers for the same library calls."""
    session = portal.session()
    control = {"Authorization": f"Bearer {portal.keys.control}"}
    for method, body in (("stats", {}), ("files", {}), ("skipped", {}),
                         ("search", {"query": "RetryPolicy backoff", "k": 3}),
                         ("grep", {"pattern": r"class\s+Retry", "regex": True, "context": 1,
                                   "filters": {"exts": ["py"]}}),
                         ("read", {"target": "net/retry.py:1-3"}), ("agents", {})):
        mine = portal.client.post(f"/portal/api/{method}", headers=session, json=body)
        theirs = portal.client.post(f"/api/{method}", headers=control, json=body)
        assert mine.status_code == theirs.status_code == 200, (method, mine.text)
        assert mine.json() == theirs.json(), method
    found = portal.client.post("/portal/api/grep", headers=session,
                               json={"pattern": "class RetryPolicy"}).json()
    assert [m["path"] for m in found["matches"]] == ["net/retry.py"]  # the page's answer
    agents = portal.client.post("/portal/api/agents", headers=session, json={}).text
    assert portal.keys.agent not in agents and "agent.key" in agents


def test_bad_input_is_a_one_line_error(portal: Portal) -> None:
    session = portal.session()
    for method, body in (("search", {"query": ""}), ("search", {"query": "x", "k": "ten"}),
                         ("read", {"target": "../etc/passwd"}), ("index", {}),
                         ("index", {"store": "nope"}), ("stop_run", {"store": 5}),
                         ("grep", {"pattern": r"(a)\1", "regex": True}),
                         ("grep", {"pattern": "x", "limit": 0})):
        answer = portal.client.post(f"/portal/api/{method}", headers=session, json=body)
        assert answer.status_code == 400, (method, answer.text)
        error = answer.json()["error"]
        assert error and "\n" not in error


# -- `semlith portal` ------------------------------------------------------------------

def test_portal_without_a_daemon_says_how_to_start_one(tmp_path: Path) -> None:
    done = semlith(tmp_path / "home", "portal")
    assert done.returncode == 1
    assert done.stderr.strip().splitlines() == [
        "semlith: error: no semlith daemon is running; start one with `semlith serve`, then "
        "run `semlith portal` again"]


@pytest.mark.slow
def test_portal_prints_a_link_that_opens_one_session(tmp_path: Path) -> None:
    import httpx

    home = tmp_path / "home"
    home.mkdir()
    daemon = start_daemon(home, "--no-watch")
    try:
        done = semlith(home, "portal")
        assert done.returncode == 0, done.stderr
        url = done.stdout.strip()
        assert url.startswith(f"{daemon.url}/#token=slp1.")
        token = url.split("#token=", 1)[1]
        assert daemon.key not in url and daemon.control not in url
        exchange = httpx.post(f"{daemon.url}/portal/session", headers=SAME,
                              json={"token": token})
        assert exchange.status_code == 200, exchange.text
        assert httpx.post(f"{daemon.url}/portal/session", headers=SAME,
                          json={"token": token}).status_code == 401
        assert (home / "portal.key").stat().st_mode & 0o077 == 0
        opened = _open_with_a_recording_browser(home, tmp_path)
        assert opened.startswith(f"{daemon.url}/#token=slp1.") and opened != url
    finally:
        assert daemon.stop() == 0


def _open_with_a_recording_browser(home: Path, tmp: Path) -> str:
    """`semlith portal --open` with $BROWSER a script that writes down what it was given
    (Python's webbrowser runs $BROWSER first)."""
    import os
    import subprocess
    import sys

    from tests.daemon_util import env_for

    record = tmp / "record.py"
    record.write_text("import sys, pathlib\n"
                      f"pathlib.Path({str(tmp / 'opened')!r}).write_text(sys.argv[1])\n")
    done = subprocess.run([sys.executable, "-m", "semlith", "portal", "--open"],
                          env={**env_for(home), "BROWSER": f"{sys.executable} {record} %s",
                               "DISPLAY": os.environ.get("DISPLAY", "")},
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    opened = (tmp / "opened").read_text()
    assert opened == done.stdout.strip()  # printed as well, to open by hand if need be
    return opened
