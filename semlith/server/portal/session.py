"""The portal's credentials: one-time link tokens and short-lived session tokens.

`semlith portal` mints a link token (`link_token`): an expiry, a random nonce and their
HMAC under the portal key (`SEMLITH_HOME/portal.key`, 0600; neither the agent nor the
control key). It travels in the URL's fragment (`#token=...`), which a browser never
sends to a server, so it is never in a request line or a log. The page posts it once
(`Sessions.exchange`) for a session token it keeps in memory (and the tab's
sessionStorage) and sends as a header; the link then is spent. A session lasts
SESSION_SECONDS and is renewed by the open page; closing the page lets it lapse.
Sessions live in the daemon's memory: a restart ends them all.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import threading
import time
from collections.abc import Callable

LINK_SECONDS = 10 * 60  # to open the link `semlith portal` printed
SESSION_SECONDS = 15 * 60  # the page renews its session well before this
PREFIX = "slp1"


class BadToken(ValueError):
    """A link or session token that is malformed, forged, spent or expired."""


def _sign(key: str, message: str) -> str:
    return hmac.new(key.encode(), message.encode(), hashlib.sha256).hexdigest()


def link_token(key: str, now: float | None = None) -> str:
    """A link token valid for LINK_SECONDS, usable once."""
    expires = int((time.time() if now is None else now) + LINK_SECONDS)
    message = f"{PREFIX}.{expires}.{secrets.token_urlsafe(18)}"
    return f"{message}.{_sign(key, message)}"


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


class Sessions:
    """The daemon's portal sessions, and the link tokens already spent."""

    def __init__(self, key: Callable[[], str], clock: Callable[[], float] = time.time
                 ) -> None:
        self.key = key  # read at each exchange: `semlith portal` may mint it first
        self.clock = clock
        self._lock = threading.Lock()
        self._sessions: dict[str, float] = {}  # digest of a session token -> expiry
        self._spent: dict[str, float] = {}  # link nonce -> its expiry

    def exchange(self, link: str) -> str:
        """A new session token for a valid, unspent link token; BadToken otherwise."""
        now = self.clock()
        parts = link.split(".")
        if len(parts) != 4 or parts[0] != PREFIX or not parts[1].isdigit():
            raise BadToken("this is not a portal link token; run `semlith portal` for one")
        message = ".".join(parts[:3])
        if not hmac.compare_digest(_sign(self.key(), message), parts[3]):
            raise BadToken("this portal link was not made by this semlith (or its key "
                           "changed); run `semlith portal` for a new one")
        expires = int(parts[1])
        with self._lock:
            self._forget_expired(now)
            if expires < now:
                raise BadToken("this portal link has expired; run `semlith portal` for a "
                               "new one")
            if parts[2] in self._spent:
                raise BadToken("this portal link was used already; run `semlith portal` "
                               "for a new one")
            self._spent[parts[2]] = expires
            return self._new(now)

    def _new(self, now: float) -> str:
        token = secrets.token_urlsafe(32)
        self._sessions[_digest(token)] = now + SESSION_SECONDS
        return token

    def valid(self, token: str) -> bool:
        with self._lock:
            expiry = self._sessions.get(_digest(token))
            return expiry is not None and expiry >= self.clock()

    def renew(self, token: str) -> str:
        """A fresh session token for a valid one, which ends; BadToken when invalid."""
        now = self.clock()
        with self._lock:
            self._forget_expired(now)
            if self._sessions.pop(_digest(token), None) is None:
                raise BadToken("the portal session has ended; run `semlith portal` for a "
                               "new link")
            return self._new(now)

    def _forget_expired(self, now: float) -> None:
        for table in (self._sessions, self._spent):
            for name in [n for n, expiry in table.items() if expiry < now]:
                del table[name]
