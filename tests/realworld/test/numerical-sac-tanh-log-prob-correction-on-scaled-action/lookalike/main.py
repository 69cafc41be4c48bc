import numpy as np
import torch as T

from env import PointReach
from sac_torch import Agent


def main(n_games=4):
    T.manual_seed(0)
    # argument checks in torch.distributions cost a noticeable share of each CPU step
    T.distributions.Distribution.set_default_validate_args(False)
    env = PointReach(max_action=2.0, horizon=40, seed=0)
    agent = Agent(input_dims=env.observation_dim, n_actions=env.action_dim)
    for i in range(n_games):
        observation = env.reset()
        done, score, losses = False, 0.0, []
        while not done:
            action = agent.choose_action(observation)
            # the policy acts in [-1, 1]; the environment expects forces in [-max_action, max_action]
            observation_, reward, done = env.step(action * env.max_action)
            agent.remember(observation, action, reward, observation_, done)
            stats = agent.learn()
            if stats is not None:
                losses.append(stats)
            score += reward
            observation = observation_
        if not losses:
            print(f"episode {i}  score {score:.2f}  (filling replay buffer)")
            continue
        actor_loss = np.mean([a for a, _ in losses])
        critic_loss = np.mean([c for _, c in losses])
        print(f"episode {i}  score {score:.2f}  actor_loss {actor_loss:.3f}  critic_loss {critic_loss:.3f}")


if __name__ == "__main__":
    main()
