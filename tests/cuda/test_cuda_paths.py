"""The GPU paths: trace and nan on CUDA scripts (float16 with GradScaler, bfloat16, torch.compile, a NaN
born in a CUDA kernel). Skipped where no CUDA device is visible, which is every CI run; run on a GPU
machine with ``python -m pytest tests/cuda -m slow``. The CPU versions of the same checks live in
tests/frameworks/ and tests/runtime/nan/."""

from __future__ import annotations

from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device"),
]

SCRIPTS = Path(__file__).resolve().parent / "scripts"


def _trace(name: str, steps: int = 12):
    from mlsleuth.runtime.trace import trace

    return trace(SCRIPTS / name, steps=steps, cwd=SCRIPTS, timeout_s=300)


def _flagged(report) -> set[str]:
    return {f.rule for f in report.findings if f.severity in ("error", "warning")}


@pytest.mark.parametrize("name", ["amp_fp16_clean.py", "bf16_clean.py"])
def test_trace_is_quiet_on_clean_gpu_mixed_precision(name):
    report = _trace(name)
    assert report.errors == [], [e.message for e in report.errors]
    assert not _flagged(report), [(f.rule, f.message) for f in report.findings]
    # cross-entropy over 5 classes starts near ln 5 = 1.6: the statistics are unscaled, not x65,536
    assert 0.5 < report.summary.stats["loss_first"] < 3


def test_trace_finds_clipping_on_scaled_gpu_gradients():
    report = _trace("amp_fp16_clip_without_unscale.py")
    assert report.errors == []
    assert report.findings and report.findings[0].rule == "clip-on-scaled-gradients"
    assert "unscale_" in report.findings[0].fix


def test_trace_runs_a_compiled_gpu_model_and_finds_the_softmax():
    report = _trace("compiled_softmax_into_ce.py")
    assert report.errors == [], [e.message for e in report.errors]
    assert "softmax-into-cross-entropy" in _flagged(report)
    assert all("_orig_mod" not in (f.location.module or "") for f in report.findings)


def test_nan_localises_a_log_of_zero_in_a_cuda_kernel(tmp_path):
    from mlsleuth.runtime.nan import locate_nan

    report = locate_nan(SCRIPTS / "log_of_softmax.py", cwd=tmp_path, save_dir=tmp_path / "saved", max_steps=20,
                        timeout_s=300)
    assert report.errors == [], [e.message for e in report.errors]
    (born,) = [f for f in report.findings if f.rule.startswith("nan-born") or f.rule == "nan-in-batch"]
    assert (born.rule, born.location.step, born.location.op) == ("nan-born-forward", 2, "aten::log")
    assert not any(f.rule == "nan-replay-nondeterministic" for f in report.findings)


def test_nan_is_silent_on_the_clean_cuda_twin(tmp_path):
    from mlsleuth.runtime.nan import locate_nan

    report = locate_nan(SCRIPTS / "log_of_softmax.py", cwd=tmp_path, save_dir=tmp_path / "saved", max_steps=20,
                        timeout_s=300, args=["--clean"])
    assert report.findings == [] and report.errors == []
