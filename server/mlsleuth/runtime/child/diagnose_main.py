"""Entry script of ``mlsleuth diagnose``: ``python diagnose_main.py CONFIG.json``.

Config keys: ``spec`` (FILE:FUNCTION), ``steps`` (overfit budget), ``lr_range``
(bool), ``ablation_steps``. Loads the setup function (``setup_contract``), then
runs the battery with the trace observer installed through ``run_user_script.Runner``
during the overfit-one-batch run, so gradient flow, activations, loss wiring,
evaluation determinism and batch independence are measured on the user's model.
"""

import copy
import json
import math
import os
import sys
import time
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import channel
import diagnose_checks
import diagnose_terms
import probes
from run_user_script import Runner, exception_info
from setup_contract import SetupError, forward_location, load_setup, with_first_tensor

# mirrored in mlsleuth.runtime.thresholds (the parent documents them)
OVERFIT_CHANCE_FRACTION = 0.1  # pass below this fraction of the chance-level loss ...
OVERFIT_TARGET_FRACTION = 0.05  # ... or, when no chance level can be computed, of the initial loss
OVERFIT_ACCURACY_FRACTION = 0.5  # every sample right and the loss below this fraction of the same reference


def seed_everything(seed: int) -> None:
    """Python's, torch's (every device) and numpy's generators, so the battery repeats run to run."""
    import random

    import torch

    random.seed(seed)
    torch.manual_seed(seed)
    try:
        import numpy as np
    except ImportError:
        return
    np.random.seed(seed)


def chance_level_loss(loss_fn, outputs, targets):
    """The user's loss for a model that learned only the batch's label frequencies (or the mean target).

    Classification (integer targets, outputs with a class dimension): the log of the batch's label
    prior as the output for every sample, the loss of predicting the prior (its entropy for
    cross-entropy). Regression (floating targets shaped like the outputs): the mean target for
    every sample (the targets' variance for MSE). None when the batch fits neither or the loss
    cannot take such outputs.
    """
    import torch

    out = probes.first_tensor(outputs)
    if loss_fn is None or not isinstance(out, torch.Tensor) or not isinstance(targets, torch.Tensor) or not out.is_floating_point():
        return None
    try:
        with torch.no_grad():
            class_dim = None
            if not targets.is_floating_point() and out.dim() == targets.dim() + 1:
                if out.shape[:-1] == targets.shape:  # (..., C): a language model's (N, T, vocab)
                    class_dim = out.dim() - 1
                elif out.shape[0] == targets.shape[0] and out.shape[2:] == targets.shape[1:]:  # torch's (N, C, d1, ...)
                    class_dim = 1
            if class_dim is not None:
                classes = out.shape[class_dim]
                labels = targets[(targets >= 0) & (targets < classes)].long()  # ignore_index (-100) left out
                if labels.numel() == 0:
                    return None
                prior = torch.bincount(labels.flatten(), minlength=classes).to(out.dtype) / labels.numel()
                shape = [1] * out.dim()
                shape[class_dim] = classes
                chance = torch.log(prior.clamp_min(1e-12)).reshape(shape).expand_as(out).contiguous()
            elif targets.is_floating_point() and targets.shape == out.shape and out.dim() >= 1 and out.shape[0] > 1:
                chance = targets.to(out.dtype).mean(0, keepdim=True).expand_as(out).contiguous()
            else:
                return None
            value = float(loss_fn(chance, targets).detach())
    except Exception:  # noqa: BLE001 - a loss that cannot take such outputs: no chance level
        return None
    return value if math.isfinite(value) and value > 1e-6 else None  # one label only: nothing to be below


def main() -> None:
    with open(sys.argv[1], encoding="utf-8") as fh:
        config = json.load(fh)
    result = {"status": "running", "checks": {}, "config": config, "errors": []}
    try:
        run_battery(config, result)
        result["status"] = "finished"
    except SetupError as exc:
        result["status"] = "setup-error"
        result["exception"] = {"type": "SetupError", "message": str(exc), "traceback": ""}
    except BaseException as exc:  # noqa: BLE001 - the user's code (or torch) failed mid-battery: reported as a result
        result["status"] = "exception"
        result["exception"] = exception_info(exc)
        result["exception"]["phase"] = result.get("phase")
    import torch

    result["environment"] = {"python": sys.executable, "torch": torch.__version__, "cuda_available": bool(torch.cuda.is_available())}
    channel.write_result(result)


