import torch

from model import LightGCN
from utility.batch_test import test
from utility.load_data import Data

torch.manual_seed(2020)
torch.set_num_threads(1)

KS = (10, 20)
data = Data()
model = LightGCN(data.n_users, data.n_items, data.get_adj_mat())
optimizer = torch.optim.Adam(model.parameters(), lr=5e-3)

ret = test(model, data, KS)
print(f"init      recall@20={ret['recall'][1]:.4f}  ndcg@20={ret['ndcg'][1]:.4f}")
n_batch = data.n_train // data.batch_size + 1
for epoch in range(15):
    loss = 0.0
    for _ in range(n_batch):
        users, pos, neg = (torch.as_tensor(a) for a in data.sample())
        batch_loss = model.bpr_loss(users, pos, neg)
        optimizer.zero_grad()
        batch_loss.backward()
        optimizer.step()
        loss += batch_loss.item()
    if (epoch + 1) % 5 == 0:
        ret = test(model, data, KS)
        print(f"epoch {epoch + 1:3d} loss={loss / n_batch:.4f}  "
              f"recall@{KS[0]}={ret['recall'][0]:.4f} recall@{KS[1]}={ret['recall'][1]:.4f}  "
              f"ndcg@{KS[0]}={ret['ndcg'][0]:.4f} ndcg@{KS[1]}={ret['ndcg'][1]:.4f}")
