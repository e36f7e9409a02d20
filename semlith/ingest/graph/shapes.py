"""Turning captured nodes into record fields: bounded text, what a receiver is, the
parts of an import (Rust's use trees, Java's dotted paths, Go's aliases)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from semlith.ingest.graph.records import ImportKind, QualifierKind

# A receiver or type is a hint for the resolver, not a copy of the code: a builder chain
# over several lines would otherwise be stored once per call in it.
TEXT_CHARS = 80
_SPACE = re.compile(r"\s+")
_IDENT = r"[A-Za-z_$@\\][\w$]*"
_NAME = re.compile(_IDENT)
_PATH = re.compile(rf"{_IDENT}(?:(?:\.|::|->|\?\.|\\){_IDENT})+")
_SEPARATOR = re.compile(r"\.|::|->|\?\.|\\")
_SIGILS = re.compile(r"^(?:[&*?]|mut\s+|dyn\s+|const\s+)+")
SELF_WORDS = frozenset({"self", "this", "cls", "Self", "$this", "static"})
_SUPER_WORDS = {"csharp": frozenset({"super", "base"}), "php": frozenset({"parent"})}
_SUPER_DEFAULT = frozenset({"super"})


def text_of(node: Any, data: bytes) -> str:
    """A node's source, sliced from `data` (`Node.text` reads through the read callback)."""
    return data[node.start_byte : node.end_byte].decode("utf-8", "replace")


def bounded(text: str) -> str:
    """`text` on one line, at most TEXT_CHARS long (an ellipsis marks a cut)."""
    flat = _SPACE.sub(" ", text).strip()
    return flat if len(flat) <= TEXT_CHARS else flat[: TEXT_CHARS - 1] + "…"


def type_text(text: str) -> str:
    """A type as written, without `&`, `*`, `mut`, `?` before it (`&mut Foo` -> `Foo`) or
    the quotes of a forward reference (`"Session"`)."""
    return bounded(_SIGILS.sub("", text.strip().strip("\"'")))


def parent_text(text: str) -> str:
    """A base as written, without its type or constructor arguments."""
    return bounded(re.split(r"[<\[(]", text, maxsplit=1)[0])


def unquote(text: str) -> str:
    return text.strip().strip("\"'`<>")


def qualifier(receiver: str, node_type: str, language: str,
              self_name: str = "") -> QualifierKind:
    """What kind of receiver `receiver` is; `node_type` is its node's type ("" when the
    receiver was cut from a chain's text); `self_name` a Go method's receiver name."""
    if not receiver:
        return QualifierKind.NONE
    selves = SELF_WORDS | {self_name} if self_name else SELF_WORDS
    if receiver in selves:
        return QualifierKind.SELF
    supers = _SUPER_WORDS.get(language, _SUPER_DEFAULT)
    if receiver in supers or receiver.startswith(("super(", "super<", "super@")):
        return QualifierKind.SUPER
    if _is_call(receiver, node_type):
        return QualifierKind.CALL
    if _NAME.fullmatch(receiver):
        return QualifierKind.MEMBER if receiver.startswith("@") else QualifierKind.NAME
    if _PATH.fullmatch(receiver):
        head = _SEPARATOR.split(receiver, maxsplit=1)[0]
        return QualifierKind.MEMBER if head in selves else QualifierKind.MODULE_PATH
    return QualifierKind.OTHER


def _is_call(receiver: str, node_type: str) -> bool:
    if node_type:
        return any(word in node_type for word in ("call", "invocation", "creation", "new_"))
    return receiver.endswith(")")


def chain_receiver(chain: Any, name: Any, data: bytes) -> str:
    """The receiver of a call whose grammar gives no receiver node (Zig's suffix chains,
    Kotlin's and Swift's navigation): the chain's text before the name, less the dot."""
    head = data[chain.start_byte : name.start_byte].decode("utf-8", "replace")
    return head.rstrip().removesuffix(".").removesuffix("?").rstrip(":").rstrip()


def split_path(path: str) -> tuple[str, str]:
    """`a.b.C` -> (`a.b`, `C`); `a::b` -> (`a`, `b`); a single name -> (name, "")."""
    separators = list(_SEPARATOR.finditer(path))
    if not separators:
        return path, ""
    return path[: separators[-1].start()], path[separators[-1].end() :]


def rust_use(node: Any, data: bytes, prefix: str = "") -> Iterator[tuple[str, str, str]]:
    """The (module, name, alias) triples of a Rust use tree:
    `a::b::{c, d as e, f::*}` -> (a::b, c, ""), (a::b, d, e), (a::b::f, *, "")."""
    kind = node.type
    if kind == "scoped_use_list":
        path = node.child_by_field_name("path")
        inner = _join(prefix, text_of(path, data)) if path is not None else prefix
        listed = node.child_by_field_name("list")
        for child in listed.named_children if listed is not None else ():
            yield from rust_use(child, data, inner)
    elif kind == "use_list":
        for child in node.named_children:
            yield from rust_use(child, data, prefix)
    elif kind == "use_as_clause":
        path, alias = node.child_by_field_name("path"), node.child_by_field_name("alias")
        if path is not None:
            module, name = split_path(_join(prefix, text_of(path, data)))
            yield module, name, text_of(alias, data) if alias is not None else ""
    elif kind == "use_wildcard":
        star = node.named_children[0] if node.named_children else None
        yield _join(prefix, text_of(star, data)) if star is not None else prefix, "*", ""
    elif kind == "self":  # `use std::io::{self, Read}` binds `io` itself
        module, name = split_path(prefix)
        yield module, name, ""
    elif "comment" not in kind:
        module, name = split_path(_join(prefix, text_of(node, data)))
        yield module, name, ""


def _join(prefix: str, path: str) -> str:
    return f"{prefix}::{path}" if prefix else path


def go_import(alias: str) -> tuple[str, str, ImportKind]:
    """Go's import names: `_` binds nothing, `.` brings every exported name in."""
    if alias == "_":
        return "", "", ImportKind.SIDE_EFFECT
    if alias == ".":
        return "*", "", ImportKind.NAME
    return "", alias, ImportKind.MODULE
