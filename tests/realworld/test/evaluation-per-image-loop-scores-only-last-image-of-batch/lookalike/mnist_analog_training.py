"""Train a small fully connected network on digit-like data and report its validation accuracy."""
from time import time

import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(1)

INPUT_SIZE = 64
HIDDEN_SIZES = [48, 24]
OUTPUT_SIZE = 10
EPOCHS = 12
BATCH_SIZE = 64


def load_images():
    """Synthetic 8x8 'digits': one noisy prototype per class."""
    g = torch.Generator().manual_seed(0)
    prototypes = (torch.rand(OUTPUT_SIZE, INPUT_SIZE, generator=g) > 0.5).float()

    def draw(n):
        y = torch.randint(0, OUTPUT_SIZE, (n,), generator=g)
        flips = (torch.rand(n, INPUT_SIZE, generator=g) < 0.3).float()
        x = (prototypes[y] + flips) % 2
        return x.view(n, 1, 8, 8), y

    train_set = DataLoader(TensorDataset(*draw(3000)), batch_size=BATCH_SIZE, shuffle=True)
    validation_set = DataLoader(TensorDataset(*draw(1000)), batch_size=BATCH_SIZE, shuffle=False)
    return train_set, validation_set


def create_network(input_size, hidden_sizes, output_size):
    return nn.Sequential(
        nn.Linear(input_size, hidden_sizes[0]), nn.Sigmoid(),
        nn.Linear(hidden_sizes[0], hidden_sizes[1]), nn.Sigmoid(),
        nn.Linear(hidden_sizes[1], output_size), nn.LogSoftmax(dim=1),
    )


def train(model, train_set):
    classifier = nn.NLLLoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    time_init = time()
    for epoch_number in range(EPOCHS):
        total_loss = 0
        for images, labels in train_set:
            images = images.view(images.shape[0], -1)
            optimizer.zero_grad()
            output = model(images)
            loss = classifier(output, labels)
            loss.backward()
            optimizer.step()
            total_loss += loss.item()
        print('Epoch {} - Training loss: {:.6f}'.format(epoch_number, total_loss / len(train_set)))
    print('Training Time (s) = {:.1f}'.format(time() - time_init))


def test_evaluation(model, val_set):
    """Count how many validation images the network classifies correctly."""
    predicted_ok = 0
    total_images = 0

    for images, labels in val_set:
        predicted_labels = []
        for i in range(len(labels)):
            image = images[i].view(1, INPUT_SIZE)
            with torch.no_grad():
                pred = model(image)
            predicted_labels.append(int(pred.argmax(dim=1)))

        predicted_tensor = torch.tensor(predicted_labels)
        validation_labels = labels

        predicted_ok += int((predicted_tensor == validation_labels).sum())
        total_images += len(validation_labels)

    print('Number Of Images Tested = {}'.format(total_images))
    print('Model Accuracy = {}'.format(predicted_ok / total_images))


def main():
    train_dataset, validation_dataset = load_images()
    model = create_network(INPUT_SIZE, HIDDEN_SIZES, OUTPUT_SIZE)
    train(model, train_dataset)
    test_evaluation(model, validation_dataset)


if __name__ == '__main__':
    main()
