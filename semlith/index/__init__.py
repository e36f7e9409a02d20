"""Keeping a store in step with its files: scan, read, cut, embed, commit;
the watcher and the board of runs."""
