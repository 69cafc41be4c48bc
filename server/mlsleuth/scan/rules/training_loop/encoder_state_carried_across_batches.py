"""The ``encoder-state-carried-across-batches`` rule: an encoder's hidden state is created once, before the
batch loop, and each batch's final state seeds the next batch, while that state initialises a decoder."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from mlsleuth.scan.analysis.context import FileContext
from mlsleuth.scan.registry import Rule, register_rule

# what creates a fresh state: ``model.init_hidden(bs)``, ``torch.zeros(...)``, ``None``
_FRESH_WORDS = ("init_hidden", "initHidden", "init_state", "initial_state", "zero_state", "begin_state", "zeros", "new_zeros",
                "zeros_like", "randn")
_CUTS = {"detach", "detach_", "clone", "to", "cuda", "cpu", "contiguous"}


def _is_fresh(value: ast.AST | None) -> bool:
    if isinstance(value, ast.Constant) and value.value is None:
        return True
    if isinstance(value, ast.Call):
        func = value.func
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
        return name in _FRESH_WORDS
    if isinstance(value, ast.Tuple):
        return bool(value.elts) and all(_is_fresh(e) for e in value.elts)
    return False


def _stored_names(target: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(target) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}


def _callee(call: ast.Call) -> str:
    return ast.unparse(call.func)


def _reads_state(expr: ast.AST, names: set[str]) -> bool:
    """``h`` or ``h.detach()`` / ``(h[0].detach(), h[1].detach())`` / ``repackage_hidden(h)`` among the arguments."""
    return any(isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and n.id in names for n in ast.walk(expr))


def _alias_of(value: ast.AST, names: set[str]) -> bool:
    """``dec_h = h`` / ``dec_h = h[:n_layers]`` / ``dec_h = h.contiguous()``: the same state under another name."""
    while isinstance(value, (ast.Subscript, ast.Attribute)) or isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr in _CUTS:
        value = value.value if not isinstance(value, ast.Call) else value.func.value  # type: ignore[union-attr]
    return isinstance(value, ast.Name) and value.id in names


@register_rule
class EncoderStateCarriedAcrossBatches(Rule):
    """An encoder's hidden state is carried from one batch to the next, and it initialises a decoder.

    What it finds: in a training loop over batches, an encoder call such as
    `enc_out, h = encoder(src, h.detach())` whose state `h` was created once before the loop
    (`h = encoder.init_hidden(bs)`, `torch.zeros(...)`, `None`) and is never re-created inside it,
    so every batch starts from the state the previous batch left; and the same state is then handed
    to another network in the same iteration (`decoder(y, h, enc_out)`, or `dec_h = h` first), which
    makes it a sequence-to-sequence model whose batches are unrelated sequences. A language model
    that carries its own state through consecutive chunks of one long text (truncated
    back-propagation through time) hands it to no other network and is left alone.
    Why it matters: each source sequence should be encoded from a fresh state. Carried over, the
    encoding of every article, sentence or sample depends on a random earlier batch, the decoder
    starts from a state that mixes in that unrelated sequence, and the batch size is baked into the
    state (the last, smaller batch crashes or is dropped). Training still converges, to a worse model.
    How to confirm: encode the same batch twice in a row from the carried state and from a fresh
    one: the encoder outputs differ.
    What to do instead: create the state inside the batch loop (`h = encoder.init_hidden(bs)` before
    the encoder call), or pass none and let the recurrent layer start from zeros.
    """

    id = "encoder-state-carried-across-batches"
    category = "training-loop"
    severity = "warning"
    triggers = ("backward",)
    requires = (("for ",),)

    def check(self, ctx: FileContext) -> Iterator:
        # each function's own ``for`` loops, in the order of ast.walk (the file's node list is
        # breadth first too, so its order restricted to one function is that function's walk)
        loops: dict[ast.AST, list[ast.AST]] = {}
        for loop in ctx.nodes_of(ast.For, ast.AsyncFor):
            func = ctx.enclosing_function(loop)
            if func is not None:
                loops.setdefault(func, []).append(loop)
        if not loops:
            return
        # the nodes that hold a ``.backward`` attribute somewhere under them
        around_backward: set[ast.AST] = set()
        for attr in ctx.nodes_of(ast.Attribute):
            if attr.attr == "backward":
                around_backward.update(ctx.ancestors(attr))
        for func in ctx.functions:
            if func in loops:
                yield from self._in_function(ctx, func, [loop for loop in loops[func] if loop in around_backward])

    def _in_function(self, ctx: FileContext, func: ast.AST, loops: list[ast.AST]) -> Iterator:
        assigns = None
        seen: set[int] = set()
        for loop in loops:
            if assigns is None:
                assigns = ctx.assignments(func)
            for stmt in ast.walk(loop):
                if not (isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Call) and len(stmt.targets) == 1):
                    continue
                target = stmt.targets[0]
                if not isinstance(target, ast.Tuple):
                    continue  # `out, h = encoder(x, h)`: the state comes back beside the outputs
                call = stmt.value
                state = {n for n in _stored_names(target) if _reads_state(ast.Tuple(elts=[*call.args, *(k.value for k in call.keywords)], ctx=ast.Load()), {n})}
                for name in sorted(state):
                    before = [(line, value) for line, _s, value in assigns.get(name, []) if line < loop.lineno]
                    inside = [(line, value) for line, _s, value in assigns.get(name, [])
                              if loop.lineno <= line <= (loop.end_lineno or loop.lineno) and line != stmt.lineno]
                    if not before or not _is_fresh(before[-1][1]) or inside:
                        continue  # re-created (or rebound) inside the loop: nothing is carried
                    decoder = self._handed_to_another(ctx, loop, stmt, name, _callee(call))
                    if decoder is None or id(call) in seen:
                        continue
                    seen.add(id(call))
                    yield self.finding(
                        ctx,
                        call,
                        f"`{name}` is created once at line {before[-1][0]}, before the loop at line {loop.lineno}, and "
                        f"{_callee(call)}() at line {stmt.lineno} starts every batch from the state the previous batch left; "
                        f"that state then initialises {decoder} in the same iteration, so every sequence is encoded and "
                        "decoded from a random earlier batch's state",
                        next_test=f"run {_callee(call)}() twice on the same batch, from the carried `{name}` and from a fresh one: the outputs differ",
                    )

    @staticmethod
    def _handed_to_another(ctx: FileContext, loop: ast.AST, stmt: ast.Assign, name: str, encoder: str) -> str | None:
        """The call of another network that receives the state (directly or through a copy) after ``stmt``."""
        aliases = {name}
        for node in ast.walk(loop):
            if isinstance(node, ast.Assign) and node.lineno > stmt.lineno and len(node.targets) == 1 and _alias_of(node.value, aliases):
                aliases |= _stored_names(node.targets[0])
        for node in ast.walk(loop):
            if not (isinstance(node, ast.Call) and node.lineno >= stmt.lineno and node is not stmt.value):
                continue
            callee = _callee(node)
            if callee == encoder or isinstance(node.func, ast.Attribute) and node.func.attr in _CUTS | {"append", "extend", "item"}:
                continue
            if any(isinstance(a, ast.Name) and a.id in aliases for a in (*node.args, *(k.value for k in node.keywords))):
                if isinstance(node.func, ast.Name) and node.func.id in {"len", "print", "isinstance", "tuple", "list", "repackage_hidden"}:
                    continue
                return f"{callee}()"
        return None
