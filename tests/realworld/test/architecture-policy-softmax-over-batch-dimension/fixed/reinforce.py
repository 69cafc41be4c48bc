import gym
import numpy as np
import torch

l1, l2, l3 = 4, 150, 2
model = torch.nn.Sequential(
    torch.nn.Linear(l1, l2),
    torch.nn.LeakyReLU(),
    torch.nn.Linear(l2, l3),
    torch.nn.Softmax(dim=-1),
)
optimizer = torch.optim.Adam(model.parameters(), lr=0.0009)


def discount_rewards(rewards, gamma=0.99):
    lenr = len(rewards)
    disc = torch.pow(gamma, torch.arange(lenr).float()) * rewards
    return disc / disc.max()


def loss_fn(preds, r):
    return -1 * torch.sum(r * torch.log(preds))


env = gym.make("CartPole-v0")
MAX_DUR, MAX_EPISODES, gamma = 200, 500, 0.99
score = []
for episode in range(MAX_EPISODES):
    curr_state = env.reset()
    transitions = []
    for t in range(MAX_DUR):
        act_prob = model(torch.from_numpy(curr_state).float())
        action = np.random.choice(np.array([0, 1]), p=act_prob.data.numpy())
        prev_state = curr_state
        curr_state, _, done, info = env.step(action)
        transitions.append((prev_state, action, t + 1))
        if done:
            break
    ep_len = len(transitions)
    score.append(ep_len)
    reward_batch = torch.Tensor([r for (s, a, r) in transitions]).flip(dims=(0,))
    disc_returns = discount_rewards(reward_batch, gamma)
    state_batch = torch.Tensor(np.array([s for (s, a, r) in transitions]))
    action_batch = torch.Tensor([a for (s, a, r) in transitions])
    pred_batch = model(state_batch)
    prob_batch = pred_batch.gather(dim=1, index=action_batch.long().view(-1, 1)).squeeze()
    loss = loss_fn(prob_batch, disc_returns)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    if episode % 50 == 0:
        print(f"episode {episode} mean length {np.mean(score[-50:]):.1f}")
