"""``mlsleuth check [PATH] [--run SCRIPT [-- ARGS]] [--symptom TEXT]``: one call that collects the clues (MCP: ``triage``)."""

from __future__ import annotations

import argparse
import sys

from mlsleuth.commands.common import add_output_options


def _add_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--run", metavar="SCRIPT", help="the training script to trace (relative to PATH); its own arguments go after `--`")
    p.add_argument("--symptom", metavar="TEXT", help='what goes wrong, in words, e.g. "loss stuck at 2.3", "NaN after 300 steps"')
    p.add_argument("--steps", type=int, default=20, metavar="N", help="optimizer steps to trace (default 20)")
    p.add_argument("--timeout", type=float, default=120.0, metavar="S", help="stop the traced script after S seconds (default 120)")
    p.add_argument("--max-clues", type=int, default=5, metavar="N", help="print at most N clues (default 5)")
    p.add_argument("--python", metavar="PATH", help="interpreter for the traced script (default: a .venv/venv next to it, else this one)")
    p.add_argument("--no-run", action="store_true", help="scan only: do not look for a script to run")
    add_output_options(p)


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "check",
        usage="mlsleuth check [PATH] [--run SCRIPT] [--symptom TEXT] [options] [-- ARGS]",
        help="scan, trace a few steps and rank the merged clues for a symptom (start here)",
        description=(
            "Scan PATH (default: the current folder), trace a few optimizer steps of its training script (given with "
            "--run, or found: [project.scripts] in pyproject.toml, a train*.py or main.py at the root, a `python xxx.py` "
            "command in the README), merge static and runtime findings on the same cause into one clue, rank the clues "
            "for --symptom and print at most --max-clues of them, each with its cheapest confirming test; then the "
            "checks that could not run and why, and which tool to call next. Finding a script runs it: use --no-run "
            "to scan only. The script's own arguments go after `--`. PATH may also be the script itself "
            "(`mlsleuth check train.py`): its folder is then the project. The MCP tool is `triage`."
        ),
        epilog='example: mlsleuth check . --symptom "loss stuck at 2.3" --run train.py -- --epochs 1',
    )
    # PATH and everything after it are read by split_run (argparse alone cannot take an optional PATH and `-- ARGS`)
    p.add_argument("rest", nargs=argparse.REMAINDER, metavar="PATH", help="the project folder (default: .), or the training script itself")
    _add_options(p)
    p.set_defaults(handler=run)


def _inner_parser() -> argparse.ArgumentParser:
    inner = argparse.ArgumentParser(prog="mlsleuth check", add_help=False)
    inner.add_argument("path", nargs="?", default=".")
    _add_options(inner)
    return inner


def split_run(args: argparse.Namespace) -> tuple[argparse.Namespace, str | None, list[str]]:
    """PATH and options before `--` are check's own (re-parsed); what follows `--` is the script's."""
    from mlsleuth.cli import UsageError

    rest = list(args.rest or [])
    cut = rest.index("--") if "--" in rest else len(rest)
    before, after = rest[:cut], rest[cut + 1:]
    inner = _inner_parser()
    inner.error = lambda message: (_ for _ in ()).throw(UsageError(f"{message}; put the script's own arguments after `--`"))  # type: ignore[method-assign]
    args = inner.parse_args(before, namespace=args)
    if after and args.run is None and not str(args.path).endswith(".py"):  # `check train.py -- --lr 1` names its script
        raise UsageError(f"arguments after `--` ({' '.join(after)}) are for the script: name it with --run SCRIPT")
    return args, args.run, after


def run(args: argparse.Namespace) -> int:
    from mlsleuth.cli import UsageError
    from mlsleuth.commands.common import emit, run_with_progress
    from mlsleuth.runtime.common import RuntimeInputError
    from mlsleuth.triage import prepare_triage

    args, script, script_args = split_run(args)
    if script is not None and args.no_run:
        raise UsageError("--no-run and --run contradict each other; drop one")
    try:
        plan = prepare_triage(args.path, run=script, args=script_args, symptom=args.symptom, steps=args.steps,
                              timeout_s=args.timeout, python=args.python, auto_run=not args.no_run, max_clues=args.max_clues)
    except RuntimeInputError as exc:
        raise UsageError(str(exc)) from None
    if sys.stderr.isatty() and not args.quiet:
        entry = plan.info.get("entry")
        print(f"mlsleuth: tracing {entry['script']} ({entry['chosen_because']})" if entry else
              f"mlsleuth: scan only: {plan.run_skipped}", file=sys.stderr)
    from mlsleuth.config import ConfigError

    try:
        scan_report = plan.scan()
    except ConfigError as exc:
        raise UsageError(f"the project's [tool.mlsleuth] configuration is invalid: {exc}") from None
    trace_report = run_with_progress(plan.trace, args) if plan.trace is not None else None
    return emit(plan.combine(scan_report, trace_report), args)
