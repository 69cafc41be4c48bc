"""Inference on the trace observer's measurements: thresholds, grouping, negatives (no child process)."""

from __future__ import annotations

import pytest
from mlsleuth.catalog import load_all
from mlsleuth.runtime import thresholds as T
from mlsleuth.runtime.common import group_by_module
from mlsleuth.runtime.registry import checks_of
from mlsleuth.runtime.trace.run import trace_findings

from .measurements import param


def rules(data):
    return {f.rule for f in trace_findings(data, path="train.py", command="mlsleuth trace train.py")}



def test_every_emitted_check_is_documented():
    emitted = set(checks_of("trace"))
    docs = load_all()
    assert emitted, "no check ids found"
    missing = sorted(i for i in emitted if i not in docs)
    assert not missing, missing
    assert all(docs[i].tool == "trace" for i in emitted)


def test_lr_warmup_is_not_a_collapse_but_decay_to_zero_is():
    warmup = {"lr": [[1e-6 * (i + 1)] for i in range(20)]}
    assert "lr-collapse" not in rules(warmup)
    gentle = {"lr": [[0.1 * 0.95 ** i] for i in range(20)]}  # ordinary exponential decay
    assert "lr-collapse" not in rules(gentle)
    collapse = {"lr": [[0.1 * 0.5 ** i] for i in range(20)]}
    assert "lr-collapse" in rules(collapse)


def test_dead_relu_threshold():
    below = {"activations": {"act": {"kind": "relu", "type": "ReLU", "forwards": 5, "dead_fraction": T.DEAD_RELU_FRACTION - 0.1, "units": 32}}}
    above = {"activations": {"act": {"kind": "relu", "type": "ReLU", "forwards": 5, "dead_fraction": 0.9, "units": 32}}}
    assert "dead-relu" not in rules(below)
    assert "dead-relu" in rules(above)


def test_update_ratio_band_and_zero_init_exemption():
    healthy = {"params": [param("fc.weight", "fc", ratio=3e-3)]}
    small = {"params": [param("fc.weight", "fc", ratio=1e-7)]}
    large = {"params": [param("fc.weight", "fc", ratio=0.5)]}
    bias_only = {"params": [param("fc.bias", "fc", shape=(4,), ratio=0.5)]}  # biases start near 0: ratios are meaningless
    zero_start = {"params": [param("fc.weight", "fc", ratio=0.5, norm0=0.0)]}
    assert not rules(healthy)
    assert "update-ratio-too-small" in rules(small)
    assert "update-ratio-too-large" in rules(large)
    assert not rules(bias_only) and not rules(zero_start)


def test_no_grad_is_grouped_at_the_shallowest_fully_affected_module():
    params = [param("encoder.0.weight", "encoder.0", none=10), param("encoder.2.weight", "encoder.2", none=10),
              param("head.weight", "head")]
    found = [f for f in trace_findings({"params": params}, path=None, command="") if f.rule == "param-no-grad"]
    assert [f.location.module for f in found] == ["encoder"]
    # an unused branch inside a used module is reported at the branch
    params[1] = param("encoder.2.weight", "encoder.2")
    found = [f for f in trace_findings({"params": params}, path=None, command="") if f.rule == "param-no-grad"]
    assert [f.location.module for f in found] == ["encoder.0"]


def test_parameters_frozen_at_every_step_are_not_disconnected():
    # a second fine-tuning stage: the encoder is frozen (requires_grad=False) but stays in the optimizer
    frozen = dict(param("encoder.weight", "encoder", none=10), requires_grad=False, frozen_steps=10)
    partly = dict(param("adapter.weight", "adapter", none=10), frozen_steps=4)  # trainable on 6 steps, never a gradient
    found = [f for f in trace_findings({"params": [frozen, partly, param("head.weight", "head")]}, path=None, command="")
             if f.rule == "param-no-grad"]
    assert [f.location.module for f in found] == ["adapter"]


def test_misplaced_zero_grad_suppresses_gradient_echoes():
    data = {"params": [param("fc.weight", "fc", none=10)], "misplaced_zero_grad": [0, 1], "sequences": ["FBZS", "FBZS"]}
    assert rules(data) == {"zero-grad-before-step"}


def test_initial_loss_against_ln_c():
    ok = {"loss_calls": {"cross_entropy": {"calls": 1, "classes": 10, "first_value": 2.5, "reduction": "mean", "grad_enabled": True}}}
    high = {"loss_calls": {"cross_entropy": {"calls": 1, "classes": 10, "first_value": 9.0, "reduction": "mean", "grad_enabled": True}}}
    summed = {"loss_calls": {"cross_entropy": {"calls": 1, "classes": 10, "first_value": 90.0, "reduction": "sum", "grad_enabled": True}}}
    assert "initial-loss-high" not in rules(ok)
    assert "initial-loss-high" in rules(high)
    assert "initial-loss-high" not in rules(summed)


