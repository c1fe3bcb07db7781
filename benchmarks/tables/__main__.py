"""Rewrite the result tables of README.md and docs/*.md from benchmarks/results/*.json, or with
``--check`` exit 1 when one is out of date (``python -m benchmarks.tables --help``)."""

from __future__ import annotations

import argparse
import sys

from benchmarks import ROOT
from benchmarks.tables import __doc__ as DOC
from benchmarks.tables.render import BLOCK, pages, render


def main() -> None:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.tables", description=DOC, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--check", action="store_true", help="exit 1 if any page's tables are out of date")
    args = parser.parse_args()
    stale = []
    for path in pages():
        text = path.read_text()
        fresh = render(text)
        if fresh != text:
            stale.append(path)
            if not args.check:
                path.write_text(fresh)
        if BLOCK.search(text):
            print(f"{path.relative_to(ROOT)}: {len(BLOCK.findall(text))} tables{' (stale)' if fresh != text else ''}")
    if args.check and stale:
        sys.exit(1)


if __name__ == "__main__":
    main()
