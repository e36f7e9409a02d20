"""Files to text to chunks: the walk (ignore files, secrets, sizes), one gate from bytes to
servable text (code, PDF, notebooks, documents in `formats/`), generated and costly files
judged before parsing, one tree-sitter parse per file, and chunks cut at definitions or
headings; `graph/` takes the code graph's edges from the same parse.

Nothing here knows a store: the indexer (`semlith/index/`) writes what this returns.
"""
