import numpy as np


class PPOMemory:
    def __init__(self, batch_size):
        self.batch_size = batch_size
        self.clear_memory()

    def store_memory(self, state, action, log_prob, value, reward, done):
        self.states.append(state)
        self.actions.append(action)
        self.log_probs.append(log_prob)
        self.values.append(value)
        self.rewards.append(reward)
        self.dones.append(done)

    def generate_batches(self):
        n = len(self.states)
        idx = np.random.permutation(n)
        batches = [idx[i:i + self.batch_size] for i in range(0, n, self.batch_size)]
        return (np.array(self.states), np.array(self.actions),
                np.array(self.log_probs, dtype=np.float32),
                np.array(self.values, dtype=np.float32),
                np.array(self.rewards, dtype=np.float32),
                np.array(self.dones, dtype=np.float32), batches)

    def clear_memory(self):
        self.states, self.actions, self.log_probs = [], [], []
        self.values, self.rewards, self.dones = [], [], []

    def __len__(self):
        return len(self.states)