def run_battery(config: dict, result: dict) -> None:
    import torch

    checks = result["checks"]
    result["phase"] = "setup"
    channel.progress("calling the setup function", force=True)  # the CLI progress line and MCP notifications name the phase
    seed = int(config.get("seed", 0))
    seed_everything(seed)  # before the setup function builds the model: the same initial weights every run
    setup = load_setup(config["spec"])
    model = setup.model
    result["model_forward"] = forward_location(model)
    first = next(model.parameters(), None)
    device = first.device if first is not None else torch.device("cpu")
    batches = setup.batches(4)
    setup.to(device)
    batches = setup.batches(4)
    batch = batches[0]
    result["device"] = str(device)
    result["task"] = setup.task
    checks["weights"] = diagnose_checks.weight_statistics(model)
    checks["unregistered"] = diagnose_checks.unregistered_submodules(model)
    if setup.compute_loss is None:
        inputs, targets = setup.split(batch)
        x = probes.first_tensor(inputs)
        checks["inputs"] = probes.tensor_stats(x) if x is not None else None
        if isinstance(targets, torch.Tensor):
            checks["targets"] = probes.tensor_stats(targets)
    init_state = copy.deepcopy(model.state_dict())

    # -- overfit one batch, with the trace observer watching ------------------------
    result["phase"] = "overfit"
    import trace_observer
    import trace_pinn

    obs = trace_observer.TraceObserver({})
    pinn_obs = trace_pinn.PinnObserver({})  # a PINN setup (derivatives with respect to the inputs) gets the PINN checks
    runner = Runner([obs, pinn_obs], None)
    named_terms: list = []  # per sampled step: the loss split into the terms compute_loss named (diagnose_terms)
    runner.install()
    overfit = {"steps_budget": config["steps"], "losses": [], "seed": seed}
    checks["overfit"] = overfit
    seed_everything(seed)
    try:
        model.eval()
        eval_loss(setup, model, batch, runner)  # an evaluation pass: the observer checks determinism / train-mode layers
        model.train()
        opt = setup.make_optimizer(model.parameters())
        overfit["optimizer"] = type(opt).__name__
        overfit["lr"] = [g.get("lr") for g in opt.param_groups]
        start = time.perf_counter()
        for step in range(config["steps"]):
            opt.zero_grad()
            loss, outputs, terms = setup.loss_terms(model, batch)
            if not isinstance(loss, torch.Tensor) or loss.numel() != 1:
                raise SetupError(f"the loss must be a scalar tensor; got {type(loss).__name__} {getattr(loss, 'shape', '')}")
            if terms is not None:
                pinn_obs.split_sums = False  # the terms are named: no need to split the sum
                if diagnose_terms.sampled(step):
                    named_terms.append(diagnose_terms.breakdown(runner, terms, list(model.parameters()), step))
            value = float(loss.detach())
            overfit["losses"].append(value)
            if step == 0:
                overfit["initial"] = value
                overfit["loss_requires_grad"] = bool(loss.requires_grad)
                if setup.compute_loss is None:
                    with runner.suspended():  # not a loss call of the user's training: the observer must not count it
                        overfit["chance"] = chance_level_loss(setup.loss_fn, outputs, setup.split(batch)[1])
                reference = overfit.get("chance") or value
                fraction = OVERFIT_CHANCE_FRACTION if overfit.get("chance") else OVERFIT_TARGET_FRACTION
                overfit["target"] = fraction * reference
                if outputs is not None and isinstance(probes.first_tensor(outputs), torch.Tensor) and loss.requires_grad:
                    out_t = probes.first_tensor(outputs)
                    if out_t.requires_grad:
                        (g,) = torch.autograd.grad(loss, out_t, retain_graph=True, allow_unused=True)
                        overfit["loss_grad_wrt_output"] = 0.0 if g is None else float(g.detach().float().abs().max())
                    overfit["output_shape"] = list(out_t.shape)
            if not math.isfinite(value):
                overfit["non_finite_at"] = step
                break
            if not loss.requires_grad:
                overfit["no_graph"] = True
                break
            loss.backward()
            opt.step()
            acc = _accuracy(setup, outputs, batch)
            if acc is not None:
                overfit["accuracy"] = acc
            if value <= overfit["target"] or (acc == 1.0 and value <= OVERFIT_ACCURACY_FRACTION * reference):
                overfit["reached_at"] = step
                break
            if step % 10 == 0:
                channel.progress(f"overfit step {step}", done=step, total=config["steps"], step=step)
        overfit["seconds"] = time.perf_counter() - start
        done = len(overfit["losses"])
        if named_terms and named_terms[-1]["step"] < done - 1 and math.isfinite(overfit["losses"][-1]):
            with runner.suspended():  # the terms after the last update (not a training step: the observers stay out)
                _, _, terms = setup.loss_terms(model, batch)
            named_terms.append(diagnose_terms.breakdown(runner, terms, list(model.parameters()), done))
        model.eval()
        final_loss = eval_loss(setup, model, batch, runner)
        overfit["final_eval"] = float(final_loss.detach())
        model.train()
        runner.notify("on_end", "finished")
    finally:
        runner.uninstall()
    pinn = pinn_obs.result()
    if named_terms:
        pinn["breakdowns"] = named_terms
        checks["loss_terms"] = named_terms
    result["observers"] = {"trace": obs.result(), "pinn": pinn}
    result["observer_errors"] = runner.observer_errors
    model.load_state_dict(init_state)

    # -- causal leakage -----------------------------------------------------------------
    if setup.compute_loss is None and (setup.task == "sequence" or setup.time_dim is not None):
        result["phase"] = "causal"
        channel.progress("causal leakage test", force=True)  # the CLI progress line and MCP notifications name the phase
        inputs, _ = setup.split(batch)
        checks["causal"] = diagnose_checks.causal_leakage(model, inputs, setup.time_dim if setup.time_dim is not None else 1, setup.forward)

    # -- input ablation: real vs shuffled vs random inputs --------------------------------
    if setup.compute_loss is None:
        result["phase"] = "ablation"
        channel.progress("input ablation (real, shuffled, random inputs)", force=True)  # the CLI progress line and MCP notifications name the phase
        checks["ablation"] = ablation(setup, model, init_state, batch, config.get("ablation_steps", 100))

    # -- LR range test ------------------------------------------------------------------------
    if config.get("lr_range"):
        result["phase"] = "lr-range"
        channel.progress("learning-rate range test", force=True)  # the CLI progress line and MCP notifications name the phase
        checks["lr_range"] = diagnose_checks.lr_range(setup, model, init_state, batches)
    result["phase"] = "done"


