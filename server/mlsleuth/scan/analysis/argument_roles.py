"""Argument roles: what an argument expression is called, and what it plays (prediction or reference).

Two questions the argument-order rules ask about an expression passed to a call:

* its NAME role (:func:`name_key`): the identifier it is known by (``val_loader``, ``self.val_loader``,
  ``batch["labels"]``, ``labels.to(device)``), normalised so that spellings of one name compare equal:
  letter case, ``_``/camelCase, plurals, common prefixes that say nothing of the role (``batch_``, ``b_``,
  ``y_`` before a word, ``cur_``...) and a few abbreviations (``valid``/``validation``/``dev`` -> ``val``,
  ``preds``/``prediction`` -> ``pred``, ``tgt`` -> ``target``). A name that does not decide anything
  (``x``, ``a``, ``tmp``, ``arg``) has no key;
* its SEMANTIC role (:func:`value_role`): "pred" for a model's predictions (``outputs.argmax(1)``, ``y_pred``,
  ``model.predict(X)``), "true" for the reference labels (``labels``, ``y_test``, ``batch["target"]``), None
  when it cannot be told. The name is read first, then the value a local name was bound to.

:func:`crossed_pairs` puts the two together for a call whose callee's parameters are known: two arguments
whose names are the names of each other's parameters. Everything here is conservative: a name that does
not decide, a starred argument, a callee with ``*args`` give no answer.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass

from mlsleuth.scan.analysis import value_origins as vo
from mlsleuth.scan.analysis.context import FileContext, call_method, constant, dotted
from mlsleuth.scan.analysis.module_values import is_module

# -- semantic roles: prediction vs reference -------------------------------------------------------

PRED_WORDS = frozenset(
    {"pred", "preds", "prediction", "predictions", "predicted", "predict", "output", "outputs", "logits", "probs",
     "prob", "proba", "probabilities", "yhat", "hat", "guess", "guesses"}
)
TRUE_WORDS = frozenset({"label", "labels", "target", "targets", "true", "gt", "truth", "groundtruth", "gold", "actual", "y", "ys"})
_PRED_CALLS = frozenset({"argmax", "predict", "predict_proba", "decision_function", "sigmoid", "softmax", "round"})
_PASS = frozenset(
    {"cpu", "numpy", "detach", "tolist", "flatten", "ravel", "view", "reshape", "squeeze", "long", "int", "float",
     "astype", "to", "cat", "concatenate", "array", "asarray", "list", "hstack", "vstack", "stack"}
)


def value_role(ctx: FileContext, expr: ast.AST, depth: int = 0) -> str | None:
    """"pred" for predictions (``outputs.argmax(1)``, ``y_pred``, ``model.predict(X)``), "true" for the
    reference labels (``labels``, ``y_test``, ``batch["target"]``), None when it cannot be told."""
    if depth > 6:
        return None
    if isinstance(expr, ast.Call):
        name = (call_method(expr) or (dotted(expr.func) or "").rsplit(".", 1)[-1])
        if name in _PRED_CALLS:
            return "pred"
        if name in _PASS:
            receiver = expr.func.value if isinstance(expr.func, ast.Attribute) else None
            if receiver is not None and dotted(receiver) not in {"np", "numpy", "torch", "jnp"}:
                return value_role(ctx, receiver, depth + 1)  # outputs.cpu().numpy()
            return value_role(ctx, expr.args[0], depth + 1) if expr.args else None  # np.array(preds)
        return None
    if isinstance(expr, ast.Compare) and len(expr.ops) == 1 and isinstance(expr.ops[0], (ast.Gt, ast.GtE)):
        return "pred"  # probs > 0.5
    if isinstance(expr, ast.Subscript):
        key = constant(expr.slice)
        if isinstance(key, str):
            return words_role(key) or value_role(ctx, expr.value, depth + 1)
        return value_role(ctx, expr.value, depth + 1)
    if isinstance(expr, (ast.Name, ast.Attribute)):
        role = words_role((dotted(expr) or "").rsplit(".", 1)[-1])
        if role is not None:
            return role
        if isinstance(expr, ast.Name):
            bound = vo.local_value(ctx, expr)
            if bound is not None and bound is not expr:
                return value_role(ctx, bound, depth + 1)
    return None


# Names a prediction often goes by beyond the evaluation words (model outputs, reconstructions).
_OUTPUT_NAMES = frozenset({"out", "outs", "score", "scores", "recon", "reconstruction", "reconstructed", "decoded"})


def output_role(ctx: FileContext, expr: ast.AST | None) -> str | None:
    """:func:`value_role`, with a model's output (``out = model(x)``, ``self.net(x)``) and its usual names
    (``out``, ``scores``, ``recon``) read as predictions: what a loss or a training helper is handed."""
    if expr is None:
        return None
    bound = vo.local_value(ctx, expr) if isinstance(expr, ast.Name) else expr
    if isinstance(bound, ast.Call) and isinstance(bound.func, (ast.Name, ast.Attribute)) and is_module(ctx, bound.func):
        return "pred"
    name = name_of(expr)
    if name is not None and name.lower() in _OUTPUT_NAMES:
        return "pred"
    return value_role(ctx, expr)


def words_role(name: str) -> str | None:
    """The role one identifier's words give it: ``y_pred`` -> "pred", ``labels`` -> "true", ``pred_labels`` -> None."""
    parts = set(vo.words(name))
    if parts & PRED_WORDS:
        return None if parts & (TRUE_WORDS - {"y", "ys"}) else "pred"
    return "true" if parts & TRUE_WORDS else None


