"""A single-file PPO agent on CartPole written in the CleanRL style (own code): vector envs, GAE, clipped surrogate.

Used by tests/runtime/trace/test_rl_clean_agents.py: traced for a few updates it must draw no warning or error.
"""

import random

import gymnasium as gym
import numpy as np
import torch
import torch.nn as nn
from torch.distributions import Categorical

NUM_ENVS, NUM_STEPS, EPOCHS, MINIBATCHES = 4, 64, 4, 4
GAMMA, LAMBDA, CLIP, ENT_COEF, VF_COEF, LR, MAX_GRAD_NORM = 0.99, 0.95, 0.2, 0.01, 0.5, 2.5e-4, 0.5
SEED = 1
random.seed(SEED)
np.random.seed(SEED)
torch.manual_seed(SEED)


def layer(inp, out, std=np.sqrt(2)):
    lin = nn.Linear(inp, out)
    nn.init.orthogonal_(lin.weight, std)
    nn.init.constant_(lin.bias, 0.0)
    return lin


class Agent(nn.Module):
    def __init__(self, n_obs, n_act):
        super().__init__()
        self.critic = nn.Sequential(layer(n_obs, 64), nn.Tanh(), layer(64, 64), nn.Tanh(), layer(64, 1, std=1.0))
        self.actor = nn.Sequential(layer(n_obs, 64), nn.Tanh(), layer(64, 64), nn.Tanh(), layer(64, n_act, std=0.01))

    def value(self, x):
        return self.critic(x)

    def act(self, x, action=None):
        dist = Categorical(logits=self.actor(x))
        if action is None:
            action = dist.sample()
        return action, dist.log_prob(action), dist.entropy(), self.critic(x)


envs = gym.vector.SyncVectorEnv([lambda: gym.wrappers.RecordEpisodeStatistics(gym.make("CartPole-v1")) for _ in range(NUM_ENVS)])
n_obs, n_act = envs.single_observation_space.shape[0], envs.single_action_space.n
agent = Agent(n_obs, n_act)
optimizer = torch.optim.Adam(agent.parameters(), lr=LR, eps=1e-5)

obs_buf = torch.zeros((NUM_STEPS, NUM_ENVS, n_obs))
act_buf = torch.zeros((NUM_STEPS, NUM_ENVS))
logp_buf = torch.zeros((NUM_STEPS, NUM_ENVS))
rew_buf = torch.zeros((NUM_STEPS, NUM_ENVS))
done_buf = torch.zeros((NUM_STEPS, NUM_ENVS))
val_buf = torch.zeros((NUM_STEPS, NUM_ENVS))

next_obs, _ = envs.reset(seed=SEED)
next_obs = torch.as_tensor(next_obs, dtype=torch.float32)
next_done = torch.zeros(NUM_ENVS)
for iteration in range(200):
    for step in range(NUM_STEPS):
        obs_buf[step], done_buf[step] = next_obs, next_done
        with torch.no_grad():
            action, logp, _, value = agent.act(next_obs)
        val_buf[step], act_buf[step], logp_buf[step] = value.flatten(), action, logp
        next_obs, reward, terminations, truncations, _ = envs.step(action.numpy())
        rew_buf[step] = torch.as_tensor(reward, dtype=torch.float32)
        next_obs = torch.as_tensor(next_obs, dtype=torch.float32)
        next_done = torch.as_tensor(np.logical_or(terminations, truncations), dtype=torch.float32)

    with torch.no_grad():
        next_value = agent.value(next_obs).flatten()
        advantages = torch.zeros_like(rew_buf)
        last_gae = 0.0
        for t in reversed(range(NUM_STEPS)):
            nonterminal = 1.0 - (next_done if t == NUM_STEPS - 1 else done_buf[t + 1])
            following = next_value if t == NUM_STEPS - 1 else val_buf[t + 1]
            delta = rew_buf[t] + GAMMA * following * nonterminal - val_buf[t]
            advantages[t] = last_gae = delta + GAMMA * LAMBDA * nonterminal * last_gae
        returns = advantages + val_buf

    b_obs, b_act, b_logp = obs_buf.reshape(-1, n_obs), act_buf.reshape(-1), logp_buf.reshape(-1)
    b_adv, b_ret = advantages.reshape(-1), returns.reshape(-1)
    batch = NUM_ENVS * NUM_STEPS
    mb_size = batch // MINIBATCHES
    for epoch in range(EPOCHS):
        order = np.random.permutation(batch)
        for start in range(0, batch, mb_size):
            mb = order[start:start + mb_size]
            _, new_logp, entropy, new_value = agent.act(b_obs[mb], b_act.long()[mb])
            ratio = (new_logp - b_logp[mb]).exp()
            mb_adv = (b_adv[mb] - b_adv[mb].mean()) / (b_adv[mb].std() + 1e-8)
            pg_loss = torch.max(-mb_adv * ratio, -mb_adv * torch.clamp(ratio, 1 - CLIP, 1 + CLIP)).mean()
            v_loss = 0.5 * ((new_value.flatten() - b_ret[mb]) ** 2).mean()
            loss = pg_loss - ENT_COEF * entropy.mean() + VF_COEF * v_loss
            optimizer.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(agent.parameters(), MAX_GRAD_NORM)
            optimizer.step()
envs.close()
