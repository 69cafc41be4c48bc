"""The ``trace`` run's reinforcement-learning watch: the vital signs of an RL training loop.

Child side (stdlib + torch; gymnasium/gym are imported only when the script names them, and never
required). A separate observer (``name = "rl"``) next to :class:`trace_observer.TraceObserver`; it
only *measures*, the parent (``mlsleuth.runtime.trace.checks_rl``) judges. What it watches:

* environment steps: ``step``/``reset`` of every ``gymnasium.Env`` / ``gymnasium.vector.VectorEnv``
  subclass (and old ``gym``), the outermost call only: per-episode returns and lengths, how episodes
  ended (terminated / truncated), reward and observation scale;
* policies: every ``torch.distributions`` Categorical / Normal built (entropy per optimizer step), and
  the tensors their ``log_prob`` / ``entropy`` return;
* policy-gradient surrogates: at each backward, the graph is walked from the loss; a multiplication
  whose one side leads to a ``log_prob`` output and whose other side is a constant is a surrogate
  term, and that constant (returns, advantages) is summarised. The walk also notes whether the loss
  holds a trained term outside the surrogate (a value loss, a critic);
* target networks: a model that runs forward, is in no optimizer, and has the same parameter shapes
  as a trained model: how often it changes, how far the trained twin moves away from it, and the scale
  of the twin's outputs (Q values);
* regression losses (``F.mse_loss`` / ``smooth_l1_loss`` / ``huber_loss`` / ``l1_loss``) whose target
  carries a gradient (a bootstrap target that was not detached).

``result()`` is the contract with the parent; keys are documented inline.
"""

from __future__ import annotations

import math
import os
import sys
import time
from typing import Any

from observer import Observer

MAX_EPISODES = 2000
OBS_SAMPLES = 4000  # environment steps whose observations are summarised
MAX_GRAPH_NODES = 20000  # nodes walked per backward for the surrogate analysis
MAX_WEIGHTS = 20000  # surrogate weights kept per backward (summarised)
MAX_SNAPSHOT_NUMEL = 5_000_000  # a target network larger than this is not snapshotted
REGRESSION_LOSSES = ("mse_loss", "smooth_l1_loss", "huber_loss", "l1_loss")
DISTRIBUTIONS = ("Categorical", "Normal", "Bernoulli")
GYM_MODULES = ("gymnasium", "gym")


def _floats(x: Any) -> list[float]:
    """A scalar, sequence, numpy array or tensor as a flat list of floats (empty when it is none of these)."""
    try:
        if hasattr(x, "detach"):
            x = x.detach().cpu()
        if hasattr(x, "tolist"):
            x = x.tolist()
    except Exception:  # noqa: BLE001 - an exotic reward type is simply not summarised
        return []
    if isinstance(x, bool):
        return [float(x)]
    if isinstance(x, (int, float)):
        return [float(x)]
    if isinstance(x, (list, tuple)):
        out: list[float] = []
        for v in x:
            out.extend(_floats(v))
        return out
    return []


def _thin(rows: list, limit: int = 300, keep_max: int | None = None) -> list:
    """At most about ``limit`` rows, evenly spaced, always with the first and the last (and the row largest in column ``keep_max``)."""
    if len(rows) <= limit:
        return rows
    step = math.ceil(len(rows) / limit)
    keep = set(range(0, len(rows), step)) | {len(rows) - 1}
    if keep_max is not None:
        finite = [i for i, r in enumerate(rows) if isinstance(r[keep_max], float) and math.isfinite(r[keep_max])]
        bad = [i for i, r in enumerate(rows) if i not in finite]
        keep |= set(bad[:1]) | ({max(finite, key=lambda i: rows[i][keep_max])} if finite else set())
    return [rows[i] for i in sorted(keep)]


def _summary(values: list[float]) -> dict[str, Any]:
    n = len(values)
    if not n:
        return {"n": 0}
    mean = sum(values) / n
    var = sum((v - mean) ** 2 for v in values) / n
    pos = sum(1 for v in values if v > 0)
    neg = sum(1 for v in values if v < 0)
    return {"n": n, "mean": mean, "std": math.sqrt(var), "min": min(values), "max": max(values),
            "positive_fraction": pos / n, "negative_fraction": neg / n}


