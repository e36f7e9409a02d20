"""Merging into config files: JSONC read and edited in place, TOML tables, YAML blocks,
refusals."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from semlith.setup import jsonc, yamlfile
from semlith.setup.configfile import Outcome, Syntax, merge_into, merged

SEMLITH = {"command": "semlith", "args": ["mcp"]}


def test_jsonc_reads_comments_and_trailing_commas_but_not_inside_strings() -> None:
    text = ('// head\n{"url": "http://x//y", /* c */ "s": "/* not a comment */",\n'
            '  "list": [1, 2,], "obj": {"a": 1,},\n}\n')
    assert jsonc.loads(text) == {"url": "http://x//y", "s": "/* not a comment */",
                                 "list": [1, 2], "obj": {"a": 1}}


def test_jsonc_errors_point_at_the_files_own_line() -> None:
    with pytest.raises(json.JSONDecodeError) as caught:
        jsonc.loads('// one\n/* two\n three */\n{"a": 1 "b": 2}\n')
    assert caught.value.lineno == 4
    with pytest.raises(ValueError, match="never closed"):
        jsonc.loads('{"a": 1} /* open')


@pytest.mark.parametrize("text", [
    '{"mcpServers": {"other": {"command": "x"}}, "z": 1}',  # one line
    '{}', '{\n}\n', '{\n  // only a comment\n}\n', '  {"z": [1, {"a": 2}]}  ',
    '{\n    "mcpServers": {\n        "other": {}\n    }\n}\n',  # four-space indent
    '{\n  "mcpServers": {},\n  "semlith": 1\n}\n',
    '{"mcpServers": {"semlith": {"command": "old"}, "semlith": {"command": "older"}}}',
])
def test_set_member_changes_only_the_entry(text: str) -> None:
    edited = jsonc.set_member(text, ["mcpServers"], "semlith", SEMLITH)
    assert jsonc.loads(edited) == merged(jsonc.loads(text), {"mcpServers": {"semlith": SEMLITH}})
    if "//" in text:
        assert "// only a comment" in edited


def test_put_item_replaces_by_identity_or_goes_first() -> None:
    text = '{"inputs": [\n  {"id": "a", "v": 1},\n  {"id": "k", "v": 1}\n]}'
    def ident(item: Any) -> object:
        return item.get("id")
    replaced = jsonc.loads(jsonc.put_item(text, "inputs", {"id": "k", "v": 2}, ident))
    assert replaced["inputs"] == [{"id": "a", "v": 1}, {"id": "k", "v": 2}]
    added = jsonc.loads(jsonc.put_item(text, "inputs", {"id": "n"}, ident))
    assert [i["id"] for i in added["inputs"]] == ["n", "a", "k"]
    fresh = jsonc.loads(jsonc.put_item("{}", "inputs", {"id": "n"}, ident))
    assert fresh == {"inputs": [{"id": "n"}]}


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner,
                                                                 max_size=3), max_leaves=12)


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(st.text(max_size=6), JSON_VALUES, max_size=4),
       st.dictionaries(st.text(max_size=6), JSON_VALUES, max_size=3),
       st.sampled_from([None, 0, 2, 4]))
def test_set_member_agrees_with_the_data_merge_in_any_layout(
        root: dict[str, Any], servers: dict[str, Any], indent: int | None) -> None:
    document = {**root, "mcpServers": servers}
    text = json.dumps(document, indent=indent)
    edited = jsonc.set_member(text, ["mcpServers"], "semlith", SEMLITH)
    assert jsonc.loads(edited) == merged(document, {"mcpServers": {"semlith": SEMLITH}})


def test_merge_into_toml_without_a_final_newline(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text('model = "o3"')
    written = merge_into(path, {"mcp_servers": {"semlith": SEMLITH}}, Syntax.TOML)
    assert written.outcome is Outcome.ADDED
    assert path.read_text() == ('model = "o3"\n\n[mcp_servers.semlith]\ncommand = "semlith"\n'
                                'args = ["mcp"]\n')


def test_merge_into_an_empty_file(tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    path.write_text("\n")
    assert merge_into(path, {"servers": {"semlith": SEMLITH}}, Syntax.JSON).outcome \
        is Outcome.ADDED
    assert json.loads(path.read_text()) == {"servers": {"semlith": SEMLITH}}


def test_merge_into_a_folder_is_one_error(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="cannot read"):
        merge_into(tmp_path, {"servers": {"semlith": SEMLITH}}, Syntax.JSON)


# -- YAML (goose, Continue) ------------------------------------------------------------

GOOSE = {"extensions": {"semlith": {"type": "stdio", "cmd": "/v/bin/semlith", "args": ["mcp"],
                                    "envs": {}, "timeout": 300}}}
CONTINUE = {"mcpServers": [{"name": "semlith", "command": "/v/bin/semlith", "args": ["mcp"]}]}


@pytest.mark.parametrize(("text", "config"), [
    ("", GOOSE),
    ("# only a comment\n", GOOSE),
    ("GOOSE_MODEL: x\nextensions:\n", GOOSE),  # an empty block reads as null
    ("extensions: {}  # none yet\nGOOSE_MODEL: x\n", GOOSE),
    ("extensions:\n    dev:\n        enabled: true\n\n# next\nGOOSE_MODEL: x\n", GOOSE),
    ("extensions:\n  semlith:\n    cmd: semlith\n    args: [mcp]\n  dev: {enabled: true}\n",
     GOOSE),
    ("mcpServers: []\n", CONTINUE),
    ("mcpServers:\n- name: other\n  command: x\n", CONTINUE),  # dashes at the key's column
    ("mcpServers:\n  - name: semlith\n    command: semlith\n  - name: b\n    command: y\n",
     CONTINUE),
])
def test_yaml_edits_agree_with_the_data_merge(tmp_path: Path, text: str,
                                              config: dict[str, Any]) -> None:
    path = tmp_path / "config.yaml"
    path.write_text(text)
    before = yamlfile.loads(text) or {}
    merge_into(path, config, Syntax.YAML)
    edited = path.read_text()
    assert yamlfile.loads(edited) == merged(before, config)
    assert "# " not in text or text.split("# ", 1)[1].split("\n")[0] in edited
    assert merge_into(path, config, Syntax.YAML).outcome is Outcome.UNCHANGED


@pytest.mark.parametrize("text", [
    "extensions: {dev: {enabled: true}}\n",  # flow style: not edited as text
    "extensions: [1, 2]\n",  # not a table
    "extensions:\n  - a\n",
    "extensions: &x\n  dev: 1\nother: *x\n",
    "a: [unclosed\n",  # not YAML
    "- a list\n",
])
def test_yaml_that_cannot_be_edited_is_refused_untouched(tmp_path: Path, text: str) -> None:
    path = tmp_path / "config.yaml"
    path.write_text(text)
    with pytest.raises(ValueError, match=str(path)):
        merge_into(path, GOOSE, Syntax.YAML)
    assert path.read_text() == text and [p.name for p in tmp_path.iterdir()] == [path.name]


def test_a_new_file_starts_with_what_the_client_requires(tmp_path: Path) -> None:
    path = tmp_path / "mcpServers" / "semlith.yaml"
    head = {"name": "semlith", "version": "0.0.1", "schema": "v1"}
    assert merge_into(path, CONTINUE, Syntax.YAML, head).outcome is Outcome.CREATED
    assert yamlfile.loads(path.read_text()) == {**head, **CONTINUE}
    assert merge_into(path, CONTINUE, Syntax.YAML, head).outcome is Outcome.UNCHANGED


SCALARS = st.none() | st.booleans() | st.integers() | st.text(max_size=12)


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(st.text(min_size=1, max_size=6),
                       SCALARS | st.lists(SCALARS, max_size=3) |
                       st.dictionaries(st.text(min_size=1, max_size=6), SCALARS, max_size=3),
                       max_size=4))
def test_yaml_layout_reads_back_as_the_same_data(config: dict[str, Any]) -> None:
    assert (yamlfile.loads(yamlfile.dumps(config)) or {}) == config
