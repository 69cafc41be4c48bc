"""The ``diffusion-noise-coefficient-wrong`` rule: the forward process scales the noise by something other than
sqrt(1 - alpha_bar)."""

from __future__ import annotations

import ast
import re

from mlsleuth.scan.analysis import value_origins
from mlsleuth.scan.analysis.context import FileContext, call_method, constant, dotted
from mlsleuth.scan.registry import Rule, register_rule

_SQRT_CALLS = frozenset({"torch.sqrt", "numpy.sqrt", "math.sqrt", "torch.rsqrt"})
# Wrappers that select or reshape a schedule without changing its values.
_SELECTING_METHODS = frozenset({"gather", "index_select", "view", "reshape", "to", "float", "double", "expand", "expand_as",
                                "unsqueeze", "type_as", "flatten", "squeeze", "clone", "cpu", "cuda"})
_SELECTING_HELPER = re.compile(r"extract|gather|index|broadcast|take|get_coef|at_t", re.IGNORECASE)
_NOISE_CALLS = frozenset({"randn_like", "randn", "normal_"})
_NOISE_WORDS = frozenset({"noise", "eps", "epsilon", "z"})
# "sqrt one minus X": the name of the noise coefficient (sqrt_one_minus_alphas_cumprod, sqrt_1m_alpha_bar, ...).
_ONE_MINUS = re.compile(r"(^|_)(one_?minus|1_?m|1_?minus|om)_(?P<stem>.+)$")


def _sqrt_inner(ctx: FileContext, expr: ast.AST | None) -> ast.AST | None:
    """``torch.sqrt(E)`` / ``E ** 0.5`` / ``E.sqrt()`` / ``np.sqrt(E)``: the ``E``."""
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Pow) and constant(expr.right) == 0.5:
        return expr.left
    if isinstance(expr, ast.Call):
        if value_origins.normalize(ctx.qualname(expr)) in _SQRT_CALLS - {"torch.rsqrt"} and expr.args:
            return expr.args[0]
        if call_method(expr) in ("sqrt", "sqrt_") and not expr.args and isinstance(expr.func, ast.Attribute):
            return expr.func.value
        converter = value_origins.normalize(ctx.qualname(expr)) in ("torch.tensor", "torch.from_numpy", "torch.as_tensor") or (
            isinstance(expr.func, ast.Name) and ("tensor" in expr.func.id.lower() or "torch" in expr.func.id.lower()))
        if converter and expr.args:
            return _sqrt_inner(ctx, expr.args[0])  # to_torch(np.sqrt(x)) / torch.tensor(np.sqrt(x), dtype=...)
    return None


def _class_binding(ctx: FileContext, cls: ast.ClassDef, attr: str) -> tuple[ast.AST, ast.expr] | None:
    """(statement, value) of ``self.attr = v`` or ``self.register_buffer("attr", v)`` in ``cls`` (the only one)."""
    found: list[tuple[ast.AST, ast.expr]] = []
    for node in ast.walk(cls):
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            t = node.targets[0]
            if isinstance(t, ast.Attribute) and t.attr == attr and isinstance(t.value, ast.Name) and t.value.id == "self":
                found.append((node, node.value))
        elif isinstance(node, ast.Call) and call_method(node) == "register_buffer" and len(node.args) >= 2 \
                and constant(node.args[0]) == attr:
            found.append((node, node.args[1]))
    return found[0] if len(found) == 1 else None


def _definition(ctx: FileContext, expr: ast.AST, depth: int = 0) -> tuple[ast.AST, ast.AST] | None:
    """(statement, value) that defines a coefficient named ``expr`` (a local, or ``self.attr`` of its class)."""
    if depth > 4:
        return None
    if isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name) and expr.value.id == "self":
        cls = ctx.enclosing_class(expr)
        return _class_binding(ctx, cls, expr.attr) if cls is not None else None
    if isinstance(expr, ast.Name):
        bound = value_origins.value(ctx, expr)
        if bound is not None and bound is not expr:
            return ctx.parent(bound) or bound, bound
    return None


