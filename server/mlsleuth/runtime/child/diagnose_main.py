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
import probes
from run_user_script import Runner, exception_info
from setup_contract import SetupError, load_setup

OVERFIT_TARGET_FRACTION = 0.05  # mirrored in mlsleuth.runtime.thresholds (the parent documents it)


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
    setup = load_setup(config["spec"])
    model = setup.model
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

    obs = trace_observer.TraceObserver({})
    runner = Runner([obs], None)
    runner.install()
    overfit = {"steps_budget": config["steps"], "losses": []}
    checks["overfit"] = overfit
    try:
        model.eval()
        with torch.no_grad():
            setup.loss(model, batch)  # an evaluation pass: the observer checks determinism / train-mode layers
        model.train()
        opt = setup.make_optimizer(model.parameters())
        overfit["optimizer"] = type(opt).__name__
        overfit["lr"] = [g.get("lr") for g in opt.param_groups]
        start = time.perf_counter()
        for step in range(config["steps"]):
            opt.zero_grad()
            loss, outputs = setup.loss(model, batch)
            if not isinstance(loss, torch.Tensor) or loss.numel() != 1:
                raise SetupError(f"the loss must be a scalar tensor; got {type(loss).__name__} {getattr(loss, 'shape', '')}")
            value = float(loss.detach())
            overfit["losses"].append(value)
            if step == 0:
                overfit["initial"] = value
                overfit["loss_requires_grad"] = bool(loss.requires_grad)
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
            if value <= OVERFIT_TARGET_FRACTION * overfit["initial"] or (acc == 1.0 and value <= 0.5 * overfit["initial"]):
                overfit["reached_at"] = step
                break
            if step % 10 == 0:
                channel.progress(f"overfit step {step}", done=step, total=config["steps"], step=step)
        overfit["seconds"] = time.perf_counter() - start
        model.eval()
        with torch.no_grad():
            final_loss, _ = setup.loss(model, batch)
        overfit["final_eval"] = float(final_loss.detach())
        model.train()
        runner.notify("on_end", "finished")
    finally:
        runner.uninstall()
    result["observers"] = {"trace": obs.result()}
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
    rest = tuple(inputs[1:]) if isinstance(inputs, (tuple, list)) else ()
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
                feed = (xi, *rest) if rest else xi
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
