"""A toy text game: each turn the player sees a goal sentence and a few
objects lying around, and must `take` the object the goal asks for.
Batched like a vectorised text-game environment."""
import numpy as np

GOALS = ["you feel hungry", "the floor is wet", "it is getting dark", "you are thirsty",
         "the plant looks dry", "your hands are dirty", "the room is cold", "you need to write"]
TARGETS = ["apple", "mop", "lamp", "water", "watering can", "soap", "blanket", "pen"]
DISTRACTORS = ["shoe", "book", "spoon", "cushion", "hat", "box", "key", "coin"]


class KitchenGames:
    def __init__(self, batch_size, max_steps=6, n_choices=4):
        self.batch_size, self.max_steps, self.n_choices = batch_size, max_steps, n_choices
        self.rng = np.random.default_rng()

    def seed(self, seed):
        self.rng = np.random.default_rng(seed)

    def _turn(self):
        goal = int(self.rng.integers(len(GOALS)))
        others = [o for o in TARGETS + DISTRACTORS if o != TARGETS[goal]]
        objs = list(self.rng.choice(others, self.n_choices - 1, replace=False)) + [TARGETS[goal]]
        self.rng.shuffle(objs)
        return goal, objs

    def reset(self):
        self.t = 0
        self.state = [self._turn() for _ in range(self.batch_size)]
        return self._obs()

    def _obs(self):
        obs = [f"-= Kitchen =- {GOALS[g]}." for g, _ in self.state]
        commands = [[f"take {o}" for o in objs] for _, objs in self.state]
        return obs, {"admissible_commands": commands}

    def step(self, commands):
        rewards = [float(cmd == f"take {TARGETS[g]}") for cmd, (g, _) in zip(commands, self.state)]
        self.t += 1
        self.state = [self._turn() for _ in range(self.batch_size)]
        done = self.t >= self.max_steps
        obs, infos = self._obs()
        return obs, rewards, [done] * self.batch_size, infos
