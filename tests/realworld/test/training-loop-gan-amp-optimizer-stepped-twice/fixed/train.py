"""Adversarial training loop with mixed precision (GradScaler) for both networks."""
import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

from models import (Generator, MultiPeriodDiscriminator, discriminator_loss,
                    feature_loss, generator_loss)

config = {
    "learning_rate": 1e-4,
    "betas": (0.8, 0.99),
    "eps": 1e-9,
    "lr_decay": 0.999875,
    "fp16_run": True,
    "epochs": 3,
    "batch_size": 8,
    "c_mel": 45,
}


def clip_grad_value_(parameters, clip_value):
    total_norm = 0.0
    for p in filter(lambda q: q.grad is not None, parameters):
        total_norm += p.grad.data.norm(2).item() ** 2
        if clip_value is not None:
            p.grad.data.clamp_(min=-clip_value, max=clip_value)
    return total_norm ** 0.5


def train_and_evaluate(epoch, nets, optims, scaler, loader, device, use_amp):
    net_g, net_d = nets
    optim_g, optim_d = optims
    net_g.train()
    net_d.train()
    for feats, wav in loader:
        feats, wav = feats.to(device), wav.to(device)
        with torch.autocast(device_type=device.type, enabled=use_amp):
            y_hat = net_g(feats)
            y_d_hat_r, y_d_hat_g = net_d(wav, y_hat.detach())
            loss_disc = discriminator_loss(y_d_hat_r, y_d_hat_g)
        optim_d.zero_grad()
        scaler.scale(loss_disc).backward()
        scaler.unscale_(optim_d)
        grad_norm_d = clip_grad_value_(net_d.parameters(), None)
        scaler.step(optim_d)

        with torch.autocast(device_type=device.type, enabled=use_amp):
            y_d_hat_r, y_d_hat_g = net_d(wav, y_hat)
            loss_mel = F.l1_loss(y_hat, wav) * config["c_mel"]
            loss_fm = feature_loss(y_d_hat_r, y_d_hat_g)
            loss_gen = generator_loss(y_d_hat_g)
            loss_gen_all = loss_gen + loss_fm + loss_mel
        optim_g.zero_grad()
        scaler.scale(loss_gen_all).backward()
        scaler.unscale_(optim_g)
        grad_norm_g = clip_grad_value_(net_g.parameters(), None)
        scaler.step(optim_g)
        scaler.update()

    print(f"epoch {epoch}: loss_disc {loss_disc.item():.3f} loss_gen_all {loss_gen_all.item():.3f} "
          f"grad_norm_d {grad_norm_d:.3f} grad_norm_g {grad_norm_g:.3f}")


def main():
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    use_amp = config["fp16_run"] and device.type == "cuda"
    feats = torch.randn(64, 32, 64)
    wav = torch.tanh(torch.randn(64, 1, 64 * 16))
    loader = DataLoader(TensorDataset(feats, wav), batch_size=config["batch_size"], shuffle=True)

    net_g = Generator().to(device)
    net_d = MultiPeriodDiscriminator().to(device)
    optim_g = torch.optim.AdamW(net_g.parameters(), config["learning_rate"], betas=config["betas"], eps=config["eps"])
    optim_d = torch.optim.AdamW(net_d.parameters(), config["learning_rate"], betas=config["betas"], eps=config["eps"])
    scheduler_g = torch.optim.lr_scheduler.ExponentialLR(optim_g, gamma=config["lr_decay"])
    scheduler_d = torch.optim.lr_scheduler.ExponentialLR(optim_d, gamma=config["lr_decay"])
    scaler = torch.amp.GradScaler(device.type, enabled=use_amp)

    for epoch in range(config["epochs"]):
        train_and_evaluate(epoch, (net_g, net_d), (optim_g, optim_d), scaler, loader, device, use_amp)
        scheduler_g.step()
        scheduler_d.step()


if __name__ == "__main__":
    main()
