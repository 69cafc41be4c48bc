"""The ``rl-bootstrap-ignores-done`` rule (``mlsleuth/scan/rules/loss/rl_bootstrap_ignores_done.py``)."""

from __future__ import annotations

from scan.helpers import check

RULE = {"rl-bootstrap-ignores-done"}


def test_targets_without_a_done_mask_are_found():
    check(
        """
        import torch

        def update(q_net, target_net, batch, gamma=0.99):
            obs, actions, rewards, next_obs, dones = batch
            with torch.no_grad():
                target = rewards + gamma * target_net(next_obs).max(1)[0]  # expect: rl-bootstrap-ignores-done
            q = q_net(obs).gather(1, actions)
            return torch.nn.functional.mse_loss(q.squeeze(1), target)

        def td_error(critic, s, r, s2, terminated):
            next_v = critic(s2).detach()
            return r + 0.99 * next_v - critic(s)  # expect: rl-bootstrap-ignores-done
        """,
        RULE,
    )


def test_masked_targets_are_quiet():
    check(
        """
        import torch

        GAMMA = 0.99

        def update(q_net, target_net, batch):
            s, a, r, s2, d = batch
            with torch.no_grad():
                y1 = r + GAMMA * target_net(s2).max(1).values * (1 - d)
                y2 = r + GAMMA * (1 - d.float()) * target_net(s2).max(1).values
                y3 = r + GAMMA * target_net(s2).max(1).values * ~d
            return y1, y2, y3

        def cleanrl_style(data, target_network, args):
            target_max, _ = target_network(data.next_observations).max(dim=1)
            return data.rewards.flatten() + args.gamma * target_max * (1 - data.dones.flatten())

        def pytorch_tutorial(policy_net, target_net, non_final_mask, non_final_next_states, reward_batch, batch_size, GAMMA):
            next_state_values = torch.zeros(batch_size)
            with torch.no_grad():
                next_state_values[non_final_mask] = target_net(non_final_next_states).max(1).values
            return (next_state_values * GAMMA) + reward_batch

        def per_transition(model, state, action, reward, next_state, done, gamma):
            target = reward
            if not done:
                target = reward + gamma * model(next_state).max()
            return target

        def gae(rewards, values, next_value, dones, gamma, lam):
            nextnonterminal = 1.0 - dones[-1]
            return rewards[-1] + gamma * next_value * nextnonterminal - values[-1]

        def reward_to_go(rewards, gamma):
            running, out = 0.0, []
            for r in reversed(rewards):
                running = r + gamma * running
                out.append(running)
            return out
        """,
        RULE,
    )


def test_no_done_flag_in_scope_is_quiet():
    check(
        """
        def continuing_task(critic, r, s, s2, gamma):
            return r + gamma * critic(s2) - critic(s)
        """,
        RULE,
    )
