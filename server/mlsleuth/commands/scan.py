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
    p.add_argument("paths", nargs="*", metavar="PATH", help="files or folders to scan (default: the current folder); - reads one file from standard input")
    p.add_argument(
        "--stdin-filename",
        metavar="PATH",
        help="with `scan -`: the path the text read from standard input belongs to (shown in findings, used for "
        "[tool.mlsleuth], per-file-ignores and .ipynb detection)",
    )
    add_output_options(p)
    add_selection_options(p)
    p.add_argument("--extend-select", metavar="IDS", help="comma-separated rule ids or categories added to the selection (config or --select)")
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
    fixing = p.add_argument_group("fixes")
    fixing.add_argument(
        "--fix",
        action="store_true",
        help="rewrite the findings that have a certain mechanical fix (rules marked fixable in `mlsleuth rules`); each fix is "
        "checked by re-parsing and re-scanning the file before it is written; the findings left are reported",
    )
    fixing.add_argument("--diff", action="store_true", help="print the fixes as a unified diff and change nothing (exit 1 when there is something to fix)")
    fixing.add_argument("--unsafe-fixes", action="store_true", help="with --fix/--diff, also apply fixes that change what the program does (e.g. Adam -> AdamW)")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from pathlib import Path

    from mlsleuth.cli import UsageError
    from mlsleuth.config import ConfigError, check_file_size_mb, load_config

    paths = list(args.paths) or ["."]
    if args.statistics and args.format in ("sarif", "github"):
        raise UsageError(f"--statistics prints counts per rule as text or json; it cannot be {args.format}")
    if args.unsafe_fixes and not (args.fix or args.diff):
        raise UsageError("--unsafe-fixes only applies together with --fix or --diff")
    if args.diff and (args.statistics or args.format != "text" or args.output):
        raise UsageError("--diff prints a unified diff on standard output; it cannot be combined with --statistics, --format or --output")
    if "-" in paths:
        if len(paths) > 1:
            raise UsageError("`-` (read standard input) cannot be combined with other paths")
        return _run_stdin(args)
    if args.stdin_filename:
        raise UsageError("--stdin-filename only applies to `mlsleuth scan -` (a file read from standard input)")
    missing = [p for p in paths if not os.path.lexists(p)]
    if len(missing) == len(paths):
        shown = ", ".join(missing)
        raise UsageError(f"no such file or directory: {shown}; give existing files or folders to scan")
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
    selection = _selection(args, config)

    from mlsleuth.commands.terminal import ProgressLine
    from mlsleuth.scan import scan_paths

    # a line on a terminal's stderr for scans of 50 files or more; nothing when piped or quiet
    enabled = None if args.format == "text" and args.output is None and not args.quiet else False
    try:
        with ProgressLine("scan", enabled=enabled, min_total=50) as line:
            report = scan_paths(
                paths,
                selection=selection,
                config=config,
                use_cache=not args.no_cache,
                jobs=args.jobs,
                progress=line.scan_progress if line.enabled else None,
                max_file_size_mb=args.max_file_size,
                force_exclude=args.force_exclude,
                follow_symlinks=not args.no_follow_symlinks,
            )
    except ConfigError as exc:
        raise UsageError(str(exc)) from None
    if args.fix or args.diff:
        return _fix_files(report, args, paths, selection, config)
    return _finish(report, args)


def _fix_files(report, args: argparse.Namespace, paths: list[str], selection, config) -> int:
    """--fix / --diff over the files of a scan; with --fix, the files are re-scanned and what is left reported."""
    from mlsleuth.cli import UsageError
    from mlsleuth.config import ConfigError
    from mlsleuth.scan import scan_paths
    from mlsleuth.scan.fixes import fix_report

    try:
        outcome = fix_report(report, root=os.getcwd(), config=config, selection=selection, unsafe=args.unsafe_fixes)
    except ConfigError as exc:
        raise UsageError(str(exc)) from None
    changed = outcome.changed
    if args.diff:
        for item in changed:
            sys.stdout.write(item.diff())
        sys.stdout.flush()
        _fix_summary(outcome, args, would=True)
        return 0 if args.exit_zero or not changed else 1
    failed = []
    for item in changed:
        try:
            with open(item.path, "wb") as fh:  # in place: the file keeps its permissions and links
                fh.write(item.encoded())
        except OSError as exc:
            failed.append(f"{item.display}: {exc.strerror or exc}")
    _fix_summary(outcome, args, would=False, failed=failed)
    try:
        report = scan_paths(
            paths, selection=selection, config=config, use_cache=not args.no_cache, jobs=args.jobs,
            max_file_size_mb=args.max_file_size, force_exclude=args.force_exclude, follow_symlinks=not args.no_follow_symlinks,
        )
    except ConfigError as exc:
        raise UsageError(str(exc)) from None
    code = _finish(report, args)
    return code if not failed or args.exit_zero else max(code, 1)


