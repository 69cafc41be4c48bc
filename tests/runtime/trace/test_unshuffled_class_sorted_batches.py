"""`unshuffled-class-sorted-batches` (trace): every training batch holds one class."""

from __future__ import annotations

import pytest

from .measurements import findings_for, traced

CHECK = "unshuffled-class-sorted-batches"


def _run(single, batches=20, size=20, counts=(200, 200, 200)):
    return {"batch_purity": {"batches": batches, "single_class": single, "sizes": [size] * batches},
            "class_counts": {str(i): c for i, c in enumerate(counts)},
            "loss_calls": {"cross_entropy": {"calls": batches, "classes": len(counts)}}}


def test_found_on_measurements():
    (hit,) = findings_for(CHECK, _run(single=19))
    assert hit.category == "data" and "single class" in hit.message


def test_not_found_on_mixed_batches_or_where_chance_explains_it():
    assert not findings_for(CHECK, _run(single=1))
    # batches of two from a 95/5 label split are single-class most of the time by chance alone
    assert not findings_for(CHECK, _run(single=18, size=2, counts=(950, 50)))
    assert not findings_for(CHECK, _run(single=5, batches=5))  # too few batches to tell


@pytest.mark.slow
def test_class_sorted_loader_found_shuffled_not():
    assert [f for f in traced("sorted_loader.py", "sorted") if f.rule == CHECK]
    assert not [f for f in traced("sorted_loader.py", "shuffled") if f.rule == CHECK]
