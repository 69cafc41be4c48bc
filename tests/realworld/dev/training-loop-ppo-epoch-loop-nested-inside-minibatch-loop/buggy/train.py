import numpy as np
import torch

from env import ContextualBanditEnv, run_rollout
from model import MLPBase
from ppo import train_step

args = {
    "num_workers": 8,
    "num_steps": 64,
    "ppo_epochs": 4,
    "num_batches": 4,
    "epsilon": 0.1,
    "value_loss_coef": 0.5,
    "entropy_coef": 0.01,
    "lr": 3e-3,
    "num_iterations": 30,
}
args["batch_size"] = args["num_workers"] // args["num_batches"]

torch.manual_seed(0)
env = ContextualBanditEnv(args["num_workers"], seed=0)
model = MLPBase(env.num_obs, env.num_actions)
optim = torch.optim.Adam(model.parameters(), lr=args["lr"])

for i in range(args["num_iterations"]):
    observations, actions, policy_probs, values, rewards = run_rollout(env, model, args["num_steps"])
    # one-step episodes: the return is the reward itself
    rewards_to_go = rewards
    advantages = rewards_to_go - values
    advantages = (advantages - advantages.mean()) / (advantages.std() + 1e-5)

    train_data = [advantages, rewards_to_go, values, actions, observations, policy_probs]

    losses, clips = [], []
    for batch in range(args["num_batches"]):
        for epoch in range(args["ppo_epochs"]):
            start = batch * args["batch_size"]
            end = (batch + 1) * args["batch_size"]
            batch_data = [x[start:end] for x in train_data]
            batch_data = [x.reshape((-1,) + x.shape[2:]) for x in batch_data]
            loss, clip_frac = train_step(model, optim, batch_data, args)
            losses.append(loss)
            clips.append(clip_frac)

    if i % 5 == 0 or i == args["num_iterations"] - 1:
        print(f"iter {i:3d} mean reward {rewards.mean().item():.3f} "
              f"loss {np.mean(losses):.4f} clip frac {np.mean(clips):.3f}")
