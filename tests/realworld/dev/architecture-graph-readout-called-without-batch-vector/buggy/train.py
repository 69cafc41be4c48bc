"""Train a GINE regressor on ZINC (constrained solubility), MAE objective."""
import torch
from torch_geometric.datasets import ZINC
from torch_geometric.loader import DataLoader

from model import GINERegressor


def run_epoch(model, loader, device, optimizer=None):
    training = optimizer is not None
    model.train(training)
    total, count = 0.0, 0
    for data in loader:
        data = data.to(device)
        with torch.set_grad_enabled(training):
            out = model(data.x, data.edge_index, data.edge_attr)
            loss = (out.squeeze() - data.y).abs().mean()
        if training:
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        total += loss.item() * data.num_graphs
        count += data.num_graphs
    return total / count


def main():
    device = "cuda" if torch.cuda.is_available() else "cpu"
    root = "data/ZINC"
    train_ds = ZINC(root, subset=True, split="train")
    val_ds = ZINC(root, subset=True, split="val")
    test_ds = ZINC(root, subset=True, split="test")
    train_loader = DataLoader(train_ds, batch_size=128, shuffle=True)
    val_loader = DataLoader(val_ds, batch_size=128)
    test_loader = DataLoader(test_ds, batch_size=128)

    model = GINERegressor().to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer, mode="min", factor=0.5, patience=10)

    best_val, test_at_best = float("inf"), None
    for epoch in range(1, 301):
        train_mae = run_epoch(model, train_loader, device, optimizer)
        val_mae = run_epoch(model, val_loader, device)
        scheduler.step(val_mae)
        if val_mae < best_val:
            best_val, test_at_best = val_mae, run_epoch(model, test_loader, device)
            torch.save(model.state_dict(), "gine_zinc_best.pt")
        print(f"epoch {epoch:03d} train {train_mae:.4f} val {val_mae:.4f} test@best {test_at_best:.4f}")
        if optimizer.param_groups[0]["lr"] < 1e-5:
            break


if __name__ == "__main__":
    main()
