class MuZeroConfig:
    def __init__(self):
        self.observation_shape = (3, 6, 7)
        self.action_space_size = 7
        self.stacked_observations = 0
        self.blocks = 6
        self.channels = 64
        self.reduced_channels_reward = 2
        self.reduced_channels_value = 2
        self.reduced_channels_policy = 4
        self.support_size = 10
        self.batch_size = 128
        self.lr_init = 0.003
        self.weight_decay = 1e-4
        self.momentum = 0.9
        self.value_loss_weight = 0.25
        self.num_unroll_steps = 5
        self.training_steps = 10000
