import torch

from hypernetwork import Hypernetwork


def train_hypernetwork(unet, text_encoder, vae, dataset, name, steps=20000, lr=5e-6, log_every=100):
    hypernetwork = Hypernetwork(name)
    optimizer = torch.optim.AdamW(list(hypernetwork.weights()), lr=lr)
    noise_scheduler = unet.noise_scheduler
    for step, (pixels, token_ids) in zip(range(steps), dataset):
        with torch.no_grad():
            latents = vae.encode(pixels).latent_dist.sample() * 0.18215
            context = text_encoder(token_ids)[0]
        k, v = hypernetwork.apply_to_context(context)
        noise = torch.randn_like(latents)
        t = torch.randint(0, noise_scheduler.config.num_train_timesteps, (latents.shape[0],), device=latents.device)
        noisy = noise_scheduler.add_noise(latents, noise, t)
        pred = unet(noisy, t, encoder_hidden_states_k=k, encoder_hidden_states_v=v).sample
        loss = torch.nn.functional.mse_loss(pred, noise)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        hypernetwork.step += 1
        if step % log_every == 0:
            print(f"[{name}] step {step} loss {loss.item():.5f}")
    return hypernetwork
