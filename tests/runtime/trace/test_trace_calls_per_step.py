"""The trace harness's steady-state cost, as a count: Python and builtin calls it adds per optimizer step.

Timings of a ~1 ms step are noise on a shared machine; the number of calls the harness makes per step is not.
``benchmarks/bench_trace_calls.py`` counts them (``sys.setprofile`` inside the benchmark's MLP script, untraced
and traced); this test fails when the harness's steady state grows well past what it costs now, e.g. a per-call
hook that no longer stands down after its window, or a per-step measurement that lost its sampling.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
# Calls per step the harness adds on the benchmark's MLP (hidden 64) past the first 60 steps (activation window,
# detailed parameter statistics and the generic window all over): about 325 with torch 2.13 (about 60 of them
# torch's own slow path for modules with hooks), 371 before the observers stood down from the forwards of the
# modules inside the model once past their windows. The bound leaves room for small additions and for another
# torch's own count, not for a per-module or per-step cost that no longer stands down.
MAX_ADDED_CALLS_PER_STEP = 400


def _bench():
    spec = importlib.util.spec_from_file_location("bench_trace_calls", ROOT / "benchmarks" / "bench_trace_calls.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow
def test_steady_state_calls_per_step_stay_bounded():
    bench = _bench()
    plain = bench.counted(None, 120, 64, 60)
    traced = bench.counted(bench.HARNESS, 120, 64, 60)
    added = sum(traced.values()) - sum(plain.values())
    assert added > 0  # the count itself works: the harness costs something
    assert added <= MAX_ADDED_CALLS_PER_STEP, sorted(((traced[k] - plain.get(k, 0), k) for k in traced), reverse=True)[:15]
    # past their windows, the observers hear of the whole model's forward and the loss module's only (2 of the 7
    # module calls per step), not of the 5 layers inside the model: at most 4 observers x 2 forwards
    forwards = {k: v for k, v in traced.items() if k.endswith(".on_module_forward")}
    assert sum(forwards.values()) <= 2 * 4, forwards
