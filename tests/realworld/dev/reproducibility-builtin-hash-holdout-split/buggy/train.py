import torch
import torch.nn as nn
from torch.utils.data import DataLoader

from data import ECGDataset, load_records, split_records


def main():
    train_recs, _ = split_records(load_records())
    loader = DataLoader(ECGDataset(train_recs), batch_size=64, shuffle=True)
    net = nn.Sequential(nn.Conv1d(1, 32, 7), nn.ReLU(), nn.AdaptiveAvgPool1d(1), nn.Flatten(), nn.Linear(32, 5))
    opt = torch.optim.Adam(net.parameters(), lr=1e-3)
    for epoch in range(30):
        for x, y in loader:
            loss = nn.functional.cross_entropy(net(x.unsqueeze(1)), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
    torch.save(net.state_dict(), "ecg_net.pt")


if __name__ == "__main__":
    main()
