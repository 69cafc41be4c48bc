import torch
import torch.nn.functional as F


def train_step(model, optim, batch_data, args):
    advantages, rewards_to_go, values, actions, observations, old_probs = batch_data
    logits, new_values = model(observations)
    dist = torch.distributions.Categorical(logits=logits)
    new_probs = dist.log_prob(actions).exp()
    ratio = new_probs / old_probs
    surr1 = ratio * advantages
    surr2 = torch.clamp(ratio, 1 - args["epsilon"], 1 + args["epsilon"]) * advantages
    policy_loss = -torch.min(surr1, surr2).mean()
    value_loss = F.mse_loss(new_values, rewards_to_go)
    entropy = dist.entropy().mean()
    loss = policy_loss + args["value_loss_coef"] * value_loss - args["entropy_coef"] * entropy

    optim.zero_grad()
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 0.5)
    optim.step()

    clip_frac = ((ratio - 1).abs() > args["epsilon"]).float().mean().item()
    return loss.item(), clip_frac
