"""Command-line options: the default an ``args.name`` read falls back to.

Scripts read settings as ``args.model`` after ``args = parser.parse_args()`` and
``parser.add_argument("--model", default="vit_base_patch16_224")``. :func:`argparse_default` answers the
default expression for such a read, when the parser is built in the same file and the option is declared
once (``dest=`` and ``-`` to ``_`` spelling included); ``None`` when it cannot tell. The value the user
passes on the command line may differ: rules use it as the value the script runs with unless told otherwise.
"""

from __future__ import annotations

import ast

from mlsleuth.scan.analysis import value_origins as vo
from mlsleuth.scan.analysis.context import FileContext, call_method, constant, keyword


def _option_dest(call: ast.Call) -> str | None:
    dest = constant(keyword(call, "dest"))
    if isinstance(dest, str):
        return dest
    names = [constant(a) for a in call.args]
    longs = [n for n in names if isinstance(n, str) and n.startswith("--")]
    if longs:
        return longs[0][2:].replace("-", "_")
    plain = [n for n in names if isinstance(n, str) and not n.startswith("-")]
    if plain:
        return plain[0]
    shorts = [n for n in names if isinstance(n, str) and n.startswith("-")]
    return shorts[0][1:].replace("-", "_") if shorts else None


def _options(ctx: FileContext) -> dict[str, list[ast.Call]]:
    cache = ctx.__dict__.get("_cli_args_options")
    if cache is None:
        cache = {}
        for call in ctx.calls_named("add_argument"):
            dest = _option_dest(call)
            if dest is not None:
                cache.setdefault(dest, []).append(call)
        ctx.__dict__["_cli_args_options"] = cache
    return cache


def _is_parsed_args(ctx: FileContext, receiver: ast.AST) -> bool:
    bound = vo.value(ctx, receiver) if isinstance(receiver, ast.Name) else receiver
    if isinstance(bound, ast.Call) and call_method(bound) in ("parse_args", "parse_known_args"):
        return True
    if isinstance(bound, ast.Subscript) and isinstance(bound.value, ast.Call):
        return call_method(bound.value) == "parse_known_args"
    if isinstance(receiver, ast.Name) and vo.is_parameter(ctx, receiver):
        return receiver.id in ("args", "opt", "opts", "cfg", "config", "hparams", "flags", "options")
    return False


def argparse_default(ctx: FileContext, expr: ast.AST | None) -> ast.expr | None:
    """The ``default=`` of the option that ``expr`` (``args.name``) reads, when this file declares it once."""
    if not isinstance(expr, ast.Attribute) or not _is_parsed_args(ctx, expr.value):
        return None
    found = _options(ctx).get(expr.attr, [])
    if len(found) != 1:
        return None
    return keyword(found[0], "default")
