import torch
import torch.nn as nn

from level_dict import hierarchy


class HierarchicalLossNetwork:
    """Layer loss (CE per level) plus a dependency loss that punishes
    subclass predictions whose parent disagrees with the superclass prediction."""

    def __init__(self, hierarchical_labels=hierarchy, device="cpu", total_level=2,
                 alpha=1.0, beta=0.8, p_loss=3.0):
        self.total_level = total_level
        self.alpha = alpha
        self.beta = beta
        self.p_loss = p_loss
        self.device = device
        self.level_one_labels = list(hierarchical_labels.keys())
        self.hierarchical_labels = hierarchical_labels
        self.numeric_hierarchy = self.words_to_indices()
        num_sub = sum(len(v) for v in self.numeric_hierarchy.values())
        membership = torch.zeros(len(self.level_one_labels), num_sub)
        for sup, subs in self.numeric_hierarchy.items():
            membership[sup, subs] = 1.0
        self.membership = membership.to(device)

    def words_to_indices(self):
        return {sup: list(subs) for sup, subs in self.hierarchical_labels.items()}

    def check_hierarchy(self, current_level, previous_level):
        """Probability that the (superclass, subclass) pair breaks the hierarchy."""
        implied_parent = current_level @ self.membership.t()
        return 1.0 - (implied_parent * previous_level).sum(dim=1)

    def calculate_lloss(self, predictions, true_labels):
        lloss = 0
        for l in range(self.total_level):
            lloss += nn.CrossEntropyLoss()(predictions[l], true_labels[l])
        return self.alpha * lloss

    def calculate_dloss(self, predictions, true_labels):
        dloss = 0
        for l in range(1, self.total_level):
            current_lvl_prob = nn.Softmax(dim=1)(predictions[l])
            prev_lvl_prob = nn.Softmax(dim=1)(predictions[l - 1])

            D_l = self.check_hierarchy(current_lvl_prob, prev_lvl_prob)

            l_prev = 1.0 - prev_lvl_prob.gather(1, true_labels[l - 1].unsqueeze(1)).squeeze(1)
            l_curr = 1.0 - current_lvl_prob.gather(1, true_labels[l].unsqueeze(1)).squeeze(1)

            dloss += torch.sum(torch.pow(self.p_loss, D_l * l_prev)
                               * torch.pow(self.p_loss, D_l * l_curr) - 1)
        return self.beta * dloss
