"""``mlsleuth nan SCRIPT | FILE:FUNCTION``: find where the first NaN/Inf of a training run is born."""

from __future__ import annotations

import argparse
import sys

from mlsleuth.commands.common import add_output_options


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "nan",
        help="localise the first NaN/Inf of a training run: step, pass, module, operation",
        description=(
            "Run SCRIPT unmodified (or train a FILE:FUNCTION setup) in a child process with cheap finite checks on "
            "the batch, loss, gradients and parameters. At the first non-finite value, replay that step with every "
            "ATen operation checked and report where the value was born: the data, a forward or loss operation, a "
            "backward formula or the optimizer update, with the operation's input statistics, the trend of the "
            "steps before and the offending batch saved with its step index and the last snapshot for replay. "
            "Arguments after `--` go to the script."
        ),
        epilog="examples: mlsleuth nan train.py --max-steps 2000 -- --lr 0.1   |   mlsleuth nan model.py:setup --max-steps 200",
    )
    p.add_argument("script", metavar="SCRIPT|FILE:FUNCTION", help="the training script (.py), or FILE:FUNCTION naming a setup function")
    p.add_argument("script_args", nargs=argparse.REMAINDER, help=argparse.SUPPRESS)
    p.add_argument("--max-steps", type=int, default=1000, metavar="N", help="optimizer steps to watch before giving up (default 1000)")
    p.add_argument("--snapshot-every", type=int, default=10, metavar="K", help="snapshot model, optimizer and RNG state every K steps; the replay and the saved file start from the newest (default 10; 0 turns snapshots off)")
    p.add_argument("--memory-budget", type=float, default=256.0, metavar="MB", help="memory for the snapshots and the batches of the steps since the newest (default 256 MB)")
    p.add_argument("--save-dir", metavar="DIR", help="where to write the offending batch and snapshot (default .mlsleuth/nan; .mlsleuth/ gets a .gitignore that ignores all of it)")
    p.add_argument("--no-replay", action="store_true", help="skip the operation-level replay of the failing step")
    p.add_argument("--python", metavar="PATH", help="interpreter to run the script with (default: a .venv/venv next to the script, else this one)")
    p.add_argument("--timeout", type=float, default=600.0, metavar="S", help="kill the run after S seconds (default 600)")
    p.add_argument("--cwd", metavar="DIR", help="working directory for the script (default: the current one)")
    p.add_argument("--nproc-per-node", type=int, metavar="N", help="launch N ranks of a DDP/FSDP script (like torchrun); all stop at the first non-finite value and the failing rank is replayed")
    add_output_options(p)
    p.set_defaults(handler=run, _parser=p)


def run(args: argparse.Namespace) -> int:
    from mlsleuth.cli import UsageError
    from mlsleuth.commands.common import emit, run_with_progress
    from mlsleuth.commands.trace import split_script_args
    from mlsleuth.runtime.common import RuntimeInputError
    from mlsleuth.runtime.nan import prepare_nan

    args, script_args = split_script_args(args)
    try:
        prepared = prepare_nan(args.script, args=script_args, max_steps=args.max_steps, snapshot_every=args.snapshot_every,
                               memory_budget_mb=args.memory_budget, timeout_s=args.timeout, python=args.python, cwd=args.cwd,
                               save_dir=args.save_dir, replay=not args.no_replay,
                               nproc_per_node=args.nproc_per_node)
    except RuntimeInputError as exc:
        raise UsageError(str(exc)) from None
    if sys.stderr.isatty() and not args.quiet:
        print(f"mlsleuth: {prepared.description} with {prepared.info['interpreter']}", file=sys.stderr)
    return emit(run_with_progress(prepared, args), args)
