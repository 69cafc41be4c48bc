import torch
import torch.nn as nn
import torch.nn.functional as F
from transformers import BertForMaskedLM, BertModel


class TokenContrastivePretraining(nn.Module):
    def __init__(self, model_name, temperature=0.01):
        super().__init__()
        self.student = BertForMaskedLM.from_pretrained(model_name)
        self.teacher = BertModel.from_pretrained(model_name)
        for p in self.teacher.parameters():
            p.requires_grad = False
        self.temperature = temperature
        self.vocab_size = self.student.config.vocab_size

    def token_contrastive_loss(self, student_rep, teacher_rep, attention_mask, contrastive_mask):
        student_rep = F.normalize(student_rep, dim=-1)
        teacher_rep = F.normalize(teacher_rep, dim=-1)
        scores = torch.matmul(student_rep, teacher_rep.transpose(1, 2)) / self.temperature
        scores = scores.masked_fill(attention_mask[:, None, :] == 0, float("-inf"))
        labels = torch.arange(scores.size(1), device=scores.device).expand(scores.size(0), -1)
        loss = F.cross_entropy(scores.flatten(0, 1), labels.flatten(), reduction="none")
        loss = loss.view_as(labels) * contrastive_mask
        correct = (scores.argmax(-1) == labels).float() * contrastive_mask
        denom = contrastive_mask.sum().clamp(min=1.0)
        return loss.sum() / denom, correct.sum() / denom

    def forward(self, truth_ids, masked_ids, token_type_ids, attention_mask,
                mlm_labels, contrastive_mask):
        with torch.no_grad():
            teacher_rep = self.teacher(input_ids=truth_ids, token_type_ids=token_type_ids,
                                       attention_mask=attention_mask).last_hidden_state
        out = self.student(input_ids=masked_ids, token_type_ids=token_type_ids,
                           attention_mask=attention_mask, labels=mlm_labels,
                           output_hidden_states=True)
        student_rep = out.hidden_states[-1]
        cl_loss, cl_acc = self.token_contrastive_loss(student_rep, teacher_rep,
                                                      attention_mask, contrastive_mask)
        return out.loss, cl_loss, cl_acc

    def save_student(self, path):
        self.student.save_pretrained(path)
