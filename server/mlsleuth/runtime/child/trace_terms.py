"""Which parameters each backward pass reaches, in scripts with several optimizers (child side; stdlib + torch only).

With two or more optimizers (a GAN's generator and discriminator, an encoder and a decoder trained apart, an actor
and a critic), a backward pass is meant for the optimizer(s) that step after it. On a few sampled steps this watch
walks the autograd graph of each backward's root and measures two things the ``terms`` checks of
``runtime/trace/checks_terms.py`` read:

* the loss split into its terms (the top-level summands of the root: ``a + w * b - c``, ``torch.stack(ls).sum()``),
  and for each term the parameters it reaches (the ``AccumulateGrad`` leaves of its sub-graph). A term is named by
  the loss function call that made it (every ``torch.nn.functional`` loss, so also the ``nn`` loss modules) and by
  the nearest model output inside it (the model call's file and line);
* gradients one backward leaves in parameters that no optimizer stepping right after it holds (a "group" is the run
  of backward passes up to the optimizer steps that follow them). Those leftovers are measured (their norm) at the
  start of the next backward pass; one that is still there when another optimizer steps over those parameters is
  recorded as a leak, with both backward passes' call sites. Clears are followed through ``zero_grad`` of an
  optimizer or a module, and the leftover measurement sees any other clear (``p.grad = None``).

Nothing runs with fewer than two optimizers; with two, only the sampled steps' graphs are walked (bounded node count),
and the per-step work outside them is a few set operations at backward, step and zero_grad.
"""

from __future__ import annotations

import math
import weakref
from typing import Any

import param_stats
import terms_graph as tg
from observer import Observer

# pairs of consecutive steps: a loop's two halves (a GAN's D and G updates) may fall on either side of a step count
SAMPLED_STEPS = frozenset({0, 1, 2, 3, 4, 5, 6, 9, 10, 14, 15, 19, 20, 29, 30, 49, 50})
MAX_BACKWARDS_PER_STEP = 8  # walked per sampled step (a loop with many micro-batches: the first ones)
MAX_GRAPH_NODES = 60000  # nodes visited per backward, all terms together; past it the backward is not judged
MAX_RECORDED_NODES = 64  # loss-call and model outputs remembered per step
MAX_COMPARED = 8  # recorded model outputs a detached model input is compared with (values)
LEFTOVER_SAMPLE = 16  # parameters per optimizer whose leftover gradient is measured
MAX_PENDING_STEPS = 3  # a leftover nobody stepped on or cleared within these steps is no longer followed
MAX_RECORDS = 20
LOSS_FUNCTIONS = ("binary_cross_entropy", "binary_cross_entropy_with_logits", "cross_entropy", "nll_loss", "mse_loss",
                  "l1_loss", "smooth_l1_loss", "huber_loss", "kl_div", "poisson_nll_loss", "gaussian_nll_loss",
                  "cosine_embedding_loss", "hinge_embedding_loss", "margin_ranking_loss", "multilabel_margin_loss",
                  "multilabel_soft_margin_loss", "multi_margin_loss", "soft_margin_loss", "triplet_margin_loss",
                  "triplet_margin_with_distance_loss")


