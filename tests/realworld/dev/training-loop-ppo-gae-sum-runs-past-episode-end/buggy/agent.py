import numpy as np
import torch

from memory import PPOMemory
from networks import ActorNetwork, CriticNetwork


class Agent:
    def __init__(self, n_actions, input_dims, gamma=0.99, lr=3e-3, gae_lambda=0.95,
                 policy_clip=0.2, batch_size=32, n_epochs=4):
        self.gamma, self.gae_lambda = gamma, gae_lambda
        self.policy_clip, self.n_epochs = policy_clip, n_epochs
        self.actor = ActorNetwork(n_actions, input_dims, lr)
        self.critic = CriticNetwork(input_dims, lr)
        self.memory = PPOMemory(batch_size)

    def remember(self, *transition):
        self.memory.store_memory(*transition)

    @torch.no_grad()
    def choose_action(self, observation):
        state = torch.as_tensor(observation).unsqueeze(0)
        dist = self.actor(state)
        action = dist.sample()
        return action.item(), dist.log_prob(action).item(), self.critic(state).item()

    @torch.no_grad()
    def value(self, observation):
        return self.critic(torch.as_tensor(observation).unsqueeze(0)).item()

    def compute_advantages(self, rewards, values, dones, last_value):
        """Truncated GAE over the rollout; `last_value` bootstraps the step
        after the final stored transition."""
        values = np.append(values, last_value)
        advantage = np.zeros(len(rewards), dtype=np.float32)
        for t in range(len(rewards)):
            discount, a_t = 1.0, 0.0
            for k in range(t, len(rewards)):
                a_t += discount * (rewards[k] + self.gamma * values[k + 1] * (1 - dones[k])
                                   - values[k])
                discount *= self.gamma * self.gae_lambda
            advantage[t] = a_t
        return advantage

    def learn(self, last_value):
        states, actions, old_log_probs, values, rewards, dones, _ = \
            self.memory.generate_batches()
        advantage = torch.as_tensor(self.compute_advantages(rewards, values, dones, last_value))
        returns = advantage + torch.as_tensor(values)
        states = torch.as_tensor(states)
        actions = torch.as_tensor(actions)
        old_log_probs = torch.as_tensor(old_log_probs)

        for _ in range(self.n_epochs):
            *_, batches = self.memory.generate_batches()
            for batch in batches:
                batch = torch.as_tensor(batch)
                dist = self.actor(states[batch])
                critic_value = self.critic(states[batch]).squeeze(-1)
                ratio = (dist.log_prob(actions[batch]) - old_log_probs[batch]).exp()
                adv = advantage[batch]
                clipped = torch.clamp(ratio, 1 - self.policy_clip, 1 + self.policy_clip) * adv
                actor_loss = -torch.min(ratio * adv, clipped).mean()
                critic_loss = (returns[batch] - critic_value).pow(2).mean()
                total_loss = actor_loss + 0.5 * critic_loss

                self.actor.optimizer.zero_grad()
                self.critic.optimizer.zero_grad()
                total_loss.backward()
                self.actor.optimizer.step()
                self.critic.optimizer.step()
        self.memory.clear_memory()