# -- name roles ----------------------------------------------------------------------------------

# Words that qualify a name without naming what it holds: ``batch_labels`` is still ``labels``.
_NOISE_WORDS = frozenset({"batch", "b", "my", "the", "cur", "curr", "current", "this", "new", "all", "local", "self"})
_SYNONYMS = {
    "valid": "val", "validation": "val", "dev": "val", "vali": "val",
    "preds": "pred", "prediction": "pred", "predictions": "pred", "predicted": "pred",
    "tgt": "target", "lbl": "label", "trn": "train", "tst": "test",
}
# Names that say nothing about which slot a value belongs in.
_UNDECIDED = frozenset({"tmp", "temp", "arg", "args", "kwargs", "value", "item", "obj", "other", "data", "var", "param",
                        "elem", "el", "thing", "res", "result", "ret", "out", "inp", "foo", "bar", "baz", "none"})
# Methods that move or retype a value without changing what it is: ``labels.to(device)`` is ``labels``.
_NAME_PASS = frozenset(
    {"to", "cuda", "cpu", "float", "double", "half", "long", "int", "bool", "detach", "clone", "numpy", "contiguous",
     "squeeze", "unsqueeze", "view", "reshape", "flatten", "ravel", "tolist", "astype", "copy", "type", "bfloat16"}
)


def _singular(word: str) -> str:
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def normalized_words(name: str) -> tuple[str, ...]:
    """``batch_Labels`` -> ('label',); ``y_pred`` -> ('pred',); ``validLoader`` -> ('val', 'loader')."""
    parts = [w for w in vo.words(name) if w not in _NOISE_WORDS]
    if len(parts) > 1 and parts[0] == "y" and parts[1] in PRED_WORDS | TRUE_WORDS:  # y_pred, y_true: a prefix
        parts = parts[1:]
    found = []
    for word in parts:
        word = _singular(_SYNONYMS.get(word, word))
        found.append(_SYNONYMS.get(word, word))
    return tuple(found)


def name_of(expr: ast.AST | None, depth: int = 0) -> str | None:
    """The identifier an argument is known by: a name, an attribute's tail, a constant string key, through
    value-preserving methods (``labels.to(device)``, ``x.cpu().numpy()``)."""
    if expr is None or depth > 6:
        return None
    if isinstance(expr, ast.Name):
        return expr.id
    if isinstance(expr, ast.Attribute):
        return expr.attr
    if isinstance(expr, ast.Subscript):
        key = constant(expr.slice)
        return key if isinstance(key, str) and key.isidentifier() else None
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr in _NAME_PASS:
        return name_of(expr.func.value, depth + 1)
    return None


def name_key(name: str | None) -> str | None:
    """The normalised name (see the module docstring), or None when the name does not decide a slot."""
    if not name:
        return None
    if name in {"X", "y"}:
        return name  # the scikit-learn convention: X the features, y the labels (a lone x or y decides nothing)
    key = "_".join(normalized_words(name))
    if len(key) <= 1 or key in _UNDECIDED or key.isdigit():
        return None
    return key


# -- crossed arguments ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Slot:
    """One argument of a call bound to the callee's parameter ``param`` (``position`` None for a keyword)."""

    param: str
    arg: ast.expr
    position: int | None