def _strip_selection(ctx: FileContext, expr: ast.AST) -> ast.AST:
    """``extract(self.coef, t, x.shape)``, ``coef[t][:, None, None, None]``, ``coef.gather(-1, t).view(-1, 1, 1, 1)``: ``coef``."""
    for _ in range(8):
        if isinstance(expr, ast.Subscript):
            expr = expr.value
        elif isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr in _SELECTING_METHODS:
            expr = expr.func.value
        elif isinstance(expr, ast.Call) and expr.args and _SELECTING_HELPER.search(dotted(expr.func) or ""):
            expr = expr.args[0]
        else:
            break
    return expr


def _coefficient(ctx: FileContext, expr: ast.AST) -> tuple[ast.AST | None, ast.AST]:
    """(the defining statement or None, the coefficient's value) behind a factor of the forward-process sum."""
    core = _strip_selection(ctx, expr)
    found = _definition(ctx, core)
    if found is None:
        return None, core
    stmt, value = found
    return stmt, _strip_selection(ctx, value)


def _is_noise(ctx: FileContext, expr: ast.AST, depth: int = 0) -> bool:
    if depth > 4:
        return False
    if isinstance(expr, ast.Call):
        return call_method(expr) in _NOISE_CALLS or (value_origins.normalize(ctx.qualname(expr)) or "").rsplit(".", 1)[-1] in _NOISE_CALLS
    if isinstance(expr, ast.Name):
        bound = value_origins.value(ctx, expr)
        if isinstance(bound, ast.Call) and _is_noise(ctx, bound, depth + 1):
            return True
        return bool(_NOISE_WORDS & set(value_origins.words(expr.id))) and value_origins.is_parameter(ctx, expr)
    return False


def _split_term(ctx: FileContext, term: ast.AST) -> tuple[ast.AST, ast.AST] | None:
    """``coef * x`` -> (coef, x); the side that is a schedule coefficient is the one judged later."""
    if isinstance(term, ast.BinOp) and isinstance(term.op, ast.Mult):
        return term.left, term.right
    return None


def _same(a: ast.AST, b: ast.AST) -> bool:
    return ast.dump(a) == ast.dump(b)


def _one_minus(ctx: FileContext, expr: ast.AST, of: ast.AST) -> bool:
    """``1 - of`` (``1.`` too; ``of`` indexed or reshaped alike)."""
    return isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Sub) and constant(expr.left) in (1, 1.0) \
        and _same(_strip_selection(ctx, expr.right), of)


def _snake(name: str) -> str:
    return re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", name).lower()


