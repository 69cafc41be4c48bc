import numpy as np
import torch
from torch import nn

from data_provider.data_factory import data_provider
from models import DLinear
from utils.metrics import metric


class Exp_Main:
    def __init__(self, args):
        self.args = args
        self.device = torch.device("cpu")
        self.model = DLinear.Model(args).to(self.device)

    def _get_data(self, flag):
        return data_provider(self.args, flag)

    def _predict(self, batch_x):
        return self.model(batch_x.float().to(self.device))[:, -self.args.pred_len:, :]

    def vali(self, vali_loader, criterion):
        self.model.eval()
        total, count = 0.0, 0
        with torch.no_grad():
            for batch_x, batch_y in vali_loader:
                outputs = self._predict(batch_x)
                loss = criterion(outputs, batch_y[:, -self.args.pred_len:, :].float())
                total += loss.item() * batch_x.size(0)
                count += batch_x.size(0)
        self.model.train()
        return total / count

    def train(self):
        _, train_loader = self._get_data("train")
        _, vali_loader = self._get_data("val")
        optim = torch.optim.Adam(self.model.parameters(), lr=self.args.learning_rate)
        criterion = nn.MSELoss()
        for epoch in range(self.args.train_epochs):
            self.model.train()
            losses = []
            for batch_x, batch_y in train_loader:
                optim.zero_grad()
                outputs = self._predict(batch_x)
                loss = criterion(outputs, batch_y[:, -self.args.pred_len:, :].float())
                loss.backward()
                optim.step()
                losses.append(loss.item())
            print(f"Epoch {epoch + 1}: train {np.average(losses):.4f} vali {self.vali(vali_loader, criterion):.4f}")
        return self.model

    def test(self):
        test_data, test_loader = self._get_data("test")
        preds, trues = [], []
        self.model.eval()
        with torch.no_grad():
            for batch_x, batch_y in test_loader:
                outputs = self._predict(batch_x)
                preds.append(outputs.cpu().numpy())
                trues.append(batch_y[:, -self.args.pred_len:, :].numpy())
        preds = np.concatenate(preds, axis=0)
        trues = np.concatenate(trues, axis=0)
        mae, mse = metric(preds, trues)
        print(f"test windows evaluated: {len(preds)} of {len(test_data)}")
        print(f"mse:{mse:.4f}, mae:{mae:.4f}")
        return mse, mae