def test_label_prior_needs_the_loss_to_beat_label_entropy():
    counts = {"0": 50, "1": 50, "2": 50, "3": 50}
    stuck = {"class_counts": counts, "loss_calls": {"cross_entropy": {"calls": 12, "classes": 4, "values": [1.40] * 12}}}
    learning = {"class_counts": counts, "loss_calls": {"cross_entropy": {"calls": 12, "classes": 4, "values": [1.4 - 0.04 * i for i in range(12)]}}}
    # an imbalanced problem: predicting the majority frequencies gives a low loss; the model must beat *that*
    skewed = {"class_counts": {"0": 190, "1": 10}, "loss_calls": {"cross_entropy": {"calls": 12, "classes": 2, "values": [0.3] * 12}}}
    assert "loss-at-label-prior" in rules(stuck)
    assert "loss-at-label-prior" not in rules(learning)
    assert "loss-at-label-prior" not in rules({**stuck, "loss_calls": {"cross_entropy": {"calls": 5, "classes": 4, "values": [1.4] * 5}}})
    assert "loss-at-label-prior" in rules(skewed)


def test_input_scale_checks_ignore_token_ids_and_standardised_inputs():
    tokens = {"input_stats": {"shape": [8, 16], "dtype": "int64", "min": 0, "max": 30000, "integer": True}, "input_module": "LM"}
    standard = {"input_stats": {"shape": [8, 4], "dtype": "float32", "nan": 0, "inf": 0, "min": -3.0, "max": 3.1, "mean": 0.0, "std": 1.0, "integral": False}}
    one_hot = {"input_stats": {"shape": [8, 4], "dtype": "float32", "nan": 0, "inf": 0, "min": 0.0, "max": 1.0, "mean": 0.25, "std": 0.4, "integral": True}}
    pixels = {"input_stats": {"shape": [8, 4], "dtype": "float32", "nan": 0, "inf": 0, "min": 0.0, "max": 255.0, "mean": 120.0, "std": 70.0, "integral": True}}
    assert not rules(tokens) and not rules(standard) and not rules(one_hot)
    assert "input-unnormalized" in rules(pixels)


def test_batch_dependence_skip_is_not_a_finding():
    assert not rules({"batch_dependence": {"skipped": "integer inputs", "root": "Net"}})
    assert not rules({"batch_dependence": {"batch": 8, "leak": 0.0, "self": 0.3, "sample": 0, "root": "Net"}})
    found = trace_findings({"batch_dependence": {"batch": 8, "leak": 0.2, "self": 0.3, "sample": 0, "root": "Net",
                                                 "mixing_after": "conv", "mixing_before": "fc"}}, path=None, command="")
    assert [(f.rule, f.location.module) for f in found] == [("batch-mixing", "fc")]


def test_output_size_mismatch_needs_enough_labels():
    few = {"class_counts": {"0": 5, "1": 5}, "loss_calls": {"cross_entropy": {"calls": 1, "classes": 10}}}
    many = {"class_counts": {"0": 60, "1": 60}, "loss_calls": {"cross_entropy": {"calls": 1, "classes": 10}}}
    assert "output-size-mismatch" not in rules(few)
    assert "output-size-mismatch" in rules(many)


@pytest.mark.parametrize(
    ("flagged", "universe", "expected"),
    [
        ([("a.w", "a")], [("a.w", "a"), ("b.w", "b")], [("a", ["a.w"])]),
        ([("a.w", "a"), ("b.w", "b")], [("a.w", "a"), ("b.w", "b")], [("", ["a.w", "b.w"])]),
        ([("enc.0.w", "enc.0")], [("enc.0.w", "enc.0"), ("enc.1.w", "enc.1")], [("enc.0", ["enc.0.w"])]),
    ],
)
def test_group_by_module(flagged, universe, expected):
    assert group_by_module(flagged, universe) == expected


def test_optimizer_rebuilt_needs_a_stateful_optimizer_rebuilt_on_most_steps():
    params = [param("fc.weight", "fc", steps=10)]
    every_step = {"params": params, "optimizer": {"type": "Adam", "stateful": True, "replacements": list(range(1, 10)), "replacement_count": 9}}
    assert "optimizer-rebuilt-each-step" in rules(every_step)
    stateless = {**every_step, "optimizer": {**every_step["optimizer"], "type": "SGD", "stateful": False}}
    assert "optimizer-rebuilt-each-step" not in rules(stateless)  # plain SGD keeps no state to lose
    once = {**every_step, "optimizer": {"type": "AdamW", "stateful": True, "replacements": [5], "replacement_count": 1}}
    assert "optimizer-rebuilt-each-step" not in rules(once)  # a second training stage
    short = {"params": [param("fc.weight", "fc", steps=2)], "optimizer": {"type": "Adam", "stateful": True, "replacements": [1], "replacement_count": 1}}
    assert "optimizer-rebuilt-each-step" not in rules(short)  # too few steps to tell


def test_loss_broadcast_is_reported_only_when_shapes_broadcast():
    bc = {"input_shape": [64, 1], "target_shape": [64], "broadcast_shape": [64, 64], "step": 0, "where": None, "grad_enabled": True}
    found = trace_findings({"loss_calls": {"mse_loss": {"calls": 3, "broadcast": bc}}}, path="t.py", command="x")
    hit = [f for f in found if f.rule == "loss-target-broadcast"]
    assert hit and "(64, 64)" in hit[0].message and hit[0].location.phase == "loss"
    assert "loss-target-broadcast" not in rules({"loss_calls": {"mse_loss": {"calls": 3, "input_shape": [64], "target_shape": [64]}}})
