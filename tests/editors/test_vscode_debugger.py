"""The VS Code side of cint-debug (issue 30): the debugger's contribution, its launch
attributes as the adapter reads them, and the editor title's Run and Debug buttons."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from cint_ls.debug.adapter import RequestFailed, _fast

VSCODE = Path(__file__).resolve().parents[2] / "editors" / "vscode"


def manifest() -> dict[str, Any]:
    return json.loads((VSCODE / "package.json").read_text())["contributes"]


def attributes() -> dict[str, Any]:
    (debugger,) = manifest()["debuggers"]
    return debugger["configurationAttributes"]["launch"]["properties"]


def test_every_contributed_command_is_registered() -> None:
    source = "".join(path.read_text() for path in sorted((VSCODE / "src").glob("*.ts")))
    constants = dict(re.findall(r'const (\w+) = "(cint\.\w+)"', source))
    registered = set(re.findall(r'registerCommand\("(cint\.\w+)"', source))
    registered |= {constants[name] for name in re.findall(r"registerCommand\((\w+),", source) if name in constants}
    registered |= {constants[name] for name in re.findall(r"for \(const command of \[([\w, ]+)\]", source)[0]
                   .replace(" ", "").split(",") if name in constants}
    contributed = {c["command"] for c in manifest()["commands"]}
    assert contributed <= registered, contributed - registered


def test_the_editor_title_runs_and_debugs_a_cint_file() -> None:
    title = manifest()["menus"]["editor/title/run"]
    assert [m["command"] for m in sorted(title, key=lambda m: m["group"])] == \
        ["cint.runFile", "cint.debug", "cint.debugToFault"]
    assert all(m["when"] == "resourceLangId == cint" for m in title)
    icons = {c["command"]: c.get("icon") for c in manifest()["commands"]}
    assert icons["cint.runFile"] == "$(play)" and icons["cint.debug"] and icons["cint.debugToFault"]


@pytest.mark.parametrize("value", [{"dispatch": 0, "workItem": 5}, {"dispatch": 30, "workItem": 6151},
                                   {"dispatch": -1, "workItem": 0}, {"dispatch": 0}, {"dispatch": 1.5, "workItem": 0},
                                   {"dispatch": True, "workItem": 0}, [0, 1], "0:1"])
def test_run_to_work_item_schema_matches_the_adapter(value: object) -> None:
    in_schema = jsonschema.Draft7Validator(attributes()["runToWorkItem"]).is_valid(value)
    try:
        accepted = _fast({"runToWorkItem": value}) is not None
    except RequestFailed:
        accepted = False
    assert in_schema == accepted, value


@pytest.mark.parametrize("value", [True, False, "yes", 1, None])
def test_stop_on_fault_schema_matches_the_adapter(value: object) -> None:
    in_schema = jsonschema.Draft7Validator(attributes()["stopOnFault"]).is_valid(value)
    try:
        _fast({"stopOnFault": value})
        accepted = value is not None
    except RequestFailed:
        accepted = False
    assert in_schema == accepted, value


def test_the_executor_attribute_names_every_executor() -> None:
    from cint_ls.exec.executors import EXECUTOR_NAMES

    assert attributes()["executor"]["enum"] == ["auto", *EXECUTOR_NAMES]
    snippets = {s["label"]: s["body"] for s in manifest()["debuggers"][0]["configurationSnippets"]}
    assert snippets["cint: Debug to the first fault"]["stopOnFault"] is True