@register_rule
class DiffusionNoiseCoefficientWrong(Rule):
    """Diffusion forward process: noise not scaled by sqrt(1 - alpha_bar).

    What it finds: the noise coefficient of `x_t = sqrt(abar_t) * x0 + sqrt(1 - abar_t) * eps` built
    wrongly: a buffer named for it (`sqrt_one_minus_alphas_cumprod`, `sqrt_1m_alpha_bar`, a
    `register_buffer(...)` of that name) whose value is the square root of the signal schedule itself
    (`alpha_bar ** .5`, no `1 - ...`: the signal line copied); or, in the forward-process sum itself,
    a noise coefficient that is the same expression as the signal coefficient, or `1 - abar` without
    the square root. Coefficients are followed through `extract(...)` / `gather` / indexing helpers,
    local names and the class's attributes and buffers.
    Why it matters: `x_t` must have variance 1 - abar_t around sqrt(abar_t) * x0 so that it becomes
    pure noise at large t and matches what the sampler's `p_sample` assumes. With the signal
    coefficient copied, `x_t = sqrt(abar)(x0 + eps)` shrinks to zero instead of to noise; without the
    square root the noise level is wrong at every step. The loss still falls; samples are garbage.
    How to confirm: print the two coefficients at a few timesteps: their squares must sum to 1
    (`coef_signal**2 + coef_noise**2 == 1`), and `x_t` at the last timestep should have std about 1.
    What to do instead: `sqrt_one_minus_alpha_bar = (1. - alpha_bar) ** .5` (or
    `torch.sqrt(1 - alphas_cumprod)`), computed from the same cumulative schedule as the signal term.
    """

    id = "diffusion-noise-coefficient-wrong"
    category = "loss"
    severity = "warning"
    reach = "file"
    triggers = ("sqrt", ".5")

    def check(self, ctx: FileContext):
        if not ctx.imports_any("torch", "numpy", "jax"):
            return
        reported: set[int] = set()
        for finding_node, message in self._named_coefficients(ctx):
            if id(finding_node) not in reported:
                reported.add(id(finding_node))
                yield self.finding(ctx, finding_node, message, next_test=self._next_test)
        for finding_node, message in self._forward_sums(ctx):
            if id(finding_node) not in reported:
                reported.add(id(finding_node))
                yield self.finding(ctx, finding_node, message, next_test=self._next_test)

    _next_test = "Print coef_signal**2 + coef_noise**2 at a few timesteps: it must be 1."

    def _named_coefficients(self, ctx: FileContext):
        """``self.sqrt_one_minus_abar = self.abar ** .5``: named for 1 - abar, computed from abar itself."""
        for node in ctx.nodes_of(ast.Assign, ast.Call):
            if isinstance(node, ast.Assign):
                if len(node.targets) != 1:  # type: ignore[attr-defined]
                    continue
                name = dotted(node.targets[0])  # type: ignore[attr-defined]
                value = node.value  # type: ignore[attr-defined]
            elif call_method(node) == "register_buffer" and len(node.args) >= 2 and isinstance(constant(node.args[0]), str):  # type: ignore[attr-defined]
                name, value = constant(node.args[0]), node.args[1]  # type: ignore[attr-defined]
            else:
                continue
            if not name:
                continue
            snake = _snake(name.rsplit(".", 1)[-1])
            if not snake.startswith("sqrt_") or "recip" in snake or "inv" in snake.split("_"):
                continue
            m = _ONE_MINUS.search(snake[len("sqrt"):])
            if m is None:
                continue
            inner = _sqrt_inner(ctx, value)
            if inner is None:
                continue
            # the square root of a plain schedule name: ``sqrt(1 - x)`` or ``sqrt(one_minus_x)`` have other shapes
            inner_name = dotted(_strip_selection(ctx, inner))
            if inner_name is None:
                continue
            if _snake(inner_name.rsplit(".", 1)[-1]) != m.group("stem"):
                continue  # sqrt_one_minus_beta = sqrt(alphas): another name for the same value
            yield node, (
                f"`{name}` is named sqrt(1 - {m.group('stem')}) but computed as sqrt({inner_name}): the noise "
                "coefficient of the forward process is the signal coefficient copied, so x_t never becomes noise"
            )

    def _forward_sums(self, ctx: FileContext):
        """``a * x0 + b * noise`` with ``b`` the same expression as ``a`` or ``1 - abar`` without the square root."""
        for node in ctx.nodes_of(ast.BinOp):
            if not isinstance(node.op, ast.Add):  # type: ignore[attr-defined]
                continue
            left, right = _split_term(ctx, node.left), _split_term(ctx, node.right)  # type: ignore[attr-defined]
            if left is None or right is None:
                continue
            noise_side = [t for t in (left, right) if _is_noise(ctx, t[1]) or _is_noise(ctx, t[0])]
            if len(noise_side) != 1:
                continue
            noise_term = noise_side[0]
            signal_term = right if noise_term is left else left
            noise_coef = noise_term[0] if _is_noise(ctx, noise_term[1]) else noise_term[1]
            n_stmt, n_value = _coefficient(ctx, noise_coef)
            for factor in signal_term:
                s_stmt, s_value = _coefficient(ctx, factor)
                s_inner = _sqrt_inner(ctx, s_value)
                if s_inner is None:
                    continue
                n_inner = _sqrt_inner(ctx, n_value)
                if n_inner is not None and _same(_strip_selection(ctx, n_inner), _strip_selection(ctx, s_inner)):
                    where = n_stmt if n_stmt is not None and n_stmt is not s_stmt else node
                    yield where, (
                        "the forward process scales the noise by the same coefficient as the signal "
                        f"(sqrt of {ctx.segment(s_inner, 40)}); the noise coefficient must be sqrt(1 - that)"
                    )
                    break
                if n_inner is None and _one_minus(ctx, _strip_selection(ctx, n_value), _strip_selection(ctx, s_inner)):
                    yield (n_stmt or node), (
                        f"the forward process scales the noise by 1 - {ctx.segment(s_inner, 40)} without the square "
                        "root: its standard deviation must be sqrt(1 - alpha_bar), so every x_t has the wrong noise level"
                    )
                    break
