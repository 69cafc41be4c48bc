import numpy as np
import torch as th
from torch.utils.data import DataLoader


class NCC_model(th.nn.Module):
    def __init__(self, n_hiddens=20, kernel_size=3):
        super().__init__()
        self.conv = th.nn.Sequential(th.nn.Conv1d(2, n_hiddens, kernel_size), th.nn.ReLU(),
                                     th.nn.Conv1d(n_hiddens, n_hiddens, kernel_size), th.nn.ReLU())
        self.dense = th.nn.Sequential(th.nn.Linear(n_hiddens, n_hiddens), th.nn.ReLU(), th.nn.Linear(n_hiddens, 1))

    def forward(self, x):
        return self.dense(self.conv(x).mean(dim=2))


class NCC:
    def __init__(self):
        self.model = None

    def fit(self, dataset, epochs=50, batch_size=16, learning_rate=0.01, device="cpu"):
        self.model = NCC_model().to(device)
        opt = th.optim.Adam(self.model.parameters(), lr=learning_rate)
        criterion = th.nn.BCEWithLogitsLoss()
        loader = DataLoader(dataset, batch_size=batch_size, shuffle=True, collate_fn=lambda b: b)
        for epoch in range(epochs):
            running_loss, running_acc = [], []
            for batch in loader:
                opt.zero_grad()
                output = th.cat([self.model(pair.t().unsqueeze(0).to(device)) for pair, _ in batch], 0).squeeze(-1)
                labels = th.tensor([lab for _, lab in batch], dtype=th.float32, device=device)
                loss = criterion(output, labels)
                loss.backward()
                opt.step()
                preds = th.where(output.detach() > .5, 1.0, 0.0)
                running_acc.append((preds == labels).float().mean().item())
                running_loss.append(loss.item())
            print(f"epoch {epoch} loss {np.mean(running_loss):.4f} acc {np.mean(running_acc):.4f}")

    @th.no_grad()
    def predict_proba(self, pair, device="cpu"):
        self.model.eval()
        return th.sigmoid(self.model(pair.t().unsqueeze(0).to(device))).item()
