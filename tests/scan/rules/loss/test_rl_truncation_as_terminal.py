"""The ``rl-truncation-as-terminal`` rule (``mlsleuth/scan/rules/loss/rl_truncation_as_terminal.py``)."""

from __future__ import annotations

from scan.helpers import check

RULE = {"rl-truncation-as-terminal"}


def test_merged_flag_stored_or_masking_is_found():
    check(
        """
        import numpy as np

        def collect(env, agent, replay_buffer, obs):
            action = agent.act(obs)
            next_obs, reward, terminated, truncated, info = env.step(action)
            done = terminated or truncated  # expect: rl-truncation-as-terminal
            replay_buffer.push(obs, action, reward, next_obs, done)
            return next_obs

        def vectorised(envs, rb, obs, actions):
            next_obs, rewards, terminations, truncations, infos = envs.step(actions)
            dones = np.logical_or(terminations, truncations)  # expect: rl-truncation-as-terminal
            rb.add(obs, next_obs, actions, rewards, dones, infos)

        def tutorial(env, memory, Transition, state, action):
            observation, reward, terminated, truncated, _ = env.step(action)
            done = terminated or truncated  # expect: rl-truncation-as-terminal
            memory.push(Transition(state, action, observation, reward, done))
            return done

        def online_td(critic, s, r, s2, terminated, truncated, gamma):
            done = terminated | truncated  # expect: rl-truncation-as-terminal
            return r + gamma * critic(s2) * (1 - done)
        """,
        RULE,
    )


def test_flag_only_ending_the_loop_is_quiet():
    check(
        """
        def collect(env, agent, memory, obs):
            next_obs, reward, terminated, truncated, _ = env.step(agent.act(obs))
            memory.push(obs, reward, next_obs, terminated)
            done = terminated or truncated
            if done:
                next_obs, _ = env.reset()
            return next_obs

        def on_policy(envs, obs, dones, step, actions):
            next_obs, reward, terminations, truncations, infos = envs.step(actions)
            next_done = terminations | truncations
            dones[step] = next_done
            episode_log = []
            episode_log.append(next_done)
            return next_obs
        """,
        RULE,
    )