def bound_slots(call: ast.Call, func: ast.AST, *, method: bool) -> list[Slot] | None:
    """The arguments of ``call`` bound to ``func``'s parameters (``method``: drop its ``self``), or None when
    the binding is not plain: ``*args`` on either side, more positional arguments than parameters."""
    if not isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)) or func.args.vararg is not None:
        return None
    if any(isinstance(a, ast.Starred) for a in call.args):
        return None
    positional = [p.arg for p in (*func.args.posonlyargs, *func.args.args)]
    if method:
        positional = positional[1:]
    if len(call.args) > len(positional):
        return None
    slots = [Slot(positional[i], arg, i) for i, arg in enumerate(call.args)]
    named = set(positional[len(call.args):]) | {p.arg for p in func.args.kwonlyargs}
    slots += [Slot(kw.arg, kw.value, None) for kw in call.keywords if kw.arg is not None and kw.arg in named]
    return slots


def crossed_pairs(slots: list[Slot]) -> Iterator[tuple[Slot, Slot]]:
    """Pairs of slots whose arguments carry each other's parameter names (at least one passed by position)."""
    keyed = []
    for slot in slots:
        arg_key = name_key(name_of(slot.arg))
        param_key = name_key(slot.param)
        if arg_key is not None and param_key is not None and arg_key != param_key:
            keyed.append((slot, arg_key, param_key))
    for i, (first, arg1, par1) in enumerate(keyed):
        for second, arg2, par2 in keyed[i + 1:]:
            if first.position is None and second.position is None:
                continue  # f(a=b, b=a): written out by name, on purpose
            if arg1 == par2 and arg2 == par1 and par1 != par2 and not interchangeable(par1, par2):
                yield first, second


# Parameter pairs whose two members play mirror roles: code crosses them on purpose (back-translation swaps
# source and target, an inverse relation swaps head and tail, a transposed grid swaps rows and columns).
_MIRRORS = (
    {"src", "dst"}, {"src", "tgt"}, {"src", "target"}, {"source", "target"}, {"source", "dest"}, {"source", "destination"},
    {"left", "right"}, {"lhs", "rhs"}, {"first", "second"}, {"head", "tail"}, {"parent", "child"}, {"sender", "receiver"},
    {"from", "to"}, {"start", "end"}, {"begin", "end"}, {"row", "col"}, {"row", "column"}, {"height", "width"},
    {"h", "w"}, {"query", "key"}, {"q", "k"}, {"anchor", "positive"}, {"old", "new"}, {"before", "after"},
    {"prev", "next"}, {"u", "v"}, {"i", "j"}, {"in", "out"}, {"input", "output"}, {"user", "item"},
    {"real", "fake"},  # a relativistic GAN's generator loss is its discriminator loss with the two crossed
)


# Sizes of a layer (``dim``, ``hidden_dim``, ``in_channels``): mirrored blocks cross them by design.
_SIZE_WORDS = frozenset({"dim", "size", "channel", "ch", "chan", "feature", "feat", "unit", "width", "depth", "hidden",
                         "plane", "filter", "neuron", "embed", "embedding", "head", "layer", "len", "length", "num",
                         "count", "shape", "c", "d", "n", "k", "nc", "nf", "ndf", "ngf", "nz"})


def _size_name(key: str) -> bool:
    words = [w for w in key.split("_") if w not in {"in", "out", "input", "output", "inp", "i", "o"}]
    return bool(words) and words[-1] in _SIZE_WORDS


def interchangeable(key1: str, key2: str) -> bool:
    """Whether two parameter names are mirror roles or differ only in a number or a side (``x1``/``x2``,
    ``src_mask``/``tgt_mask``, ``h``/``w``): crossing such a pair is as often deliberate as not."""
    if key1.rstrip("0123456789_") == key2.rstrip("0123456789_"):
        return True
    if _size_name(key1) and _size_name(key2):
        return True  # widths: a decoder or a down-projection builds its block with in and out reversed
    words1, words2 = key1.split("_"), key2.split("_")
    if len(words1) != len(words2):
        return False
    differing = [(a, b) for a, b in zip(words1, words2) if a != b]
    if any(a.rstrip("0123456789") == b.rstrip("0123456789") for a, b in differing):
        return True
    return len(differing) == 1 and set(differing[0]) in _MIRRORS


