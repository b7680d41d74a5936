"""The files the CLI writes (cli/outputs.py, issue 28 finding 1): an output that is the
same file as an input is refused before anything runs (the program is not even read),
and every output is written whole or not at all."""

from __future__ import annotations

import os
import resource
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import CONFORMANCE

from cint_ls.cli.main import main

# A syntax error: a run that read the program would print its diagnostics.
BROKEN = "export void main() {\n    print(1\n}\n"
TRACE = ('{"type":"run","format":"cint-trace","version":1,"executor":"cpu-sir-interp","outcome":"finished",'
         '"file":"h.ci"}\n')


def cint(capsys, *argv) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def spellings(tmp_path: Path, source: Path) -> dict[str, Path]:
    """Other names of the file `source`: itself, a path through `.`, a symbolic link, a hard link."""
    link, hard = tmp_path / "link.ci", tmp_path / "hard.ci"
    link.symlink_to(source.name)
    os.link(source, hard)
    return {"same": source, "dotted": tmp_path / "." / source.name, "symlink": link, "hardlink": hard}


@pytest.mark.parametrize("flag", ["--trace", "--trace-html"])
@pytest.mark.parametrize("spelling", ["same", "dotted", "symlink", "hardlink"])
def test_trace_output_same_as_source_is_refused(capsys, tmp_path, flag, spelling):
    """`cint run --trace h.ci h.ci` replaced the program with its trace."""
    source = tmp_path / "h.ci"
    source.write_text(BROKEN)
    output = spellings(tmp_path, source)[spelling]
    code, out, err = cint(capsys, "run", "--executor", "cpu-sir-interp", flag, output, source)
    assert code == 2 and out == ""
    assert err == f"cint: error: {flag} {output}: is the input {source}; refusing to overwrite it (name another file)\n"
    assert source.read_text() == BROKEN  # and not parsed: no diagnostics above


def test_swapped_trace_arguments_leave_the_program_as_it_was(capsys, tmp_path):
    """`cint run --trace h.ci t.jsonl` (the arguments swapped): the run fails (t.jsonl is
    no program, exit 2) and h.ci was overwritten all the same."""
    source, trace = tmp_path / "h.ci", tmp_path / "t.jsonl"
    source.write_text((CONFORMANCE / "scale.ci").read_text())
    trace.write_text(TRACE)
    for flag in ("--trace", "--trace-html"):
        code, out, err = cint(capsys, "run", "--executor", "cpu-sir-interp", flag, source, trace)
        assert code == 2 and "error[" in err
        assert err.endswith(f"note: no trace written: the run has no outcome ({source} left as it was)\n")
        assert source.read_text() == (CONFORMANCE / "scale.ci").read_text() and trace.read_text() == TRACE


def test_cint_trace_output_same_as_trace_is_refused(capsys, tmp_path):
    """`cint trace t.jsonl -o t.jsonl` overwrote the trace; so would a trace named
    `t.html` without -o (its page's default name is its own)."""
    trace = tmp_path / "t.jsonl"
    trace.write_text(TRACE)
    code, out, err = cint(capsys, "trace", trace, "-o", trace)
    assert code == 2 and err == f"cint: error: -o {trace}: is the input {trace}; refusing to overwrite it (name another file)\n"
    assert trace.read_text() == TRACE
    named_html = tmp_path / "t.html"
    named_html.write_text(TRACE)
    code, out, err = cint(capsys, "trace", named_html)
    assert code == 2 and "is the input" in err and named_html.read_text() == TRACE


def test_two_outputs_that_are_one_file_are_refused(capsys, tmp_path):
    source, output = tmp_path / "h.ci", tmp_path / "t.out"
    source.write_text(BROKEN)
    code, out, err = cint(capsys, "run", "--trace", output, "--trace-html", tmp_path / "." / "t.out", source)
    assert code == 2 and "is the output of --trace" in err and not output.exists()


def test_outputs_are_written_whole_through_links_keeping_permissions(capsys, tmp_path):
    """The page replaces the file a symbolic link names (the link stays), keeps the
    file's permissions, and no temporary file is left beside it."""
    trace, page, link = tmp_path / "t.jsonl", tmp_path / "page.html", tmp_path / "latest.html"
    trace.write_text(TRACE)
    page.write_text("old")
    page.chmod(0o640)
    link.symlink_to(page.name)
    code, out, err = cint(capsys, "trace", trace, "-o", link)
    assert code == 0 and err == f"wrote {link}\n"
    assert link.is_symlink() and page.read_text().startswith("<!DOCTYPE html>")
    assert page.stat().st_mode & 0o777 == 0o640
    assert sorted(p.name for p in tmp_path.iterdir()) == ["latest.html", "page.html", "t.jsonl"]


def _small_files() -> None:  # in the child: writes past 4 KiB fail with EFBIG (not the signal)
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))


def test_a_failed_write_leaves_the_output_as_it_was(tmp_path):
    """A write that fails halfway (here the file-size limit; a full disk alike) left a
    truncated file; now the file keeps what it had and no temporary file is left."""
    trace, page = tmp_path / "t.jsonl", tmp_path / "t.html"
    trace.write_text(TRACE)
    page.write_text("the page of yesterday")
    done = subprocess.run([sys.executable, "-P", "-m", "cint_ls.cli.main", "trace", str(trace), "-o", str(page)],
                          capture_output=True, text=True, timeout=60, preexec_fn=_small_files, check=False)
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith(f"cint: error: -o {page}: ") and done.stderr.count("\n") == 1, done.stderr
    assert page.read_text() == "the page of yesterday"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.html", "t.jsonl"]


def test_check_prints_the_c5010_reason_like_the_editors(capsys, monkeypatch):
    """Issue 32: `cint check` printed C5010's category ("parameter mode, alias, or ABI
    rule") where the editors give the reason; `cint run` keeps the spec's line (6.5)."""
    monkeypatch.chdir(CONFORMANCE)
    assert main(["check", "same_c5010.ci"]) == 2
    err = capsys.readouterr().err
    assert err.splitlines()[0] == ("error[C5010]: the same view is passed for `u` (in) and `v` (out); an output "
                                   "shares no element with another argument")
    assert "   = note: passed for `u` (in) (same_c5010.ci:7:11)" in err.splitlines()
    assert "parameter mode, alias, or ABI rule" not in err
    assert main(["check", "--executor", "gpu-cuda", "same_c5010.ci"]) == 2
    assert capsys.readouterr().err.startswith("error[C5010]: the same view is passed for `u` (in)")
    assert main(["run", "same_c5010.ci"]) == 2
    assert capsys.readouterr().err == (CONFORMANCE / "same_c5010.out").read_text()
