import copy
import os

import torch
from accelerate import Accelerator
from accelerate.utils import set_seed
from torch.utils.data import DataLoader
from transformers import get_cosine_schedule_with_warmup

from config import TrainConfig
from data import SyntheticSensorWindows
from flow import RectifiedFlow
from model import VelocityNet


@torch.no_grad()
def update_ema(ema_model, model, decay):
    for ema_p, p in zip(ema_model.parameters(), model.parameters()):
        ema_p.lerp_(p.detach(), 1 - decay)


def main(cfg: TrainConfig):
    accelerator = Accelerator(mixed_precision=cfg.mixed_precision, log_with=None)
    set_seed(cfg.seed)

    dataset = SyntheticSensorWindows(200_000, cfg.seq_len, cfg.n_channels)
    loader = DataLoader(dataset, batch_size=cfg.batch_size, shuffle=True,
                        num_workers=4, drop_last=True, pin_memory=True)
    model = VelocityNet(cfg.n_channels, cfg.hidden, cfg.n_blocks)
    ema_model = copy.deepcopy(model).requires_grad_(False)
    optimizer = torch.optim.AdamW(model.parameters(), lr=cfg.lr, weight_decay=cfg.weight_decay)
    scheduler = get_cosine_schedule_with_warmup(optimizer, cfg.warmup_steps, cfg.max_steps)
    model, optimizer, loader, scheduler = accelerator.prepare(model, optimizer, loader, scheduler)
    ema_model.to(accelerator.device)
    flow = RectifiedFlow()
    # noise and timesteps come from a per-process stream
    noise_gen = torch.Generator(device=accelerator.device)
    noise_gen.manual_seed(cfg.seed + accelerator.process_index)

    step = 0
    while step < cfg.max_steps:
        for x0 in loader:
            with accelerator.autocast():
                loss = flow.loss(model, x0, generator=noise_gen)
            accelerator.backward(loss)
            if accelerator.sync_gradients:
                accelerator.clip_grad_norm_(model.parameters(), cfg.grad_clip)
            optimizer.step()
            scheduler.step()
            optimizer.zero_grad(set_to_none=True)
            update_ema(ema_model, accelerator.unwrap_model(model), cfg.ema_decay)
            step += 1

            if step % cfg.log_every == 0:
                avg = accelerator.gather(loss.detach()).mean().item()
                accelerator.print(f"step {step}: loss {avg:.4f} lr {scheduler.get_last_lr()[0]:.2e}")
            if step % cfg.sample_every == 0 and accelerator.is_main_process:
                g = torch.Generator(device=accelerator.device).manual_seed(0)
                samples = flow.sample(ema_model, (16, cfg.n_channels, cfg.seq_len),
                                      device=accelerator.device, generator=g)
                os.makedirs(cfg.output_dir, exist_ok=True)
                torch.save(samples.cpu(), os.path.join(cfg.output_dir, f"samples_{step}.pt"))
                torch.save(ema_model.state_dict(), os.path.join(cfg.output_dir, "ema.pt"))
            if step >= cfg.max_steps:
                break
    accelerator.wait_for_everyone()


if __name__ == "__main__":
    main(TrainConfig())
