"""`update-ratio-too-large` (trace): found on measurements that show it, not on ones that do not (no child process)."""

from __future__ import annotations

from ..recorded import findings_of
from .measurements import findings_for, param

CHECK = "update-ratio-too-large"


def found(data):
    return findings_for(CHECK, data)


def test_update_ratio_too_large_is_found():
    hits = found({"params": [param("fc.weight", "fc", ratio=0.5)]})
    assert hits and hits[0].message and hits[0].observation and hits[0].next_test


def test_update_ratio_too_large_is_not_found_without_the_bug():
    assert not found({"params": [param("fc.weight", "fc", ratio=3e-3)]})
    assert not findings_of("zoo_lr_too_small_fixed", CHECK)


def _with_loss(params, losses):
    return {"params": params, "losses": losses}


def test_large_but_shrinking_ratios_with_a_falling_loss_are_info_only():
    # a healthy momentum-SGD run measured on a corpus fixed twin: ratios 0.12-0.2 that shrink, loss falling
    ratios = [0.118, 0.117, 0.125, 0.14, 0.146, 0.147, 0.135, 0.16, 0.127, 0.13, 0.153, 0.169, 0.219, 0.19, 0.112, 0.066, 0.05, 0.036, 0.057, 0.059]
    p = {**param("out.weight", "out", steps=20, ratio=0.13), "update_ratios": ratios}
    hits = found(_with_loss([p], [2.3 - 0.05 * i for i in range(20)]))
    assert [h.severity for h in hits] == ["info"]
    assert "benign" in hits[0].observation


def test_growing_ratios_or_a_loss_that_does_not_fall_stay_warnings():
    growing = [0.16, 0.32, 1.5, 0.48, 4.8, 4.8, 2.3, 10.6, 202.0, 172.0, 0.2, 300.0]
    p = {**param("enc.weight", "enc", steps=12, ratio=4.8), "update_ratios": growing}
    hits = found(_with_loss([p], [2.3 - 0.05 * i for i in range(12)]))
    assert [h.severity for h in hits] == ["warning"] and "grows" in hits[0].observation
    flat = {**param("fc.weight", "fc", steps=12, ratio=0.5), "update_ratios": [0.5] * 12}
    hits = found(_with_loss([flat], [2.3 + 0.01 * (i % 3) for i in range(12)]))
    assert [h.severity for h in hits] == ["warning"] and "not falling" in hits[0].observation
