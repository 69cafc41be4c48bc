import numpy as np
import torch
import torch.nn as nn
from transformers import BertModel, get_linear_schedule_with_warmup


class SentimentClassifier(nn.Module):
    def __init__(self, n_classes, pretrained="bert-base-multilingual-cased"):
        super().__init__()
        self.bert = BertModel.from_pretrained(pretrained)
        self.drop = nn.Dropout(p=0.3)
        self.out = nn.Linear(self.bert.config.hidden_size, n_classes)

    def forward(self, input_ids, attention_mask):
        pooled = self.bert(input_ids=input_ids, attention_mask=attention_mask).pooler_output
        return self.out(self.drop(pooled))


class BertTrainer:
    def __init__(self, model, train_loader, val_loader, device, epochs=4, lr=2e-5):
        self.model = model.to(device)
        self.train_loader = train_loader
        self.val_loader = val_loader
        self.device = device
        self.epochs = epochs
        self.loss_fn = nn.CrossEntropyLoss().to(device)
        self.optimizer = torch.optim.AdamW(model.parameters(), lr=lr)
        total_steps = len(train_loader) * epochs
        self.scheduler = get_linear_schedule_with_warmup(self.optimizer, 0, total_steps)

    def _step_batch(self, d):
        input_ids = d["input_ids"].to(self.device)
        attention_mask = d["attention_mask"].to(self.device)
        targets = d["targets"].to(self.device)
        outputs = self.model(input_ids=input_ids, attention_mask=attention_mask)
        _, preds = torch.max(outputs, dim=1)
        loss = self.loss_fn(outputs, targets)
        return loss, torch.sum(preds == targets)

    def train_epoch(self):
        self.model.train()
        losses, correct_predictions = [], 0
        for d in self.train_loader:
            loss, correct = self._step_batch(d)
            correct_predictions += correct
            losses.append(loss.item())
            loss.backward()
            nn.utils.clip_grad_norm_(self.model.parameters(), max_norm=1.0)
            self.optimizer.step()
            self.scheduler.step()
            self.optimizer.zero_grad()
        return correct_predictions.double() / len(self.train_loader.dataset), np.mean(losses)

    def eval_model(self, data_loader):
        self.model.eval()
        losses, correct_predictions = [], 0
        with torch.no_grad():
            for d in data_loader:
                loss, correct = self._step_batch(d)
                correct_predictions += correct
                losses.append(loss.item())
        # losses holds one mean per batch, so average over the number of batches
        avg_loss = sum(losses) / float(len(data_loader))
        return correct_predictions.double() / float(len(data_loader.dataset)), avg_loss

    def fit(self, save_path="best_model_state.bin"):
        best_accuracy = 0
        for epoch in range(self.epochs):
            train_acc, train_loss = self.train_epoch()
            val_acc, val_loss = self.eval_model(self.val_loader)
            print(f"Epoch {epoch + 1}/{self.epochs}  train loss {train_loss:.4f} acc {train_acc:.4f}  "
                  f"val loss {val_loss:.4f} acc {val_acc:.4f}")
            if val_acc > best_accuracy:
                torch.save(self.model.state_dict(), save_path)
                best_accuracy = val_acc
        return best_accuracy
