import argparse
import time

import torch
import torch.nn as nn

from dataset import ClipFeatureDataset
from model import LSTM


def train(train_data, model, criterion, optimizer, epoch):
    model.train()
    end = time.time()
    for i, (inputs, target) in enumerate(train_data):
        model.hidden = model.init_hidden(inputs.size(0))
        output = model(inputs)
        loss = criterion(output, target)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if i % 20 == 0:
            print(f"epoch {epoch} [{i}/{len(train_data)}] loss {loss.item():.4f} time/batch {time.time() - end:.3f}s")
        end = time.time()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--features", default="ucf101_rgb_features")
    parser.add_argument("--epochs", type=int, default=60)
    parser.add_argument("--lr", type=float, default=1e-3)
    args = parser.parse_args()
    loader = torch.utils.data.DataLoader(ClipFeatureDataset(args.features, clip_len=12), batch_size=1, shuffle=True)
    model = LSTM()
    criterion = nn.NLLLoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9)
    for epoch in range(args.epochs):
        train(loader, model, criterion, optimizer, epoch)


if __name__ == "__main__":
    main()
