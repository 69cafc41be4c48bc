import argparse

import torch
import torch.nn.functional as F

from glide_util import load_model


def fake_batches(n_batches, batch_size, device):
    for _ in range(n_batches):
        tokens = torch.randint(0, 50257, (batch_size, 128), device=device)
        mask = (torch.rand(batch_size, 128, device=device) < 0.3).float()
        images = torch.rand(batch_size, 3, 64, 64, device=device) * 2 - 1
        yield tokens, mask, images


def run_glide_finetune_epoch(model, alphas_cumprod, optimizer, batches, device, log_frequency=50):
    model.train()
    for step, (tokens, mask, x0) in enumerate(batches):
        t = torch.randint(0, alphas_cumprod.numel(), (x0.size(0),), device=device)
        noise = torch.randn_like(x0)
        a = alphas_cumprod[t].view(-1, 1, 1, 1)
        x_t = a.sqrt() * x0 + (1 - a).sqrt() * noise
        pred = model(x_t, t, tokens, mask)
        loss = F.mse_loss(pred, noise)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if step % log_frequency == 0:
            print(f"step {step} loss {loss.item():.4f}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--learning_rate", type=float, default=1e-5)
    parser.add_argument("--adam_weight_decay", type=float, default=0.0)
    parser.add_argument("--use_fp16", action="store_true")
    parser.add_argument("--freeze_transformer", action="store_true")
    parser.add_argument("--batch_size", type=int, default=4)
    parser.add_argument("--epochs", type=int, default=10)
    args = parser.parse_args()

    device = "cuda" if torch.cuda.is_available() else "cpu"
    glide_model, alphas_cumprod = load_model(use_fp16=args.use_fp16,
                                             freeze_transformer=args.freeze_transformer, device=device)
    optimizer = torch.optim.AdamW(
        [p for p in glide_model.parameters() if p.requires_grad],
        lr=args.learning_rate,
        weight_decay=args.adam_weight_decay,
    )
    for epoch in range(args.epochs):
        run_glide_finetune_epoch(glide_model, alphas_cumprod, optimizer,
                                 fake_batches(200, args.batch_size, device), device)
        torch.save(glide_model.state_dict(), f"glide-ft-{epoch}.pt")


if __name__ == "__main__":
    main()
