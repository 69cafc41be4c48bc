"""The ``train-mode-never-set`` rule (``mlsleuth/scan/rules/evaluation/train_mode_never_set.py``)."""

from __future__ import annotations

from scan.helpers import check, messages

NS = {"train-mode-never-set"}


def test_from_pretrained_trained_without_train_call():
    src = """
        import torch
        from transformers import AutoModelForSequenceClassification

        model = AutoModelForSequenceClassification.from_pretrained("bert-base-uncased").to("cuda")
        optimizer = torch.optim.AdamW(model.parameters(), lr=2e-5)
        for batch in loader:  # expect: train-mode-never-set
            optimizer.zero_grad()
            out = model(**batch)
            out.loss.backward()
            optimizer.step()
        """
    check(src, NS)
    (f,) = messages(src, "train-mode-never-set")
    assert "line 5" in f.message and "model.training" in f.next_test


def test_from_pretrained_with_train_call_is_fine():
    check(
        """
        import torch
        from transformers import AutoModel

        def fit(loader):
            model = AutoModel.from_pretrained("x")
            optimizer = torch.optim.AdamW(model.parameters(), lr=2e-5)
            model.train()
            for batch in loader:
                optimizer.zero_grad()
                model(**batch).loss.backward()
                optimizer.step()
        """,
        NS,
    )
