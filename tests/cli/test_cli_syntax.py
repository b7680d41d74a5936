"""`cint parse` and `cint check` on good, broken and unusable input."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import CONFORMANCE

from cint_ls.cli.main import main


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_parse_prints_sexpression(capsys):
    code, out, err = run(capsys, "parse", str(CONFORMANCE / "scale.ci"))
    assert code == 0 and err == ""
    assert out.startswith("(source_file (kernel_definition name: (identifier)")


def test_parse_reports_syntax_errors_in_report_format(capsys, tmp_path):
    bad = tmp_path / "half.ci"
    bad.write_text("kernel k[n](in I64[n] a, out I64[n] b) over [i: n] {\n    b[i] = a[i] *\n}\n")
    code, out, err = run(capsys, "parse", str(bad))
    assert code == 1
    assert "ERROR" in out or "MISSING" in out
    assert err.startswith("error[C1")
    assert f"  --> {bad}:3:1" in err or f"  --> {bad}:2:" in err
    assert "\n   |\n" in err


def test_missing_semicolon_message(capsys, tmp_path):
    bad = tmp_path / "semi.ci"
    bad.write_text("void go() {\n    I64 x = 1\n    I64 y = 2;\n}\n")
    code, _, err = run(capsys, "check", str(bad))
    assert code == 2
    assert "error[C1002]: expected `;` after the declaration" in err
    assert f"--> {bad}:2:14" in err


def test_check_clean_file_exits_0(capsys):
    assert run(capsys, "check", str(CONFORMANCE / "heat_e1.ci")) == (0, "", "")


def test_deeply_nested_expression_is_a_diagnostic(capsys, tmp_path):
    deep = tmp_path / "deep.ci"
    deep.write_text("I64 x = " + "(" * 3000 + "1" + ")" * 3000 + ";\n")
    code, _, err = run(capsys, "check", str(deep))
    assert code == 2 and "error[C1003]" in err


@pytest.mark.parametrize(
    "make, expected",
    [
        (lambda p: p.mkdir(), "is a directory"),
        (lambda p: None, "does not exist"),
        (lambda p: p.write_bytes(b"I64 x = 1;\n\xff\xfe\n"), "is not UTF-8 text (invalid byte 0xff on line 2)"),
    ],
    ids=["directory", "missing", "not-utf8"],
)
def test_unusable_input_is_one_line_and_exit_2(capsys, tmp_path, make, expected):
    target = tmp_path / "x.ci"
    make(target)
    for command in ("parse", "check"):
        code, out, err = run(capsys, command, str(target))
        assert code == 2 and out == ""
        assert err.count("\n") == 1 and err.startswith("cint: error: ") and expected in err


def test_unreadable_file(capsys, tmp_path):
    # Root reads any file whatever its mode, so use an error every user meets.
    target = tmp_path / ("x" * 300 + ".ci")
    code, _, err = run(capsys, "check", str(target))
    assert code == 2 and "cannot read" in err and "File name too long" in err


def test_console_script_installed():
    exe = shutil.which("cint", path=os.path.dirname(sys.executable)) or shutil.which("cint")
    assert exe, "the `cint` console script is not on PATH"
    done = subprocess.run([exe, "check", str(CONFORMANCE / "scale.ci")], capture_output=True, text=True)
    assert done.returncode == 0 and done.stderr == ""


def test_emit_ir_shows_the_heat_steps(capsys):
    code, out, err = run(capsys, "emit-ir", str(CONFORMANCE / "heat_e1.ci"))
    assert code == 0 and err == ""
    assert "mul.checked.i64(%kn, %lap) @13:33 #22" in out
    assert "28 counted operations" in out


def test_emit_ir_of_a_broken_file_prints_errors(capsys, tmp_path):
    bad = tmp_path / "bad.ci"
    bad.write_text("void f() { I64 x = y; }\n")
    code, out, err = run(capsys, "emit-ir", str(bad))
    assert code == 2 and out == "" and "error[C2001]" in err


def test_run_without_the_device_asked_for_is_one_line(capsys):
    from cint_ls.exec.cuda.device import DeviceUnavailable
    from cint_ls.exec.cuda.oracle.driver import CudaDevice

    try:
        CudaDevice().close()
    except DeviceUnavailable:
        pass
    else:
        pytest.skip("this machine has a CUDA device")
    code, out, err = run(capsys, "run", "--executor", "gpu-cuda", "--device", "cuda", str(CONFORMANCE / "scale.ci"))
    assert code == 3 and err.count("\n") == 1 and err.startswith("cint: error: gpu-cuda: ")


def test_run_prints_errors_not_warnings(capsys, tmp_path):
    prog = tmp_path / "warn.ci"
    prog.write_text("void f() { I64 x = 1; x + 1; }\nf();\n\"done\\n\";\n")
    code, _, err = run(capsys, "check", str(prog))
    assert code == 0 and "warning[C3018]: this expression's value is not used" in err
    code, out, err = run(capsys, "run", str(prog))
    assert code == 0 and out == "done\n" and err == ""


def test_negative_fuel_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["run", "--fuel", "-1", str(CONFORMANCE / "scale.ci")])
    assert exit_.value.code == 2
    assert "the fuel budget is 0 units or more" in capsys.readouterr().err


@pytest.mark.parametrize("value", ["nan", "-1", "0", "inf", "soon"])
def test_a_time_limit_is_a_positive_number_of_seconds(capsys, value):
    with pytest.raises(SystemExit) as stopped:
        main(["run", "--time-limit", value, str(CONFORMANCE / "scale.ci")])
    assert stopped.value.code == 2 and "--time-limit" in capsys.readouterr().err


def test_the_time_limit_stops_the_reference_too(capsys, tmp_path):
    """--time-limit runs cpu-sir-interp in a child process too, and stops it (exit 3)."""
    spin = tmp_path / "spin.ci"
    spin.write_text("while (true) { }\n")
    code, out, err = run(capsys, "run", "--time-limit", "0.5", str(spin))
    assert code == 3 and err == "cint: error: the run took longer than 0.5 s and was stopped\n"


def test_a_device_is_refused_in_one_line(capsys):
    """Issue 13 item 10: `cint parse /dev/zero` read without bound."""
    code, out, err = run(capsys, "parse", "/dev/zero")
    assert code == 2 and err == "cint: error: '/dev/zero' is a device, not a .ci file\n"


def test_a_file_over_the_size_bound_is_refused(capsys, tmp_path, monkeypatch):
    from cint_ls.cli import inputs

    monkeypatch.setattr(inputs, "MAX_SOURCE_BYTES", 1000)
    big = tmp_path / "big.ci"
    big.write_text("// " + "x" * 2000 + "\n")
    code, out, err = run(capsys, "check", str(big))
    assert code == 2 and err.startswith(f"cint: error: '{big}' is larger than ")


@pytest.mark.needs_cc
def test_threads_reach_cpu_c17(capsys):
    """Issue 14: `--threads N` runs cpu-c17's large dispatches on N threads, same result."""
    code, out, err = run(capsys, "run", "--executor", "cpu-c17", "--threads", "2", "--check", "cpu-sir-interp",
                         str(CONFORMANCE / "heat_tour.ci"))
    assert code == 0 and out == "after 40 steps: total=60150 center=1042 edge=72\n"
    assert err == "check: cpu-sir-interp and cpu-c17 agree at 41 boundaries\n"
    code, out, err = run(capsys, "run", "--executor", "cpu-c17", "--threads", "0", str(CONFORMANCE / "heat_tour.ci"))
    assert code == 2 and err == "cint: error: --threads takes 1 to 1024 threads\n"


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are POSIX")
def test_a_named_pipe_is_read_like_cat_reads_it(tmp_path):
    """Issue 13 item 10, `cint check FIFO` "hangs": it waits for a writer, as `cat`,
    `cc` and `python` do with a named pipe, reads what comes, and Ctrl-C stops the
    wait (exit 130), never a traceback."""
    import signal
    import time

    pipe = tmp_path / "piped.ci"
    os.mkfifo(pipe)
    cint = [sys.executable, "-P", "-c", "import sys; from cint_ls.cli.main import main; sys.exit(main(sys.argv[1:]))",
            "check", str(pipe)]
    child = subprocess.Popen(cint, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while True:  # the write end opens once the command has opened its read end
        try:
            fd = os.open(pipe, os.O_WRONLY | os.O_NONBLOCK)
            break
        except OSError:  # ENXIO: no reader yet
            assert child.poll() is None and time.monotonic() < deadline, child.communicate()
            time.sleep(0.05)
    os.write(fd, b"void main() { I64 x = 1 + 2; }\nmain();\n")
    os.close(fd)
    out, err = child.communicate(timeout=60)
    assert child.returncode == 0, err
    # SIGINT as a terminal gives it: pytest itself may run with it ignored (a shell's
    # background job, nohup), and an ignored SIGINT stays ignored across exec.
    waiting = subprocess.Popen(cint, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))  # noqa: PLW1509
    # Ctrl-C once it waits in the open of the pipe (Linux says so in wchan; elsewhere a
    # second).
    wchan, deadline = Path(f"/proc/{waiting.pid}/wchan"), time.monotonic() + 30
    if wchan.exists():
        while waiting.poll() is None and time.monotonic() < deadline:
            try:
                if wchan.read_text() == "wait_for_partner":
                    break
            except OSError:
                break
            time.sleep(0.02)
    else:
        time.sleep(1.0)
    waiting.send_signal(signal.SIGINT)
    try:
        out, err = waiting.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        waiting.kill()  # no process left behind, blocked in the pipe's open
        waiting.communicate()
        raise
    assert waiting.returncode == 130 and err == "cint: interrupted\n"
