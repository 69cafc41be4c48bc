import torch
import torch.nn as nn
from torch.utils.data import DataLoader

from data import ECGDataset, load_records, split_records


if __name__ == "__main__":
    _, holdout = split_records(load_records())
    net = nn.Sequential(nn.Conv1d(1, 32, 7), nn.ReLU(), nn.AdaptiveAvgPool1d(1), nn.Flatten(), nn.Linear(32, 5))
    net.load_state_dict(torch.load("ecg_net.pt"))
    net.eval()
    correct = total = 0
    with torch.no_grad():
        for x, y in DataLoader(ECGDataset(holdout), batch_size=256):
            correct += (net(x.unsqueeze(1)).argmax(1) == y).sum().item()
            total += len(y)
    print(f"holdout accuracy {correct / total:.3f}")
