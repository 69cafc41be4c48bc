import logging
import time

import torch as th
import torch.nn.functional as F

logger = logging.getLogger(__name__)


class NodePredictionTrainer:
    """Trains a node classification model on mini-batches of sampled blocks."""

    def __init__(self, model, optimizer, device="cpu", log_every=50):
        self.model = model
        self.optimizer = optimizer
        self.device = device
        self.log_every = log_every

    def _loss(self, batch):
        blocks, input_feats, labels = batch
        logits = self.model(blocks, input_feats)
        return F.cross_entropy(logits, labels)

    def fit(self, train_loader, num_epochs, max_grad_norm=None, grad_norm_type=2.0, evaluator=None):
        global_step = 0
        for epoch in range(num_epochs):
            self.model.train()
            t0 = time.time()
            for batch in train_loader:
                loss = self._loss(batch)
                self.optimizer.zero_grad()
                loss.backward()
                self.optimizer.step()

                if max_grad_norm is not None:
                    th.nn.utils.clip_grad_norm_(self.model.parameters(), max_grad_norm, grad_norm_type)

                global_step += 1
                if global_step % self.log_every == 0:
                    logger.info("epoch %d step %d loss %.4f", epoch, global_step, loss.item())
            logger.info("epoch %d took %.1fs", epoch, time.time() - t0)
            if evaluator is not None:
                evaluator(self.model, epoch)
        return global_step
