"""The ``auc-from-hard-predictions`` rule (``mlsleuth/scan/rules/evaluation/auc_from_hard_predictions.py``)."""

from __future__ import annotations

from scan.helpers import check

RULE = {"auc-from-hard-predictions"}


def test_auc_of_predicted_classes():
    src = """
    import numpy as np
    import torch
    from sklearn.metrics import roc_auc_score, average_precision_score
    from sklearn import metrics

    def evaluate(model, loader):
        preds, labels = [], []
        with torch.no_grad():
            for x, y in loader:
                logits = model(x)
                preds.append(logits.argmax(dim=1).cpu().numpy())
                labels.append(y.numpy())
        auc = roc_auc_score(np.concatenate(labels), np.concatenate(preds))  # expect: auc-from-hard-predictions
        return auc

    def binary(model, x, y):
        probs = torch.sigmoid(model(x))
        hard = (probs > 0.5).long()
        ap = average_precision_score(y, hard.cpu().numpy())  # expect: auc-from-hard-predictions
        fpr, tpr, _ = metrics.roc_curve(y, probs.round().numpy())  # expect: auc-from-hard-predictions
        _, pred = torch.max(model(x), 1)
        auc = metrics.roc_auc_score(y_true=y, y_score=torch.max(model(x), 1)[1])  # expect: auc-from-hard-predictions
        return ap, fpr, tpr, auc, pred
    """
    check(src, RULE)


def test_auc_of_scores_is_fine():
    src = """
    import numpy as np
    import torch
    from sklearn.metrics import roc_auc_score

    def evaluate(model, loader, clf, X_test, y_test):
        scores, labels = [], []
        for x, y in loader:
            probs = torch.softmax(model(x), dim=1)
            scores.append(probs[:, 1].cpu().numpy())
            labels.append(y.numpy())
        a = roc_auc_score(np.concatenate(labels), np.concatenate(scores))
        b = roc_auc_score(y_test, clf.predict_proba(X_test)[:, 1])
        c = roc_auc_score(y_test, probs.round(4).numpy())
        d = roc_auc_score(y_test, clf.predict(X_test))
        return a, b, c, d
    """
    check(src, RULE)
