"""`python -m semlith` is the `semlith` command."""

from semlith.cli import main

main()
