"""Issue 13 item 2: a workspace cannot choose the program that cpu-c17 runs as its C
compiler. `cint.c17.compiler` is machine-scoped (user or remote settings only), and in
Restricted Mode (an untrusted workspace) the settings that name a program to run are
taken from user settings only."""

from __future__ import annotations

import json
from pathlib import Path

MANIFEST = Path(__file__).parents[2] / "editors" / "vscode" / "package.json"


def test_the_compiler_setting_is_machine_scoped():
    properties = json.loads(MANIFEST.read_text())["contributes"]["configuration"]["properties"]
    assert properties["cint.c17.compiler"]["scope"] == "machine"


def test_settings_that_name_programs_are_restricted_in_untrusted_workspaces():
    manifest = json.loads(MANIFEST.read_text())
    untrusted = manifest["capabilities"]["untrustedWorkspaces"]
    assert untrusted["supported"] == "limited"
    assert {"cint.c17.compiler", "cint.server.path"} <= set(untrusted["restrictedConfigurations"])
    properties = manifest["contributes"]["configuration"]["properties"]
    assert set(untrusted["restrictedConfigurations"]) <= set(properties)
