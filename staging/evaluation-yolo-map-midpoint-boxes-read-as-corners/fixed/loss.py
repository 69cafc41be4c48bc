import torch
from torch import nn

from utils import intersection_over_union


class YoloLoss(nn.Module):
    def __init__(self, lambda_class=1.0, lambda_noobj=10.0, lambda_obj=1.0, lambda_box=10.0):
        super().__init__()
        self.mse = nn.MSELoss()
        self.bce = nn.BCEWithLogitsLoss()
        self.entropy = nn.CrossEntropyLoss()
        self.lambda_class, self.lambda_noobj = lambda_class, lambda_noobj
        self.lambda_obj, self.lambda_box = lambda_obj, lambda_box

    def forward(self, predictions, target, anchors):
        obj = target[..., 0] == 1
        noobj = target[..., 0] == 0
        no_object_loss = self.bce(predictions[..., 0:1][noobj], target[..., 0:1][noobj])
        anchors = anchors.reshape(1, 3, 1, 1, 2)
        box_preds = torch.cat([torch.sigmoid(predictions[..., 1:3]), torch.exp(predictions[..., 3:5]) * anchors], dim=-1)
        ious = intersection_over_union(box_preds[obj], target[..., 1:5][obj]).detach()
        object_loss = self.mse(torch.sigmoid(predictions[..., 0:1][obj]), ious * target[..., 0:1][obj])
        predictions = predictions.clone()
        predictions[..., 1:3] = torch.sigmoid(predictions[..., 1:3])
        target = target.clone()
        target[..., 3:5] = torch.log(1e-16 + target[..., 3:5] / anchors)
        box_loss = self.mse(predictions[..., 1:5][obj], target[..., 1:5][obj])
        class_loss = self.entropy(predictions[..., 5:][obj], target[..., 5][obj].long())
        return (self.lambda_box * box_loss + self.lambda_obj * object_loss
                + self.lambda_noobj * no_object_loss + self.lambda_class * class_loss)
