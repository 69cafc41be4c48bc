import torch
import torch.nn.functional as F

from config import MuZeroConfig
from models import MuZeroResidualNetwork


def scalar_to_support(x, support_size):
    x = torch.sign(x) * (torch.sqrt(torch.abs(x) + 1) - 1) + 0.001 * x
    x = x.clamp(-support_size, support_size)
    floor = x.floor()
    prob = x - floor
    logits = torch.zeros(*x.shape, 2 * support_size + 1)
    logits.scatter_(-1, (floor + support_size).long().unsqueeze(-1), (1 - prob).unsqueeze(-1))
    idx = floor + support_size + 1
    prob = prob.masked_fill(2 * support_size < idx, 0.0)
    idx = idx.masked_fill(2 * support_size < idx, 0.0)
    logits.scatter_(-1, idx.long().unsqueeze(-1), prob.unsqueeze(-1))
    return logits


def update_weights(model, optimizer, batch, config):
    obs, actions, target_value, target_reward, target_policy = batch
    target_value = scalar_to_support(target_value, config.support_size)
    target_reward = scalar_to_support(target_reward, config.support_size)

    value, policy_logits, state = model.initial_inference(obs)
    predictions = [(value, torch.zeros_like(value), policy_logits)]
    for k in range(1, actions.shape[1]):
        value, reward, policy_logits, state = model.recurrent_inference(state, actions[:, k])
        state.register_hook(lambda grad: grad * 0.5)
        predictions.append((value, reward, policy_logits))

    loss = 0.0
    for k, (v, r, p) in enumerate(predictions):
        v_loss = -(target_value[:, k] * F.log_softmax(v, dim=1)).sum(1)
        p_loss = -(target_policy[:, k] * F.log_softmax(p, dim=1)).sum(1)
        r_loss = -(target_reward[:, k] * F.log_softmax(r, dim=1)).sum(1) if k > 0 else 0.0
        loss = loss + (config.value_loss_weight * v_loss + r_loss + p_loss).mean()

    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    return loss.item()


def train(replay_buffer):
    config = MuZeroConfig()
    model = MuZeroResidualNetwork(config)
    model.train()
    optimizer = torch.optim.SGD(model.parameters(), lr=config.lr_init, momentum=config.momentum,
                                weight_decay=config.weight_decay)
    for step in range(config.training_steps):
        batch = replay_buffer.get_batch(config.batch_size, config.num_unroll_steps)
        loss = update_weights(model, optimizer, batch, config)
        if step % 100 == 0:
            print(f"step {step} loss {loss:.4f}")
    return model
