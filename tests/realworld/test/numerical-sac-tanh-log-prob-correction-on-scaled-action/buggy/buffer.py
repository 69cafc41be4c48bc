import numpy as np


class ReplayBuffer:
    def __init__(self, max_size, obs_dim, n_actions):
        self.mem_size = max_size
        self.mem_cntr = 0
        self.state_memory = np.zeros((max_size, obs_dim), dtype=np.float32)
        self.new_state_memory = np.zeros((max_size, obs_dim), dtype=np.float32)
        self.action_memory = np.zeros((max_size, n_actions), dtype=np.float32)
        self.reward_memory = np.zeros(max_size, dtype=np.float32)
        self.terminal_memory = np.zeros(max_size, dtype=bool)

    def store_transition(self, state, action, reward, state_, done):
        index = self.mem_cntr % self.mem_size
        self.state_memory[index] = state
        self.new_state_memory[index] = state_
        self.action_memory[index] = action
        self.reward_memory[index] = reward
        self.terminal_memory[index] = done
        self.mem_cntr += 1

    def sample_buffer(self, batch_size, rng):
        max_mem = min(self.mem_cntr, self.mem_size)
        batch = rng.choice(max_mem, batch_size)
        return (self.state_memory[batch], self.action_memory[batch], self.reward_memory[batch],
                self.new_state_memory[batch], self.terminal_memory[batch])
