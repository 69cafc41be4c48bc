"""The ``monitor-mode-mismatch`` rule (``mlsleuth/scan/rules/evaluation/monitor_mode_mismatch.py``)."""

from __future__ import annotations

from scan.helpers import check

RULE = {"monitor-mode-mismatch"}


def test_callbacks_ranking_the_wrong_way():
    src = """
    import lightning.pytorch as pl
    from lightning.pytorch.callbacks import EarlyStopping, ModelCheckpoint
    from transformers import TrainingArguments

    MONITOR = "valid/acc"

    def callbacks(out):
        best = ModelCheckpoint(dirpath=out, monitor="val_loss",
                               mode="max",  # expect: monitor-mode-mismatch
                               save_top_k=1)
        stop = EarlyStopping(monitor=MONITOR, patience=3)  # expect: monitor-mode-mismatch
        f1 = pl.callbacks.ModelCheckpoint(monitor="val_f1", mode="min")  # expect: monitor-mode-mismatch
        return [best, stop, f1]

    args = TrainingArguments("out", metric_for_best_model="eval_loss", load_best_model_at_end=True,
                             greater_is_better=True)  # expect: monitor-mode-mismatch
    """
    check(src, RULE)


def test_matching_unknown_or_other_libraries_are_fine():
    src = """
    from lightning.pytorch.callbacks import EarlyStopping, ModelCheckpoint
    from transformers import TrainingArguments
    from keras.callbacks import ModelCheckpoint as KerasCheckpoint

    def callbacks(out, cfg):
        return [
            ModelCheckpoint(dirpath=out, monitor="val_loss", mode="min"),
            ModelCheckpoint(dirpath=out, monitor="val_acc", mode="max"),
            ModelCheckpoint(dirpath=out, monitor="val_loss"),
            ModelCheckpoint(dirpath=out, monitor=cfg.monitor, mode=cfg.mode),
            ModelCheckpoint(dirpath=out, monitor="step", mode="max"),
            EarlyStopping(monitor="val_auroc", mode="max", patience=5),
            EarlyStopping(monitor="val_perplexity", patience=5),
            KerasCheckpoint(out, monitor="val_accuracy", mode="min"),
        ]

    a = TrainingArguments("out", metric_for_best_model="accuracy", greater_is_better=True)
    b = TrainingArguments("out", metric_for_best_model="eval_loss", greater_is_better=False)
    c = TrainingArguments("out", metric_for_best_model="f1")
    """
    check(src, RULE)
