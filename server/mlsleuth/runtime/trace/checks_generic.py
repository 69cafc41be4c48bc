"""``trace`` checks defined by a mechanism many bug families share, not by a family.

They read ``generic``, what :mod:`mlsleuth.runtime.child.trace_generic` measured: a module that overwrote a tensor
its caller reads again (``inplace``), tensors that get gradients or look like weights but that no optimizer updates
(``orphan_leaves``, ``constant_attributes``), modules whose train-time output is all exact zeros
(``zero_outputs``), and embeddings fed one id per sample whose padding row is hit (``padding_rows``). Registered with the other trace checks (``checks.py`` imports this module). Import-light: no
torch here.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from mlsleuth.runtime.registry import Found, runtime_check
from mlsleuth.runtime.trace.locations import site_location


def _generic(run: Any) -> dict:
    return run.data.get("generic") or {}


def _shape(shape: Any) -> str:
    return "x".join(str(s) for s in shape) if shape else "scalar"


@runtime_check("module-overwrites-input-still-used", tool="trace", category="architecture", severity="warning")
def module_overwrites_input_still_used(run: Any) -> Iterator[Found]:
    """A module overwrote a tensor it was given, and the caller read that tensor again afterwards.

    What it finds: during the first training forward, a module's forward changed one of its input tensors in place
    (its version counter moved: ``nn.ReLU(inplace=True)`` as its first layer, ``x += ...``, ``x.mul_()``,
    ``x[...] = ...``), returned a different tensor, and a later operation read the overwritten tensor: a residual or
    skip connection adding the input back, the loss scoring it as a target, a later module taking it. Only tensors
    that carry gradient or were handed to the model are followed; parameters and buffers, and a module that hands
    back the very tensor it changed (an in-place activation on a fresh intermediate, as in torchvision's ResNet), are
    not reported.
    Why it matters: the caller meant the value it passed, but reads what the module left there: a skip path carrying
    relu(x) instead of x, a target already normalised. Autograd only complains when the overwritten value was needed
    for the backward pass, so most such runs train without any error, just worse.
    How to confirm: in the caller, keep a copy before the call (``x0 = x.clone(); out = block(x)``) and compare
    ``torch.equal(x0, x)`` after it; or print ``x._version`` before and after the call.
    What to do instead: make the module's first in-place operation out-of-place (``nn.ReLU()``, ``x = x * s``), or
    pass a clone; keep ``inplace=True`` only on tensors nobody else holds.
    """
    found = (_generic(run).get("inplace") or {}).get("overwritten_inputs") or []
    if not found:
        return
    first, rest = found[0], found[1:]
    read = first.get("read") or {}
    what = "the model's input" if first.get("model_input") and not first.get("requires_grad") else "an activation"
    others = f"; also in {', '.join(repr(r['module']) for r in rest[:4])}" if rest else ""
    caller = first.get("caller")
    by = f" by {read['op']}" if read.get("op") else ""
    where = f" in '{read['module']}'" if read.get("module") else ""
    yield Found(
        f"'{first['module']}' ({first['type']}) overwrites the tensor it is given in place, and that tensor is read again "
        f"afterwards{where}: the later use sees the overwritten values, not the ones passed in",
        observation=f"at step {first.get('step', 0)}, {what} of shape {_shape(first.get('shape'))} passed to '{first['module']}'"
                    f"{f' by {caller!r}' if caller else ''} had its version counter moved by that module's forward, which returned "
                    f"a different tensor; it was then read{by}{where}{others}",
        next_test=f"x0 = x.clone() right before the call of '{first['module']}', then torch.equal(x0, x) right after: False confirms it",
        fix="make the module's in-place operation out-of-place (nn.ReLU() instead of nn.ReLU(inplace=True), x = x * s instead of "
            "x.mul_(s)), or pass it x.clone() where the caller still needs x",
        measurements={"overwritten": found, "count": (_generic(run).get("inplace") or {}).get("count", len(found))},
        module=first["module"], step=first.get("step", 0), phase="forward", **site_location(run, read))


@runtime_check("trainable-tensor-not-optimized", tool="trace", category="training-loop", severity="warning")
def trainable_tensor_not_optimized(run: Any) -> Iterator[Found]:
    """Tensors that receive gradients from the loss but that no optimizer updates.

    What it finds: leaf tensors with ``requires_grad=True`` that the loss's autograd graph reaches at the first
    backward, that are in no optimizer's param_groups, and whose values did not change over the traced steps: a
    learnable temperature, coefficient or embedding kept as a plain tensor attribute, global or list; an
    ``nn.Parameter`` held somewhere the model does not register; a whole second model none of whose parameters any
    optimizer holds. Parameters of a traced model that is otherwise optimised are reported by
    param-not-in-optimizer, layers kept in plain lists by unregistered-layer-in-forward. A tensor passed to a module
    as an input (collocation points, an attacked input) or built afresh each step is not a weight and is not
    reported; neither is one stepped by hand. A second model left in eval mode (a teacher whose requires_grad was
    never switched off) is reported as info.
    Why it matters: backward computes their gradients every step, but nothing applies them: the value meant to be
    learned stays at its initialisation for the whole run, and the loss still falls through the other weights.
    How to confirm: ``ids = {{id(p) for g in optimizer.param_groups for p in g['params']}}``; check ``id(t) in ids`` for
    the tensor named here, and compare ``t.clone()`` before and after a few steps.
    What to do instead: make it an ``nn.Parameter`` attribute of a module (or hold it in nn.ParameterList /
    ParameterDict) so that ``model.parameters()`` includes it, or add it to the optimizer explicitly
    (``torch.optim.Adam([*model.parameters(), t])``); build the optimizer after every trainable tensor exists.
    """
    for rec in (_generic(run).get("orphan_leaves") or [])[:10]:
        if rec.get("kind") == "model":
            names = rec.get("parameters") or []
            yield Found(
                f"model '{rec['model']}' gets gradients from the loss, but no optimizer holds any of its parameters: it never trains",
                observation=f"{len(names)} parameter(s) of '{rec['model']}' ({', '.join(names[:4])}{'...' if len(names) > 4 else ''}; "
                            f"{rec.get('numel')} elements) were reached by the first backward, are in no optimizer's param_groups "
                            f"and were unchanged after the traced steps" + ("" if rec.get("training") else "; the model is in eval mode"),
                next_test=f"print(any(id(p) in {{id(q) for g in opt.param_groups for q in g['params']}} for p in {rec['model']}.parameters())) for each optimizer",
                fix=f"add {rec['model']}.parameters() to an optimizer, or, if it is meant to stay fixed, call {rec['model']}.requires_grad_(False) "
                    "(or run it under torch.no_grad()) so that no gradient is computed for it",
                measurements=rec, module=rec["model"], phase="setup", severity=None if rec.get("training") else "info")
            continue
    tensors = [r for r in (_generic(run).get("orphan_leaves") or []) if r.get("kind") != "model"]
    for group in _grouped(tensors, lambda r: r.get("holder"))[:10]:
        rec = group[0]
        holder = rec.get("holder")
        use = rec.get("first_use") or {}
        holders = [r["holder"] for r in group if r.get("holder")]
        what = (f"'{holder}'" if len(group) == 1 else ", ".join(f"'{h}'" for h in holders[:4])) if holder else f"a {_shape(rec.get('shape'))} tensor"
        kind = "nn.Parameter" if rec.get("parameter") else "tensor with requires_grad=True"
        used = f", first used by {use['op']}" + (f" in '{use['module']}'" if use.get("module") else "") if use.get("op") else ""
        many = f" ({len(group)} tensors held together)" if len(group) > 1 else ""
        yield Found(
            f"{what} receive{'s' if len(group) == 1 else ''} gradients from the loss but {'is' if len(group) == 1 else 'are'} in no optimizer: "
            f"{'it never changes' if len(group) == 1 else 'they never change'} from the initial value",
            observation=f"a {_shape(rec.get('shape'))} {kind} ({rec.get('dtype')}){many} was reached by the first backward{used}; "
                        f"no optimizer's param_groups hold it, and it was unchanged after the traced steps",
            next_test=f"print(any(t is p for g in optimizer.param_groups for p in g['params'])) for t = {holder or 'the tensor'}",
            fix="make it an nn.Parameter attribute of a module (nn.ParameterList for a list) so model.parameters() includes it, "
                "or pass it to the optimizer explicitly; build the optimizer after it exists",
            measurements={"tensors": group[:20]}, module=_holder_module(holder) or use.get("module"), parameter=holder, phase="setup",
            **site_location(run, use))


def _grouped(records: list[dict], holder_of) -> list[list[dict]]:
    """Records grouped by where they are held: the module of an attribute path, or the list/dict holding them."""
    groups: dict[str, list[dict]] = {}
    for i, rec in enumerate(records):
        holder = holder_of(rec)
        key = (_holder_module(holder) or holder.split("[", 1)[0]) if holder else f"#{i}"
        groups.setdefault(key, []).append(rec)
    return list(groups.values())


@runtime_check("learnable-value-in-plain-tensor", tool="trace", category="architecture", severity="warning")
def learnable_value_in_plain_tensor(run: Any) -> Iterator[Found]:
    """A constant-filled tensor stored as a plain module attribute, used like a weight, that never changes.

    What it finds: a floating tensor held as a plain attribute of one of the model's modules (neither an
    ``nn.Parameter`` nor a registered buffer), with at least two elements that are all 0 or all 1, which entered a
    computation together with a tensor carrying gradient during the first training forward, and which never changed
    over the traced steps: the typical initial value of a learnable slope, gate or scale (``self.alpha =
    torch.zeros(d)``) stored where nothing learns it. Integer tables and tensors with other values (fixed
    projections, sinusoidal tables) are not reported.
    Why it matters: a plain tensor attribute is not in ``model.parameters()``, so the optimizer never sees it; with
    ``requires_grad`` off it gets no gradient either. The layer stays at its initial value (a Dice/PReLU slope of 0,
    a gate of 1) while the run looks normal; it is also missing from ``state_dict()`` and does not follow
    ``.to(device)``.
    How to confirm: ``print(sum(p.numel() for p in model.parameters()))`` against the count you expect, and
    ``print(t)`` for the attribute after training: still all zeros (ones).
    What to do instead: wrap it in ``nn.Parameter(...)`` (learned) or ``self.register_buffer(...)`` (a fixed constant
    that should still move with the model and be saved).
    """
    consts = _generic(run).get("constant_attributes") or []
    by_name: dict[tuple, list[dict]] = {}
    for rec in consts:  # one finding per attribute name and value (the same layer class repeated)
        by_name.setdefault((rec["holder"].rsplit(".", 1)[-1], rec.get("value")), []).append(rec)
    for group in list(by_name.values())[:10]:
        rec = group[0]
        holder = rec["holder"]
        value = "zeros" if rec.get("value") == 0 else "ones"
        also = f" (and {len(group) - 1} more: {', '.join(r['holder'] for r in group[1:4])})" if len(group) > 1 else ""
        yield Found(
            f"'{holder}'{also} is a plain tensor attribute filled with {value}, used with gradient-carrying activations, that never "
            "changes: a learnable value stored where no optimizer can see it?",
            observation=f"a {_shape(rec.get('shape'))} {rec.get('dtype')} tensor of all {value}, neither an nn.Parameter nor a buffer, "
                        "entered the first training forward beside tensors that require grad and was unchanged after the traced steps",
            next_test=f"print(model.{holder}) after training (still all {value}) and check that no tensor of model.parameters() is it",
            fix="wrap it in nn.Parameter(...) if it is meant to be learned, or register_buffer(...) if it is a fixed constant",
            measurements={"attributes": group[:20]}, module=_holder_module(holder), parameter=holder, phase="setup")


def _holder_module(holder: str | None) -> str | None:
    """The module part of an attribute path (``dnn.act.alpha`` -> ``dnn.act``; ``coeffs[2]`` -> None)."""
    if not holder:
        return None
    base = holder.split("[", 1)[0]
    return base.rsplit(".", 1)[0] if "." in base else None


@runtime_check("module-output-all-zero", tool="trace", category="architecture", severity="warning")
def module_output_all_zero(run: Any) -> Iterator[Found]:
    """A module erases its input: its train-time output is all exact zeros although its input is not.

    What it finds: a module (not an activation function: those are dead-relu's) whose output, on every training
    forward over the first three optimizer steps (at least two of them), holds only exact zeros while the
    input it received holds non-zero values. Reported at the innermost such module: a container whose output is
    zero because a layer inside it erases is explained by that layer. A layer initialised to zero that starts to
    move after the first update (zero-init residual branches, LoRA's B) is not reported.
    Why it matters: everything downstream sees zeros, so the layers upstream get exact-zero gradients and stop
    learning, while the loss still looks plausible (the bias alone predicts the mean): a dropout whose rate is 1
    (a keep probability passed as the drop rate), a gate, scale or mask stuck at zero, a multiplier computed by
    integer division. Evaluation mode may hide it (dropout is off there).
    How to confirm: register a forward hook on the module and print ``(output != 0).float().mean()`` in train mode,
    and the module's configuration (``print(module)``: a dropout ``p=1.0``, a zero gate).
    What to do instead: fix the value that zeroes the output: pass the drop probability (1 - keep probability) to
    nn.Dropout, initialise or register the gate so that it can learn, fix the mask.
    """
    for rec in (_generic(run).get("zero_outputs") or [])[:5]:
        p = rec.get("p")
        detail = f" (a dropout with p={p:g}: every element is dropped)" if isinstance(p, (int, float)) and p == p else ""
        steps = rec.get("steps") or []
        yield Found(
            f"'{rec['module']}' ({rec['type']}) outputs only exact zeros at train time although its input is not zero{detail}: "
            "everything after it sees zeros and everything before it gets zero gradient",
            observation=f"all {rec.get('zero_calls')} training forward(s) of '{rec['module']}' over steps {', '.join(map(str, steps))} "
                        f"returned a {_shape(rec.get('shape'))} output of exact zeros from a non-zero input",
            next_test=f"register a forward hook on '{rec['module']}' and print((output != 0).float().mean()) in train mode; print the module's settings",
            fix="fix what zeroes it: nn.Dropout takes the drop probability (use 1 - keep_prob), a gate/scale must be a trainable "
                "nn.Parameter not stuck at zero, check the mask",
            measurements=rec, module=rec["module"], step=steps[0] if steps else None, phase="forward")


def _id_layout(rec: dict) -> str:
    shape = rec.get("input_shape") or []
    if len(shape) == 2 and shape[1] > 1:
        return f"one id per field ({shape[1]} fields with disjoint id ranges, nothing padded)"
    return "one id per sample"


@runtime_check("embedding-padding-row-is-a-real-id", tool="trace", category="architecture", severity="warning")
def embedding_padding_row_is_a_real_id(run: Any) -> Iterator[Found]:
    """An embedding fed one id per sample has a padding row that real ids hit.

    What it finds: an ``nn.Embedding`` built with ``padding_idx=p`` whose training input is one id per sample (a 1-D
    index tensor, or ``(N, 1)``: a class, user, item, relation or entity id, not a token sequence), or one id per
    field of a table shared through per-field offsets (an ``(N, F)`` input whose columns hold disjoint id ranges,
    as factorization-machine and CTR models build it), and in which id ``p`` occurs, on at least two training forwards of the first three steps. Embeddings of token sequences are not
    looked at (padding the end of short sequences is what ``padding_idx`` is for), nor frozen tables.
    Why it matters: ``padding_idx`` gives row ``p`` no gradient, ever. A pad id only makes sense where something is
    padded; with one id per sample, id ``p`` is a real item (the first entity or relation of an enumeration that
    starts at 0, the first user), and its embedding stays at its initial value (zeros, or whatever an init
    overwrote it with) for the whole run while every other row learns. The loss still falls, so nothing looks wrong
    except the predictions for that one item.
    How to confirm: after a few steps print ``emb.weight.grad[p].abs().sum()`` (exactly 0) and
    ``(ids == p).float().mean()`` for a batch; check whether the vocabulary reserves ``p`` for a pad entry.
    What to do instead: drop ``padding_idx`` when nothing is padded, or reserve a pad id outside the real ids
    (shift the ids by one, or use ``padding_idx=num_embeddings - 1`` with an extra row).
    """
    for rec in (_generic(run).get("padding_rows") or [])[:5]:
        p, share = rec["padding_idx"], rec["pad_ids"] / max(rec["ids"], 1)
        steps = rec.get("steps") or []
        yield Found(
            f"embedding '{rec['module']}' has padding_idx={p}, but it is fed {_id_layout(rec)} and id {p} occurs: that id is a "
            f"real item whose row gets no gradient and never learns",
            observation=f"{rec['pad_ids']} of {rec['ids']} ids ({100 * share:.0f}%) in {rec['calls_with_pad']} of {rec['calls']} training "
                        f"forward(s) over steps {', '.join(map(str, steps))} were {p}; input shape {_shape(rec.get('input_shape'))}, "
                        f"{rec['num_embeddings']} rows",
            next_test=f"after a few steps print(model.{rec['module']}.weight.grad[{p}].abs().sum()) (exactly 0) and check whether the "
                      f"vocabulary reserves id {p} for padding",
            fix=f"remove padding_idx={p} (nothing is padded here), or reserve a pad id that no real item uses",
            measurements=rec, module=rec["module"], step=steps[0] if steps else None, phase="forward")
