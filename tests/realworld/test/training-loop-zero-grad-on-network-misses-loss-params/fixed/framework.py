import torch


class Model:
    """Keras-like wrapper: fit a network with an optimizer and a (possibly trainable) loss."""

    def __init__(self, network, optimizer, loss_function, metrics=None):
        self.network = network
        self.optimizer = optimizer
        self.loss_function = loss_function
        self.metrics = metrics or []

    def _fit_batch(self, x, y):
        self.optimizer.zero_grad()
        pred = self.network(x)
        loss = self.loss_function(pred, y)
        loss.backward()
        self.optimizer.step()
        return float(loss)

    def fit_generator(self, train_generator, epochs=10, steps_per_epoch=None):
        for epoch in range(1, epochs + 1):
            self.network.train(True)
            losses = []
            for step, (x, y) in enumerate(train_generator, 1):
                losses.append(self._fit_batch(x, y))
                if steps_per_epoch is not None and step >= steps_per_epoch:
                    break
            print(f"Epoch {epoch}/{epochs} loss: {sum(losses) / len(losses):.4f}")
