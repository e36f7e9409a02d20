"""The portal: a small offline web page, served by the daemon at `/`, over the library.

`session` holds its credentials (one-time links, short-lived sessions), `routes` its
HTTP face; `static/` its page, script and stylesheet (shipped as package data).
"""
