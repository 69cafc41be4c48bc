import numpy as np
import torch
from torch.distributions import Categorical


class NetworkPolicy:
    def __init__(self, model, device="cpu"):
        self.model = model
        self.device = device

    def __call__(self, obs):
        x = torch.as_tensor(obs, dtype=torch.float32, device=self.device).permute(2, 0, 1)[None] / 255.0
        with torch.no_grad():
            logits, value = self.model(x)
        action = Categorical(logits=logits).sample()
        return action.item(), {"value": value.item()}


def collect_episode(env, policy, max_steps=1000):
    obs, _ = env.reset()
    frames, actions, rewards = [obs], [], []
    for _ in range(max_steps):
        a, _ = policy(obs)
        obs, r, terminated, truncated, _ = env.step(a)
        frames.append(obs)
        actions.append(a)
        rewards.append(r)
        if terminated or truncated:
            break
    return np.stack(frames), np.array(actions), np.array(rewards, dtype=np.float32)
