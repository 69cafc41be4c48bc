"""Metric hooks passed to the HF Trainer for masked-LM domain adaptation."""
import numpy as np
import torch


def preprocess_logits_for_metrics(logits, labels):
    if isinstance(logits, tuple):
        logits = logits[0]
    return torch.argmax(logits, dim=-1)


def token_accuracy(preds, labels, ignore_index=-100):
    mask = labels != ignore_index
    correct = (preds == labels) & mask
    return float(correct.sum()) / max(int(mask.sum()), 1)


def compute_metrics(eval_preds):
    preds, labels = eval_preds
    preds = np.asarray(preds)
    labels = np.asarray(labels)
    return {"token_accuracy": token_accuracy(preds, labels)}
