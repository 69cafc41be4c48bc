import numpy as np
import torch
from sklearn.metrics import accuracy_score, classification_report, roc_auc_score


@torch.no_grad()
def predict(model, loader, device):
    model.eval()
    scores, labels = [], []
    for spec, y in loader:
        scores.append(model(spec.to(device)).cpu().numpy())
        labels.append(y.numpy())
    return np.concatenate(scores), np.concatenate(labels)


def evaluate(model, loader, device, threshold=0.5, target_names=("music", "speech")):
    test_logits, y_true = predict(model, loader, device)
    test_pred = (test_logits > np.log(threshold / (1 - threshold))).astype(int)
    results = {
        "accuracy": accuracy_score(y_true, test_pred),
        "roc_auc": roc_auc_score(y_true, test_logits),
    }
    print(classification_report(y_true, test_pred, target_names=list(target_names)))
    print(f"accuracy {results['accuracy']:.4f}  roc_auc {results['roc_auc']:.4f}")
    return results
