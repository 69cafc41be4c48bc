import argparse

import pytorch_lightning as pl
import torch
import torch.nn as nn
from torch.utils.data import DataLoader
from transformers import BertModel

from news_data import NewsDataModule


class BertNewsClassifier(pl.LightningModule):
    def __init__(self, n_classes=4, lr=1e-3, pretrained="bert-base-uncased"):
        super().__init__()
        self.save_hyperparameters()
        self.bert_model = BertModel.from_pretrained(pretrained)
        for p in self.bert_model.parameters():
            p.requires_grad = False
        self.drop = nn.Dropout(p=0.2)
        self.fc1 = nn.Linear(self.bert_model.config.hidden_size, 512)
        self.out = nn.Linear(512, n_classes)
        self.loss_fn = nn.CrossEntropyLoss()

    def forward(self, input_ids, attention_mask):
        pooled = self.bert_model(input_ids=input_ids, attention_mask=attention_mask).pooler_output
        return self.out(self.drop(torch.relu(self.fc1(pooled))))

    def training_step(self, batch, batch_idx):
        logits = self(batch["input_ids"], batch["attention_mask"])
        loss = self.loss_fn(logits, batch["targets"])
        self.log("train_loss", loss)
        return loss

    def validation_step(self, batch, batch_idx):
        logits = self(batch["input_ids"], batch["attention_mask"])
        loss = self.loss_fn(logits, batch["targets"])
        acc = (logits.argmax(1) == batch["targets"]).float().mean()
        self.log_dict({"val_loss": loss, "val_acc": acc}, prog_bar=True)

    def test_step(self, batch, batch_idx):
        logits = self(batch["input_ids"], batch["attention_mask"])
        self.log("test_acc", (logits.argmax(1) == batch["targets"]).float().mean())

    def configure_optimizers(self):
        return torch.optim.AdamW(filter(lambda p: p.requires_grad, self.parameters()), lr=self.hparams.lr)


def evaluate_loader(model, data_loader):
    model.eval()
    correct, seen, n_batches = 0, 0, 0
    with torch.no_grad():
        for batch in data_loader:
            preds = model(batch["input_ids"], batch["attention_mask"]).argmax(dim=1)
            correct += torch.sum(preds == batch["targets"]).item()
            seen += preds.numel()
            n_batches += 1
    assert n_batches == len(data_loader)
    return correct / seen


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--max_epochs", type=int, default=5)
    parser.add_argument("--batch_size", type=int, default=16)
    parser.add_argument("--lr", type=float, default=1e-3)
    args = parser.parse_args()

    dm = NewsDataModule(batch_size=args.batch_size)
    dm.setup("fit")
    model = BertNewsClassifier(lr=args.lr)
    trainer = pl.Trainer(max_epochs=args.max_epochs, accelerator="auto")
    trainer.fit(model, datamodule=dm)
    dm.setup("test")
    test_acc = evaluate_loader(model, dm.test_dataloader())
    print(f"test accuracy {test_acc:.4f}")
