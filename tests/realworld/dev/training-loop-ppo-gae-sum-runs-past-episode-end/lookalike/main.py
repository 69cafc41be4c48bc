import numpy as np
import torch

from agent import Agent
from env import Corridor

np.random.seed(0)
torch.manual_seed(0)
torch.set_num_threads(1)

N_EPISODES = 300
EPISODES_PER_UPDATE = 8

env = Corridor()
agent = Agent(n_actions=env.n_actions, input_dims=env.observation_shape)

scores, n_steps = [], 0
for episode in range(N_EPISODES):
    observation, done, score = env.reset(), False, 0.0
    while not done:
        action, log_prob, value = agent.choose_action(observation)
        next_observation, reward, done = env.step(action)
        n_steps += 1
        score += reward
        agent.remember(observation, action, log_prob, value, reward, done)
        observation = next_observation
    # update after every few complete episodes: the rollout always ends on a terminal step
    if (episode + 1) % EPISODES_PER_UPDATE == 0:
        agent.learn(last_value=0.0)
    scores.append(score)
    if (episode + 1) % 50 == 0:
        print(f"episode {episode + 1:4d}  avg score (last 50) {np.mean(scores[-50:]):.3f}  "
              f"right-exit rate {np.mean(np.array(scores[-50:]) > 0.5):.2f}")
