"""The ``target-network-aliases-online`` rule (``mlsleuth/scan/rules/training_loop/target_network_aliases_online.py``)."""

from __future__ import annotations

from scan.helpers import check

RULE = {"target-network-aliases-online"}


def test_target_ema_or_teacher_bound_to_the_trained_net():
    src = """
    import torch
    from torch import optim

    class Agent:
        def __init__(self, make_net, lr):
            self.policy_net = make_net()
            self.target_net = self.policy_net  # expect: target-network-aliases-online
            self.optimizer = optim.Adam(self.policy_net.parameters(), lr=lr)

        def sync(self):
            self.target_net.load_state_dict(self.policy_net.state_dict())

    def distill(student, loader):
        teacher_model = student  # expect: target-network-aliases-online
        opt = torch.optim.SGD(student.parameters(), lr=0.1)
        return teacher_model, opt
    """
    check(src, RULE)


def test_copies_other_networks_and_behaviour_aliases_are_fine():
    src = """
    import copy
    import torch
    from torch import optim

    class Agent:
        def __init__(self, make_net, lr, teacher_net):
            self.policy_net = make_net()
            self.target_net = copy.deepcopy(self.policy_net)
            self.behaviour_net = self.policy_net
            self.teacher_model = teacher_net
            self.optimizer = optim.Adam(self.policy_net.parameters(), lr=lr)

    def build(model, ema_model):
        ema_net = ema_model
        opt = torch.optim.AdamW(model.parameters())
        return ema_net, opt
    """
    check(src, RULE)
