"""Pose-sequence encoder with a small classification head (style / energy tags)."""
from torch import nn

from layers import ConvNormRelu, ResBlock, temporal_pool


class MotionEncoder(nn.Module):
    def __init__(self, pose_dim, hidden=64, n_down=2):
        super().__init__()
        blocks = [ConvNormRelu(pose_dim, hidden)]
        for _ in range(n_down):
            blocks.append(ConvNormRelu(hidden, hidden, downsample=True))
            blocks.append(ResBlock(hidden))
        self.blocks = nn.Sequential(*blocks)

    def forward(self, poses):
        # poses: (batch, time, pose_dim) -> (batch, pose_dim, time)
        return self.blocks(poses.transpose(1, 2))


class MotionTagger(nn.Module):
    def __init__(self, pose_dim, n_tags, hidden=64):
        super().__init__()
        self.encoder = MotionEncoder(pose_dim, hidden)
        self.head = nn.Linear(hidden, n_tags)

    def forward(self, poses):
        feats = temporal_pool(self.encoder(poses))
        return self.head(feats)
