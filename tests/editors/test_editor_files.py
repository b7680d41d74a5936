"""Static checks of the editor integrations (no editor needed): the Neovim plugin ships the
grammar's queries unchanged, and the VS Code extension's manifest mirrors the server's
settings and commands."""

from __future__ import annotations

import json
import re
from pathlib import Path

REPO = Path(__file__).parents[2]
QUERIES = REPO / "grammar" / "queries"
NVIM_QUERIES = REPO / "editors" / "neovim" / "queries" / "cint"
VSCODE = REPO / "editors" / "vscode"


def test_neovim_queries_identical_to_the_grammar():
    grammar = {p.name: p.read_bytes() for p in QUERIES.glob("*.scm")}
    plugin = {p.name: p.read_bytes() for p in NVIM_QUERIES.glob("*.scm")}
    assert grammar, "grammar/queries has no .scm files"
    assert sorted(plugin) == sorted(grammar), "editors/neovim/queries/cint must hold exactly grammar/queries/*.scm"
    stale = [name for name in grammar if plugin[name] != grammar[name]]
    assert not stale, (f"editors/neovim/queries/cint differs from grammar/queries in {stale}: "
                       "cp grammar/queries/*.scm editors/neovim/queries/cint/")


def test_neovim_plugin_layout():
    for path in ("lua/cint/init.lua", "plugin/cint.lua", "ftdetect/cint.lua", "doc/cint.txt"):
        assert (REPO / "editors" / "neovim" / path).is_file(), path
    assert "ci = 'cint'" in (REPO / "editors" / "neovim" / "ftdetect" / "cint.lua").read_text()


def test_neovim_docs_say_how_to_really_install_and_set_no_fuel():
    """Issue 32: `:help cint` said `pip install cint-ls`, which no index has, and the
    example config set `fuel = 100000`, which stops longer programs with E_FUEL."""
    texts = {path: (REPO / path).read_text() for path in (
        "editors/neovim/doc/cint.txt", "editors/neovim/lua/cint/health.lua", "editors/neovim/lua/cint/init.lua",
        "editors/neovim/lsp/cint_ls.lua", "docs/editors.md")}
    for path, text in texts.items():
        assert "pip install cint-ls" not in text, path
        assert "fuel = 100000 }" not in text and "fuel = 100000," not in text, path
    assert "python3 -m pip install /path/to/cint-ls" in texts["editors/neovim/doc/cint.txt"]


def manifest() -> dict:
    return json.loads((VSCODE / "package.json").read_text())


def test_vscode_manifest_contributes_the_language():
    contributes = manifest()["contributes"]
    (language,) = contributes["languages"]
    assert language["id"] == "cint" and language["extensions"] == [".ci"]
    (grammar,) = contributes["grammars"]
    assert grammar["scopeName"] == "source.cint"
    assert (VSCODE / grammar["path"]).is_file()
    assert (VSCODE / language["configuration"]).is_file()


def test_vscode_settings_mirror_the_server():
    properties = manifest()["contributes"]["configuration"]["properties"]
    for key in ("cint.server.path", "cint.targets", "cint.fuel", "cint.run.timeLimit",
                "cint.inlayHints.stepOrdinals", "cint.trace.server", "cint.c17.compiler"):
        assert key in properties, key
    assert properties["cint.targets"]["default"] == ["cpu-c17", "gpu-cuda"]
    assert properties["cint.fuel"]["default"] is None


def test_vscode_commands():
    commands = {c["command"] for c in manifest()["contributes"]["commands"]}
    assert {"cint.run", "cint.restartServer", "cint.showOutput"} <= commands
    source = (VSCODE / "src" / "extension.ts").read_text()
    for command in ("cint.restartServer", "cint.showOutput", "cint/runResult"):
        assert command in source, command


def test_vscode_lockfile_committed_and_matching():
    lock = json.loads((VSCODE / "package-lock.json").read_text())
    root = lock["packages"][""]
    assert root["dependencies"] == manifest()["dependencies"]
    assert root["devDependencies"] == manifest()["devDependencies"]


def test_textmate_grammar_regexes_compile():
    # Oniguruma is not Python's re, but every pattern here stays within their common subset.
    grammar = json.loads((VSCODE / "syntaxes" / "cint.tmLanguage.json").read_text())
    found = []

    def walk(node):
        if isinstance(node, dict):
            for key, value in node.items():
                if key in ("match", "begin", "end") and isinstance(value, str):
                    found.append(value)
                    re.compile(value)
                else:
                    walk(value)
        elif isinstance(node, list):
            for item in node:
                walk(item)

    walk(grammar)
    assert len(found) > 40


def test_vscode_styles_every_semantic_token_of_the_server():
    """Issue 12 item 9: a token type or modifier VS Code does not know changes nothing on
    screen; the extension declares every one of the server's legend that is not standard."""
    from cint_ls.ide import SEMANTIC_TOKEN_KINDS, SEMANTIC_TOKEN_MODIFIERS

    standard_types = {"namespace", "class", "enum", "interface", "struct", "typeParameter", "type", "parameter",
                      "variable", "property", "enumMember", "decorator", "event", "function", "method", "macro",
                      "label", "comment", "string", "keyword", "number", "regexp", "operator"}
    standard_modifiers = {"declaration", "definition", "readonly", "static", "deprecated", "abstract", "async",
                          "modification", "documentation", "defaultLibrary"}
    manifest = json.loads((VSCODE / "package.json").read_text())["contributes"]
    types = {t["id"]: t for t in manifest["semanticTokenTypes"]}
    modifiers = {m["id"] for m in manifest["semanticTokenModifiers"]}
    for kind in SEMANTIC_TOKEN_KINDS:
        assert kind in standard_types or kind in types, kind
    for kind, declared in types.items():
        assert declared.get("superType") in standard_types, kind  # themes style it like its super type
    for modifier in SEMANTIC_TOKEN_MODIFIERS:
        assert modifier in standard_modifiers or modifier in modifiers, modifier
    scopes = manifest["semanticTokenScopes"][0]["scopes"]
    assert {"kernel", "sizeSymbol", "overVariable"} <= set(scopes)
