"""What cffi is told of the C run-time (rt/*.h): the structs and prototypes copied from
the headers themselves, for cpu-c17's library (library.py), a cluster's worker
(cluster.py) and gpu-cuda's host (../cuda/c_host.py)."""

from __future__ import annotations

import re

from .toolchain import rt_path


def header_types(text: str) -> str:
    """`text` with each `@TYPES HEADER: NAME ...@` replaced by those typedefs as the run-time's
    header (rt/HEADER) declares them, and each `@FUNCTIONS HEADER: NAME ...@` by those
    functions' prototypes, so that what cffi is told of a struct the host reads or
    allocates, or of a function it calls, is what the C compiler is told, never a copy
    that drifts: comments dropped, the header's integer #defines substituted
    (CINT_MAX_RANK), `bool` as `_Bool`. Each type must be a `typedef struct [TAG] { ... }
    NAME;` without nested braces; each prototype must start a line."""

    def read(name: str) -> tuple[str, dict[str, str]]:
        header = re.sub(r"/\*.*?\*/", " ", rt_path(name).read_text(), flags=re.S)
        return header, dict(re.findall(r"^#define\s+(\w+)\s+(\d+)\b", header, flags=re.M))

    def plain(declaration: str, defines: dict[str, str]) -> str:
        body = re.sub(r"\b[A-Z][A-Z0-9_]*\b", lambda m: defines.get(m.group(0), m.group(0)), declaration)
        return " ".join(re.sub(r"\bbool\b", "_Bool", body).split())

    def types(match: re.Match[str]) -> str:
        header, defines = read(match.group(1))
        found = []
        for name in match.group(2).split():
            typedef = re.search(r"typedef\s+struct(?:\s+\w+)?\s*\{[^{}]*\}\s*" + name + r"\s*;", header)
            if typedef is None:
                raise RuntimeError(f"rt/{match.group(1)} declares no `typedef struct {{...}} {name};`")
            found.append(plain(typedef.group(0), defines))
        return "\n".join(found)

    def functions(match: re.Match[str]) -> str:
        header, defines = read(match.group(1))
        found = []
        for name in match.group(2).split():
            prototype = re.search(r"^([A-Za-z_][^;{}#\n]*?\b" + name + r"\s*\([^;{}]*\))\s*;", header, flags=re.M)
            if prototype is None:
                raise RuntimeError(f"rt/{match.group(1)} declares no function {name} at the start of a line")
            found.append(plain(prototype.group(1), defines) + ";")
        return "\n".join(found)

    text = re.sub(r"@TYPES ([\w.]+):([\w ]+)@", types, text)
    return re.sub(r"@FUNCTIONS ([\w.]+):([\w\s]+)@", functions, text)
