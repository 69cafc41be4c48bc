import numpy as np
import torch
from torchvision import datasets


def one_hot(labels, nb_classes):
    out = np.zeros((len(labels), nb_classes), dtype=np.float32)
    out[np.arange(len(labels)), labels] = 1.0
    return out


def load_mnist(root="./data", label_smoothing=0.1, nb_classes=10):
    train = datasets.MNIST(root, train=True, download=True)
    test = datasets.MNIST(root, train=False, download=True)
    x_train = train.data.numpy().astype(np.float32)[:, None] / 255.0
    x_test = test.data.numpy().astype(np.float32)[:, None] / 255.0
    y_train = one_hot(train.targets.numpy(), nb_classes)
    y_test = one_hot(test.targets.numpy(), nb_classes)
    y_train = y_train * (1.0 - label_smoothing) + label_smoothing / nb_classes
    return (torch.from_numpy(x_train), torch.from_numpy(y_train),
            torch.from_numpy(x_test), torch.from_numpy(y_test))
