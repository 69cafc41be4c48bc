import torch
import torch.nn.functional as F
import torchmetrics
import pytorch_lightning as pl
from transformers import AutoModelForSequenceClassification


class ColaModel(pl.LightningModule):
    def __init__(self, model_name="google/bert_uncased_L-2_H-128_A-2", lr=3e-5):
        super().__init__()
        self.save_hyperparameters()
        self.bert = AutoModelForSequenceClassification.from_pretrained(model_name, num_labels=2)
        self.num_classes = 2
        self.accuracy_metric = torchmetrics.Accuracy(task="multiclass", num_classes=self.num_classes)
        self.f1_metric = torchmetrics.F1Score(task="multiclass", num_classes=self.num_classes, average="macro")

    def forward(self, input_ids, attention_mask, labels=None):
        return self.bert(input_ids=input_ids, attention_mask=attention_mask, labels=labels)

    def training_step(self, batch, batch_idx):
        outputs = self.forward(batch["input_ids"], batch["attention_mask"], labels=batch["label"])
        preds = torch.argmax(outputs.logits, 1)
        self.accuracy_metric(preds, batch["label"])
        self.log("train/loss", outputs.loss, prog_bar=True, on_epoch=True)
        self.log("train/acc", self.accuracy_metric, prog_bar=True, on_epoch=True)
        return outputs.loss

    def validation_step(self, batch, batch_idx):
        labels = batch["label"]
        outputs = self.forward(batch["input_ids"], batch["attention_mask"], labels=labels)
        preds = torch.argmax(outputs.logits, 1)
        self.accuracy_metric(preds, labels)
        self.f1_metric(preds, labels)
        self.log("valid/loss", outputs.loss, prog_bar=True, on_step=False, on_epoch=True)
        self.log("valid/acc", self.accuracy_metric, prog_bar=True, on_step=False, on_epoch=True)
        self.log("valid/f1", self.f1_metric, prog_bar=True, on_step=False, on_epoch=True)
        return {"labels": labels, "logits": outputs.logits}

    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters(), lr=self.hparams["lr"])
