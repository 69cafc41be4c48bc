from utils import (JointCompose, JointHorizontalFlip, JointNormalize, JointResize,
                   JointToTensor)


class setting_config:
    data_path = "./data/isic2018/"
    input_size = 256
    batch_size = 8
    epochs = 100
    lr = 1e-3
    num_workers = 4
    seed = 42
    mean = [157.56, 125.39, 108.84]
    std = [27.54, 31.85, 38.11]

    train_transformer = JointCompose([
        JointNormalize(mean, std),
        JointToTensor(),
        JointResize(input_size),
        JointHorizontalFlip(p=0.5),
    ])
    test_transformer = JointCompose([
        JointNormalize(mean, std),
        JointToTensor(),
        JointResize(input_size),
    ])
