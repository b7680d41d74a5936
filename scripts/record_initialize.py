"""Record the server's answer to `initialize` for the fast start
(cint_ls/server/schema/initialize-result.json, read by cint_ls/server/prelude.py).

    python scripts/record_initialize.py [--check]

Run it after a change of the server's features or their options, or of pygls:
tests/server/test_prelude.py fails until the recording is the server's answer again.
`--check` only says whether it is (status 1 when not).
"""

from __future__ import annotations

import argparse
import json
import sys

from cint_ls.server.prelude import RESULT_FILE
from cint_ls.server.protocol import initialize_recording


def recorded_text() -> str:
    return json.dumps(initialize_recording(), indent=1, sort_keys=True) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description="Record the server's answer to initialize for the fast start.")
    parser.add_argument("--check", action="store_true", help="only check that the recording is current")
    args = parser.parse_args()
    text = recorded_text()
    current = RESULT_FILE.read_text(encoding="utf-8") if RESULT_FILE.exists() else None
    if args.check:
        print("current" if current == text else f"{RESULT_FILE} is out of date: run {sys.argv[0]}")
        return 0 if current == text else 1
    RESULT_FILE.write_text(text, encoding="utf-8")
    print(f"wrote {RESULT_FILE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
