"""Documentation of every check ``mlsleuth nan`` reports (tool "nan").

Import-light: no torch, no numpy. Each class only carries a RuleDoc docstring.
"""

from __future__ import annotations

from mlsleuth.catalog import parse_doc, register

CHECKS: dict[str, tuple[str, str]] = {}


def _check(rule_id: str, category: str, severity: str):
    def deco(cls):
        register(parse_doc(rule_id, "nan", category, severity, cls.__doc__))
        CHECKS[rule_id] = (category, severity)
        return cls

    return deco


@_check("nan-in-batch", "data", "error")
class NanInBatch:
    """The batch itself holds NaN or Inf before the model touches it.

    What it finds: a floating-point field of the batch (model inputs, or a target consumed by the loss)
    that already contains NaN/Inf at the first step where a non-finite value appears, with the field and
    the rows (indices along the batch dimension) that hold it.
    Why it matters: a single NaN feature spreads through every layer and turns the loss and then every
    weight into NaN; lowering the learning rate or adding epsilons cannot help, because the model never
    produced the value.
    How to confirm: load the saved batch file and run `torch.isfinite(t).all(dim=1)` on the reported
    field; then fetch the same indices from the dataset and find the raw record with the missing or
    infinite value.
    What to do instead: fix or drop the records at load time (impute missing values, filter rows whose
    features are not finite), and add a data check `assert torch.isfinite(x).all()` in the dataset code,
    not in the training loop.
    """


@_check("nan-born-forward", "numerical", "error")
class NanBornForward:
    """A forward (or loss) operation turned finite inputs into NaN/Inf.

    What it finds: the first ATen operation of the failing step whose inputs were all finite and whose
    output was not, and from which the non-finite loss descends: its module, the operation, and
    statistics of its inputs (largest magnitude, zeros in a denominator, negative values fed to log or
    sqrt, the largest argument of exp).
    Why it matters: NaN is an arithmetic failure at one place; everything downstream is a casualty.
    Guarding the loss (`nan_to_num`, skipping the batch) hides the bug and lets it corrupt the weights.
    How to confirm: replay the step from the saved batch and snapshot and print the reported statistic
    of the operation's input (for example the max of the exp argument, or `(std == 0).sum()` for a
    division) just before the operation.
    What to do instead: make that operation stable: a fused stable form (`torch.softmax`,
    `torch.logsumexp`, `F.cross_entropy`, `F.log_softmax`), a clamp on the denominator of that very
    division, or a data fix when the inputs are out of their expected range.
    """


@_check("nan-born-backward", "numerical", "error")
class NanBornBackward:
    """The forward pass was finite but a backward formula produced NaN/Inf.

    What it finds: the first backward operation (with the autograd node that ran it, such as
    `SqrtBackward0` or `LogBackward0`, and the module whose forward created it) whose incoming gradient
    was finite but whose output was not, in a step whose loss was finite.
    Why it matters: functions such as sqrt or x**0.5 at 0, log at 0, or a norm at the zero vector are
    finite going forward but have infinite derivatives there; `torch.where` that discards such a branch
    still backpropagates 0 * inf = NaN through it. The loss looks fine, the weights become NaN.
    How to confirm: run the step with `torch.autograd.set_detect_anomaly(True)`; it raises in the
    reported backward node. Or count the inputs of the forward operation that are exactly at the
    singular point (e.g. `(h == 0).all(-1).sum()`).
    What to do instead: use an implementation with a defined gradient at the singular point
    (`torch.linalg.vector_norm`, `F.normalize`), keep the argument away from it in *both* branches
    (the double-`where` pattern), or clamp the argument of that operation.
    """


@_check("nan-born-optimizer", "hyperparameter", "error")
class NanBornOptimizer:
    """Gradients were finite, but the optimizer update made parameters NaN/Inf.

    What it finds: a step whose gradients were all finite and whose parameters were finite before
    `optimizer.step()` but not after, with the update operation that produced the value, the learning
    rate, epsilon and the optimizer state of the parameter (e.g. Adam's `exp_avg_sq` zeros).
    Why it matters: the update itself divides by a vanishing quantity (Adam with `eps=0` and a parameter
    whose gradient has always been zero computes 0/0) or takes a step so large that the weights
    overflow (a learning rate far above the stable range).
    How to confirm: compare `p` before and after one `optimizer.step()` on the saved snapshot; print
    the optimizer's `eps`, `lr` and `state[p]` for the reported parameter.
    What to do instead: restore a positive epsilon (1e-8 for float32), lower the learning rate or add
    warm-up, and clip gradients only if their norm really spikes.
    """


@_check("nan-replay-nondeterministic", "reproducibility", "warning")
class NanReplayNondeterministic:
    """Replaying the run did not reproduce the first non-finite value.

    What it finds: a replay of the failing step (from a snapshot, or by re-running the script) that
    either stays finite, fails at another step, or whose parameters diverge from the first run before
    the failing step.
    Why it matters: a failure that does not repeat cannot be localised reliably, and each fix attempt is
    judged against noise: unseeded random number generators, non-deterministic kernels,
    `cudnn.benchmark`, shuffling data-loader workers or uninitialised memory change the run each time.
    How to confirm: run the script twice with the same seed and compare the loss of the first steps; they
    should be bit-identical on the same machine.
    What to do instead: seed `random`, `numpy` and `torch` (and data-loader workers through
    `worker_init_fn`/`generator`), call `torch.use_deterministic_algorithms(True)`, set
    `torch.backends.cudnn.benchmark = False`, then run `mlsleuth nan` again.
    """


@_check("nan-amp-overflow-skip", "numerical", "info")
class NanAmpOverflowSkip:
    """Mixed-precision GradScaler found Inf gradients and skipped the step (normal behaviour).

    What it finds: steps where `GradScaler` saw non-finite scaled gradients, skipped `optimizer.step()`
    and lowered its scale.
    Why it matters: this is how dynamic loss scaling probes the largest safe scale; an occasional skip is
    expected. Only a scaler that keeps skipping (the scale collapsing towards zero) points to a real
    overflow in the model.
    How to confirm: log `scaler.get_scale()` per step; it should settle after the first few skips.
    What to do instead: nothing for occasional skips. If the scale keeps falling, look for the operation
    that overflows in float16 (run `mlsleuth nan` without autocast, or use bfloat16).
    """
