import torch
import lightning as L
from transformers import AutoModelForSequenceClassification, get_linear_schedule_with_warmup


class TextClassifier(L.LightningModule):
    def __init__(self, backbone="bert-base-uncased", num_labels=2, lr=2e-5, weight_decay=0.01,
                 warmup_steps=500, total_steps=10000):
        super().__init__()
        self.save_hyperparameters()
        self.model = AutoModelForSequenceClassification.from_pretrained(backbone, num_labels=num_labels)

    def training_step(self, batch, batch_idx):
        out = self.model(**batch)
        self.log("train_loss", out.loss)
        return out.loss

    def validation_step(self, batch, batch_idx):
        out = self.model(**batch)
        acc = (out.logits.argmax(-1) == batch["labels"]).float().mean()
        self.log("val_acc", acc, prog_bar=True)

    def configure_optimizers(self):
        hp = self.hparams
        optimizer = torch.optim.Adam(self.parameters(), lr=hp.lr, weight_decay=hp.weight_decay)
        scheduler = get_linear_schedule_with_warmup(optimizer, hp.warmup_steps, hp.total_steps)
        return [optimizer], [{"scheduler": scheduler, "interval": "step"}]
