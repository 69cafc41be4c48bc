import torch
import torch.nn.functional as F
from torch import nn


def conv3x3(in_channels, out_channels, stride=1):
    return nn.Conv2d(in_channels, out_channels, kernel_size=3, stride=stride, padding=1, bias=False)


class ResidualBlock(nn.Module):
    def __init__(self, num_channels, stride=1):
        super().__init__()
        self.conv1 = conv3x3(num_channels, num_channels, stride)
        self.bn1 = nn.BatchNorm2d(num_channels)
        self.conv2 = conv3x3(num_channels, num_channels)
        self.bn2 = nn.BatchNorm2d(num_channels)

    def forward(self, x):
        residual = x
        x = self.conv1(x)
        x = self.bn1(x)
        x = F.relu(x)
        x = self.conv2(x)
        x = self.bn2(x)
        x += residual
        x = F.relu(x)
        return x


class RepresentationNetwork(nn.Module):
    def __init__(self, observation_shape, num_blocks, num_channels):
        super().__init__()
        self.conv = conv3x3(observation_shape[0], num_channels)
        self.bn = nn.BatchNorm2d(num_channels)
        self.resblocks = nn.ModuleList([ResidualBlock(num_channels) for _ in range(num_blocks)])

    def forward(self, x):
        x = F.relu(self.bn(self.conv(x)))
        for block in self.resblocks:
            x = block(x)
        return x


class DynamicsNetwork(nn.Module):
    def __init__(self, num_blocks, num_channels, reduced_channels_reward, board_cells, support_size):
        super().__init__()
        self.conv = conv3x3(num_channels + 1, num_channels)
        self.bn = nn.BatchNorm2d(num_channels)
        self.resblocks = nn.ModuleList([ResidualBlock(num_channels) for _ in range(num_blocks)])
        self.conv1x1_reward = nn.Conv2d(num_channels, reduced_channels_reward, 1)
        self.fc_reward = nn.Linear(reduced_channels_reward * board_cells, 2 * support_size + 1)

    def forward(self, state_action):
        x = F.relu(self.bn(self.conv(state_action)))
        for block in self.resblocks:
            x = block(x)
        state = x
        r = self.conv1x1_reward(x).flatten(1)
        return state, self.fc_reward(r)


class PredictionNetwork(nn.Module):
    def __init__(self, action_space_size, num_blocks, num_channels, reduced_value, reduced_policy,
                 board_cells, support_size):
        super().__init__()
        self.resblocks = nn.ModuleList([ResidualBlock(num_channels) for _ in range(num_blocks)])
        self.conv1x1_value = nn.Conv2d(num_channels, reduced_value, 1)
        self.conv1x1_policy = nn.Conv2d(num_channels, reduced_policy, 1)
        self.fc_value = nn.Linear(reduced_value * board_cells, 2 * support_size + 1)
        self.fc_policy = nn.Linear(reduced_policy * board_cells, action_space_size)

    def forward(self, x):
        for block in self.resblocks:
            x = block(x)
        value = self.fc_value(self.conv1x1_value(x).flatten(1))
        policy = self.fc_policy(self.conv1x1_policy(x).flatten(1))
        return policy, value


class MuZeroResidualNetwork(nn.Module):
    def __init__(self, config):
        super().__init__()
        c, h, w = config.observation_shape
        cells = h * w
        self.action_space_size = config.action_space_size
        self.representation_network = RepresentationNetwork(config.observation_shape, config.blocks,
                                                            config.channels)
        self.dynamics_network = DynamicsNetwork(config.blocks, config.channels,
                                                config.reduced_channels_reward, cells, config.support_size)
        self.prediction_network = PredictionNetwork(config.action_space_size, config.blocks, config.channels,
                                                    config.reduced_channels_value,
                                                    config.reduced_channels_policy, cells, config.support_size)

    @staticmethod
    def _scale_state(state):
        flat = state.flatten(2)
        lo = flat.min(2, keepdim=True)[0].unsqueeze(-1)
        hi = flat.max(2, keepdim=True)[0].unsqueeze(-1)
        return (state - lo) / (hi - lo).clamp_min(1e-5)

    def initial_inference(self, observation):
        state = self._scale_state(self.representation_network(observation))
        policy, value = self.prediction_network(state)
        return value, policy, state

    def recurrent_inference(self, state, action):
        plane = torch.ones_like(state[:, :1]) * action[:, None, None, None].float() / self.action_space_size
        next_state, reward = self.dynamics_network(torch.cat([state, plane], dim=1))
        next_state = self._scale_state(next_state)
        policy, value = self.prediction_network(next_state)
        return value, reward, policy, next_state
