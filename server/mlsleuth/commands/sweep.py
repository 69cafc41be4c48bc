"""``mlsleuth sweep``: same-seed paired comparison of a hyperparameter sweep, or its plan."""

from __future__ import annotations

import argparse

EPILOG = """\
examples:
  mlsleuth sweep results.csv --param lr --metric val_acc --seed seed
  mlsleuth sweep runs.jsonl --param lr --metric loss --seed seed --lower-is-better --step step --reduce mean-last-5
  mlsleuth sweep wandb_export.csv --param lr --metric val/acc --seed seed --group dataset --plot sweep.png
  mlsleuth sweep logs/ --param lr --metric val/acc --seed seed      (TensorBoard: logs/lr=0.01/seed=0/...)
  mlsleuth sweep --plan --param lr --values 1e-4,3e-4,1e-3 --seeds 0-4 --command "python train.py --lr {value} --seed {seed}"

exit status: 0 when every finding is informational, 1 when any finding is a warning
(under-powered comparison, diverged/failed run, unpaired seed), 2 on bad input.
"""


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "sweep",
        help="compare a sweep's values seed by seed (paired), or print a paired sweep plan",
        description=(
            "Compare every value of a swept parameter against a baseline, seed by seed: mean paired difference with "
            "a t-interval, Cohen's d_z, Hodges-Lehmann, seeds improved, exact sign-flip and paired-t p-values, Holm "
            "across values, Page's trend test and Friedman for numeric parameters, between-seed correlation and seeds "
            "needed for 80% power. Reads CSV/TSV/JSONL/JSON (long or wide), W&B, MLflow and Optuna exports, and "
            "TensorBoard log directories."
        ),
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("results", nargs="?", metavar="RESULTS", help="results file (csv, tsv, jsonl, json; .gz allowed) or TensorBoard log directory")
    p.add_argument("--param", required=True, metavar="NAME", help="the swept parameter's column (export prefixes such as params. are found automatically)")
    p.add_argument("--metric", metavar="NAME", help="the metric column (or TensorBoard tag)")
    p.add_argument("--seed", metavar="NAME", help="the seed column")
    p.add_argument("--group", metavar="NAMES", help="comma-separated columns; comparisons stay within each group (e.g. dataset,model)")
    p.add_argument("--lower-is-better", action="store_true", help="smaller metric values are better (losses, errors)")
    p.add_argument("--baseline", metavar="VALUE", help="compare every value against this one (default: the best mean)")
    p.add_argument("--alpha", type=float, default=0.05, help="significance level for the verdicts (default 0.05)")
    p.add_argument("--test", choices=("t", "signflip"), default="t",
                   help="test that decides the verdicts: paired t (default) or the exact sign-flip test (distribution-free; needs 6+ seeds)")
    p.add_argument("--zscore", action="store_true", help="also show the within-seed z-score recipe, with its calibration caveat")
    p.add_argument("--step", metavar="NAME", help="step column ordering the rows of one run (curves in a long table)")
    p.add_argument("--reduce", metavar="HOW", help="one number per run from many rows: last, best, mean, min, max, mean-last-K (TensorBoard default: last)")
    p.add_argument("--layout", choices=("auto", "long", "wide"), default="auto", help="table layout (default: detect)")
    p.add_argument("--categorical", action="store_true", help="treat parameter values as labels even if they look numeric")
    p.add_argument("--plot", metavar="FILE.png", help="write a forest plot and per-seed lines (needs the 'plot' extra: matplotlib)")
    plan = p.add_argument_group("planning (--plan)")
    plan.add_argument("--plan", action="store_true", help="print the paired design (every seed x every value) instead of analysing results")
    plan.add_argument("--values", metavar="V1,V2,...", help="values of the parameter to run")
    plan.add_argument("--seeds", metavar="S1,S2,...", help="seeds to run with every value (ranges like 0-4 allowed)")
    plan.add_argument("--command", dest="command_template", metavar="TEMPLATE", help='launcher command with {value}, {seed} (and optionally {param}) placeholders')
    out = p.add_argument_group("output")
    out.add_argument("--format", choices=("text", "json", "sarif"), default="text", help="text table (default), json (the shared report schema) or sarif")
    out.add_argument("-o", "--output", metavar="FILE", help="write the report to FILE instead of standard output")
    out.add_argument("--exit-zero", action="store_true", help="exit 0 even when there are warnings")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from mlsleuth.cli import UsageError
    from mlsleuth.sweep.table import SweepInputError

    try:
        if args.plan:
            return _run_plan(args)
        return _run_compare(args)
    except SweepInputError as exc:
        raise UsageError(str(exc)) from None


