"""The ``argparse-type-bool`` rule: a command-line option declared with ``type=bool``."""

from __future__ import annotations

import ast

from mlsleuth.scan.analysis.context import FileContext, keyword
from mlsleuth.scan.prefilter import word
from mlsleuth.scan.registry import Rule, register_rule

# parsers that convert "false"/"0" to False themselves when told type=bool
_BOOL_AWARE_PARSERS = ("jsonargparse", "simple_parsing", "tap", "hydra", "fire", "click", "typer", "absl")


def _converts_with_bool(ctx: FileContext, value: ast.AST | None) -> bool:
    """``bool`` itself, or ``lambda s: bool(s)``: a conversion that is True for every non-empty string."""
    if isinstance(value, ast.Name):
        return value.id == "bool" and "bool" not in ctx.imports and not _rebound(ctx, "bool")
    if isinstance(value, ast.Lambda) and len(value.args.args) == 1:
        body, arg = value.body, value.args.args[0].arg
        return (isinstance(body, ast.Call) and isinstance(body.func, ast.Name) and body.func.id == "bool"
                and len(body.args) == 1 and isinstance(body.args[0], ast.Name) and body.args[0].id == arg)
    return False


def _rebound(ctx: FileContext, name: str) -> bool:
    for node in ctx.nodes_of(ast.FunctionDef, ast.ClassDef, ast.Assign):
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)) and node.name == name:
            return True
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in node.targets):
            return True
    return False


@register_rule
class ArgparseTypeBool(Rule):
    """`type=bool` on an argparse option: "False" parses as True.

    What it finds: `parser.add_argument("--flag", type=bool, ...)` (or `type=lambda s: bool(s)`) on an `argparse`
    parser, a group of one, or a parser handed in as a parameter. Parsers that handle `bool` themselves
    (jsonargparse, simple_parsing, typed-argument-parser, click, typer, absl) are left alone.
    Why it matters: argparse calls `bool("False")`, and every non-empty string is true. `--use_amp False`,
    `--hard_label 0` or `--pretrained false` all set the option to True; only an empty string gives False. The
    run silently trains with the setting the command line tried to turn off, and the logged config shows what
    was typed, not what ran.
    How to confirm: `parser.parse_args(["--flag", "False"]).flag` prints True.
    What to do instead: `action="store_true"` (or `"store_false"`), `action=argparse.BooleanOptionalAction`
    (`--flag` / `--no-flag`, Python 3.9+), or a converter that reads the word (`lambda s: s.lower() in ("1",
    "true", "yes")`).
    """

    id = "argparse-type-bool"
    category = "hyperparameter"
    severity = "warning"
    triggers = ("add_argument",)
    requires = ((word("bool"),),)

    def check(self, ctx: FileContext):
        if ctx.imports_any(*_BOOL_AWARE_PARSERS):
            return
        for call in ctx.calls_named("add_argument"):
            if not isinstance(call.func, ast.Attribute):
                continue
            kind = keyword(call, "type")
            if not _converts_with_bool(ctx, kind):
                continue
            names = [a.value for a in call.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
            flag = names[-1] if names else "the option"
            yield self.finding(
                ctx, call,
                f"`{flag}` is parsed with `type=bool`: any non-empty string is True, so `{flag} False` (or 0) turns it on",
                observation=ctx.segment(call)[:200],
            )
