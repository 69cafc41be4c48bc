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

    def words_to_indices(self):
        return {sup: list(subs) for sup, subs in self.hierarchical_labels.items()}

    def check_hierarchy(self, current_level, previous_level):
        """1.0 where the predicted subclass is not a child of the predicted superclass."""
        bool_tensor = [
            not (current_level[i].item() in self.numeric_hierarchy[previous_level[i].item()])
            for i in range(previous_level.size(0))
        ]
        return torch.FloatTensor(bool_tensor).to(self.device)

    def calculate_lloss(self, predictions, true_labels):
        lloss = 0
        for l in range(self.total_level):
            lloss += nn.CrossEntropyLoss()(predictions[l], true_labels[l])
        return self.alpha * lloss

    def calculate_dloss(self, predictions, true_labels):
        dloss = 0
        for l in range(1, self.total_level):
            current_lvl_pred = torch.argmax(nn.Softmax(dim=1)(predictions[l]), dim=1)
            prev_lvl_pred = torch.argmax(nn.Softmax(dim=1)(predictions[l - 1]), dim=1)

            D_l = self.check_hierarchy(current_lvl_pred, prev_lvl_pred)

            l_prev = torch.where(prev_lvl_pred == true_labels[l - 1],
                                 torch.FloatTensor([0]).to(self.device),
                                 torch.FloatTensor([1]).to(self.device))
            l_curr = torch.where(current_lvl_pred == true_labels[l],
                                 torch.FloatTensor([0]).to(self.device),
                                 torch.FloatTensor([1]).to(self.device))

            dloss += torch.sum(torch.pow(self.p_loss, D_l * l_prev)
                               * torch.pow(self.p_loss, D_l * l_curr) - 1)
        return self.beta * dloss
