import torch
import torch.nn as nn
import torch.nn.functional as F


class ProbClassifier(nn.Module):
    def __init__(self, n_in, n_classes, hidden=256, dropout=0.2):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(n_in, hidden), nn.ReLU(), nn.Dropout(dropout),
                                  nn.Linear(hidden, hidden), nn.ReLU())
        self.out = nn.Linear(hidden, n_classes)

    def forward(self, x):
        return F.softmax(self.out(self.body(x)), dim=-1)


class NetClassifier:
    def __init__(self, module, lr=1e-2, max_epochs=30):
        self.module_ = module
        self.criterion_ = nn.NLLLoss()
        self.optimizer_ = torch.optim.SGD(module.parameters(), lr=lr, momentum=0.9)
        self.max_epochs = max_epochs

    def get_loss(self, y_pred, y_true):
        return self.criterion_(torch.log(y_pred), y_true)

    def fit(self, loader):
        for epoch in range(self.max_epochs):
            for xb, yb in loader:
                loss = self.get_loss(self.module_(xb), yb)
                self.optimizer_.zero_grad()
                loss.backward()
                self.optimizer_.step()
        return self

    @torch.no_grad()
    def predict_proba(self, x):
        return self.module_(x)
