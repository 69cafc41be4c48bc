import torch
from torch.utils.data import DataLoader


def fit(model, train_loader: DataLoader, val_loader: DataLoader, cfg):
    optimizer = torch.optim.AdamW(model.parameters(), lr=cfg.lr, weight_decay=cfg.weight_decay)
    scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer, factor=0.5, patience=5)
    loss_fn = torch.nn.L1Loss()
    best_val_loss, best_state_dict, epochs_without_improvement = float("inf"), None, 0
    for epoch in range(cfg.max_epochs):
        model.train()
        for comp, target in train_loader:
            optimizer.zero_grad()
            loss = loss_fn(model(comp).squeeze(-1), target)
            loss.backward()
            optimizer.step()
        model.eval()
        val_loss = 0.0
        with torch.no_grad():
            for comp, target in val_loader:
                val_loss += loss_fn(model(comp).squeeze(-1), target).item() * len(target)
        val_loss /= len(val_loader.dataset)
        scheduler.step(val_loss)
        if val_loss < best_val_loss:
            best_val_loss = val_loss
            best_state_dict = model.state_dict().copy()
            epochs_without_improvement = 0
        else:
            epochs_without_improvement += 1
            if epochs_without_improvement >= cfg.patience:
                break
    model.load_state_dict(best_state_dict)
    return model, best_val_loss
