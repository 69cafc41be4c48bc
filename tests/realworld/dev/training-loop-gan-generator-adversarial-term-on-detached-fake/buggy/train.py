import torch
from torch.utils.data import DataLoader, TensorDataset

from model import Image2Reverb


def make_pairs(n=320, seed=0):
    """Scene image -> decaying 'spectrogram' whose decay time depends on the image brightness."""
    g = torch.Generator().manual_seed(seed)
    images = torch.rand(n, 3, 16, 16, generator=g)
    brightness = images.mean(dim=(1, 2, 3))
    t = torch.linspace(0, 1, 16)
    freq = torch.linspace(0.5, 1.0, 16).unsqueeze(1)
    decay = 1.0 + 8.0 * (brightness - brightness.min()) / (brightness.max() - brightness.min())
    spec = torch.exp(-decay.view(-1, 1, 1) * freq * t.view(1, 1, -1)) * 2 - 1
    return TensorDataset(spec.unsqueeze(1), images)


def fit(model, loader, epochs):
    optimizers = model.configure_optimizers()
    step = 0
    for epoch in range(epochs):
        model.train()
        for batch in loader:
            for optimizer_idx, opt in enumerate(optimizers):
                opt.zero_grad()
                loss, logs = model.training_step(batch, optimizer_idx)
                loss.backward()
                opt.step()
                if step % 10 == 0:
                    print(f"epoch {epoch} step {step} opt {optimizer_idx} " +
                          " ".join(f"{k} {v:.4f}" for k, v in logs.items()))
            step += 1


def main():
    torch.manual_seed(0)
    loader = DataLoader(make_pairs(), batch_size=32, shuffle=True, drop_last=True)
    model = Image2Reverb()
    fit(model, loader, epochs=3)


if __name__ == "__main__":
    main()
