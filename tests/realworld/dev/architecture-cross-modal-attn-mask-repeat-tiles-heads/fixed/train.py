import torch
import torch.nn.functional as F
from torch import nn
from torch.utils.data import DataLoader, Dataset

from module_cross import CrossModel

CFG = {"hidden": 32, "layers": 2, "heads": 4, "max_words": 8, "max_frames": 8,
       "batch_size": 16, "epochs": 6, "lr": 3e-3}


class PairDataset(Dataset):
    """Caption/clip pairs with variable numbers of words and frames; label = matched or not."""

    def __init__(self, n, cfg, seed=0):
        g = torch.Generator().manual_seed(seed)
        d = cfg["hidden"]
        self.concepts = torch.randn(6, d, generator=torch.Generator().manual_seed(123))
        self.items = []
        for _ in range(n):
            n_words = int(torch.randint(2, cfg["max_words"] + 1, (1,), generator=g))
            n_frames = int(torch.randint(2, cfg["max_frames"] + 1, (1,), generator=g))
            text_c = int(torch.randint(0, 6, (1,), generator=g))
            match = int(torch.rand(1, generator=g) < 0.5)
            video_c = text_c if match else (text_c + int(torch.randint(1, 6, (1,), generator=g))) % 6
            words = torch.zeros(cfg["max_words"], d)
            frames = torch.zeros(cfg["max_frames"], d)
            words[:n_words] = self.concepts[text_c] + 0.5 * torch.randn(n_words, d, generator=g)
            frames[:n_frames] = self.concepts[video_c] + 0.5 * torch.randn(n_frames, d, generator=g)
            words[n_words:] = 4.0 * torch.randn(cfg["max_words"] - n_words, d, generator=g)
            frames[n_frames:] = 4.0 * torch.randn(cfg["max_frames"] - n_frames, d, generator=g)
            mask = torch.cat([torch.arange(cfg["max_words"]) < n_words,
                              torch.arange(cfg["max_frames"]) < n_frames]).float()
            self.items.append((words, frames, mask, float(match)))

    def __len__(self):
        return len(self.items)

    def __getitem__(self, idx):
        return self.items[idx]


class MatchHead(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.cross = CrossModel(cfg["hidden"], cfg["layers"], cfg["heads"],
                                max_positions=cfg["max_words"] + cfg["max_frames"])
        self.similarity_dense = nn.Linear(cfg["hidden"], 1)

    def forward(self, words, frames, mask):
        concat = torch.cat([words, frames], dim=1)
        concat_type = torch.cat([torch.zeros(words.shape[:2], dtype=torch.long),
                                 torch.ones(frames.shape[:2], dtype=torch.long)], dim=1)
        _, pooled = self.cross(concat, concat_type, mask)
        return self.similarity_dense(pooled).squeeze(-1)


def main():
    torch.manual_seed(0)
    train_loader = DataLoader(PairDataset(160, CFG, seed=0), batch_size=CFG["batch_size"], shuffle=True)
    model = MatchHead(CFG)
    optimizer = torch.optim.AdamW(model.parameters(), lr=CFG["lr"])
    step = 0
    for epoch in range(CFG["epochs"]):
        model.train()
        correct = total = 0
        for words, frames, mask, label in train_loader:
            logits = model(words, frames, mask)
            loss = F.binary_cross_entropy_with_logits(logits, label.float())
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            step += 1
            correct += ((logits > 0).float() == label).sum().item()
            total += len(label)
        print(f"epoch {epoch} step {step} loss {loss.item():.4f} train acc {correct / total:.3f}")


if __name__ == "__main__":
    main()
