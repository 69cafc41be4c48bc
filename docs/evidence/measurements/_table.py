"""Shared plumbing for the evidence measurements.

Every measurement script computes one table and either prints it or writes it
next to itself as ``<script name>.md``, the committed output that the handbook
cites. ``tests/evidence/test_measurements.py`` reruns each script and compares
the fresh table with the committed one, cell by cell, so a claim in the
handbook cannot silently drift away from the code that backs it.

Usage of any script:  python docs/evidence/measurements/NAME.py [--write]
"""

from __future__ import annotations

import argparse
import math
import os
import re
import sys
from pathlib import Path

# Tiny CPU workloads: one thread is faster and keeps results reproducible.
os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("MKL_NUM_THREADS", "1")

BEGIN = "<!-- table:begin -->"
END = "<!-- table:end -->"


def fmt(value: object, digits: int = 4) -> str:
    """Render one cell: floats with ``digits`` significant figures, the rest as text."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        if value == 0.0:
            return "0"
        return f"{value:.{digits}g}"
    return str(value)


def render(title: str, intro: str, header: list[str], rows: list[list[object]], notes: str, script: str) -> str:
    """The committed Markdown page: title, how to regenerate, the table, then notes."""
    lines = [
        f"# {title}",
        "",
        intro.strip(),
        "",
        (f"Regenerate with `python docs/evidence/measurements/{script} --write` "
         "(CPU, one thread, a few seconds). The test suite reruns it and compares."),
        "",
        BEGIN,
        "| " + " | ".join(header) + " |",
        "|" + "|".join("---" for _ in header) + "|",
    ]
    for row in rows:
        if len(row) != len(header):
            raise ValueError(f"row has {len(row)} cells, header has {len(header)}: {row}")
        lines.append("| " + " | ".join(fmt(c) for c in row) + " |")
    lines += [END, "", notes.strip(), ""]
    return "\n".join(lines)


def parse_table(markdown: str) -> list[list[str]]:
    """The rows (header first, separator dropped) of the table between the markers."""
    try:
        body = markdown.split(BEGIN, 1)[1].split(END, 1)[0]
    except IndexError:
        raise ValueError("no table markers found; was the page written by a measurement script?") from None
    rows = []
    for line in body.strip().splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if all(re.fullmatch(r":?-+:?", c) for c in cells):
            continue
        rows.append(cells)
    return rows


def main(script_file: str, build) -> int:
    """Command-line entry shared by the scripts; ``build()`` returns the page text."""
    ap = argparse.ArgumentParser(description=sys.modules["__main__"].__doc__.splitlines()[0])
    ap.add_argument("--write", action="store_true", help="overwrite the committed table next to the script")
    args = ap.parse_args()
    page = build()
    if args.write:
        out = Path(script_file).with_suffix(".md")
        out.write_text(page, encoding="utf-8")
        print(f"wrote {out}")
    else:
        sys.stdout.write(page)
    return 0
