"""The ``paired-sequences-misaligned`` rule: two sequences combined by position after only one was reordered, or
two file listings paired in the order the file system returns them."""

from __future__ import annotations

import ast

from mlsleuth.scan.analysis import paired_sequences as ps
from mlsleuth.scan.analysis.context import FileContext
from mlsleuth.scan.registry import Rule, register_rule


def _describe(ctx: FileContext, pairing: ps.Pairing, why: ps.Misalignment, where: str = "") -> str:
    left, right = ctx.segment(pairing.left, 40), ctx.segment(pairing.right, 40)
    met = f"`{left}` and `{right}` are paired by position ({pairing.how}, line {pairing.node.lineno})"
    if why.kind == "listing":
        sides = [(left, right)[i] for i in why.unsorted]
        which = " and ".join(f"`{s}`" for s in sides)
        return (f"{met}, but {which} {'come' if len(sides) > 1 else 'comes'} from a directory listing that is never sorted{where}: "
                f"the listing order is whatever the file system returns, so the i-th items of two folders need not belong together")
    op = why.op
    assert op is not None
    return (f"{met}, but only one of them was reordered by `{op.text}` (line {op.line}){where}: after it the i-th element "
            f"of one no longer belongs to the i-th element of the other")


@register_rule
class PairedSequencesMisaligned(Rule):
    """Sequences paired by position, but one was reordered alone (or both are unsorted listings).

    What it finds: two lists, arrays, tensors or frames combined element by element (`zip(a, b)`, one index
    into both such as `self.images[idx]` and `self.masks[idx]`, `TensorDataset(a, b)`, `train_test_split(a,
    b)`, `model.fit(a, b)`, stacking as columns, a returned `(a, b)`) where they started aligned (unpacked
    from one value, appended in one loop, one derived from the other, columns of one frame, parameters of one
    function) and then only one of them was sorted, shuffled, reversed, filtered or deduplicated
    (`sorted(...)`, `.sort()`, `random.shuffle`, `x[perm]`, `df.sample(frac=1)`, `set(...)`, a comprehension
    with `if`); or where one side was shuffled and the other was not; or where both come from directory
    listings (`os.listdir`, `glob.glob`, `Path.glob`/`iterdir`, `os.scandir`, `os.walk`) and at least one is
    never sorted. The values are followed through locals, `self` attributes, a function's callers and helpers
    in other modules. Silent when both sides get the same reordering (one permutation or index array applied
    to both, both sorted), when the second is built from the first after the reordering, and when pairs are
    looked up by key instead of position.
    Why it matters: after the reordering the i-th input sits next to some other example's label, mask or
    target. Training runs, the loss goes down a little and plateaus, metrics look like a weak model, and
    nothing errors. Directory listings have no defined order: two folders holding matching file names can be
    listed in different orders, and the order changes between machines and file systems.
    How to confirm: print a few of the paired items side by side (file names, ids) at the pairing point: they
    do not match.
    What to do instead: reorder once and apply the same order to both (`idx = np.argsort(...); a, b =
    a[idx], b[idx]`, `sorted(zip(a, b))`), derive the second list from the reordered first (`masks =
    [mask_dir / p.name for p in images]`), or sort every listing (`sorted(os.listdir(d))`).
    """

    id = "paired-sequences-misaligned"
    category = "data"
    severity = "error"
    triggers = ("zip", "Dataset", "train_test_split", "stack", "DataFrame", ".fit(", "[", "return")
    reach = "project"

    def check(self, ctx: FileContext):
        orders = ps.orders(ctx)
        reported: set = set()
        for scope in (ctx.tree, *ctx.functions):
            for pairing in ps.pairings(ctx, scope):
                a, b = orders.of(pairing.left), orders.of(pairing.right)
                why = ps.misalignment(a, b, moves_only=pairing.loose, exprs=(pairing.left, pairing.right))
                where = ""
                if why is None and a is not None and b is not None:
                    for sctx, left, right in ps.parameter_sites(ctx, a, b):
                        sorders = ps.orders(sctx)
                        why = ps.misalignment(sorders.of(left), sorders.of(right), moves_only=pairing.loose)
                        if why is not None:
                            call = sctx.parent(left)
                            line = getattr(call, "lineno", left.lineno)
                            where = f" (arguments passed at {sctx.display_path}:{line})"
                            break
                if why is None:
                    continue
                here = why.cause is not None and ctx.parent(why.cause) is not None  # in this file
                anchor = why.cause if here else pairing.node
                key = id(why.cause) if why.cause is not None else (pairing.node.lineno, where)
                if key in reported:
                    continue
                reported.add(key)
                yield self.finding(ctx, anchor, _describe(ctx, pairing, why, where),
                                   observation=f"paired at line {pairing.node.lineno}: {ctx.line_text(pairing.node.lineno).strip()}",
                                   severity="warning" if why.kind == "listing" else None)
