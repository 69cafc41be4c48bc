import argparse

import numpy as np
import torch
import torch.nn as nn
from sklearn.metrics import f1_score
from torch.utils.data import DataLoader

from dataloader import MOSEIEmotionDataset
from model import BiModalGRU

def class_weights(dataset):
    labels = torch.tensor([int(v > 0) for v in dataset.intensity])
    counts = torch.bincount(labels, minlength=2).float()
    rates = counts / counts.sum()
    return 1 / rates


def train_or_eval(model, loss_function, loader, optimizer=None):
    preds, labels, losses = [], [], []
    model.train(optimizer is not None)
    for text, audio, video, label in loader:
        with torch.set_grad_enabled(optimizer is not None):
            logits = model(text, audio, video)
            loss = loss_function(logits, label)
        if optimizer is not None:
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        preds.append(logits.argmax(1).numpy())
        labels.append(label.numpy())
        losses.append(loss.item())
    preds, labels = np.concatenate(preds), np.concatenate(labels)
    return float(np.mean(losses)), f1_score(labels, preds, average="weighted")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--emotion", default="fear")
    parser.add_argument("--epochs", type=int, default=5)
    parser.add_argument("--lr", type=float, default=1e-3)
    args = parser.parse_args()

    torch.manual_seed(0)
    train_set = MOSEIEmotionDataset(1500, args.emotion, seed=0)
    test_set = MOSEIEmotionDataset(400, args.emotion, seed=1)
    train_loader = DataLoader(train_set, batch_size=64, shuffle=True)
    test_loader = DataLoader(test_set, batch_size=64)

    model = BiModalGRU()
    loss_weights = class_weights(train_set)
    loss_function = nn.CrossEntropyLoss(weight=loss_weights)
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr, weight_decay=1e-5)

    for epoch in range(args.epochs):
        train_loss, train_f1 = train_or_eval(model, loss_function, train_loader, optimizer)
        test_loss, test_f1 = train_or_eval(model, loss_function, test_loader)
        print(f"epoch {epoch}: train loss {train_loss:.3f} f1 {train_f1:.3f} | test loss {test_loss:.3f} f1 {test_f1:.3f}")


if __name__ == "__main__":
    main()
