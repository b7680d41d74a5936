"""`cint-debug`: the Debug Adapter Protocol over stdin and stdout (VS Code, nvim-dap)."""

from __future__ import annotations

import argparse
import logging
import sys

from .. import __version__


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="cint-debug",
                                     description="The cint debugger: the Debug Adapter Protocol over stdio.")
    parser.add_argument("--log-file", help="write the adapter's own log to this file (default: stderr)")
    parser.add_argument("--log-level", default="WARNING", choices=["DEBUG", "INFO", "WARNING", "ERROR"])
    parser.add_argument("--version", action="version", version=f"cint-debug {__version__}")
    args = parser.parse_args(argv)
    handler: logging.Handler = (logging.FileHandler(args.log_file, encoding="utf-8") if args.log_file
                                else logging.StreamHandler(sys.stderr))
    handler.setFormatter(logging.Formatter("%(asctime)s %(name)s %(levelname)s %(message)s"))
    root = logging.getLogger()
    root.addHandler(handler)
    root.setLevel(getattr(logging, args.log_level))
    from .adapter import Adapter

    return Adapter(sys.stdin.buffer, sys.stdout.buffer).run()


if __name__ == "__main__":
    sys.exit(main())