class TermsObserver(Observer):
    name = "terms"
    inner_forwards = False  # whole models only: their outputs name the terms

    def __init__(self, config: dict | None = None) -> None:
        import torch
        import torch.nn.functional as F

        self._torch = torch
        self.config = config or {}
        self._nodes: dict[int, tuple] = {}  # id(grad_fn) -> (grad_fn, {"kind", "label", "path", "line"}, step)
        self._outputs: dict[int, tuple] = {}  # storage address -> (weakref to a model's output, model, label, -, step)
        self._walked: dict[int, int] = {}  # step -> backward passes walked
        self._group: dict = {"events": [], "stepped": [], "cleared": set()}
        self._pending: list[dict] = []  # gradients left by a finished group in parameters no stepped optimizer holds
        self._opt_index: dict[int, int] = {}
        self._labels: dict[int, str] = {}  # id(model) -> the name it is shown by
        self._last_group_walked = False
        self._scope = "outer"  # which model forwards this observer is given (see on_step_end)
        self._ever_stepped: set[int] = set()
        self.term_stats: dict[str, dict] = {}  # per term key: judged / bad / good counts, first bad example
        self.leaks: dict[str, dict] = {}  # per (optimizer, leaking backward site): count, first example
        self.steps_checked: dict[int, int] = {}  # optimizer index -> its steps taken with a known group
        self.skipped: dict[str, int] = {}
        self.patches = [(F, n, self._wrap_loss(n)) for n in LOSS_FUNCTIONS if hasattr(F, n)]

    # -- naming the terms ----------------------------------------------------------------------
    def _active(self, runner: Any) -> bool:
        return len(runner.optimizers) >= 2 and runner.step in SAMPLED_STEPS

    def _prune(self, step: int) -> None:
        """Keep what the current and the previous step recorded (a GAN's two halves may straddle a step count)."""
        if any(v[2] < step - 1 for v in self._nodes.values()):
            self._nodes = {k: v for k, v in self._nodes.items() if v[2] >= step - 1}
        if any(v[4] < step - 1 for v in self._outputs.values()):
            self._outputs = {k: v for k, v in self._outputs.items() if v[4] >= step - 1}

    def _remember(self, runner: Any, fn: Any, info: dict) -> None:
        self._prune(runner.step)
        if len(self._nodes) < MAX_RECORDED_NODES:
            self._nodes[id(fn)] = (fn, info, runner.step)

    def _wrap_loss(self, fname: str):
        obs = self

        def factory(runner, original):
            def wrapped(*args, **kwargs):
                out = original(*args, **kwargs)
                if not runner._muted and obs._active(runner):
                    try:
                        fn = getattr(out, "grad_fn", None)
                        if fn is not None:
                            path, line, _f = tg.site()
                            obs._remember(runner, fn, {"kind": "loss", "label": fname, "path": path, "line": line})
                    except Exception:  # noqa: BLE001 - never break the user's loss call; the failure is reported
                        runner.record_error(obs.name, f"{fname} patch")
                return out

            return wrapped

        return factory

    def on_module_forward(self, runner: Any, module: Any, inputs: tuple, output: Any) -> None:
        """A whole model ran: its output's node names the terms built on it, and an input that is a detached copy
        of another model's output (same storage, no gradient) is noted."""
        if runner.module_stack or id(module) not in runner._root_ids or not self._active(runner):
            return
        torch = self._torch
        self._prune(runner.step)
        cut = []
        given = [t for t in list(inputs[:4]) + list(runner.forward_kwargs.values())[:4] if isinstance(t, torch.Tensor)]
        for t in given:
            if t.requires_grad or not t.is_floating_point() or not t.numel():
                continue
            try:
                sources = self._sources(t, module)
            except (RuntimeError, NotImplementedError, TypeError, AttributeError):  # a tensor without plain storage
                continue
            for src in sources:
                if all(c["label"] != src[2] for c in cut):
                    cut.append({"label": src[2], "ids": frozenset(id(p) for p in src[1].parameters())})
        path, line, frame = tg.site()
        label = self._labels.get(id(module))
        if label is None:  # the user's own name for it where the calling frame has one (``D`` in a function's locals)
            label = runner.root_label(module)
            if id(module) not in runner._root_paths:
                label = tg.variable_name(frame, module) or label
            self._labels[id(module)] = label
        outs = [output] if isinstance(output, torch.Tensor) else [o for o in output[:4] if isinstance(o, torch.Tensor)] \
            if isinstance(output, (list, tuple)) else []
        for o in outs:
            if o.is_floating_point() and o.numel() and len(self._outputs) < MAX_RECORDED_NODES:
                try:
                    self._outputs[o.untyped_storage().data_ptr()] = (weakref.ref(o), module, label, None, runner.step)
                except (RuntimeError, NotImplementedError, TypeError):  # a tensor without plain storage: not followed
                    pass
        fn = tg.first_grad_fn(output, torch)
        if fn is not None:
            info = {"kind": "model", "label": label, "path": path, "line": line}
            if cut:
                info["_cut"] = [(c["label"], c["ids"]) for c in cut]
            self._remember(runner, fn, info)

    def _sources(self, t: Any, module: Any) -> list:
        """The recorded outputs of other models that ``t`` (a tensor without gradient) is a copy of: the same storage
        (``out.detach()``, ``out.data``), or the same values, whole or as the first or last slice along one dimension
        (``torch.cat([cond, out.detach()], 1)``, ``out.detach().clone()``)."""
        src = self._outputs.get(t.untyped_storage().data_ptr())
        if src is not None and src[0]() is not None and src[1] is not module:
            return [src]
        found = []
        for src in list(self._outputs.values())[-MAX_COMPARED:]:
            out = src[0]()
            if out is None or src[1] is module:
                continue
            if tg.holds(t, out, self._torch):
                found.append(src)
        return found

    # -- optimizers and parameters -------------------------------------------------------------
    def _index(self, runner: Any, opt: Any) -> int:
        idx = self._opt_index.get(id(opt))
        if idx is None:
            known = next((i for i, o in enumerate(runner.optimizers) if o is opt), None)
            idx = known if known is not None else 1000 + len(self._opt_index)
            self._opt_index[id(opt)] = idx
        return idx

    @staticmethod
    def _ids(opt: Any) -> set:
        try:
            return {id(p) for g in opt.param_groups for p in g["params"]}
        except (AttributeError, KeyError, TypeError):
            return set()

    # -- backward ----------------------------------------------------------------------------------
    def on_backward_start(self, runner: Any, tensors: Any) -> None:
        torch = self._torch
        if len(runner.optimizers) < 2 and not self._pending:
            return
        if self._group["stepped"]:
            self._finish_group(runner)
        event = None
        root = tensors if isinstance(tensors, torch.Tensor) else (
            tensors[0] if isinstance(tensors, (list, tuple)) and len(tensors) == 1 else None)
        walked = self._walked.get(runner.step, 0)
        if self._active(runner) and walked < MAX_BACKWARDS_PER_STEP and isinstance(root, torch.Tensor):
            self._walked[runner.step] = walked + 1
            args, kwargs = getattr(runner, "backward_args", ((), {}))
            if kwargs.get("inputs") is not None or len(args) > 4:
                self.skipped["backward with inputs="] = self.skipped.get("backward with inputs=", 0) + 1
            elif root.grad_fn is not None and root.numel() == 1:
                event = self._walk(runner, root)
        if event is not None:
            self._group["events"].append(event)

    def _is_loss(self, node: Any) -> bool:
        named = self._nodes.get(id(node))
        return named is not None and named[0] is node and named[1]["kind"] == "loss"

    def _walk(self, runner: Any, root: Any) -> dict | None:
        """The parameters this backward reaches, and per term when a term may be cut from the trained model (a model
        of these steps ran on a detached output of another): one graph walk per term then, else one in all."""
        cut_possible = any(v[1].get("_cut") for v in self._nodes.values())
        terms = tg.split_terms(root.grad_fn, self._is_loss) if cut_possible else [(root.grad_fn, 1.0)]
        budget = [MAX_GRAPH_NODES]
        rows = []
        for node, _sign in terms:
            reach_ids, anchors, opaque = tg.reach(node, budget, self._nodes)
            if opaque or budget[0] <= 0:
                self.skipped["graph too large or checkpointed"] = self.skipped.get("graph too large or checkpointed", 0) + 1
                return None
            rows.append({"reach": reach_ids, "anchors": anchors})
        path, line, _f = tg.site()
        named = set()  # what the loss is made of (loss calls, model outputs): tells two losses sent from one line apart
        for pos, row in enumerate(rows):
            named |= {(a["kind"], a["label"], a["path"], a["line"]) for a in row["anchors"]}
            loss = next((a for a in row["anchors"] if a["kind"] == "loss"), None)
            models = [a for a in row["anchors"] if a["kind"] == "model"]
            cut = next((a for a in models if a.get("_cut")), None)  # a model run on a detached output of another
            model = cut or (models[0] if models else None)
            row["loss"], row["model"] = tg.public(loss), tg.public(model)
            row["cut"] = cut["_cut"] if cut else []
            del row["anchors"]
            head = loss or model
            row["key"] = f"{path}:{line}|#{pos}|" + (f"{head['kind']}:{head['label']}@{head['path']}:{head['line']}" if head else "")
        reach_all = set().union(*(r["reach"] for r in rows)) if rows else set()
        return {"step": runner.step, "path": path, "line": line, "terms": rows if len(rows) > 1 else [], "reach": reach_all,
                "sig": (f"{path}:{line}", frozenset(named))}

    # -- groups: backward passes and the optimizer steps after them --------------------------------
    def on_step_start(self, runner: Any, optimizer: Any) -> None:
        if len(runner.optimizers) < 2 and not self._pending:
            return
        idx = self._index(runner, optimizer)
        self._ever_stepped.add(idx)
        if not any(o is optimizer for o in self._group["stepped"]):
            self._group["stepped"].append(optimizer)
        if self._group["events"] and self._last_group_walked:  # a leak into this step would have been seen
            self.steps_checked[idx] = self.steps_checked.get(idx, 0) + 1
        if self._pending:
            self._consume(runner, optimizer, idx)

    def on_zero_grad(self, runner: Any, obj: Any) -> None:
        if not self._pending and not self._group["events"]:
            return
        if isinstance(obj, self._torch.optim.Optimizer):
            ids = self._ids(obj)
        else:
            try:
                ids = {id(p) for p in obj.parameters()}
            except Exception:  # noqa: BLE001 - an object without parameters clears nothing we follow
                ids = set()
        if self._group["stepped"]:  # cleared after this group's steps: its leftovers there are gone
            self._group["cleared"] |= ids
        for entry in self._pending:
            entry["params"] -= ids
            for pid in list(entry["sample"]):
                if pid in ids:
                    del entry["sample"][pid]
        self._pending = [e for e in self._pending if e["params"] and e["sample"]]

    def _finish_group(self, runner: Any) -> None:
        group, self._group = self._group, {"events": [], "stepped": [], "cleared": set()}
        self._last_group_walked = bool(group["events"])
        self._pending = [e for e in self._pending if e["event"]["step"] >= runner.step - MAX_PENDING_STEPS]
        if not group["events"]:
            return
        stepped_ids: set = set()
        for opt in group["stepped"]:
            stepped_ids |= self._ids(opt)
        holders = self._holders(runner)
        stepped_idx = sorted({self._index(runner, o) for o in group["stepped"]})
        sigs = {e["sig"] for e in group["events"]}
        for ev in group["events"]:
            self._judge_terms(ev, stepped_ids, stepped_idx, holders)
            left = (ev.pop("reach") - stepped_ids - group["cleared"]) & set(holders)
            for row in ev["terms"]:
                row.pop("reach", None)
                row.pop("cut", None)
            if left:
                entry = {"event": ev, "params": left, "stepped": stepped_idx, "group_sigs": sigs}
                if self._measure(entry, holders):
                    self._pending.append(entry)

    def _holders(self, runner: Any) -> dict[int, tuple]:
        """``{id(param): (param, [optimizer index])}`` over every optimizer built."""
        out: dict[int, tuple] = {}
        for opt in list(runner.optimizers):
            idx = self._index(runner, opt)
            for g in opt.param_groups:
                for p in g["params"]:
                    rec = out.get(id(p))
                    if rec is None:
                        out[id(p)] = (p, [idx])
                    elif idx not in rec[1]:
                        rec[1].append(idx)
        return out

    def _measure(self, entry: dict, holders: dict) -> bool:
        """At the first backward after a group: the gradient its backward passes left outside its steps (a sample of
        parameters per optimizer holding them); False when nothing is left (cleared some other way, or all zero)."""
        per_opt: dict[int, int] = {}
        chosen = []
        for pid in entry["params"]:
            p, idxs = holders[pid]
            if p.grad is None or not any(per_opt.get(i, 0) < LEFTOVER_SAMPLE for i in idxs):
                continue
            for i in idxs:
                per_opt[i] = per_opt.get(i, 0) + 1
            chosen.append(p)
        norms = param_stats.norms([p.grad for p in chosen]) if chosen else []
        entry["sample"] = {id(p): n for p, n in zip(chosen, norms) if n > 0 and math.isfinite(n)}
        entry["tensors"] = {id(p): p for p in chosen if id(p) in entry["sample"]}
        return bool(entry["sample"])

    def _judge_terms(self, ev: dict, stepped_ids: set, stepped_idx: list, holders: dict) -> None:
        rows = ev["terms"]
        if len(rows) < 2 or not stepped_ids:
            return
        good = [r for r in rows if r["reach"] & stepped_ids]
        for row in rows:
            stat = self.term_stats.get(row["key"])
            if stat is None:
                if len(self.term_stats) >= 4 * MAX_RECORDS:
                    continue
                stat = self.term_stats[row["key"]] = {"judged": 0, "good": 0, "bad": 0, "path": ev["path"], "line": ev["line"],
                                                      "loss": row["loss"], "model": row["model"]}
            stat["judged"] += 1
            if row["reach"] & stepped_ids:
                stat["good"] += 1
                continue
            others = sorted({i for pid in row["reach"] if pid in holders for i in holders[pid][1]})
            cut_from = [label for label, ids in row["cut"] if ids & stepped_ids]
            if not good or not cut_from:
                continue  # judged only for a term built on a detached output of a model this step trains
            stat["bad"] += 1
            if "first_bad" not in stat:
                stat["first_bad"] = {"step": ev["step"], "optimizers_reached": others, "stepped": stepped_idx, "detached_from": cut_from,
                                     "params_reached": len(row["reach"]),
                                     "other_terms": [{"loss": r["loss"], "model": r["model"]} for r in good if r is not row][:3]}

    # -- leftovers ---------------------------------------------------------------------------------
    def _consume(self, runner: Any, optimizer: Any, idx: int) -> None:
        ids = self._ids(optimizer)
        current = {e["sig"] for e in self._group["events"]}
        known = bool(current)
        for entry in self._pending:
            hit = [pid for pid in entry["sample"] if pid in ids]
            if hit and known and not (current & entry["group_sigs"]):
                tensors = [entry["tensors"][pid] for pid in hit if entry["tensors"][pid].grad is not None]
                totals = param_stats.norms([p.grad for p in tensors]) if tensors else []
                left = math.sqrt(sum(entry["sample"][pid] ** 2 for pid in hit))
                total = math.sqrt(sum(t * t for t in totals)) if totals else 0.0
                self._record_leak(runner, optimizer, idx, entry, left, total, len(entry["params"] & ids))
            entry["params"] -= ids
            for pid in hit:
                entry["sample"].pop(pid, None)
        self._pending = [e for e in self._pending if e["params"] and e["sample"]]

    def _record_leak(self, runner: Any, optimizer: Any, idx: int, entry: dict, left: float, total: float, count: int) -> None:
        ev = entry["event"]
        key = f"{idx}|{ev['path']}:{ev['line']}"
        rec = self.leaks.get(key)
        if rec is None:
            if len(self.leaks) >= MAX_RECORDS:
                return
            path, line, frame = tg.site()
            own = next((e for e in reversed(self._group["events"]) if e is not None), None)
            rec = self.leaks[key] = {
                "optimizer": idx, "optimizer_name": tg.variable_name(frame, optimizer), "optimizer_type": type(optimizer).__name__,
                "step_path": path, "step_line": line, "path": ev["path"], "line": ev["line"], "step": runner.step,
                "stepped_after_leak": entry["stepped"], "count": 0, "leftover_norm": left, "total_norm": total,
                "params": count, "own_path": own["path"] if own else None, "own_line": own["line"] if own else None,
                "leak_terms": [{"loss": r["loss"], "model": r["model"]} for r in ev["terms"]][:4], "ratios": []}
        rec["count"] += 1
        if total > 0 and len(rec["ratios"]) < 20:
            rec["ratios"].append(left / total)

    def on_step_end(self, runner: Any, optimizer: Any) -> None:
        if (self._nodes or self._outputs) and runner.step not in SAMPLED_STEPS and runner.step - 1 not in SAMPLED_STEPS:
            self._nodes, self._outputs = {}, {}  # past the sampled steps: nothing recorded is needed any more
        # the models' forwards are read on the sampled steps of a run with two optimizers only
        scope = "outer" if self._active(runner) else "none"
        if scope != self._scope:
            self._scope = scope
            runner.narrow_forwards(self, scope)

    # -- the end -----------------------------------------------------------------------------------
    def on_end(self, runner: Any, reason: str) -> None:
        self._group = {"events": [], "stepped": [], "cleared": set()}  # the last group may be cut short by the stop: not judged
        self._pending = []
        self._nodes = {}
        self.optimizers = []
        names = tg.param_names(runner, self._labels)
        for opt in runner.optimizers[:10]:
            idx = self._index(runner, opt)
            pnames = [names[pid] for pid in self._ids(opt) if pid in names]
            self.optimizers.append({"index": idx, "type": type(opt).__name__, "label": tg.params_label(pnames),
                                    "params": sum(len(g["params"]) for g in opt.param_groups), "stepped": idx in self._ever_stepped})

    def result(self) -> dict[str, Any]:
        terms = [{"key": k, **v} for k, v in self.term_stats.items() if v.get("bad")][:MAX_RECORDS]
        return {"optimizers": getattr(self, "optimizers", []), "terms": terms, "leaks": list(self.leaks.values()),
                "steps_checked": {str(k): v for k, v in self.steps_checked.items()}, "skipped": self.skipped,
                "walked": sum(self._walked.values())}


