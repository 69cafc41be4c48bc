"""The ``in-place-on-shared-value`` rule: an in-place change of a value that another holder reads afterwards."""

from __future__ import annotations

import ast

from mlsleuth.scan.analysis import in_place_writes as ipw
from mlsleuth.scan.analysis import tensor_values
from mlsleuth.scan.analysis import value_origins as vo
from mlsleuth.scan.analysis.context import FileContext
from mlsleuth.scan.registry import Rule, register_rule

# Methods whose callers are not found by name (objects are called, not their methods).
_CALLED_AS_OBJECT = frozenset({"__call__", "forward", "__getitem__"})


def _test_file(ctx: FileContext) -> bool:
    """A test module (``test_x.py``, ``x_test.py``, ``conftest.py``), by its file name alone."""
    name = ctx.display_path.replace("\\", "/").rsplit("/", 1)[-1]
    return name.endswith(".py") and (name.startswith("test_") or name.endswith("_test.py") or name == "conftest.py")


@register_rule
class InPlaceOnSharedValue(Rule):
    """An in-place change of a value another name still holds and reads.

    What it finds: an in-place operation on a tensor, array or frame — a trailing-underscore method
    (`x.add_()`, `x.clamp_()`, `x.copy_()`), `x += ...` / `x[...] = ...` on an array or tensor, `out=x`,
    `np.copyto(x, ...)`, `F.relu(x, inplace=True)`, a call of a module or transform built in place
    (`nn.ReLU(inplace=True)`, `nn.LeakyReLU(0.2, inplace=True)`, torchvision `Normalize(..., inplace=True)`, an
    `nn.Sequential`/`Compose` that starts with one) — on an object that something else still holds and reads
    afterwards: a name bound to the same object before the change (`identity = x` for a skip connection,
    `prev = w` before `w -= lr * g`) or the name it was bound from, the NumPy/torch twin that shares its memory
    (`torch.from_numpy(a)`, `t.numpy()`, `x.detach()`); the input itself when the in-place call's result went to
    another name (`out = self.relu(x)`, later `out + x`); in a `Dataset.__getitem__`, the stored data the value
    was taken from without a copy (`img = self.images[i]; img -= mean`), which every later epoch reads again
    (also a sample read from `self.cache[i]`, transformed and stored back there outside any `if`). A
    project function, method or transform that changes its argument in place counts the same at each call:
    the caller's name for the argument is read again, or is an alias, or is stored dataset data (followed
    into other modules, and through a transform handed to the dataset's constructor: `transform=Compose([...,
    Normalize(...)])` whose in-place step is reached through steps that pass their input or a view of it on).
    The finding is on the line that changes the shared value. Left alone: reads that only look at the shape,
    dtype or device; test functions and test modules; helpers whose in-place write is an option (`if inplace:`, `if self.flag:`);
    a helper that updates a state it is given and returns something else (`out = update(state)`). A name that
    shares the object only in one arm of an if/else (`r = t` unless a separate `r` is asked for) and is changed by
    an explicit in-place write is reported as `info`: it may be meant to follow the change.
    Why it matters: the other holder does not keep the original: the skip path carries `relu(x)` instead of
    `x`, the convergence test compares the new weights with themselves, the stored images are normalised
    once more every epoch until they are all zeros or overflow, a caller's array changes under it. Autograd
    complains only when the overwritten value was saved for the backward pass; everything else trains
    without an error, just wrongly.
    How to confirm: keep a copy before the change (`x0 = x.clone()` / `a0 = a.copy()`) and compare it with the
    other holder afterwards (`torch.equal(x0, identity)`), or print `x._version` before and after; for a
    dataset, read the same index twice and compare.
    What to do instead: make the change out of place (`x = x + b`, `x = x.clamp(0, 1)`, `nn.ReLU()`,
    `Normalize(mean, std)`), or copy before changing (`img = self.images[i].copy()`, `x = x.clone()`,
    `torch.tensor(a)` instead of `torch.from_numpy(a)`); keep in-place operations for values nobody else holds.
    """

    id = "in-place-on-shared-value"
    category = "architecture"
    severity = "warning"
    reach = "project"
    triggers = ("_(", "+=", "-=", "*=", "/=", "[", "inplace", "out=", "copyto", "fill(")

    def check(self, ctx: FileContext):
        seen: set[tuple[str, int, str]] = set()
        if _test_file(ctx):
            return  # tests exercise in-place behaviour on purpose
        for scope in (*ctx.functions, ctx.tree):
            if getattr(scope, "name", "").startswith("test"):
                continue
            writes = list(ipw.direct_writes(ctx, scope))
            getitem = getattr(scope, "name", None) == "__getitem__"
            if scope is not ctx.tree and not getitem:
                writes += ipw.helper_writes(ctx, scope, objects_only=True)
            if getitem:
                writes += ipw.helper_writes(ctx, scope)
                writes += ipw.transform_writes(ctx, scope)
                for back in ipw.write_backs(ctx, scope):
                    target = back.stmt.targets[0]
                    yield self.finding(
                        ctx, back.stmt,
                        f"`{ctx.segment(target, 60)}` (stored in `{back.attr}`) gets back a transformed version of what "
                        f"it held (read at line {back.fetched}): every later `__getitem__` call (every epoch) transforms "
                        f"the stored sample again on top of the last one",
                    )
            for write in writes:
                for finding in self._report(ctx, scope, write, getitem, None, caller_side=True):
                    key = (finding.location.path or "", finding.location.line or 0, finding.message)
                    if key not in seen:
                        seen.add(key)
                        yield finding
        for func in ctx.functions:
            if func.name in _CALLED_AS_OBJECT:
                continue
            params = set(vo.function_params(func))
            if not any(w.name in params for w in ipw.direct_writes(ctx, func)):
                continue  # (a helper that only hands its argument on is followed from its callers' side)
            changed = ipw.mutated_parameters(ctx, func)
            if not changed:
                continue
            for sctx, site in self._sites(ctx, func):
                sscope = sctx.enclosing_function(site) or sctx.tree
                if getattr(sscope, "name", None) == "__getitem__" or sscope is func \
                        or getattr(sscope, "name", "").startswith("test") or _test_file(sctx):
                    continue  # read by the caller's own scan (see above), or a test
                stmt = next((a for a in (site, *sctx.ancestors(site)) if isinstance(a, ast.stmt)), None)
                if stmt is None:
                    continue
                for param, inner in changed.items():
                    arg = vo.argument_for(site, func, param)
                    if not isinstance(arg, ast.Name):
                        continue
                    helper = f"{func.name} ({ctx.display_path} line {func.lineno})"
                    write = ipw.Write(arg.id, stmt, inner.node, inner.ctx, inner.how, True, inner.needs_array,
                                      helper=helper, returns_argument=ipw.returns_parameter(func, param))
                    for finding in self._report(sctx, sscope, write, False, site):
                        key = (finding.location.path or "", finding.location.line or 0, finding.message)
                        if key not in seen:
                            seen.add(key)
                            yield finding

    @staticmethod
    def _sites(ctx: FileContext, func: ast.AST) -> list:
        cls = ctx.enclosing_class(func)
        if cls is not None and getattr(func, "name", None) != "__init__":
            return vo.method_call_sites(ctx, func)
        return vo.all_call_sites(ctx, func)

    def _report(self, ctx: FileContext, scope: ast.AST, write: ipw.Write, getitem: bool, site: ast.Call | None,
                caller_side: bool = False):
        line = write.stmt.lineno
        stored = ipw.stored_source(ctx, scope, write.name, line) if getitem else None
        if caller_side and write.ctx is not ctx and stored is None:
            return  # only stored data (a subscript here) ties a write in another file to this file's text
        holders = ipw.holders(ctx, scope, write) if stored is None else []
        if stored is None and not holders:
            return
        if write.needs_array and not self._array(ctx, scope, write, stored):
            return
        prefix = self._prefix(ctx, write, site)
        if stored is not None:
            attr, bound = stored
            yield self.finding(
                write.ctx, write.node,
                f"{prefix}`{write.name}` is part of `{attr}` (taken at {self._at(ctx, write, bound)} without a copy): the "
                f"in-place change rewrites the dataset's stored data, so every later `__getitem__` call (every epoch) "
                f"applies it again on top of the last one",
            )
            return
        for holder in holders:
            read_at = self._at(ctx, write, holder.read.lineno if holder.read is not None else 0)
            if holder.name == write.name:
                message = (f"{prefix}the call's result goes to another name, but `{write.name}` itself was changed and "
                           f"is read again at {read_at}, where it no longer holds the original")
            else:
                message = (f"{prefix}`{holder.name}` holds the same object ({holder.how} at "
                           f"{self._at(ctx, write, holder.bound)}) and is read at {read_at} expecting the original, "
                           f"but sees the changed values")
            # a stand-in alias (one arm of an if/else) changed by an explicit in-place write may be meant to follow
            # the change; a write that reads as making a new value (a module, `inplace=True`) never is
            unsure = holder.conditional and not write.functional
            if unsure:
                message += (" (the sharing is one arm of an if/else: if that arm means the two to stay equal, this is "
                            "intended)")
            yield self.finding(write.ctx, write.node, message, severity="info" if unsure else None)

    @staticmethod
    def _at(ctx: FileContext, write: ipw.Write, line: int) -> str:
        return f"line {line}" if write.ctx is ctx else f"{ctx.display_path} line {line}"

    @staticmethod
    def _prefix(ctx: FileContext, write: ipw.Write, site: ast.Call | None) -> str:
        if write.helper:
            where = f"line {write.stmt.lineno}" if write.ctx is ctx else f"{ctx.display_path} line {write.stmt.lineno}"
            return (f"`{write.helper.split(' ')[0]}` (called at {where} with `{write.name}`) changes that argument in "
                    f"place here ({write.how}); ")
        return f"{write.how} changes `{write.name}` in place; "

    @staticmethod
    def _array(ctx: FileContext, scope: ast.AST, write: ipw.Write, stored: tuple[str, int] | None) -> bool:
        """The written object is an array or tensor (so `+=` and item stores change it, not rebind it)."""
        if stored is None:
            return ipw.array_like(ctx, scope, write.name, write.stmt.lineno)
        if isinstance(write.stmt, ast.AugAssign) and isinstance(write.stmt.target, ast.Subscript):
            return True  # sample["x"] -= m: the stored container or the array in it changes either way
        entry = ipw.bound_before(ctx, scope, write.name, write.stmt.lineno)
        if entry is not None and isinstance(entry[2], ast.Call) and tensor_values.array_kind(ctx, entry[2]):
            return True  # torch.from_numpy(self.images[i]): a tensor, whatever one element of the array is
        owner = ctx.enclosing_class(scope)
        if owner is not None:
            values = ctx.self_attributes(owner).get(stored[0].split(".", 1)[1], [])
            kinds = {tensor_values.array_kind(ctx, v) for v in values}
            if kinds == {tensor_values.TORCH}:
                return True  # even a 0-d element of a tensor is a view of its storage
        return ipw.used_as_array(ctx, scope, write.name)
