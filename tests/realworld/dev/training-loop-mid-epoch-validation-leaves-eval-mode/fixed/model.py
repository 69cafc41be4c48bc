import torch
import torch.nn as nn
import torchvision.models as models
from torch.nn.utils import clip_grad_norm_

from loss import ContrastiveLoss


class EncoderImage(nn.Module):
    def __init__(self, embed_size, finetune=False):
        super().__init__()
        self.cnn = models.resnet152(weights="IMAGENET1K_V1")
        self.cnn.fc = nn.Identity()
        for p in self.cnn.parameters():
            p.requires_grad = finetune
        self.fc = nn.Linear(2048, embed_size)
        self.drop = nn.Dropout(0.2)

    def forward(self, images):
        return nn.functional.normalize(self.fc(self.drop(self.cnn(images))), dim=-1)


class EncoderText(nn.Module):
    def __init__(self, vocab_size, word_dim, embed_size):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, word_dim)
        self.rnn = nn.GRU(word_dim, embed_size, batch_first=True, dropout=0.0)
        self.drop = nn.Dropout(0.2)

    def forward(self, captions, lengths):
        out, _ = self.rnn(self.drop(self.embed(captions)))
        idx = (lengths - 1).view(-1, 1, 1).expand(-1, 1, out.size(2))
        return nn.functional.normalize(out.gather(1, idx).squeeze(1), dim=-1)


class VSE:
    def __init__(self, opt):
        self.grad_clip = opt.grad_clip
        self.img_enc = EncoderImage(opt.embed_size, opt.finetune)
        self.txt_enc = EncoderText(opt.vocab_size, opt.word_dim, opt.embed_size)
        self.criterion = ContrastiveLoss(margin=opt.margin, max_violation=opt.max_violation)
        params = list(self.txt_enc.parameters()) + list(self.img_enc.fc.parameters())
        if opt.finetune:
            params += list(self.img_enc.cnn.parameters())
        self.optimizer = torch.optim.Adam(params, lr=opt.learning_rate)
        self.Eiters = 0

    def train_start(self):
        self.img_enc.train()
        self.txt_enc.train()

    def val_start(self):
        self.img_enc.eval()
        self.txt_enc.eval()

    def forward_emb(self, images, captions, lengths):
        return self.img_enc(images), self.txt_enc(captions, lengths)

    def train_emb(self, images, captions, lengths):
        self.Eiters += 1
        img_emb, cap_emb = self.forward_emb(images, captions, lengths)
        self.optimizer.zero_grad()
        loss = self.criterion(img_emb, cap_emb)
        loss.backward()
        if self.grad_clip > 0:
            clip_grad_norm_(list(self.img_enc.parameters()) + list(self.txt_enc.parameters()), self.grad_clip)
        self.optimizer.step()
        return loss.item()
