"""Issue 13 item 2: `cint.c17.compiler` names one program, never a command line.

It becomes the $CC of cpu-c17's runs, and build.py splits $CC into words; a workspace
that sets it to `sh -c '...'` ran that command on the first Run. The server now accepts
an absolute path (quoted for $CC) or a bare command name, and refuses anything else with
a warning (the run then uses the default compiler)."""

from __future__ import annotations

import asyncio
import shlex
import stat
import uuid

import pytest
from lsp_support import conformance, open_document, server_fixture, uri_of
from lsprotocol import types as lsp

from cint_ls.server.settings import Settings, compiler_setting, parse_settings


def _compiler(value):
    settings, warnings = parse_settings({"c17": {"compiler": value}})
    return settings.c17_compiler, warnings


@pytest.mark.parametrize("name", ["clang", "gcc", "gcc-13", "x86_64-linux-gnu-gcc", "c++", "cc"])
def test_a_bare_command_name_is_accepted(name):
    assert _compiler(name) == (name, [])


def test_an_absolute_path_is_accepted(tmp_path):
    compiler = tmp_path / "bin" / "my cc"  # a space: quoted, so that $CC stays one word
    compiler.parent.mkdir()
    compiler.write_text("#!/bin/sh\nexit 0\n")
    compiler.chmod(compiler.stat().st_mode | stat.S_IEXEC)
    value, warnings = _compiler(str(compiler))
    assert warnings == [] and shlex.split(value) == [str(compiler)]
    assert _compiler(f"{tmp_path}/bin/../bin/my cc")[0] == value  # normalized


def test_a_path_that_is_no_executable_is_kept_with_a_warning():
    """The run then says the compiler does not exist (test_settings.py)."""
    value, warnings = _compiler("/nonexistent/cc")
    assert value == "/nonexistent/cc"
    assert warnings == ["cint.c17.compiler: /nonexistent/cc is not an executable file (cpu-c17 runs will fail)"]


@pytest.mark.parametrize("value", [
    "sh -c 'id > x'", "ccache gcc", "gcc -O0", "./cc", "bin/gcc", "../cc", "$(id)", "`id`", "gcc;id", "gcc|id",
    "-fplugin=x.so", ".hidden", "  ", "cc\nid",
])
def test_anything_else_is_refused(value):
    settings, warnings = parse_settings({"c17": {"compiler": value}}, Settings(c17_compiler="clang"))
    assert settings.c17_compiler is None
    (warning,) = warnings
    assert warning.startswith("cint.c17.compiler: expected the absolute path of a C compiler or a command name "
                              "on PATH, without arguments, got ")


def test_a_home_relative_path_is_expanded(monkeypatch, tmp_path):
    monkeypatch.setenv("HOME", str(tmp_path))
    warning = f"cint.c17.compiler: {tmp_path / 'cc'} is not an executable file (cpu-c17 runs will fail)"
    assert compiler_setting("~/cc") == (str(tmp_path / "cc"), warning)


client = server_fixture(settings={})


@pytest.mark.needs_cc
@pytest.mark.asyncio(loop_scope="module")
async def test_a_command_line_as_compiler_never_runs(client, tmp_path):
    marker = tmp_path / f"ran-{uuid.uuid4().hex}"
    uri = uri_of("compiler_setting")
    await open_document(client, uri, conformance("scale"))
    client.set_configuration({"c17": {"compiler": f"sh -c 'touch {marker}'"}}, section="cint")
    client.workspace_did_change_configuration(lsp.DidChangeConfigurationParams(settings=None))
    await asyncio.sleep(0.3)
    try:
        result = await client.workspace_execute_command_async(lsp.ExecuteCommandParams(
            command="cint.run", arguments=[uri, "cpu-c17"]))
    finally:
        client.set_configuration({}, section="cint")
        client.workspace_did_change_configuration(lsp.DidChangeConfigurationParams(settings=None))
        await asyncio.sleep(0.3)
    assert not marker.exists()
    assert result["error"] is None and result["output"] is not None
