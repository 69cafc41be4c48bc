"""The ``broad-except-around-training-step`` rule: a broad `try/except` around the training step swallows the error and carries on."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from mlsleuth.scan.analysis.context import FileContext
from mlsleuth.scan.analysis.training_step_model import Event, loop_model
from mlsleuth.scan.prefilter import STEP_CALL
from mlsleuth.scan.registry import Rule, register_rule

_BROAD = {"Exception", "BaseException", "RuntimeError", "builtins.Exception", "builtins.BaseException", "builtins.RuntimeError"}

_EXIT_CALLS = {"sys.exit", "exit", "quit", "os._exit", "os.abort"}


def _handler_is_broad(ctx: FileContext, handler: ast.ExceptHandler) -> bool:
    if handler.type is None:
        return True
    types = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
    return any((ctx.qualname(t) or "") in _BROAD for t in types)


_LOUD_CALLS = {"traceback.print_exc", "traceback.print_exception", "traceback.format_exc"}


def _is_log_call(ctx: FileContext, call: ast.Call) -> bool:
    qn = ctx.qualname(call) or ""
    method = call.func.attr if isinstance(call.func, ast.Attribute) else ""
    return qn == "print" or qn.startswith(("logging.", "warnings.")) or method in {
        "debug", "info", "warning", "warn", "error", "log", "write", "print",
    }


def _handler_reraises_or_inspects(ctx: FileContext, handler: ast.ExceptHandler) -> bool:
    """True when the handler re-raises, exits, prints the traceback, or does real work with the exception."""
    log_args: set[int] = set()
    for node in _walk_no_defs(handler):
        if isinstance(node, ast.Call) and _is_log_call(ctx, node):
            log_args.update(id(n) for n in ast.walk(node))
        if isinstance(node, ast.Call) and (
            (ctx.qualname(node) or "") in _LOUD_CALLS
            or (isinstance(node.func, ast.Attribute) and node.func.attr == "exception")
            or any(kw.arg == "exc_info" for kw in node.keywords)
        ):
            return True  # the full traceback is printed: loud, not silent
    if handler.name:
        for node in _walk_no_defs(handler):
            if isinstance(node, ast.Name) and node.id == handler.name and id(node) not in log_args:
                return True  # the exception is examined or passed on: deliberate handling
    for node in _walk_no_defs(handler):
        if isinstance(node, ast.Raise):
            return True
        if isinstance(node, ast.Call) and (ctx.qualname(node) or "") in _EXIT_CALLS:
            return True
    return False


def _walk_no_defs(root: ast.AST) -> Iterator[ast.AST]:
    stack = list(ast.iter_child_nodes(root))
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            continue
        stack.extend(ast.iter_child_nodes(node))


@register_rule
class BroadExceptAroundTrainingStep(Rule):
    """A broad `try/except` around the training step swallows the error and carries on.

    What it finds: a `try` whose body runs `backward()` or `optimizer.step()`, inside a loop, with an
    `except:` / `except Exception` / `except BaseException` / `except RuntimeError` handler that
    neither re-raises nor looks at the exception (only `continue`, `pass`, a print or a log line).
    Why it matters: the errors that matter in training are exactly these: CUDA out-of-memory, shape
    mismatches on the last short batch, NaN checks from anomaly detection, device-side asserts from
    bad labels. Swallowed, they turn into skipped batches, a run that "trains" on a fraction of the
    data, or a loop that spins without updating anything, and the log shows nothing alarming.
    How to confirm: count the batches the handler skips (a counter in the `except` block) over one
    epoch, or temporarily replace the handler body with `raise`: the hidden error appears.
    What to do instead: catch only what you can handle (`torch.cuda.OutOfMemoryError` to retry with a
    smaller batch), re-raise everything else, and count and report the skipped batches.
    """

    id = "broad-except-around-training-step"
    category = "training-loop"
    severity = "warning"
    triggers = ("backward",)
    requires = (("except",), (STEP_CALL,))

    def check(self, ctx):
        model = loop_model(ctx)
        seen: set[int] = set()
        for trace in model.traces:
            for event in trace.events:
                if event.kind not in {"backward", "step"} or not event.trys or not event.loops:
                    continue
                if not {"backward", "step"} <= {e.kind for e in trace.in_loop(event.loops[-1])}:
                    continue  # not a training step (no optimizer update in the loop)
                for try_node in event.trys:
                    if id(try_node) in seen:
                        continue
                    if not _try_inside_loop(event, try_node, ctx):
                        continue
                    for handler in try_node.handlers:
                        if not _handler_is_broad(ctx, handler) or _handler_reraises_or_inspects(ctx, handler):
                            continue
                        seen.add(id(try_node))
                        caught = "everything" if handler.type is None else ast.unparse(handler.type)
                        protected = [e for e in trace.events if e.kind in {"backward", "step"} and try_node in e.trys]
                        steps = [next((e for e in protected if e.kind == k), None) for k in ("backward", "step")]
                        what = _steps_in_try(ctx, [e for e in steps if e is not None], try_node)
                        yield self.finding(
                            ctx,
                            handler,
                            f"`except {caught}` at line {handler.lineno} catches the errors of the training step {what};"
                            " it carries on without re-raising, so out-of-memory, shape and NaN errors silently become"
                            " skipped batches",
                            observation=ctx.line_text(handler.lineno),
                            next_test=(
                                f"put a counter (or a `raise`) in the handler at line {handler.lineno} and run one epoch:"
                                " see how many batches it swallows and why"
                            ),
                        )
                        break


def _steps_in_try(ctx: FileContext, events: list[Event], try_node: ast.AST) -> str:
    """```loss.backward()` (line 8) and `opt.step()` (line 9)``, with the call in the ``try`` body that runs them
    when they sit in a helper: ``..., run by `train_step(batch)` at line 21 inside the try``."""
    parts = []
    for event in events:
        own = f"`{ctx.segment(event.node, 60)}` (line {event.line})"
        site = None if _contains(try_node, event.node) else next((c for c in event.via if _contains(try_node, c)), None)
        parts.append((own, site))
    sites = {id(site) for _own, site in parts}
    if len(sites) == 1 and parts[0][1] is not None:
        site = parts[0][1]
        return " and ".join(own for own, _s in parts) + f", run by `{ctx.segment(site, 60)}` at line {site.lineno} inside the try"
    return " and ".join(own if site is None else f"{own} (run by `{ctx.segment(site, 60)}` at line {site.lineno})" for own, site in parts)


def _contains(outer: ast.AST, node: ast.AST) -> bool:
    """``node`` lies within ``outer``'s source span (both from the same file)."""
    start = (getattr(node, "lineno", 0), getattr(node, "col_offset", 0))
    end = (getattr(node, "end_lineno", 0), getattr(node, "end_col_offset", 0))
    return (outer.lineno, outer.col_offset) <= start and end <= (outer.end_lineno, outer.end_col_offset)  # type: ignore[attr-defined]


def _try_inside_loop(event: Event, try_node: ast.AST, ctx: FileContext) -> bool:
    """The ``try`` sits inside one of the event's loops (so a swallowed error means "next batch")."""
    for loop in event.loops:
        if isinstance(loop, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return True  # Lightning training_step: called per batch
        if any(node is try_node for node in ast.walk(loop)):
            return True
    # the try is inside a helper called from a loop
    return bool(event.via) and any(any(node is site for node in ast.walk(event.loops[-1])) for site in event.via)
