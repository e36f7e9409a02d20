"""The daemon's MCP sessions: at most `SEMLITH_MCP_SESSIONS`, the least recently used
idle one ended to make room for a new one.

Clients that vanish without ending their session leave it behind until it has been idle
for `SEMLITH_MCP_SESSION_IDLE` (30 minutes): 5,000 such sessions held 176 MB more
(~36 KB each) and made a SIGTERM take 12.3 s (issue #47). The SDK's own cap refuses
every new session with 503 once it is reached, which would lock out the one agent that
is still here; this one ends the session that has waited longest since its last request
instead (its id answers 404, and `semlith mcp` opens a new one by itself). A session
with a request in flight is never ended; when every session has one, the SDK's 503
stands.
"""

from __future__ import annotations

import logging
import math
from typing import Any

from mcp.server.auth.middleware.bearer_auth import AuthorizationContext
from mcp.server.streamable_http import StreamableHTTPServerTransport
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager

log = logging.getLogger("semlith.sessions")


class BoundedSessions(StreamableHTTPSessionManager):
    """The SDK's session manager, evicting the least recently used idle session at the cap.

    It relies on two details of the SDK (mcp 2.3): `_admit_session` decides admission
    under the creation lock, and a transport's `idle_scope.deadline` is infinite while a
    request is in flight and `last request + idle timeout` after it, so the earliest
    deadline is the least recently used session (tests/server/test_sessions.py checks
    both through the app).
    """

    def __init__(self, app: Any, *, cap: int, idle_s: float, **kwargs: Any) -> None:
        super().__init__(app, max_sessions=cap, session_idle_timeout=idle_s, **kwargs)

    @property
    def open_sessions(self) -> int:
        return len(self._server_instances)

    def _admit_session(self, requestor: AuthorizationContext | None
                       ) -> StreamableHTTPServerTransport | None:
        if self.max_sessions is not None and self.open_sessions >= self.max_sessions:
            self._evict_idlest()
        return super()._admit_session(requestor)

    def _evict_idlest(self) -> None:
        idle = [(t.idle_scope.deadline, session_id)
                for session_id, t in self._server_instances.items()
                if t.idle_scope is not None and t.idle_scope.deadline != math.inf
                and not t.is_terminated]
        if not idle:
            return
        _, session_id = min(idle)
        transport = self._server_instances.pop(session_id)
        self._session_owners.pop(session_id, None)
        # Forgotten at once (its id answers 404 from now on); cancelling its idle scope
        # ends its server task as the idle time-out does, which terminates the transport.
        assert transport.idle_scope is not None
        transport.idle_scope.cancel()
        log.info("ended MCP session %s, idle the longest, to make room (%d open)",
                 session_id[:8], self.open_sessions)