def eval_loss(setup, model, batch, runner):
    """The loss without gradients; a ``compute_loss`` that differentiates with respect to its inputs (a PINN's
    residual) cannot run so, and is evaluated with gradients on instead, unobserved (nothing is trained)."""
    import torch

    try:
        with torch.no_grad():
            return setup.loss(model, batch)[0]
    except RuntimeError as exc:
        if setup.compute_loss is None or "does not require grad" not in str(exc):
            raise
    with torch.enable_grad(), runner.suspended():
        return setup.loss(model, batch)[0].detach()


def _accuracy(setup, outputs, batch):
    import torch

    if outputs is None or setup.compute_loss is not None:
        return None
    out = probes.first_tensor(outputs)
    _, targets = setup.split(batch)
    if not isinstance(out, torch.Tensor) or not isinstance(targets, torch.Tensor) or targets.is_floating_point():
        return None
    if out.dim() != 2 or targets.dim() != 1 or out.shape[0] != targets.shape[0]:
        return None
    return float((out.detach().argmax(1) == targets).float().mean())


def ablation(setup, model, init_state, batch, steps):
    """Train from the same init on the fixed batch with real, per-step shuffled and per-step random inputs."""
    import torch

    inputs, targets = setup.split(batch)
    x = probes.first_tensor(inputs)
    if not isinstance(x, torch.Tensor) or not x.is_floating_point() or x.dim() < 1 or x.shape[0] < 4:
        return {"skipped": "needs a floating-point input tensor with at least 4 samples"}
    mean, std = float(x.float().mean()), float(x.float().std())
    out = {"steps": steps}
    gen = torch.Generator(device="cpu").manual_seed(0)
    for mode in ("real", "shuffled", "random"):
        model.load_state_dict(init_state)
        model.train()
        opt = setup.make_optimizer(model.parameters())
        with probes.preserved_rng():
            torch.manual_seed(0)
            losses = []
            for _ in range(steps):
                if mode == "real":
                    xi = x
                elif mode == "shuffled":
                    xi = x[torch.randperm(x.shape[0], generator=gen).to(x.device)]
                else:
                    xi = (torch.randn(x.shape, generator=gen) * std + mean).to(device=x.device, dtype=x.dtype)
                feed = with_first_tensor(inputs, xi)
                opt.zero_grad()
                loss = setup.loss_fn(setup.forward(model, feed), targets)
                value = float(loss.detach())
                if not math.isfinite(value):
                    break
                losses.append(value)
                loss.backward()
                opt.step()
        k = max(1, len(losses) // 10)
        out[mode] = sum(losses[-k:]) / k if losses else None
    model.load_state_dict(init_state)
    return out


if __name__ == "__main__":
    try:
        main()
    except BaseException as exc:  # noqa: BLE001 - the config itself was unreadable: still answer with a result
        channel.write_result({"status": "harness-error", "exception": exception_info(exc), "checks": {}})
        traceback.print_exc()
        raise SystemExit(1) from None
