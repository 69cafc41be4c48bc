import numpy as np


class PointReach:
    """A point mass on a plane that must be pushed to a goal.

    Actions are forces in [-max_action, max_action] per axis.
    """

    def __init__(self, max_action=2.0, horizon=50, seed=0):
        self.max_action = max_action
        self.horizon = horizon
        self.rng = np.random.default_rng(seed)
        self.observation_dim = 6
        self.action_dim = 2

    def reset(self):
        self.t = 0
        self.pos = self.rng.uniform(-1, 1, size=2)
        self.vel = np.zeros(2)
        self.goal = self.rng.uniform(-1, 1, size=2)
        return self._obs()

    def _obs(self):
        return np.concatenate([self.pos, self.vel, self.goal - self.pos]).astype(np.float32)

    def step(self, action):
        force = np.clip(action, -self.max_action, self.max_action)
        self.vel = 0.9 * self.vel + 0.05 * force
        self.pos = self.pos + 0.1 * self.vel
        self.t += 1
        dist = np.linalg.norm(self.goal - self.pos)
        reward = -dist - 0.01 * float(np.square(force).sum())
        done = self.t >= self.horizon
        return self._obs(), reward, done
