"""`unregistered-layer-in-forward` (trace): layers run inside a model but registered nowhere, and in no optimizer."""

from __future__ import annotations

import pytest

from .measurements import findings_for, traced

CHECK = "unregistered-layer-in-forward"


def _mods(**over):
    return {"unregistered_modules": [{"type": "Sequential", "owner": "encoder", "step": 0, "numel": 272, "trainable": 2,
                                      "tensors": 2, "in_optimizer": 0, **over}]}


def test_found_on_measurements():
    (hit,) = findings_for(CHECK, _mods())
    assert hit.location.module == "encoder" and hit.severity == "error" and hit.next_test


def test_not_found_when_frozen_or_trained_anyway():
    assert not findings_for(CHECK, _mods(trainable=0))  # requires_grad=False: a deliberately hidden frozen helper
    assert not findings_for(CHECK, _mods(in_optimizer=2))  # its parameters were handed to the optimizer explicitly
    assert not findings_for(CHECK, _mods(received_gradients=False))  # a teacher hidden in a list, run under no_grad
    assert not findings_for(CHECK, {})


@pytest.mark.slow
def test_plain_list_blocks_found_module_list_not():
    hits = [f for f in traced("layers_in_list.py", "list") if f.rule == CHECK]
    assert [h.location.module for h in hits] == ["0"]  # the registered Body that calls the blocks
    assert not [f for f in traced("layers_in_list.py", "modulelist") if f.rule == CHECK]
