"""Options and output handling shared by every report-producing subcommand."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from mlsleuth.render import FORMATS


def add_output_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("output")
    group.add_argument(
        "--format",
        "--output-format",
        dest="format",
        choices=FORMATS,
        default="text",
        help="text (default), json (the shared report schema), sarif (2.1.0) or github (workflow-command annotations for GitHub Actions)",
    )
    group.add_argument("-o", "--output", metavar="FILE", help="write the report to FILE instead of standard output")
    group.add_argument("--exit-zero", action="store_true", help="exit 0 even when there are findings")
    group.add_argument(
        "--color",
        choices=("auto", "always", "never"),
        default="auto",
        help="colour the text report: auto (default) only on a terminal and never when NO_COLOR is set; FORCE_COLOR forces it",
    )
    group.add_argument(
        "-q",
        "--quiet",
        action="count",
        default=0,
        help="-q: print the findings only (no summary line, notes or progress); -qq: only the summary line with the counts",
    )


def add_selection_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("rule selection")
    group.add_argument("--select", metavar="IDS", help="comma-separated rule ids or categories to run (default: all)")
    group.add_argument("--ignore", metavar="IDS", help="comma-separated rule ids or categories to skip")
    group.add_argument("--min-severity", choices=("error", "warning", "info"), help="drop findings below this severity")


def split_ids(value: str | None) -> list[str] | None:
    if value is None:
        return None
    return [part.strip() for part in value.split(",") if part.strip()]


def selection_from_args(args: argparse.Namespace, tools: tuple[str, ...]):
    """The runtime tools' Selection from --select/--ignore/--min-severity; a bad id is a usage error."""
    from mlsleuth.cli import UsageError
    from mlsleuth.config import ConfigError
    from mlsleuth.runtime.selection import build_selection

    try:
        return build_selection(split_ids(args.select), split_ids(args.ignore), args.min_severity, tools=tools)
    except ConfigError as exc:
        raise UsageError(str(exc)) from None


def emit(report, args: argparse.Namespace, rules=None) -> int:
    """Render ``report`` as asked, write it, and return the exit status."""
    from mlsleuth.catalog import load_all
    from mlsleuth.cli import UsageError
    from mlsleuth.commands.terminal import want_color
    from mlsleuth.render import render

    if args.format == "sarif" and rules is None:
        rules = load_all()
    quiet = getattr(args, "quiet", 0)
    color = args.format == "text" and want_color(getattr(args, "color", "never"), sys.stdout if not args.output else _NotATerminal())
    text = render(report, args.format, rules, color=color, quiet=quiet)
    if args.output:
        try:
            Path(args.output).write_text(text, encoding="utf-8")
        except OSError as exc:
            raise UsageError(f"cannot write {args.output}: {exc.strerror or exc}") from None
        if args.format != "text" and not quiet:
            print(report.summary.text, file=sys.stderr)
    else:
        sys.stdout.write(text)
        sys.stdout.flush()
        if args.format == "github" and not quiet:  # stdout holds only workflow commands; the count goes to the log via stderr
            print(f"mlsleuth {report.tool}: {report.summary.text}", file=sys.stderr)
    return 0 if args.exit_zero else report.exit_code()


class _NotATerminal:
    """A report written to a file: ``--color auto`` leaves it plain."""

    def isatty(self) -> bool:
        return False


def run_with_progress(prepared, args: argparse.Namespace):
    """Run a prepared runtime tool, with a progress line on a terminal's standard error
    (what runs, the step, seconds elapsed); nothing when standard error is piped or with -q."""
    from mlsleuth.commands.terminal import ProgressLine

    enabled = None if not getattr(args, "quiet", 0) else False
    phase = f"starting {prepared.description}" if prepared.description else "starting"
    with ProgressLine(prepared.tool, enabled=enabled, phase=phase) as line:
        return prepared.run(line.event)
