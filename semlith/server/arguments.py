"""The argument rule every MCP tool follows, applied in one place (`RuledTool.run`).

Agents send what they think a tool takes, so before the SDK validates a call:

- an argument the tool does not take is refused, naming it and the ones it takes;
- `store` is an alias of `stores` (one name per concept: a store or a list of them);
- a single string where a list is expected is a one-element list;
- a number outside its range is clamped to it, and the answer ends with a note line
  saying so.

What still fails validation comes back as one sentence built from the tool's schema
(the argument, what it must be, what was sent), never pydantic's text or its URL.
docs/clients.md ("How tools read their arguments") documents this rule.
"""

from __future__ import annotations

import json
from typing import Any

from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.mcpserver.tools import Tool
from mcp.types import CallToolResult, TextContent
from pydantic import ValidationError

ALIASES = {"store": "stores"}


class ArgumentError(ValueError):
    """A call's arguments break the rule; the message is the sentence the agent sees."""


class RuledTool(Tool):
    """A tool whose arguments are normalised by the rule before the SDK validates them."""

    async def run(self, arguments: dict[str, Any], context: Any,
                  convert_result: bool = False) -> Any:
        try:
            arguments, notes = normalise(self.name, self.parameters, arguments)
            result = await super().run(arguments, context, convert_result=convert_result)
        except ArgumentError as exc:
            return _failure(str(exc))
        except ToolError as exc:
            if isinstance(exc.__cause__, ValidationError):
                return _failure(explain(self.name, self.parameters, exc.__cause__))
            raise
        return _with_notes(result, notes)


def normalise(tool: str, schema: dict[str, Any], arguments: dict[str, Any]
              ) -> tuple[dict[str, Any], list[str]]:
    """The arguments the rule makes of `arguments`, and the notes to append to the answer."""
    properties: dict[str, Any] = schema.get("properties", {})
    out: dict[str, Any] = {}
    for name, value in arguments.items():
        target = ALIASES.get(name, name) if name not in properties else name
        if target not in properties:
            raise ArgumentError(f"{tool} has no argument {name!r}; it takes: "
                                f"{_accepted(properties)}")
        if target in out:
            alias = next(a for a, t in ALIASES.items() if t == target)
            raise ArgumentError(f"{tool}: give {target} or {alias}, not both")
        out[target] = value
    notes = []
    for name, value in out.items():
        out[name], note = _coerce(name, properties[name], value)
        if note:
            notes.append(note)
    return out, notes


def _accepted(properties: dict[str, Any]) -> str:
    names = list(properties)
    aliases = [f"{alias} (= {name})" for alias, name in ALIASES.items() if name in properties]
    return ", ".join(names + aliases)


def _coerce(name: str, schema: dict[str, Any], value: Any) -> tuple[Any, str]:
    kind = schema.get("type")
    if kind == "array" and isinstance(value, str):
        return [value], ""
    if kind in ("integer", "number") and isinstance(value, int | float) \
            and not isinstance(value, bool):
        low, high = schema.get("minimum"), schema.get("maximum")
        if low is not None and value < low:
            return low, f"note: {name} {value} is below {low}, the least it takes; used {low}"
        if high is not None and value > high:
            return high, f"note: {name} {value} is above {high}, the most it takes; " \
                         f"used {high}"
    return value, ""


def explain(tool: str, schema: dict[str, Any], error: ValidationError) -> str:
    """One sentence for the first thing wrong in `error`, from the schema alone."""
    properties: dict[str, Any] = schema.get("properties", {})
    first = error.errors()[0]
    name = str(first["loc"][0]) if first["loc"] else ""
    if name not in properties:
        return f"{tool}: the arguments must be an object with: {_accepted(properties)}"
    expected = describe(properties[name])
    if first["type"] == "missing":
        return f"{tool} needs the argument {name} ({expected})"
    sent = json.dumps(first.get("input"), default=str)
    sent = sent if len(sent) <= 40 else sent[:37] + "..."
    return f"{tool}: {name} must be {expected}, not {sent}"


def describe(schema: dict[str, Any]) -> str:
    """What a value of this schema is, in a few words: 'an integer from 1 to 50'."""
    if "enum" in schema:
        return "one of " + ", ".join(json.dumps(v) for v in schema["enum"])
    kind = schema.get("type")
    low, high = schema.get("minimum"), schema.get("maximum")
    words = {"integer": "an integer", "number": "a number", "string": "a string",
             "boolean": "true or false", "object": "an object"}
    if kind == "array":
        return f"a list of {schema.get('items', {}).get('type', 'value')}s (or one)"
    text = words.get(str(kind), "a value")
    if low is not None and high is not None:
        return f"{text} from {low} to {high}"
    return text


def _failure(message: str) -> CallToolResult:
    return CallToolResult(content=[TextContent(type="text", text=message)], is_error=True)


def _with_notes(result: Any, notes: list[str]) -> Any:
    """The answer with the rule's notes as its last lines (none on a failure)."""
    if not notes:
        return result
    if isinstance(result, str):
        return "\n".join([result, *notes])
    if isinstance(result, CallToolResult) and not result.is_error:
        texts = [c for c in result.content if isinstance(c, TextContent)]
        if texts:
            texts[-1].text = "\n".join([texts[-1].text, *notes])
        else:
            result.content.append(TextContent(type="text", text="\n".join(notes)))
    return result
