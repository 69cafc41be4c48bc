import lightning as L
import torch
import torch.nn.functional as F

from model import SmilesVAE


class LitSmilesVAE(L.LightningModule):
    def __init__(self, vocab_size, pad_idx, lr=1e-3, kl_max=0.1, kl_warmup_steps=20000):
        super().__init__()
        self.save_hyperparameters()
        self.model = SmilesVAE(vocab_size, pad_idx)
        self.pad_idx = pad_idx

    def _losses(self, tokens):
        logits, mu, logvar = self.model(tokens)
        target = tokens[:, 1:]
        recon = F.cross_entropy(logits.reshape(-1, logits.size(-1)), target.reshape(-1),
                                ignore_index=self.pad_idx)
        kl = -0.5 * torch.mean(torch.sum(1 + logvar - mu.pow(2) - logvar.exp(), dim=1))
        return logits, target, recon, kl

    def kl_weight(self):
        return self.hparams.kl_max * min(1.0, self.global_step / self.hparams.kl_warmup_steps)

    def training_step(self, tokens, batch_idx):
        _, _, recon, kl = self._losses(tokens)
        loss = recon + self.kl_weight() * kl
        self.log_dict({"train/recon": recon, "train/kl": kl}, prog_bar=True)
        return loss

    def validation_step(self, tokens, batch_idx):
        logits, target, recon, kl = self._losses(tokens)
        preds = logits.argmax(dim=-1)
        token_acc = (preds == target).float().mean()
        self.log_dict({"val/recon": recon, "val/kl": kl, "val/token_acc": token_acc}, prog_bar=True)

    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters(), lr=self.hparams.lr)
