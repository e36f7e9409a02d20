"""Embedding models: recipes, their onnxruntime sessions, fastembed, the vector cache.

onnxruntime 1.32's Linux wheels send usage telemetry (1DS, to
mobile.events.data.microsoft.com) from a thread that retries every few seconds: offline,
a DNS lookup each time, 0.1 s of an idle daemon's CPU a minute, and a local tool should
not report on its user anyway (issue #25; docs/performance.md, "Idle, wake-up by
wake-up"). Its `disable_telemetry_events()` does not stop the uploader; the environment
variable, read when onnxruntime is first imported, does. Every import of onnxruntime in
semlith sits below this package, so this runs first. A user's own setting stays.
"""

import os

os.environ.setdefault("ORT_DISABLE_TELEMETRY", "1")
