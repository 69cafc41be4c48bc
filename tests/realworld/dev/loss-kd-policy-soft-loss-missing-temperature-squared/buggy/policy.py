class ScheduledTrainingPolicy:
    """Base class for policies that hook into the training loop."""

    def on_epoch_begin(self, model, epoch, **kwargs):
        pass

    def on_epoch_end(self, model, epoch, **kwargs):
        pass

    def before_backward_pass(self, model, epoch, minibatch_id, minibatches_per_epoch, loss, **kwargs):
        return None


class CompressionScheduler:
    def __init__(self, model):
        self.model = model
        self.policies = []

    def add_policy(self, policy):
        self.policies.append(policy)

    def on_epoch_begin(self, epoch):
        for p in self.policies:
            p.on_epoch_begin(self.model, epoch)

    def on_epoch_end(self, epoch):
        for p in self.policies:
            p.on_epoch_end(self.model, epoch)

    def before_backward_pass(self, epoch, minibatch_id, minibatches_per_epoch, loss):
        overall = loss
        for p in self.policies:
            out = p.before_backward_pass(self.model, epoch, minibatch_id, minibatches_per_epoch, overall)
            if out is not None:
                overall = out
        return overall
