import numpy as np
import torch
import torch.nn as nn
from sklearn.model_selection import train_test_split
from torch.utils.data import DataLoader, TensorDataset
from torchvision.models import vgg16

from prep import build_dataset

GENRES = ["blues", "classical", "country", "disco", "hiphop", "jazz", "metal", "pop", "reggae", "rock"]


def make_loaders(X, y, song_ids, seed=0):
    X_tr, X_val, y_tr, y_val = train_test_split(X, y, test_size=0.2, random_state=seed, stratify=y)
    tr = TensorDataset(torch.tensor(X_tr), torch.tensor(y_tr))
    va = TensorDataset(torch.tensor(X_val), torch.tensor(y_val))
    return DataLoader(tr, batch_size=32, shuffle=True), DataLoader(va, batch_size=64)


def build_model():
    net = vgg16(num_classes=len(GENRES))
    net.features[0] = nn.Conv2d(1, 64, 3, padding=1)
    return net


if __name__ == "__main__":
    X, y, song_ids = build_dataset("gtzan/genres", GENRES)
    train_dl, val_dl = make_loaders(X, y, song_ids)
    net = build_model().cuda()
    opt = torch.optim.Adam(net.parameters(), lr=1e-4)
    ce = nn.CrossEntropyLoss()
    for epoch in range(40):
        net.train()
        for xb, yb in train_dl:
            opt.zero_grad()
            ce(net(xb.cuda()), yb.cuda()).backward()
            opt.step()
        net.eval()
        with torch.no_grad():
            acc = np.mean([(net(xb.cuda()).argmax(1).cpu() == yb).float().mean().item() for xb, yb in val_dl])
        print(epoch, acc)
