import torch
import torch.nn.functional as F
from diffusers import DDPMScheduler, UNet2DConditionModel


class StableDiffusionWrapper:
    def __init__(self, path, device):
        self.unet = UNet2DConditionModel.from_pretrained(path, subfolder="unet").to(device)
        self.noise_scheduler = DDPMScheduler.from_pretrained(path, subfolder="scheduler")


class SDTrainProcess:
    def __init__(self, config, device="cuda"):
        self.config = config
        self.device = device
        self.sd = StableDiffusionWrapper(config["model_path"], device)

    def hook_before_train_loop(self):
        if self.config.get("compile", False):
            torch.compile(self.sd.unet, dynamic=True, mode="reduce-overhead")
            print("Model compiled successfully")
        self.optimizer = torch.optim.AdamW(self.sd.unet.parameters(), lr=self.config["lr"])

    def train_step(self, latents, text_embeds):
        noise = torch.randn_like(latents)
        t = torch.randint(0, 1000, (latents.shape[0],), device=latents.device)
        noisy = self.sd.noise_scheduler.add_noise(latents, noise, t)
        pred = self.sd.unet(noisy, t, encoder_hidden_states=text_embeds).sample
        loss = F.mse_loss(pred.float(), noise.float())
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        return loss.item()

    def run(self, loader):
        self.hook_before_train_loop()
        for step, (latents, text_embeds) in enumerate(loader):
            loss = self.train_step(latents.to(self.device), text_embeds.to(self.device))
            if step % 50 == 0:
                print(f"step {step}: {loss:.4f}")
