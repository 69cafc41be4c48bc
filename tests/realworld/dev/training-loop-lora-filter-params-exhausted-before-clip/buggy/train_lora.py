"""LoRA fine-tuning of the transformer with accelerate (noise-prediction objective)."""
import argparse

import torch
import torch.nn.functional as F
from accelerate import Accelerator
from torch.utils.data import DataLoader, TensorDataset

from lora import inject_lora, lora_state_dict
from model import TinyDiT


def parse_args():
    parser = argparse.ArgumentParser()
    parser.add_argument("--lr", type=float, default=1e-4)
    parser.add_argument("--max_grad_norm", type=float, default=0.01)
    parser.add_argument("--gradient_accumulation_steps", type=int, default=2)
    parser.add_argument("--num_train_epochs", type=int, default=3)
    parser.add_argument("--rank", type=int, default=4)
    parser.add_argument("--output", default="lora_weights.pt")
    return parser.parse_args()


def main():
    args = parse_args()
    accelerator = Accelerator(gradient_accumulation_steps=args.gradient_accumulation_steps)

    transformer = TinyDiT()
    transformer = inject_lora(transformer, rank=args.rank)
    lora_layers = filter(lambda p: p.requires_grad, transformer.parameters())
    optimizer = torch.optim.AdamW(lora_layers, lr=args.lr, weight_decay=1e-2)

    latents = torch.randn(256, 4, 16, 16)
    loader = DataLoader(TensorDataset(latents), batch_size=16, shuffle=True)
    betas = torch.linspace(1e-4, 0.02, 1000)
    alphas_cumprod = torch.cumprod(1.0 - betas, dim=0)

    transformer, optimizer, loader = accelerator.prepare(transformer, optimizer, loader)
    global_step = 0
    for epoch in range(args.num_train_epochs):
        transformer.train()
        for (x0,) in loader:
            with accelerator.accumulate(transformer):
                noise = torch.randn_like(x0)
                t = torch.randint(0, 1000, (x0.size(0),), device=x0.device)
                a = alphas_cumprod.to(x0.device)[t].view(-1, 1, 1, 1)
                noisy = a.sqrt() * x0 + (1 - a).sqrt() * noise
                pred = transformer(noisy, t)
                loss = F.mse_loss(pred.float(), noise.float())
                accelerator.backward(loss)
                if accelerator.sync_gradients:
                    params_to_clip = lora_layers
                    grad_norm = accelerator.clip_grad_norm_(params_to_clip, args.max_grad_norm)
                optimizer.step()
                optimizer.zero_grad()
            if accelerator.sync_gradients:
                global_step += 1
                if global_step % 10 == 0:
                    accelerator.print(f"step {global_step} loss {loss.item():.4f} grad_norm {float(grad_norm):.4f}")

    accelerator.wait_for_everyone()
    if accelerator.is_main_process:
        torch.save(lora_state_dict(accelerator.unwrap_model(transformer)), args.output)


if __name__ == "__main__":
    main()
