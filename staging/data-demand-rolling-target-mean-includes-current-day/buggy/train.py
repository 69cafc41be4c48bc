import torch
from torch import nn
from torch.utils.data import DataLoader

from dataset import TabularDemandDataset, load_and_split
from features import FEATURE_COLUMNS


class DemandMLP(nn.Module):
    def __init__(self, in_dim, hidden=256, dropout=0.1):
        super().__init__()
        self.net = nn.Sequential(
            nn.Linear(in_dim, hidden), nn.ReLU(), nn.Dropout(dropout),
            nn.Linear(hidden, hidden), nn.ReLU(), nn.Dropout(dropout),
            nn.Linear(hidden, 1),
        )

    def forward(self, x):
        return self.net(x).squeeze(-1)


@torch.no_grad()
def rmsle(model, loader):
    model.eval()
    se, n = 0.0, 0
    for x, y in loader:
        se += ((model(x) - y) ** 2).sum().item()
        n += y.numel()
    return (se / n) ** 0.5


def main():
    train_df, valid_df = load_and_split("data/store_item_sales.csv")
    train_set = TabularDemandDataset(train_df)
    valid_set = TabularDemandDataset(valid_df, stats=train_set.stats)
    train_loader = DataLoader(train_set, batch_size=1024, shuffle=True)
    valid_loader = DataLoader(valid_set, batch_size=4096)
    model = DemandMLP(len(FEATURE_COLUMNS))
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=1e-4)
    loss_fn = nn.MSELoss()
    for epoch in range(30):
        model.train()
        for x, y in train_loader:
            loss = loss_fn(model(x), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        print(f"epoch {epoch:2d} valid RMSLE {rmsle(model, valid_loader):.4f}")
    torch.save(model.state_dict(), "demand_mlp.pt")


if __name__ == "__main__":
    main()