class RLObserver(Observer):
    name = "rl"
    wants_module_stack = True
    inner_forwards = False  # on_module_forward watches whole models only

    def __init__(self, config: dict | None = None) -> None:
        import torch
        import torch.nn.functional as F

        self.config = config or {}
        self._started = time.monotonic()
        self._env_depth = 0
        self._patched_classes: set[int] = set()
        self._runner: Any = None
        # environment
        self.env_steps = 0
        self.env_resets = 0
        self.vector_env = False
        self.step_api = None  # 5 (terminated, truncated) or 4 (done)
        self.episodes: list[list] = []  # [return, length, 'terminated'|'truncated', optimizer step at its end]
        self.episode_count = 0
        self._acc: dict[int, list] = {}  # env index -> [return, length, skip next step (vector autoreset)]
        self.rewards = {"n": 0, "sum": 0.0, "sum_abs": 0.0, "sum_sq": 0.0, "max_abs": 0.0}
        self._obs_n = 0
        self._obs_sum: Any = None
        self._obs_sq: Any = None
        self.obs_max_abs = 0.0
        self.obs_shape: list | None = None
        # policies
        self._entropy_step: dict[int, list] = {}  # optimizer step -> [sum of normalised entropy, count, distribution kind]
        self.distributions: dict[str, int] = {}
        self.categories: int | None = None
        self._lp_nodes: dict[int, Any] = {}  # grad_fn nodes of log_prob outputs since the last optimizer step
        self._stop_nodes: dict[int, Any] = {}  # grad_fn nodes of entropy outputs (not part of a surrogate)
        self.surrogates: list[dict] = []  # per backward with a policy-gradient term: weight summary
        self.other_trained_terms = 0  # backwards whose loss trains something outside a log_prob / entropy term
        self.backwards = 0
        # regression losses
        self.regression = {"calls": 0, "target_requires_grad": 0, "first_step": None, "function": None}
        # target networks
        self._twins: dict[int, dict] = {}  # id(target root) -> record
        self._twin_of: dict[int, Any] = {}  # id(trained root) -> target root
        self._snap: dict[int, list] = {}
        self.extension: dict | None = None
        self.q_scale: dict[int, list] = {}  # optimizer step -> [max |output| of a trained twin, mean |output| sum, count]
        self.patches = [(F, n, self._wrap_regression(n)) for n in REGRESSION_LOSSES if hasattr(F, n)]
        for dname in DISTRIBUTIONS:
            cls = getattr(torch.distributions, dname, None)
            if cls is not None:
                self.patches += [(cls, "__init__", self._wrap_dist_init(dname)),
                                 (cls, "log_prob", self._wrap_node_method(self._lp_nodes)),
                                 (cls, "entropy", self._wrap_node_method(self._stop_nodes))]

    # -- environments --------------------------------------------------------------------
    def on_start(self, runner: Any) -> None:
        self._runner = runner
        names = [m for m in GYM_MODULES if m in sys.modules]
        if not names:
            names = self._gym_named_by_script()
        for mod in names:
            self._patch_gym(runner, mod)

    def _gym_named_by_script(self) -> list[str]:
        script = self.config.get("script")
        if not script:
            return []
        try:
            with open(script, encoding="utf-8", errors="replace") as fh:
                text = fh.read(400_000)
        except OSError:
            return []
        out = []
        if "gymnasium" in text:
            out.append("gymnasium")
        if "import gym\n" in text or "import gym " in text or "from gym " in text or "from gym." in text:
            out.append("gym")
        return out

    def _patch_gym(self, runner: Any, module_name: str) -> None:
        import importlib

        try:
            gym = importlib.import_module(module_name)
        except Exception:  # noqa: BLE001 - not installed (or broken): the script will say so itself
            return
        bases = [getattr(gym, "Env", None)]
        try:
            bases.append(importlib.import_module(f"{module_name}.vector").VectorEnv)
        except Exception:  # noqa: BLE001 - old gym without vector envs
            pass
        for base in bases:
            if not isinstance(base, type) or id(base) in self._patched_classes:
                continue
            stack = [base]
            while stack:
                cls = stack.pop()
                self._patch_env_class(runner, cls)
                stack.extend(cls.__subclasses__())
            self._patch_subclass_hook(runner, base)

    def _patch_subclass_hook(self, runner: Any, base: type) -> None:
        obs = self

        def init_subclass(cls, **kwargs):
            super(base, cls).__init_subclass__(**kwargs)
            try:
                obs._patch_env_class(runner, cls)
            except Exception:  # noqa: BLE001 - never break the user's class definition
                runner.record_error(obs.name, "env subclass patch")

        runner._patch(base, "__init_subclass__", classmethod(init_subclass))

    def _patch_env_class(self, runner: Any, cls: type) -> None:
        if id(cls) in self._patched_classes:
            return
        self._patched_classes.add(id(cls))
        own = vars(cls)
        if "step" in own and callable(own["step"]):
            runner._patch(cls, "step", self._wrap_env_step(runner, own["step"]))
        if "reset" in own and callable(own["reset"]):
            runner._patch(cls, "reset", self._wrap_env_reset(runner, own["reset"]))

    def _wrap_env_step(self, runner: Any, original: Any):
        obs = self

        def step(env, *args, **kwargs):
            if obs._env_depth or runner._muted:
                return original(env, *args, **kwargs)
            obs._env_depth += 1
            try:
                out = original(env, *args, **kwargs)
            finally:
                obs._env_depth -= 1
            try:
                obs._record_step(env, out)
            except Exception:  # noqa: BLE001 - never break the user's env.step; the failure is reported
                runner.record_error(obs.name, "env.step patch")
            return out

        return step

    def _wrap_env_reset(self, runner: Any, original: Any):
        obs = self

        def reset(env, *args, **kwargs):
            if obs._env_depth or runner._muted:
                return original(env, *args, **kwargs)
            obs._env_depth += 1
            try:
                out = original(env, *args, **kwargs)
            finally:
                obs._env_depth -= 1
            obs.env_resets += 1
            obs._acc.clear()  # a new episode (a vector env's reset restarts every sub-environment)
            return out

        return reset

    def _record_step(self, env: Any, out: Any) -> None:
        if not isinstance(out, tuple) or len(out) not in (4, 5):
            return
        self.env_steps += 1
        if len(out) == 5:
            ob, reward, terminated, truncated = out[0], out[1], out[2], out[3]
            self.step_api = 5
        else:
            ob, reward, terminated = out[0], out[1], out[2]
            truncated = None
            self.step_api = 4
        rewards = _floats(reward)
        terms = _floats(terminated)
        truncs = _floats(truncated) if truncated is not None else [0.0] * len(terms)
        meta = getattr(env, "metadata", None) or {}
        vector = len(rewards) > 1 or hasattr(env, "num_envs") and "autoreset_mode" in meta
        self.vector_env = self.vector_env or vector
        next_step_reset = vector and "NEXT" in str(meta.get("autoreset_mode", "NextStep")).upper()
        rs = self.rewards
        for i, r in enumerate(rewards):
            acc = self._acc.setdefault(i, [0.0, 0, False])
            if acc[2]:  # the vector env's autoreset step after an episode ended: not part of any episode
                self._acc[i] = [0.0, 0, False]
                continue
            if not math.isfinite(r):
                continue
            rs["n"] += 1
            rs["sum"] += r
            rs["sum_abs"] += abs(r)
            rs["sum_sq"] += r * r
            rs["max_abs"] = max(rs["max_abs"], abs(r))
            acc[0] += r
            acc[1] += 1
            term = bool(terms[i]) if i < len(terms) else False
            trunc = bool(truncs[i]) if i < len(truncs) else False
            if term or trunc:
                self.episode_count += 1
                if len(self.episodes) < MAX_EPISODES:
                    self.episodes.append([acc[0], acc[1], "terminated" if term else "truncated", self._runner.step if self._runner else 0])
                self._acc[i] = [0.0, 0, next_step_reset]
        if self._obs_n < OBS_SAMPLES:
            self._record_obs(ob)

    def _record_obs(self, ob: Any) -> None:
        import torch

        try:
            t = torch.as_tensor(ob)
        except Exception:  # noqa: BLE001 - dict or tuple observations are not summarised
            return
        if not t.is_floating_point() and t.dtype not in (torch.int8, torch.int16, torch.int32, torch.int64, torch.uint8):
            return
        t = t.detach().double()
        rows = t.reshape(t.shape[0], -1) if self.vector_env and t.dim() >= 1 else t.reshape(1, -1)
        if rows.shape[1] > 4096 or not bool(torch.isfinite(rows).all()):
            return
        if self._obs_sum is None or self._obs_sum.shape[0] != rows.shape[1]:
            self._obs_sum = torch.zeros(rows.shape[1], dtype=torch.float64)
            self._obs_sq = torch.zeros(rows.shape[1], dtype=torch.float64)
            self._obs_n = 0
            self.obs_shape = list(torch.as_tensor(ob).shape)
        self._obs_sum += rows.sum(0)
        self._obs_sq += (rows * rows).sum(0)
        self._obs_n += rows.shape[0]
        self.obs_max_abs = max(self.obs_max_abs, float(rows.abs().max()) if rows.numel() else 0.0)

    # -- policies ----------------------------------------------------------------------
    def _wrap_dist_init(self, dname: str):
        obs = self

        def factory(runner, original):
            def init(dist, *args, **kwargs):
                original(dist, *args, **kwargs)
                if not runner._muted and type(dist).__name__ == dname:
                    try:
                        obs._record_distribution(runner, dist, dname)
                    except Exception:  # noqa: BLE001 - never break the user's distribution; the failure is reported
                        runner.record_error(obs.name, f"{dname} patch")

            return init

        return factory

    def _record_distribution(self, runner: Any, dist: Any, dname: str) -> None:
        import torch

        self.distributions[dname] = self.distributions.get(dname, 0) + 1
        with torch.no_grad(), runner.suspended():
            if dname == "Categorical":
                k = int(dist.logits.shape[-1])
                if k < 2:
                    return
                self.categories = k
                value = float(dist.entropy().float().mean()) / math.log(k)  # 1 = uniform, 0 = deterministic
            elif dname == "Bernoulli":
                value = float(dist.entropy().float().mean()) / math.log(2)
            else:
                value = float(dist.scale.float().log().mean())  # Normal: mean log standard deviation
        if not math.isfinite(value):
            return
        rec = self._entropy_step.setdefault(runner.step, [0.0, 0, dname])
        rec[0] += value
        rec[1] += 1

    def _wrap_node_method(self, store: dict):
        obs = self

        def factory(runner, original):
            def method(dist, *args, **kwargs):
                out = original(dist, *args, **kwargs)
                if not runner._muted and getattr(out, "grad_fn", None) is not None and len(store) < 100_000:
                    store[id(out.grad_fn)] = out.grad_fn
                return out

            return method

        return factory

    # -- regression losses ------------------------------------------------------------
    def _wrap_regression(self, fname: str):
        obs = self

        def factory(runner, original):
            import torch

            def wrapped(*args, **kwargs):
                if not runner._muted:
                    target = kwargs.get("target", args[1] if len(args) > 1 else None)
                    inp = kwargs.get("input", args[0] if args else None)
                    rec = obs.regression
                    rec["calls"] += 1
                    if obs.env_steps and rec.setdefault("early_targets", 0) < 20 and hasattr(target, "detach") and target.numel():
                        with torch.no_grad():  # how large the value targets are before the values grow (about the rewards the loss sees)
                            rec["early_target_abs_sum"] = rec.get("early_target_abs_sum", 0.0) + float(target.detach().float().abs().mean())
                        rec["early_targets"] += 1
                    if (obs.env_steps and getattr(target, "requires_grad", False) and getattr(inp, "requires_grad", False)
                            and target.grad_fn is not None and obs._reaches_trained(runner, target.grad_fn)):
                        rec["target_requires_grad"] += 1
                        if rec["first_step"] is None:
                            rec["first_step"] = runner.step
                            rec["function"] = fname
                            rec["target_shape"] = list(target.shape)
                return original(*args, **kwargs)

            return wrapped

        return factory

    def _reaches_trained(self, runner: Any, root: Any) -> bool:
        """Whether a graph reaches a parameter some optimizer trains (a gradient into a frozen target net is harmless)."""
        trained = self._trained_ids(runner)
        seen: set[int] = set()
        stack = [root]
        while stack and len(seen) < MAX_GRAPH_NODES:
            node = stack.pop()
            if node is None or id(node) in seen:
                continue
            seen.add(id(node))
            var = getattr(node, "variable", None)
            if var is not None and id(var) in trained:
                return True
            stack.extend(n for n, _ in node.next_functions)
        return False

    # -- backward: policy-gradient surrogates ------------------------------------------
    def on_backward_start(self, runner: Any, tensors: Any) -> None:
        self.backwards += 1
        if not self._lp_nodes:
            if self.env_steps and self._touches_params(tensors):
                self.other_trained_terms += 1
            return
        roots = [t for t in (tensors if isinstance(tensors, (list, tuple)) else [tensors]) if getattr(t, "grad_fn", None) is not None]
        if not roots:
            return
        weights, other = self._surrogate_weights([t.grad_fn for t in roots])
        if other:
            self.other_trained_terms += 1
        if weights:
            rec = _summary(weights[:MAX_WEIGHTS])
            rec["step"] = runner.step
            if len(self.surrogates) < 500:
                self.surrogates.append(rec)

    def _touches_params(self, tensors: Any) -> bool:
        roots = [t.grad_fn for t in (tensors if isinstance(tensors, (list, tuple)) else [tensors]) if getattr(t, "grad_fn", None) is not None]
        seen: set[int] = set()
        stack = list(roots)
        while stack and len(seen) < MAX_GRAPH_NODES:
            node = stack.pop()
            if node is None or id(node) in seen:
                continue
            seen.add(id(node))
            if type(node).__name__ == "AccumulateGrad":
                return True
            stack.extend(n for n, _ in node.next_functions)
        return False

    def _surrogate_weights(self, roots: list) -> tuple[list[float], bool]:
        """The constants multiplying log-prob terms under ``roots``, and whether a trained term lies outside them."""
        lp, stop = self._lp_nodes, self._stop_nodes
        # pass 1: every node, children first (iterative post-order), with whether it leads to a log_prob output
        reaches: dict[int, bool] = {}
        order: list = []
        stack = [(r, False) for r in roots]
        while stack and len(reaches) < MAX_GRAPH_NODES:
            node, done = stack.pop()
            if node is None:
                continue
            key = id(node)
            if done:
                reaches[key] = key in lp or any(reaches.get(id(n), False) for n, _ in node.next_functions if n is not None)
                order.append(node)
                continue
            if key in reaches:
                continue
            reaches[key] = False  # placeholder: visited
            stack.append((node, True))
            if key in lp:
                continue  # the log_prob output itself: what lies below is the policy
            stack.extend((n, False) for n, _ in node.next_functions if n is not None and id(n) not in reaches)
        weights: list[float] = []
        for node in order:
            if type(node).__name__ != "MulBackward0" or not reaches.get(id(node)):
                continue
            for attr in ("_saved_self", "_saved_other"):
                try:
                    t = getattr(node, attr)
                except Exception:  # noqa: BLE001 - a saved tensor released or not saved
                    continue
                if t is None or not hasattr(t, "requires_grad") or t.requires_grad or not t.is_floating_point():
                    continue
                if len(weights) < MAX_WEIGHTS:
                    weights.extend(_floats(t.detach().float().reshape(-1)[: MAX_WEIGHTS - len(weights)]))
        # pass 2: is any parameter reached without passing through a log_prob or entropy output?
        seen: set[int] = set()
        todo = list(roots)
        other = False
        while todo and len(seen) < MAX_GRAPH_NODES:
            node = todo.pop()
            if node is None or id(node) in seen or id(node) in lp or id(node) in stop:
                continue
            seen.add(id(node))
            if type(node).__name__ == "AccumulateGrad":
                other = True
                break
            todo.extend(n for n, _ in node.next_functions)
        return weights, other

    # -- target networks and Q scale ---------------------------------------------------
    def _trained_ids(self, runner: Any) -> set[int]:
        return {id(p) for opt in runner.optimizers for g in opt.param_groups for p in g["params"]}

    def _find_twins(self, runner: Any) -> None:
        trained = self._trained_ids(runner)
        online = []
        candidates = []
        for root in runner.roots:
            params = list(root.parameters())
            if not params:
                continue
            sig = tuple(tuple(p.shape) for p in params)
            if all(id(p) in trained for p in params):
                online.append((root, sig))
            elif not any(id(p) in trained for p in params):
                candidates.append((root, sig, params))
        for root, sig, params in candidates:
            if id(root) in self._twins or sum(p.numel() for p in params) > MAX_SNAPSHOT_NUMEL:
                continue
            match = next((o for o, s in online if s == sig and id(o) not in self._twin_of), None)
            if match is None:
                continue
            self._twins[id(root)] = {"target": runner.root_label(root), "online": runner.root_label(match), "root": root, "twin": match,
                                     "first_step": runner.step, "steps": 0, "changes": [], "online_changes": 0,
                                     "change_sizes": [], "distance": [], "forward_steps": []}
            self._twin_of[id(match)] = root
            self._snap[id(root)] = [p.detach().clone() for p in params]
            self._snap[id(match)] = [p.detach().clone() for p in match.parameters()]

    def on_module_forward(self, runner: Any, module: Any, inputs: tuple, output: Any) -> None:
        if runner.module_stack:
            return
        twin = self._twins.get(id(module))
        if twin is not None:  # a target network runs on (nearly) every update; an evaluation snapshot does not
            if twin["forward_steps"] and twin["forward_steps"][-1] == runner.step:
                return
            if len(twin["forward_steps"]) < 5000:
                twin["forward_steps"].append(runner.step)
            return
        if id(module) not in self._twin_of or not hasattr(output, "detach"):
            return
        o = output.detach()
        if not o.is_floating_point() or not o.numel():
            return
        rec = self.q_scale.setdefault(runner.step, [0.0, 0.0, 0])
        a = o.float().abs()
        rec[0] = max(rec[0], float(a.max()))
        rec[1] += float(a.mean())
        rec[2] += 1

    def on_step_end(self, runner: Any, optimizer: Any) -> None:
        if optimizer is not runner.primary_optimizer:
            return
        self._lp_nodes.clear()
        self._stop_nodes.clear()
        if not self.env_steps:
            return
        self._find_twins(runner)
        import torch

        with torch.no_grad():
            for tid, rec in self._twins.items():
                target, online = rec["root"], rec["twin"]
                t_params, o_params = list(target.parameters()), list(online.parameters())
                t_old, o_old = self._snap.get(tid), self._snap.get(id(online))
                if t_old is None or o_old is None or len(t_old) != len(t_params):
                    continue
                t_delta = math.sqrt(sum(float((p.float() - q.float()).pow(2).sum()) for p, q in zip(t_params, t_old)))
                t_norm = math.sqrt(sum(float(q.float().pow(2).sum()) for q in t_old)) or 1.0
                o_delta = math.sqrt(sum(float((p.float() - q.float()).pow(2).sum()) for p, q in zip(o_params, o_old)))
                rec["steps"] += 1
                if t_delta > 0:
                    rec["changes"].append(runner.step)
                    if len(rec["change_sizes"]) < 200:
                        rec["change_sizes"].append(t_delta / t_norm)
                    self._snap[tid] = [p.detach().clone() for p in t_params]
                if o_delta > 0:
                    rec["online_changes"] += 1
                    self._snap[id(online)] = [p.detach().clone() for p in o_params]
                dist = math.sqrt(sum(float((p.float() - q.float()).pow(2).sum()) for p, q in zip(o_params, t_params)))
                o_norm = math.sqrt(sum(float(p.float().pow(2).sum()) for p in o_params)) or 1.0
                if len(rec["distance"]) < 2000:
                    rec["distance"].append([runner.step, dist / o_norm])
        self._maybe_extend(runner)

    def _maybe_extend(self, runner: Any) -> None:
        """Watch more steps while a target network has not changed yet (a sync period longer than the trace)."""
        if runner.max_steps is None or runner.step < runner.max_steps:
            return
        watch = int(self.config.get("rl_target_watch_steps") or 0)
        stuck = [r for r in self._twins.values() if not r["changes"] and r["online_changes"]]
        if watch <= 0 or not stuck:
            return
        total = (self.extension or {}).get("requested", runner.max_steps) + watch
        if runner.step >= total:
            return
        elapsed = time.monotonic() - self._started
        per_step = elapsed / max(runner.step, 1)
        budget = float(self.config.get("timeout_s") or 0)
        extra = min(total - runner.step, 50)
        if budget and elapsed + per_step * extra > 0.6 * budget:
            return
        if self.extension is None:
            self.extension = {"requested": runner.max_steps, "extra": 0, "reason": "target-network-sync"}
        runner.max_steps += extra
        self.extension["extra"] += extra

    # -- result ---------------------------------------------------------------------------
    def result(self) -> dict[str, Any]:
        rs = self.rewards
        obs_stats = None
        if self._obs_n and self._obs_sum is not None:
            mean = self._obs_sum / self._obs_n
            var = (self._obs_sq / self._obs_n - mean * mean).clamp(min=0)
            std = var.sqrt()
            obs_stats = {"n": self._obs_n, "dims": int(mean.numel()), "shape": self.obs_shape, "max_abs": self.obs_max_abs,
                         "mean": [float(v) for v in mean[:32]], "std": [float(v) for v in std[:32]],
                         "max_abs_mean": float(mean.abs().max()), "max_std": float(std.max())}
        twins = []
        for rec in self._twins.values():
            twins.append({k: v for k, v in rec.items() if k not in ("root", "twin")} | {"changes": rec["changes"][:300],
                                                                                      "change_count": len(rec["changes"]),
                                                                                      "distance": _thin(rec["distance"]),
                                                                                      "forward_steps": len(rec["forward_steps"])})
        entropy = _thin([[s, v[0] / v[1], v[2]] for s, v in sorted(self._entropy_step.items()) if v[1]])
        q_scale = _thin([[s, v[0], v[1] / v[2]] for s, v in sorted(self.q_scale.items()) if v[2]], keep_max=1)
        return {
            "env_steps": self.env_steps, "env_resets": self.env_resets, "vector_env": self.vector_env, "step_api": self.step_api,
            "episodes": [[round(e[0], 4), *e[1:]] for e in self.episodes[:500]], "episode_count": self.episode_count,
            "rewards": {**rs, "mean": rs["sum"] / rs["n"] if rs["n"] else None,
                        "mean_abs": rs["sum_abs"] / rs["n"] if rs["n"] else None,
                        "std": math.sqrt(max(rs["sum_sq"] / rs["n"] - (rs["sum"] / rs["n"]) ** 2, 0.0)) if rs["n"] else None},
            "observations": obs_stats,
            "distributions": self.distributions, "categories": self.categories, "entropy": entropy,
            "surrogates": self.surrogates[:300], "other_trained_terms": self.other_trained_terms, "backwards": self.backwards,
            "regression": self.regression, "target_networks": twins, "q_scale": q_scale, "extension": self.extension,
            "script_dir": os.path.dirname(self.config.get("script") or "") or None,
        }
