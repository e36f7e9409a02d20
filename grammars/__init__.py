"""Tree-sitter queries, shipped as `semlith.grammars`: one `<grammar>.scm` per language
for its definitions (chunks and symbols), and `edges/<grammar>.scm` for the code graph.

They are data: `ingest/definitions.py` and `ingest/graph/extract.py` read them through
`importlib.resources` (README.md says what a query captures).
"""
