import argparse

import torch
import torch.nn.functional as F
from diffusers import DDPMScheduler, UNet2DConditionModel

from ema import EMAModel
from data import build_dataloader, encode_batch


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--pretrained_model_name_or_path", default="CompVis/stable-diffusion-v1-4")
    parser.add_argument("--use_ema", action="store_true")
    parser.add_argument("--learning_rate", type=float, default=1e-5)
    parser.add_argument("--max_train_steps", type=int, default=15000)
    args = parser.parse_args()

    unet = UNet2DConditionModel.from_pretrained(args.pretrained_model_name_or_path, subfolder="unet").cuda()
    noise_scheduler = DDPMScheduler.from_pretrained(args.pretrained_model_name_or_path, subfolder="scheduler")
    ema_unet = EMAModel(unet.parameters()) if args.use_ema else None
    optimizer = torch.optim.AdamW(unet.parameters(), lr=args.learning_rate)
    loader = build_dataloader(args)

    global_step = 0
    unet.train()
    while global_step < args.max_train_steps:
        for batch in loader:
            latents, encoder_hidden_states = encode_batch(batch)
            noise = torch.randn_like(latents)
            timesteps = torch.randint(0, noise_scheduler.config.num_train_timesteps, (latents.shape[0],), device=latents.device)
            noisy = noise_scheduler.add_noise(latents, noise, timesteps)
            pred = unet(noisy, timesteps, encoder_hidden_states).sample
            loss = F.mse_loss(pred.float(), noise.float())
            loss.backward()
            optimizer.step()
            optimizer.zero_grad()
            if ema_unet is not None:
                ema_unet.step(unet.parameters())
            global_step += 1
            if global_step >= args.max_train_steps:
                break
    if ema_unet is not None:
        ema_unet.copy_to(unet.parameters())
    unet.save_pretrained("sd-finetuned/unet")


if __name__ == "__main__":
    main()
