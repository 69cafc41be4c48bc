import torch
import torch.nn.functional as F
from torch import nn, optim

from config import Config
from model import Transformer
from utils import evaluate_model, make_loaders


def run_epoch(model, train_iterator, optimizer, loss_fn):
    model.train()
    losses = []
    for x, y in train_iterator:
        optimizer.zero_grad()
        y_pred = model(x, pad_mask=(x == 0))
        loss = loss_fn(F.log_softmax(y_pred, dim=1), y)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return sum(losses) / len(losses)


def main():
    torch.manual_seed(0)
    config = Config()
    train_iterator, val_iterator = make_loaders(config)
    model = Transformer(config, config.vocab_size)
    optimizer = optim.Adam(model.parameters(), lr=config.lr)
    NLLLoss = nn.NLLLoss()
    for epoch in range(config.max_epochs):
        train_loss = run_epoch(model, train_iterator, optimizer, NLLLoss)
        val_acc = evaluate_model(model, val_iterator)
        print("Epoch {}: train loss {:.4f}, val acc {:.4f}".format(epoch, train_loss, val_acc))


if __name__ == "__main__":
    main()
