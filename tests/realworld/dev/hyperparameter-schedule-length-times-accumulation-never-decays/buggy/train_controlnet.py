import argparse
import math

import torch
import torch.nn.functional as F
from accelerate import Accelerator
from diffusers import ControlNetModel, DDPMScheduler, UNet2DConditionModel
from diffusers.optimization import get_scheduler

from dataset import make_train_dataloader


def parse_args():
    p = argparse.ArgumentParser()
    p.add_argument("--pretrained_model_name_or_path", default="runwayml/stable-diffusion-v1-5")
    p.add_argument("--learning_rate", type=float, default=1e-5)
    p.add_argument("--lr_scheduler", default="cosine")
    p.add_argument("--lr_warmup_steps", type=int, default=300)
    p.add_argument("--num_train_epochs", type=int, default=10)
    p.add_argument("--max_train_steps", type=int, default=None)
    p.add_argument("--gradient_accumulation_steps", type=int, default=4)
    p.add_argument("--train_batch_size", type=int, default=4)
    return p.parse_args()


def main():
    args = parse_args()
    accelerator = Accelerator(gradient_accumulation_steps=args.gradient_accumulation_steps)
    unet = UNet2DConditionModel.from_pretrained(args.pretrained_model_name_or_path, subfolder="unet")
    controlnet = ControlNetModel.from_unet(unet)
    noise_scheduler = DDPMScheduler.from_pretrained(args.pretrained_model_name_or_path, subfolder="scheduler")
    unet.requires_grad_(False)
    optimizer = torch.optim.AdamW(controlnet.parameters(), lr=args.learning_rate)
    train_dataloader = make_train_dataloader(args.train_batch_size)

    num_update_steps_per_epoch = math.ceil(len(train_dataloader) / args.gradient_accumulation_steps)
    if args.max_train_steps is None:
        args.max_train_steps = args.num_train_epochs * num_update_steps_per_epoch
    lr_scheduler = get_scheduler(
        args.lr_scheduler,
        optimizer=optimizer,
        num_warmup_steps=args.lr_warmup_steps * args.gradient_accumulation_steps,
        num_training_steps=args.max_train_steps * args.gradient_accumulation_steps,
    )
    controlnet, optimizer, train_dataloader, lr_scheduler = accelerator.prepare(
        controlnet, optimizer, train_dataloader, lr_scheduler
    )
    unet.to(accelerator.device)

    global_step = 0
    for epoch in range(args.num_train_epochs):
        for batch in train_dataloader:
            with accelerator.accumulate(controlnet):
                latents = batch["latents"]
                noise = torch.randn_like(latents)
                t = torch.randint(0, noise_scheduler.config.num_train_timesteps, (latents.shape[0],),
                                  device=latents.device)
                noisy = noise_scheduler.add_noise(latents, noise, t)
                down, mid = controlnet(noisy, t, encoder_hidden_states=batch["text_emb"],
                                       controlnet_cond=batch["cond"], return_dict=False)
                pred = unet(noisy, t, encoder_hidden_states=batch["text_emb"],
                            down_block_additional_residuals=down, mid_block_additional_residual=mid).sample
                loss = F.mse_loss(pred.float(), noise.float())
                accelerator.backward(loss)
                optimizer.step()
                lr_scheduler.step()
                optimizer.zero_grad()
            if accelerator.sync_gradients:
                global_step += 1
            if global_step >= args.max_train_steps:
                return


if __name__ == "__main__":
    main()
