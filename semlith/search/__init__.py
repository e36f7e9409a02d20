"""Searching stores: the searcher (dense, keyword and symbol lists, fused)
and definitions by name."""
