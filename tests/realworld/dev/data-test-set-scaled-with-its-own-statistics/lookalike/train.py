import torch
import torch.nn as nn

from prep import make_splits


class LogReg(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.linear = nn.Linear(d, 2)

    def forward(self, x):
        return self.linear(x)


def train(model, x, y, epochs=300, lr=1e-2, weight_decay=1e-2):
    opt = torch.optim.Adam(model.parameters(), lr=lr, weight_decay=weight_decay)
    loss_fn = nn.CrossEntropyLoss()
    for epoch in range(epochs):
        opt.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()
    return model


if __name__ == "__main__":
    x_tr, x_te, y_tr, y_te = [torch.from_numpy(a) for a in make_splits("transactions.csv")]
    lr_model = train(LogReg(x_tr.shape[1]), x_tr, y_tr)
    with torch.no_grad():
        print("test acc", (lr_model(x_te).argmax(1) == y_te).float().mean().item())