def _write(text: str, args: argparse.Namespace) -> None:
    import sys
    from pathlib import Path

    from mlsleuth.cli import UsageError

    if args.output:
        try:
            Path(args.output).write_text(text, encoding="utf-8")
        except OSError as exc:
            raise UsageError(f"cannot write {args.output}: {exc.strerror or exc}") from None
    else:
        sys.stdout.write(text)
        sys.stdout.flush()


def _run_plan(args: argparse.Namespace) -> int:
    import json

    from mlsleuth.cli import UsageError
    from mlsleuth.sweep.plan import parse_list, plan

    if args.results:
        raise UsageError("--plan prints a design; it takes no RESULTS file")
    if not args.values or not args.seeds:
        raise UsageError("--plan needs --values V1,V2,... and --seeds S1,S2,... (and usually --command TEMPLATE)")
    values = parse_list(args.values, "--values")
    seeds = parse_list(args.seeds, "--seeds")
    rows = plan(args.param, values, seeds, args.command_template)
    if args.format == "json":
        _write(json.dumps(rows, indent=2) + "\n", args)
        return 0
    lines = [f"# paired design: {len(seeds)} seeds x {len(values)} values of {args.param} = {len(rows)} runs;",
             "# seed-major order, so a sweep cut short still holds complete, paired seeds"]
    if args.command_template:
        lines += [r["command"] for r in rows]
    else:
        lines += ["seed,value"] + [f"{r['seed']},{r['value']}" for r in rows]
    _write("\n".join(lines) + "\n", args)
    return 0


def _run_compare(args: argparse.Namespace) -> int:
    from mlsleuth.cli import UsageError
    from mlsleuth.sweep.compare import compare_sweep

    missing = [flag for flag, v in (("RESULTS", args.results), ("--metric", args.metric), ("--seed", args.seed)) if not v]
    if missing:
        raise UsageError(f"missing {', '.join(missing)} (or pass --plan to print a sweep design)")
    if args.plot and not args.plot.lower().endswith(".png"):
        raise UsageError("--plot writes a PNG file; give it a name ending in .png")
    if args.plot:
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            raise UsageError("--plot needs matplotlib: pip install 'mlsleuth[plot]'") from None
    result = compare_sweep(
        args.results, param=args.param, metric=args.metric, seed=args.seed,
        group=args.group.split(",") if args.group else None, lower_is_better=args.lower_is_better,
        baseline=args.baseline, alpha=args.alpha, zscore=args.zscore, reduce=args.reduce, step=args.step,
        layout=args.layout, categorical=args.categorical, test=args.test, plot=bool(args.plot),
    )
    if args.plot:
        report, png = result
        if png is None:
            raise UsageError("the plot could not be drawn: " + "; ".join(e.message for e in report.errors))
        try:
            with open(args.plot, "wb") as fh:
                fh.write(png)
        except OSError as exc:
            raise UsageError(f"cannot write {args.plot}: {exc.strerror or exc}") from None
    else:
        report = result
    if args.format == "text":
        from mlsleuth.sweep.text import render_sweep_text

        _write(render_sweep_text(report, plot_file=args.plot), args)
    else:
        from mlsleuth.catalog import load_all
        from mlsleuth.render import render

        _write(render(report, args.format, load_all() if args.format == "sarif" else None), args)
    if args.exit_zero:
        return 0
    serious = report.errors or any(f.severity in ("warning", "error") for f in report.findings)
    return 1 if serious else 0
