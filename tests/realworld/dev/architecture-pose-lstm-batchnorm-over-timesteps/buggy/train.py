import time

import torch
from torch import nn, optim

import config
from data import load_split, random_batch
from model import build_model


@torch.no_grad()
def evaluate(model, x, y, batch_size=512):
    model.eval()
    correct = 0
    for start in range(0, len(x), batch_size):
        logits = model(x[start:start + batch_size])
        correct += (logits.argmax(1) == y[start:start + batch_size]).sum().item()
    model.train()
    return correct / len(x)


def main():
    torch.manual_seed(0)
    x_train, y_train = load_split("train")
    x_test, y_test = load_split("test")

    model = build_model()
    criterion = nn.CrossEntropyLoss()
    optimizer = optim.SGD(model.parameters(), lr=config.LEARNING_RATE, momentum=config.MOMENTUM)

    start = time.time()
    running = 0.0
    for it in range(1, config.N_ITERS + 1):
        xb, yb = random_batch(x_train, y_train, config.BATCH_SIZE)
        optimizer.zero_grad()
        loss = criterion(model(xb), yb)
        loss.backward()
        optimizer.step()
        running += loss.item()
        if it % config.PRINT_EVERY == 0:
            acc = evaluate(model, x_test, y_test)
            print(f"{it} ({time.time() - start:.0f}s) loss {running / config.PRINT_EVERY:.4f} test acc {acc:.3f}")
            running = 0.0
    torch.save(model.state_dict(), "lstm_pose_bn.pt")


if __name__ == "__main__":
    main()
