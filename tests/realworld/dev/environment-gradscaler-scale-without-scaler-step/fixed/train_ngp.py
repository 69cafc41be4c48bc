import torch
import torch.nn.functional as F

from radiance_fields import NGPRadianceField
from utils import render_image_with_occgrid


def train(train_dataset, estimator, max_steps=20000, lr=1e-2, weight_decay=1e-6, device="cuda"):
    radiance_field = NGPRadianceField(aabb=estimator.aabbs[-1]).to(device)
    optimizer = torch.optim.Adam(radiance_field.parameters(), lr=lr, eps=1e-15, weight_decay=weight_decay)
    scheduler = torch.optim.lr_scheduler.MultiStepLR(
        optimizer, milestones=[max_steps // 2, max_steps * 3 // 4, max_steps * 9 // 10], gamma=0.33)
    grad_scaler = torch.amp.GradScaler("cuda", init_scale=2 ** 10)
    for step in range(max_steps + 1):
        radiance_field.train()
        data = train_dataset[step % len(train_dataset)]
        rays, pixels = data["rays"], data["pixels"]
        rgb, acc, depth, n_rendering_samples = render_image_with_occgrid(radiance_field, estimator, rays)
        if n_rendering_samples == 0:
            continue
        loss = F.smooth_l1_loss(rgb, pixels)
        optimizer.zero_grad()
        grad_scaler.scale(loss).backward()
        grad_scaler.step(optimizer)
        grad_scaler.update()
        scheduler.step()
        if step % 1000 == 0:
            psnr = -10.0 * torch.log(F.mse_loss(rgb, pixels)) / torch.log(torch.tensor(10.0))
            print(f"step {step} loss {loss.item():.5f} psnr {psnr.item():.2f}")
