import numpy as np
import torch as T
import torch.nn.functional as F

from buffer import ReplayBuffer
from networks import ActorNetwork, CriticNetwork, ValueNetwork


class Agent:
    def __init__(self, input_dims, n_actions, lr=3e-4, gamma=0.99, tau=0.005,
                 max_size=100_000, batch_size=64, reward_scale=2.0, seed=0):
        self.gamma = gamma
        self.tau = tau
        self.batch_size = batch_size
        self.scale = reward_scale
        self.rng = np.random.default_rng(seed)
        self.memory = ReplayBuffer(max_size, input_dims, n_actions)

        self.actor = ActorNetwork(input_dims, n_actions)
        self.critic_1 = CriticNetwork(input_dims, n_actions)
        self.critic_2 = CriticNetwork(input_dims, n_actions)
        self.value = ValueNetwork(input_dims)
        self.target_value = ValueNetwork(input_dims)
        self.target_value.load_state_dict(self.value.state_dict())

        self.actor_opt = T.optim.Adam(self.actor.parameters(), lr=lr)
        self.critic_opt = T.optim.Adam(
            list(self.critic_1.parameters()) + list(self.critic_2.parameters()), lr=lr)
        self.value_opt = T.optim.Adam(self.value.parameters(), lr=lr)

    def choose_action(self, observation):
        state = T.as_tensor(observation, dtype=T.float32).unsqueeze(0)
        with T.no_grad():
            actions, _ = self.actor.sample_normal(state)
        return actions.squeeze(0).numpy()

    def remember(self, state, action, reward, new_state, done):
        self.memory.store_transition(state, action, reward, new_state, done)

    def update_target(self):
        with T.no_grad():
            for tp, p in zip(self.target_value.parameters(), self.value.parameters()):
                tp.mul_(1 - self.tau).add_(self.tau * p)

    def _min_q(self, state, action):
        return T.min(self.critic_1(state, action), self.critic_2(state, action))

    def learn(self):
        if self.memory.mem_cntr < self.batch_size:
            return None
        state, action, reward, state_, done = self.memory.sample_buffer(self.batch_size, self.rng)
        state = T.as_tensor(state)
        action = T.as_tensor(action)
        reward = T.as_tensor(reward).unsqueeze(1)
        state_ = T.as_tensor(state_)
        done = T.as_tensor(done).unsqueeze(1)

        value = self.value(state)
        with T.no_grad():
            value_ = self.target_value(state_).masked_fill(done, 0.0)

        with T.no_grad():
            new_actions, log_probs = self.actor.sample_normal(state)
        critic_value = self._min_q(state, new_actions)
        value_target = (critic_value - log_probs).detach()
        value_loss = 0.5 * F.mse_loss(value, value_target)
        self.value_opt.zero_grad()
        value_loss.backward()
        self.value_opt.step()

        new_actions, log_probs = self.actor.sample_normal(state)
        critic_value = self._min_q(state, new_actions)
        actor_loss = (log_probs - critic_value).mean()
        self.actor_opt.zero_grad()
        actor_loss.backward()
        self.actor_opt.step()

        q_hat = self.scale * reward + self.gamma * value_
        q1 = self.critic_1(state, action)
        q2 = self.critic_2(state, action)
        critic_loss = 0.5 * F.mse_loss(q1, q_hat) + 0.5 * F.mse_loss(q2, q_hat)
        self.critic_opt.zero_grad()
        critic_loss.backward()
        self.critic_opt.step()

        self.update_target()
        return actor_loss.item(), critic_loss.item()
