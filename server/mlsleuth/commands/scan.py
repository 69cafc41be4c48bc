"""``mlsleuth scan``: static scan of files and folders for silent training bugs."""

from __future__ import annotations

import argparse
import os
import sys

from mlsleuth.commands.common import (
    add_output_options,
    add_selection_options,
    split_ids,
)


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "scan",
        help="find silent training bugs in .py and .ipynb files without running them",
        description=(
            "Scan Python files and Jupyter notebooks for silent training bugs (softmax fed to a "
            "cross-entropy loss, zero_grad in the wrong place, evaluation in training mode, ...). "
            "Nothing is executed. Folders are walked honouring .gitignore; [tool.mlsleuth] in "
            "pyproject.toml configures select/ignore/exclude. Exit status: 0 clean, 1 findings or "
            "per-file errors, 2 usage error."
        ),
    )
    p.add_argument("paths", nargs="*", metavar="PATH", help="files or folders to scan (default: the current folder)")
    add_output_options(p)
    add_selection_options(p)
    p.add_argument("--config", metavar="FILE", help="read [tool.mlsleuth] from this pyproject.toml instead of the nearest one")
    p.add_argument("--no-cache", action="store_true", help="do not read or write the result cache")
    p.add_argument("--jobs", "-j", type=int, metavar="N", help="worker processes (default: CPUs, up to 8; 1 = serial)")
    p.add_argument("--max-file-size", type=float, metavar="MIB", help="skip (and report) files larger than this (default 10 MiB)")
    p.add_argument("--force-exclude", action="store_true", help="apply exclude patterns to files named on the command line too (for pre-commit)")
    p.add_argument(
        "--no-follow-symlinks",
        action="store_true",
        help="do not follow symbolic links inside scanned folders (default: follow them; links named on the command line are always read)",
    )
    p.add_argument("--statistics", action="store_true", help="print the number of findings per rule instead of the findings")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from pathlib import Path

    from mlsleuth.cli import UsageError
    from mlsleuth.commands.common import emit
    from mlsleuth.config import ConfigError, Selection, check_file_size_mb, load_config

    paths = list(args.paths) or ["."]
    missing = [p for p in paths if not os.path.lexists(p)]
    if len(missing) == len(paths):
        shown = ", ".join(missing)
        raise UsageError(f"no such file or directory: {shown}; give existing files or folders to scan")
    if args.statistics and args.format == "sarif":
        raise UsageError("--statistics prints counts per rule as text or json; it cannot be SARIF")
    if args.jobs is not None and args.jobs < 1:
        raise UsageError("--jobs must be at least 1")
    if args.max_file_size is not None:
        try:
            check_file_size_mb(args.max_file_size, "--max-file-size")
        except ConfigError as exc:
            raise UsageError(str(exc)) from None
    try:
        if args.config:
            if not os.path.isfile(args.config):
                raise UsageError(f"config file not found: {args.config}")
            config = load_config(Path.cwd(), Path(args.config))
        else:
            first = next((p for p in paths if os.path.exists(p)), ".")
            config = load_config(Path(first))
    except ConfigError as exc:
        raise UsageError(str(exc)) from None
    select = split_ids(args.select)
    ignore = split_ids(args.ignore)
    selection = Selection(
        select=tuple(select if select is not None else config.select),
        ignore=tuple(ignore if ignore is not None else config.ignore),
        min_severity=args.min_severity or config.min_severity,
    )
    try:
        _validate(selection)
    except ConfigError as exc:
        raise UsageError(str(exc)) from None

    from mlsleuth.scan import scan_paths

    progress = _progress_printer() if sys.stderr.isatty() and args.format == "text" and args.output is None else None
    try:
        report = scan_paths(
            paths,
            selection=selection,
            config=config,
            use_cache=not args.no_cache,
            jobs=args.jobs,
            progress=progress,
            max_file_size_mb=args.max_file_size,
            force_exclude=args.force_exclude,
            follow_symlinks=not args.no_follow_symlinks,
        )
    except ConfigError as exc:
        raise UsageError(str(exc)) from None
    finally:
        if progress is not None:
            sys.stderr.write("\r\033[K")
            sys.stderr.flush()
    for note in report.summary.stats.get("notes", []):  # fallbacks (no ripgrep, no cache) are never silent
        print(f"mlsleuth scan: note: {note}", file=sys.stderr)
    if args.statistics:
        return _print_statistics(report, args)
    return emit(report, args)


def _validate(selection) -> None:
    """Unknown ids in --select/--ignore: say which, suggest close matches."""
    import difflib

    from mlsleuth.config import ConfigError
    from mlsleuth.report import CATEGORIES
    from mlsleuth.scan.registry import all_rules

    known = set(all_rules())
    for name in (*selection.select, *selection.ignore):
        if name in known or name in CATEGORIES or name == "all":
            continue
        from mlsleuth.catalog import load_all

        other_tool = load_all().get(name)
        if other_tool is not None:
            raise ConfigError(f"{name!r} is a {other_tool.tool} check, not a scan rule; scan rules are listed by `mlsleuth rules --tool scan`")
        close = difflib.get_close_matches(name, sorted(known | set(CATEGORIES)), n=3)
        hint = f" Did you mean {', '.join(close)}?" if close else " See `mlsleuth rules --tool scan` for rule ids."
        raise ConfigError(f"unknown rule or category {name!r} in --select/--ignore or [tool.mlsleuth].{hint} Categories: {', '.join(CATEGORIES)}.")


def _progress_printer():
    def show(done: int, total: int) -> None:
        if total >= 50:
            sys.stderr.write(f"\rmlsleuth scan: {done}/{total} files")
            sys.stderr.flush()

    return show


def _print_statistics(report, args: argparse.Namespace) -> int:
    """One line per rule: count, id, title, like `ruff --statistics`."""
    import json
    from collections import Counter

    from mlsleuth.catalog import load_all

    docs = load_all()
    counts = Counter(f.rule for f in report.findings)
    rows = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    if args.format == "json":
        text = json.dumps(
            [{"rule": r, "count": n, "severity": docs[r].severity if r in docs else None, "title": docs[r].title if r in docs else ""} for r, n in rows],
            indent=2,
        ) + "\n"
    else:
        width = max((len(str(n)) for _, n in rows), default=1)
        rid_width = max((len(r) for r, _ in rows), default=1)
        lines = [f"{n:>{width}}  {r:<{rid_width}}  {docs[r].title if r in docs else ''}".rstrip() for r, n in rows]
        if report.errors:
            lines.append(f"{len(report.errors):>{width}}  {'(errors)':<{rid_width}}  files that could not be scanned; run without --statistics to see them")
        lines.append(f"mlsleuth scan: {report.summary.text}")
        text = "\n".join(lines) + "\n"
    if args.output:
        from pathlib import Path

        from mlsleuth.cli import UsageError

        try:
            Path(args.output).write_text(text, encoding="utf-8")
        except OSError as exc:
            raise UsageError(f"cannot write {args.output}: {exc.strerror or exc}") from None
    else:
        sys.stdout.write(text)
    return 0 if args.exit_zero else report.exit_code()
