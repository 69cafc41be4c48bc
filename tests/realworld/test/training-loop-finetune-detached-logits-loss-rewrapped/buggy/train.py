"""Fine-tune the sentiment model on a small labelled set (last layers only)."""
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

from finetuning import fit_model, freeze_layers
from model_def import torchmoji_transfer

NB_TOKENS = 500
NB_CLASSES = 2
MAXLEN = 30


def make_split(n, generator):
    seqs = torch.randint(1, NB_TOKENS, (n, MAXLEN), generator=generator)
    lengths = torch.randint(5, MAXLEN, (n,), generator=generator)
    seqs[torch.arange(MAXLEN).unsqueeze(0) >= lengths.unsqueeze(1)] = 0
    labels = (seqs[:, 0] % 2).long()
    return TensorDataset(seqs, labels)


def main():
    g = torch.Generator().manual_seed(0)
    train_loader = DataLoader(make_split(512, g), batch_size=32, shuffle=True)
    val_loader = DataLoader(make_split(128, g), batch_size=64)

    model = torchmoji_transfer(NB_CLASSES, NB_TOKENS)
    model = freeze_layers(model)
    trainable = [p for p in model.parameters() if p.requires_grad]
    optim_op = torch.optim.Adam(trainable, lr=1e-3)
    loss_op = nn.CrossEntropyLoss()
    best = fit_model(model, loss_op, optim_op, train_loader, val_loader, 5, "finetuned.pt")
    print("best val acc", best)


if __name__ == "__main__":
    main()
