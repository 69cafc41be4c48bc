"""``mlsleuth rules``: list every rule and check, or explain one."""

from __future__ import annotations

import argparse
import json


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "rules",
        help="list the rules and checks, or explain one",
        description="List every static rule and runtime check, or print one rule's documentation.",
    )
    p.add_argument("rule", nargs="?", help="a rule id to explain (omit to list all)")
    p.add_argument("--tool", help="only rules of this tool (scan, trace, diagnose, nan, sweep)")
    p.add_argument("--category", help="only rules in this category")
    p.add_argument("--format", choices=("text", "json", "markdown"), default="text")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from mlsleuth.catalog import load_all
    from mlsleuth.cli import UsageError

    docs = load_all()
    if args.rule:
        doc = docs.get(args.rule)
        if doc is None:
            import difflib

            close = difflib.get_close_matches(args.rule, list(docs), n=3)
            hint = f"; did you mean {', '.join(close)}?" if close else "; run `mlsleuth rules` to list them"
            raise UsageError(f"unknown rule {args.rule!r}{hint}")
        selected = [doc]
    else:
        selected = [
            d for d in docs.values()
            if (args.tool is None or d.tool == args.tool) and (args.category is None or d.category == args.category)
        ]
        if not selected:
            raise UsageError("no rule matches those filters")
    if args.format == "json":
        print(json.dumps([d.as_dict() for d in selected], indent=2))
    elif args.format == "markdown" or args.rule:
        print("\n".join(d.markdown() for d in selected))
    else:
        width = max(len(d.id) for d in selected)
        for d in selected:
            mark = (" [fix: --unsafe-fixes]" if d.fix_unsafe_only else " [fix]") if d.fix else ""
            print(f"{d.id:<{width}}  {d.tool:<8} {d.category:<15} {d.severity:<8} {d.title}{mark}")
    return 0
