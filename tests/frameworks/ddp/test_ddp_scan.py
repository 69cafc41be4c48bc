"""`scan` on the DDP test scripts: each bug script draws its rule, the clean ones draw no distributed warning."""

from __future__ import annotations

from pathlib import Path

from mlsleuth.scan.analyze import analyze_source

SCRIPTS = Path(__file__).resolve().parent / "scripts"


def _rules(name: str) -> set[str]:
    result = analyze_source((SCRIPTS / name).read_text(), name)
    assert not result.errors, [e.message for e in result.errors]
    return {f.rule for f in result.findings if f.category == "distributed"}


def test_validation_accuracy_of_one_shard_printed_by_rank_0_is_found():
    assert "shard-metric-logged-as-global" in _rules("ddp_val_acc_one_shard.py")


def test_the_clean_scripts_draw_no_distributed_finding():
    for name in ("ddp_clean.py", "fsdp_clean.py", "fsdp1_clean.py", "hsdp_clean.py", "ddp_nan_log_zero.py", "ddp_val_acc_reduced.py"):
        assert _rules(name) == set(), name
