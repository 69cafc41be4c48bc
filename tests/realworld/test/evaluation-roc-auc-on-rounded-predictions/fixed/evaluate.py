import numpy as np
import torch
from sklearn.metrics import accuracy_score, classification_report, roc_auc_score


@torch.no_grad()
def predict(model, loader, device):
    model.eval()
    probs, labels = [], []
    for spec, y in loader:
        logits = model(spec.to(device))
        probs.append(torch.sigmoid(logits).cpu().numpy())
        labels.append(y.numpy())
    return np.concatenate(probs), np.concatenate(labels)


def evaluate(model, loader, device, threshold=0.5, target_names=("music", "speech")):
    test_pred_prob, y_true = predict(model, loader, device)
    test_pred = (test_pred_prob > threshold).astype(int)
    results = {
        "accuracy": accuracy_score(y_true, test_pred),
        "roc_auc": roc_auc_score(y_true, test_pred_prob),
    }
    print(classification_report(y_true, test_pred, target_names=list(target_names)))
    print(f"accuracy {results['accuracy']:.4f}  roc_auc {results['roc_auc']:.4f}")
    return results
