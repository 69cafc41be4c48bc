import numpy as np


class Corridor:
    """1-D corridor. Start left of the middle; the left end pays a small
    reward quickly, the right end pays a large one further away, and every
    step costs a little. An episode ends only at one of the two ends."""

    def __init__(self, length=9):
        self.length = length
        self.observation_shape = (length,)
        self.n_actions = 2

    def _obs(self):
        o = np.zeros(self.length, dtype=np.float32)
        o[self.pos] = 1.0
        return o

    def reset(self):
        self.pos = self.length // 2 - 1
        return self._obs()

    def step(self, action):
        self.pos += 1 if action == 1 else -1
        reward, done = -0.02, False
        if self.pos <= 0:
            reward, done = 0.2, True
        elif self.pos >= self.length - 1:
            reward, done = 1.0, True
        return self._obs(), reward, done
