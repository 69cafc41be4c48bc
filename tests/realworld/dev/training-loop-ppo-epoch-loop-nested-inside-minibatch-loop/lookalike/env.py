import numpy as np
import torch


class ContextualBanditEnv:
    """One-step episodes: the reward is 1 when the action matches the hidden rule for the context."""

    def __init__(self, num_envs, num_obs=8, num_actions=4, seed=0):
        self.rng = np.random.default_rng(seed)
        self.num_envs, self.num_obs, self.num_actions = num_envs, num_obs, num_actions
        self.rule = np.random.default_rng(99).normal(size=(num_obs, num_actions))
        self.obs = self._sample()

    def _sample(self):
        return self.rng.normal(size=(self.num_envs, self.num_obs)).astype(np.float32)

    def step(self, actions):
        best = (self.obs @ self.rule).argmax(1)
        rewards = (actions == best).astype(np.float32)
        rewards += 0.1 * self.rng.normal(size=rewards.shape).astype(np.float32)
        self.obs = self._sample()
        return self.obs, rewards


def run_rollout(env, model, num_steps):
    obs_buf, act_buf, prob_buf, val_buf, rew_buf = [], [], [], [], []
    obs = env.obs
    for _ in range(num_steps):
        o = torch.from_numpy(obs)
        action, prob, value = model.act(o)
        obs_buf.append(o)
        act_buf.append(action)
        prob_buf.append(prob)
        val_buf.append(value)
        obs, reward = env.step(action.numpy())
        rew_buf.append(torch.from_numpy(reward))
    # stack to (num_envs, num_steps, ...)
    stack = lambda xs: torch.stack(xs, dim=1)
    return stack(obs_buf), stack(act_buf), stack(prob_buf), stack(val_buf), stack(rew_buf)
