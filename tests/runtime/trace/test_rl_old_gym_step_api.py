"""The RL watch reads the old gym ``step`` API: ``(obs, reward, done, info)``, ``reset() -> obs`` (issue 15).

No gym package is needed: the test writes a stand-in ``gym`` package (an ``Env`` base class, as old gym
had) into a temporary folder, and a small script with a fixed-length corridor environment subclassing it and
a DQN-style agent (replay, a target network synced every few updates, ``done``-masked targets). Traced, the
RL watch must count every episode at its true length, report the 4-tuple API, and raise no false alarm.
"""

from __future__ import annotations

import os
import textwrap

import pytest

FAKE_GYM = '''
"""A stand-in for the old gym package (the test's own code): only the Env base class."""


class Env:
    metadata = {}

    def reset(self):
        raise NotImplementedError

    def step(self, action):
        raise NotImplementedError
'''

SCRIPT = '''
import random

import gym
import torch
import torch.nn as nn
import torch.nn.functional as F

EPISODE = 10  # every episode ends after exactly this many steps
random.seed(0)
torch.manual_seed(0)


class Corridor(gym.Env):
    """Walk right to the goal; old API: reset() returns the observation, step() a 4-tuple."""

    def reset(self):
        self.pos, self.t = 0, 0
        return self._obs()

    def _obs(self):
        return [self.pos / EPISODE, self.t / EPISODE]

    def step(self, action):
        self.t += 1
        self.pos += 1 if action == 1 else 0
        reward = 1.0 if action == 1 else 0.0
        done = self.t >= EPISODE
        return self._obs(), reward, done, {}


q_net = nn.Sequential(nn.Linear(2, 32), nn.Tanh(), nn.Linear(32, 2))
target_net = nn.Sequential(nn.Linear(2, 32), nn.Tanh(), nn.Linear(32, 2))
target_net.load_state_dict(q_net.state_dict())
optimizer = torch.optim.Adam(q_net.parameters(), lr=1e-3)
env = Corridor()
buffer, updates = [], 0
obs = env.reset()
for t in range(5000):
    if random.random() < 0.3:
        action = random.randrange(2)
    else:
        with torch.no_grad():
            action = int(q_net(torch.tensor(obs)).argmax())
    next_obs, reward, done, info = env.step(action)
    buffer.append((obs, action, reward, next_obs, float(done)))
    obs = env.reset() if done else next_obs
    if len(buffer) >= 64 and t % 4 == 0:
        batch = random.sample(buffer, 32)
        o, a, r, o2, d = (torch.tensor(x) for x in zip(*batch))
        with torch.no_grad():
            target = r.float() + 0.9 * (1.0 - d.float()) * target_net(o2.float()).max(1).values
        q = q_net(o.float()).gather(1, a.long().unsqueeze(1)).squeeze(1)
        loss = F.mse_loss(q, target)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        updates += 1
        if updates % 10 == 0:
            target_net.load_state_dict(q_net.state_dict())
'''


@pytest.mark.slow
def test_old_gym_four_tuple_episodes_are_counted_and_quiet(tmp_path, monkeypatch):
    (tmp_path / "gym").mkdir()
    (tmp_path / "gym" / "__init__.py").write_text(textwrap.dedent(FAKE_GYM), encoding="utf-8")
    script = tmp_path / "old_gym_dqn.py"
    script.write_text(textwrap.dedent(SCRIPT), encoding="utf-8")
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")]))
    from mlsleuth.runtime.trace import trace

    report = trace(script, steps=40, cwd=tmp_path, timeout_s=180)
    assert not report.errors, [e.message for e in report.errors]
    alarms = [f"{f.rule}: {f.title}" for f in report.findings if f.severity in ("error", "warning")]
    assert not alarms, alarms
    rl = report.summary.stats["rl"]
    assert rl["step_api"].startswith("gym 4-tuple")
    assert rl["episodes_finished"] >= 10
    assert rl["episode_length_mean"] == 10  # every `done` closes one episode at its true length
    assert rl["episodes_finished"] == rl["env_steps"] // 10
    assert rl["episodes_truncated"] == 0  # one `done` flag: no truncation can be told apart
    assert rl["target_networks"][0]["syncs"] >= 2
