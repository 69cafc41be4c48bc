import numpy as np
import torch

from agent import Agent
from env import Corridor

np.random.seed(0)
torch.manual_seed(0)
torch.set_num_threads(1)

N_STEPS = 128          # learn every N environment steps, across episode ends
N_EPISODES = 300

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
        if n_steps % N_STEPS == 0:
            agent.learn(last_value=0.0 if done else agent.value(next_observation))
        observation = next_observation
    scores.append(score)
    if (episode + 1) % 50 == 0:
        print(f"episode {episode + 1:4d}  avg score (last 50) {np.mean(scores[-50:]):.3f}  "
              f"right-exit rate {np.mean(np.array(scores[-50:]) > 0.5):.2f}")
