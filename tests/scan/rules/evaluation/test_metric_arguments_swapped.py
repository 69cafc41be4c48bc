"""The ``metric-arguments-swapped`` rule (``mlsleuth/scan/rules/evaluation/metric_arguments_swapped.py``)."""

from __future__ import annotations

from scan.helpers import check

RULE = {"metric-arguments-swapped"}


def test_predictions_passed_where_the_labels_go():
    src = """
    import numpy as np
    from sklearn.metrics import precision_score, recall_score, confusion_matrix, f1_score
    from sklearn import metrics as skm

    def evaluate(model, loader):
        preds, labels = [], []
        for x, y in loader:
            out = model(x)
            preds.append(out.argmax(1).cpu())
            labels.append(y)
        p = precision_score(np.concatenate(preds), np.concatenate(labels), average="macro")  # expect: metric-arguments-swapped
        r = recall_score(preds, labels, average="macro")  # expect: metric-arguments-swapped
        cm = confusion_matrix(out.argmax(dim=1).numpy(), y.numpy())  # expect: metric-arguments-swapped
        f = f1_score(preds, labels, average="weighted")  # expect: metric-arguments-swapped
        return p, r, cm, f

    def sk_report(clf, X_test, y_test):
        print(skm.classification_report(clf.predict(X_test), y_test))  # expect: metric-arguments-swapped
        y_hat = clf.predict(X_test)
        return skm.r2_score(y_hat, y_test)  # expect: metric-arguments-swapped

    def per_batch(batch, logits):
        return precision_score((logits.sigmoid() > 0.5).long(), batch["labels"])  # expect: metric-arguments-swapped
    """
    check(src, RULE)


def test_right_order_symmetric_metrics_and_other_libraries_are_fine():
    src = """
    import numpy as np
    import torchmetrics.functional as tmf
    from sklearn.metrics import precision_score, confusion_matrix, accuracy_score, f1_score, mean_squared_error

    def evaluate(preds, labels, y_test, clf, X_test):
        a = precision_score(labels, preds, average="macro")
        b = confusion_matrix(y_test, clf.predict(X_test))
        c = accuracy_score(preds, labels)
        d = f1_score(preds, labels)
        e = mean_squared_error(preds, labels)
        f = tmf.precision(preds, labels, task="binary")
        g = precision_score(y_true=labels, y_pred=preds)
        return a, b, c, d, e, f, g

    def recall_score(pred, target):
        return ((pred == 1) & (target == 1)).sum() / max((target == 1).sum(), 1)

    def mine(pred, target):
        return recall_score(pred, target)
    """
    check(src, RULE)