def _fix_summary(outcome, args: argparse.Namespace, *, would: bool, failed: list[str] | None = None) -> None:
    """What was (or would be) fixed, on standard error: N fixes in M files, unsafe fixes left, refusals."""
    if args.quiet >= 2:
        return
    n, files = outcome.applied, len(outcome.changed)
    verb = "would fix" if would else "fixed"
    line = f"mlsleuth scan: {verb} {n} finding{'s' if n != 1 else ''} in {files} file{'s' if files != 1 else ''}"
    if outcome.unsafe_left:
        k = outcome.unsafe_left
        line += f"; {k} unsafe fix{'es' if k != 1 else ''} not applied (add --unsafe-fixes to apply {'them' if k != 1 else 'it'})"
    print(line, file=sys.stderr)
    for display, rule, why in outcome.refused:
        print(f"mlsleuth scan: not fixed: {display} [{rule}]: {why}", file=sys.stderr)
    if outcome.not_fixable_kind:
        shown = ", ".join(outcome.not_fixable_kind[:5]) + (f" and {len(outcome.not_fixable_kind) - 5} more" if len(outcome.not_fixable_kind) > 5 else "")
        print(f"mlsleuth scan: not fixed automatically (only UTF-8 .py files are rewritten): {shown}", file=sys.stderr)
    for problem in failed or []:
        print(f"mlsleuth scan: could not write the fix: {problem}", file=sys.stderr)


def _selection(args: argparse.Namespace, config):
    """--select/--ignore/--extend-select/--min-severity over the configuration; a bad id is a usage error."""
    from mlsleuth.cli import UsageError
    from mlsleuth.config import ConfigError, Selection

    select = split_ids(args.select)
    ignore = split_ids(args.ignore)
    chosen = list(select if select is not None else config.select)
    extra = split_ids(args.extend_select) or []
    if chosen:  # an empty selection already means every rule
        chosen += [name for name in extra if name not in chosen]
    selection = Selection(
        select=tuple(chosen),
        ignore=tuple(ignore if ignore is not None else config.ignore),
        min_severity=args.min_severity or config.min_severity,
    )
    try:
        if extra and not chosen:
            _validate(Selection(select=tuple(extra)))  # still say so when an id is misspelt
        _validate(selection)
    except ConfigError as exc:
        raise UsageError(str(exc)) from None
    return selection


def _finish(report, args: argparse.Namespace) -> int:
    from mlsleuth.commands.common import emit

    if not args.quiet:
        for note in report.summary.stats.get("notes", []):  # fallbacks (no ripgrep, no cache) are never silent
            print(f"mlsleuth scan: note: {note}", file=sys.stderr)
    if args.statistics:
        return _print_statistics(report, args)
    return emit(report, args)


def _run_stdin(args: argparse.Namespace) -> int:
    """`mlsleuth scan - [--stdin-filename PATH]`: one file's text from standard input."""
    from pathlib import Path

    from mlsleuth.cli import UsageError
    from mlsleuth.config import ConfigError, load_config
    from mlsleuth.scan.engine import scan_source

    if args.max_file_size is not None and args.max_file_size <= 0:
        raise UsageError("--max-file-size must be a positive number of MiB")
    name = args.stdin_filename
    if name is not None and not name.strip():
        raise UsageError("--stdin-filename must not be empty")
    try:
        if args.config:
            if not os.path.isfile(args.config):
                raise UsageError(f"config file not found: {args.config}")
            config = load_config(Path.cwd(), Path(args.config))
        else:
            config = load_config(Path(name) if name else Path.cwd())
    except ConfigError as exc:
        raise UsageError(str(exc)) from None
    selection = _selection(args, config)
    if sys.stdin is None or sys.stdin.isatty():
        print("mlsleuth scan: reading the file from standard input (end with Ctrl-D)", file=sys.stderr)
    data = sys.stdin.buffer.read() if sys.stdin is not None else b""
    try:
        report = scan_source(data, name, selection=selection, config=config, max_file_size_mb=args.max_file_size)
        if args.fix or args.diff:
            return _fix_stdin(data, name, report, args, selection, config)
    except ConfigError as exc:
        raise UsageError(str(exc)) from None
    return _finish(report, args)


def _fix_stdin(data: bytes, name: str | None, report, args: argparse.Namespace, selection, config) -> int:
    """`scan - --fix`: the fixed text on standard output (as an editor expects), the findings left on
    standard error; `scan - --diff`: the diff on standard output."""
    from mlsleuth.scan.engine import report_filter, scan_source
    from mlsleuth.scan.fixes import FileFix, FixOutcome, fix_source

    display = report.findings[0].location.path if report.findings else (name or "-")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        text = None
    bom = bool(text) and text.startswith("\ufeff")
    if text is None or (name or "").endswith(".ipynb"):
        result = FileFix(path="-", display=display, original="", fixed="")
        outcome = FixOutcome(files=[], not_fixable_kind=[display])
    else:
        sel, keep = report_filter(config, os.getcwd(), selection)
        full = os.path.abspath(name) if name else os.path.join(os.getcwd(), "-")
        result = fix_source(text[1:] if bom else text, display, full, sel, keep, unsafe=args.unsafe_fixes)
        result.bom = bom
        outcome = FixOutcome(files=[result])
    if args.diff:
        sys.stdout.write(result.diff())
        _fix_summary(outcome, args, would=True)
        return 0 if args.exit_zero or not result.changed else 1
    sys.stdout.buffer.write(result.encoded() if text is not None and result.original else data)
    sys.stdout.flush()
    _fix_summary(outcome, args, would=False)
    left = scan_source(result.encoded() if result.changed else data, name, selection=selection, config=config, max_file_size_mb=args.max_file_size)
    from mlsleuth.render import render_text

    if args.quiet < 2:
        sys.stderr.write(render_text(left, quiet=args.quiet))
    return 0 if args.exit_zero else left.exit_code()


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
