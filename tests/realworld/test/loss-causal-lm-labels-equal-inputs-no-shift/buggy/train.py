import torch
from torch.utils.data import DataLoader

from config import TrainConfig
from data import PackedTextDataset
from model import TinyDecoder


def train(cfg: TrainConfig):
    ds = PackedTextDataset(cfg.data_path, cfg.block_size)
    loader = DataLoader(ds, batch_size=cfg.batch_size, shuffle=True, drop_last=True)
    lm = TinyDecoder(ds.vocab_size, d=cfg.d_model, n_layer=cfg.n_layer)
    opt = torch.optim.AdamW(lm.parameters(), lr=cfg.lr, weight_decay=0.1)
    for step, ids in enumerate(loader):
        _, loss = lm(ids, labels=ids)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        if step % cfg.log_every == 0:
            print(f"step {step} loss {loss.item():.3f} ppl {torch.exp(loss).item():.1f}")
        if step >= cfg.max_steps:
            break


if __name__ == "__main__":
    train(TrainConfig())
