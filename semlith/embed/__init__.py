"""Embedding models: recipes, their onnxruntime sessions, fastembed, the vector cache.

onnxruntime 1.32's Linux wheels send usage telemetry (1DS, to
mobile.events.data.microsoft.com) from a thread that retries every few seconds; offline
that is a DNS lookup each time. Its CPU is below what an idle minute shows (5.0 ms a
minute with it and without it, two daemons side by side for 4 minutes), but it is a
wake-up of the idle daemon all the same (issue #25), and a local tool should not report
on its user. Its `disable_telemetry_events()` does not stop the uploader; the
environment variable, read when onnxruntime is first imported, does. Every import of
onnxruntime in semlith sits below this package, so this runs first. A user's own setting
stays.
"""

import os

os.environ.setdefault("ORT_DISABLE_TELEMETRY", "1")
