"""The ``name-fragments-matched-exactly`` rule (``mlsleuth/scan/rules/training_loop/name_fragments_matched_exactly.py``)."""

from __future__ import annotations

from scan.helpers import check

RULE = {"name-fragments-matched-exactly"}


def test_no_decay_and_frozen_groups_tested_by_exact_membership():
    src = """
        import torch

        NO_DECAY = ("bias", "LayerNorm.weight")

        def groups(model, wd):
            return [
                {"params": [p for n, p in model.named_parameters() if n not in NO_DECAY], "weight_decay": wd},  # expect: name-fragments-matched-exactly
                {"params": [p for n, p in model.named_parameters() if n in NO_DECAY], "weight_decay": 0.0},  # expect: name-fragments-matched-exactly
            ]

        def freeze(model):
            frozen = {"embeddings", "pooler"}
            for p in (p for n, p in model.named_parameters() if n in frozen):  # expect: name-fragments-matched-exactly
                p.requires_grad_(False)
        """
    check(src, RULE)


def test_substring_tests_full_names_and_derived_sets_stay_silent():
    src = """
        import torch

        def groups(model, wd):
            no_decay = ["bias", "LayerNorm.weight"]
            small = {n for n, p in model.named_parameters() if p.ndim < 2}
            head = ["fc.weight", "fc.bias"]
            return [
                {"params": [p for n, p in model.named_parameters() if not any(nd in n for nd in no_decay)]},
                {"params": [p for n, p in model.named_parameters() if n in small], "weight_decay": 0.0},
                {"params": [p for n, p in model.named_parameters() if n in head], "lr": 1e-2},
                {"params": [p for n, p in model.named_parameters() if n in ("encoder.layer.0.output.dense.weight",)]},
            ]
        """
    check(src, RULE)
