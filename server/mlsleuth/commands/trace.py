"""``mlsleuth trace SCRIPT``: watch the first optimizer steps of a real training script."""

from __future__ import annotations

import argparse
import sys

from mlsleuth.commands.common import add_output_options, add_selection_options


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "trace",
        help="run a training script for a few steps under observation and report runtime clues",
        description=(
            "Run SCRIPT unmodified in a child process (your interpreter, your torch), instrument PyTorch from the "
            "outside, watch the first N optimizer steps and stop. Reports the call order per step, gradient flow, "
            "update/parameter ratios, dead or saturated activations, loss sanity, input statistics, evaluation-mode "
            "problems and samples mixing across the batch. Arguments after `--` go to the script."
        ),
        epilog="example: mlsleuth trace train.py --steps 30 -- --data ./small --batch-size 32",
    )
    p.add_argument("script", nargs="?", help="the training script (.py)")
    p.add_argument("script_args", nargs=argparse.REMAINDER, help=argparse.SUPPRESS)
    p.add_argument("--steps", type=int, default=20, metavar="N", help="optimizer steps to watch before stopping the script (default 20)")
    p.add_argument("--python", metavar="PATH", help="interpreter to run the script with (default: a .venv/venv next to the script, else this one)")
    p.add_argument("--timeout", type=float, default=300.0, metavar="S", help="kill the script after S seconds (default 300)")
    p.add_argument("--memory-limit", type=int, metavar="MB", help="cap the child's address space (CPU runs only; CUDA needs a large address space)")
    p.add_argument("--cwd", metavar="DIR", help="working directory for the script (default: the current one)")
    p.add_argument("--after-steps", type=float, default=None, metavar="S",
                   help="let the script run on, unobserved, for up to S seconds after the watched steps, to check what it does "
                        "once training is over (checkpoint loads, best-model restores, resumes); 0 stops at the last watched step "
                        "(default 20)")
    p.add_argument("--nproc-per-node", type=int, metavar="N", help="launch N ranks of a DDP/FSDP script (like torchrun) and merge them into one report")
    p.add_argument("--merge", metavar="DIR", help="merge the per-rank results that `mlsleuth trace` under torchrun/srun wrote to DIR (.mlsleuth/ranks/<launch>) into one report; no script runs")
    add_selection_options(p)
    add_output_options(p)
    p.set_defaults(handler=run, _parser=p)


def run(args: argparse.Namespace) -> int:
    from mlsleuth.cli import UsageError
    from mlsleuth.commands.common import emit, run_with_progress, selection_from_args
    from mlsleuth.runtime.common import RuntimeInputError
    from mlsleuth.runtime.trace import prepare_trace

    args, script_args = split_script_args(args)
    selection = selection_from_args(args, tools=("trace",))
    if args.merge:
        from mlsleuth.runtime.trace.world import merge_folder

        try:
            return emit(merge_folder(args.merge, selection=selection), args)
        except RuntimeInputError as exc:
            raise UsageError(str(exc)) from None
    if not args.script:
        raise UsageError("trace needs the training script: mlsleuth trace SCRIPT (or --merge DIR)")
    try:
        prepared = prepare_trace(args.script, args=script_args, steps=args.steps, python=args.python, timeout_s=args.timeout,
                                 memory_limit_mb=args.memory_limit, cwd=args.cwd, selection=selection,
                                 nproc_per_node=args.nproc_per_node, after_window_s=args.after_steps)
    except RuntimeInputError as exc:
        raise UsageError(str(exc)) from None
    if sys.stderr.isatty() and not args.quiet:
        print(f"mlsleuth: {prepared.description} with {prepared.info['interpreter']}", file=sys.stderr)
    return emit(run_with_progress(prepared, args), args)


def split_script_args(args: argparse.Namespace) -> tuple[argparse.Namespace, list[str]]:
    """Options may follow SCRIPT (argparse's REMAINDER swallows them): re-parse what precedes `--`."""
    from mlsleuth.cli import UsageError

    rest = list(args.script_args)
    cut = rest.index("--") if "--" in rest else len(rest)
    before, after = rest[:cut], rest[cut + 1:]
    if before:
        try:
            args = args._parser.parse_args([*before, args.script], namespace=args)
        except SystemExit as exc:
            if exc.code:
                raise UsageError(f"bad options {before}; put the script's own arguments after `--`") from None
            raise
        if args.script_args:
            raise UsageError(f"unexpected arguments {args.script_args}; put the script's own arguments after `--`")
    return args, after
