import argparse

import numpy as np
import torch
import torch.nn as nn

from model_pytorch import ClfHead, LMHead, TransformerModel, load_openai_pretrained_model
from opt import OpenAIAdam
from loss import MultipleChoiceLossCompute
from datasets import rocstories, iter_data


parser = argparse.ArgumentParser()
parser.add_argument("--n_iter", type=int, default=3)
parser.add_argument("--n_batch", type=int, default=8)
parser.add_argument("--lr", type=float, default=6.25e-5)
parser.add_argument("--lr_warmup", type=float, default=0.002)
parser.add_argument("--lm_coef", type=float, default=0.5)
parser.add_argument("--max_grad_norm", type=int, default=1)
parser.add_argument("--l2", type=float, default=0.01)
parser.add_argument("--n_embd", type=int, default=768)
parser.add_argument("--clf_pdrop", type=float, default=0.1)
args = parser.parse_args()

(trX, trM, trY), (vaX, vaM, vaY), n_vocab, n_ctx = rocstories(args)
n_updates_total = (len(trY) // args.n_batch) * args.n_iter

model = TransformerModel(args, vocab=n_vocab, n_ctx=n_ctx)
lm_head = LMHead(model, args)
clf_head = ClfHead(args.n_embd, args.clf_pdrop)
load_openai_pretrained_model(model, n_ctx=n_ctx, n_special=3)

criterion = nn.CrossEntropyLoss(reduction="none")
model_opt = OpenAIAdam(model.parameters(), lr=args.lr, schedule="warmup_linear", warmup=args.lr_warmup,
                       t_total=n_updates_total, b1=0.9, b2=0.999, e=1e-8, l2=args.l2, vector_l2=False,
                       max_grad_norm=args.max_grad_norm)
compute_loss_fct = MultipleChoiceLossCompute(criterion, criterion, args.lm_coef, model_opt)

for i in range(args.n_iter):
    for xmb, mmb, ymb in iter_data(trX, trM, trY, n_batch=args.n_batch, truncate=True, verbose=True):
        XMB = torch.tensor(xmb, dtype=torch.long)
        YMB = torch.tensor(ymb, dtype=torch.long)
        MMB = torch.tensor(mmb)
        h = model(XMB)
        lm_logits = lm_head(h)
        clf_logits = clf_head(h, XMB)
        compute_loss_fct(XMB, YMB, MMB, clf_logits, lm_logits)