# -- deliberate crossings ----------------------------------------------------------------------

# Words in a function's name that announce a reversal, or a callee that does not care about the order.
_REVERSING_WORDS = frozenset({"reverse", "reversed", "rev", "swap", "swapped", "flip", "flipped", "inverse", "inv",
                              "invert", "inverted", "transpose", "transposed", "mirror", "mirrored", "backward",
                              "symmetric", "sym", "symmetrized", "bidirectional", "cycle", "cyclic", "dual"})
# Measures whose value does not depend on the order (accuracy counts equal pairs, IoU and Dice overlap both ways).
_SYMMETRIC_WORDS = frozenset({"distance", "dist", "similarity", "sim", "cosine", "equal", "same", "compare", "jsd", "js",
                              "accuracy", "acc", "mse", "mae", "rmse", "l1", "l2", "iou", "dice", "jaccard", "overlap",
                              "agreement", "correlation", "corr", "match", "matches"})
_REVERSING_TEXT = ("swap", "revers", "flip", "invert", "inverse", "transpos", "mirror", "opposite", "deliberate",
                   "intentional", "on purpose", "other way", "order")


def _announces_reversal(text: str) -> bool:
    # a comment naming the rules (an ignore, a test's mark) is about them, not about the call
    low = text.lower().replace("arguments-swapped", "")
    return any(w in low for w in _REVERSING_TEXT)


def deliberate(ctx: FileContext, call: ast.Call, callee_name: str | None) -> bool:
    """Whether crossing the arguments of ``call`` looks intended: the callee or the function around the call is
    named for a reversal or a symmetric measure, a comment on the call or the function's docstring says so."""
    if callee_name and set(vo.words(callee_name)) & (_REVERSING_WORDS | _SYMMETRIC_WORDS):
        return True
    func = ctx.enclosing_function(call)
    if func is not None:
        if set(vo.words(func.name)) & _REVERSING_WORDS:
            return True
        doc = ast.get_docstring(func, clean=False)
        if doc and _announces_reversal(doc):
            return True
    first = getattr(call, "lineno", 0)
    last = getattr(call, "end_lineno", None) or first
    for line in range(max(1, first - 1), last + 1):
        text = ctx.lines[line - 1] if line <= len(ctx.lines) else ""
        if "#" in text and _announces_reversal(text[text.index("#"):]):
            return True
    return False


def also_called_in_order(ctx: FileContext, call: ast.Call, first: Slot, second: Slot) -> bool:
    """Whether the function around ``call`` (or the module) also calls the same callee with the two names in
    their own slots: ``loss(a, b) + loss(b, a)`` is a symmetric use, not a slip."""
    scope = ctx.enclosing_function(call) or ctx.tree
    head = ctx.segment(call.func, 200)
    want = (name_key(name_of(second.arg)), name_key(name_of(first.arg)))
    for other in ctx.calls(scope):
        if other is call or ctx.segment(other.func, 200) != head:
            continue
        got = (_slot_key(other, first), _slot_key(other, second))
        if got == want:
            return True
    return False


def _slot_key(call: ast.Call, slot: Slot) -> str | None:
    if slot.position is not None:
        arg = call.args[slot.position] if slot.position < len(call.args) else None
    else:
        arg = next((kw.value for kw in call.keywords if kw.arg == slot.param), None)
    return name_key(name_of(arg))


def round_trip(ctx: FileContext, call: ast.Call, callee: ast.AST, first: Slot, second: Slot) -> bool:
    """Whether the two values come back crossed the same way: ``k, v, b, a = f(k, v, b, a)`` against
    ``def f(k, v, a, b): ... return k, v, a, b``, so each variable ends up holding its own value again."""
    stmt = ctx.parent(call)
    if not isinstance(stmt, ast.Assign) or len(stmt.targets) != 1 or not isinstance(stmt.targets[0], ast.Tuple):
        return False
    targets = stmt.targets[0].elts
    results = vo.returns(callee)
    if not results:
        return False
    for result in results:
        if not isinstance(result, ast.Tuple) or len(result.elts) != len(targets):
            return False
        names = [e.id if isinstance(e, ast.Name) else None for e in result.elts]
        for slot in (first, second):
            if slot.param not in names:
                return False
            if name_key(name_of(targets[names.index(slot.param)])) != name_key(name_of(slot.arg)):
                return False
    return True
