import torch
from torch import nn
import torch.nn.functional as F


class Tokenizer:
    def __init__(self):
        self.vocab = {"<pad>": 0, "<unk>": 1}

    def __call__(self, text, grow=True):
        ids = []
        for w in text.lower().replace(".", " ").replace("-=", " ").split():
            if w not in self.vocab and grow:
                self.vocab[w] = len(self.vocab)
            ids.append(self.vocab.get(w, 1))
        return ids


class CommandScorer(nn.Module):
    def __init__(self, vocab_size=256, hidden=32):
        super().__init__()
        self.emb = nn.EmbeddingBag(vocab_size, hidden, mode="mean")
        self.obs_enc = nn.Linear(hidden, hidden)
        self.cmd_enc = nn.Linear(hidden, hidden)
        self.dropout = nn.Dropout(0.1)
        self.critic = nn.Linear(hidden, 1)

    def forward(self, obs_ids, cmd_ids):
        """obs_ids: (batch, len); cmd_ids: (batch, n_cmds, len) -> scores, values."""
        b, n, l = cmd_ids.shape
        o = torch.tanh(self.obs_enc(self.dropout(self.emb(obs_ids))))
        c = torch.tanh(self.cmd_enc(self.dropout(self.emb(cmd_ids.view(b * n, l))))).view(b, n, -1)
        scores = torch.bmm(c, o.unsqueeze(-1)).squeeze(-1)
        return scores, self.critic(o).squeeze(-1)


class TextAgent:
    """Samples one admissible command per game and learns with REINFORCE
    plus a learned baseline."""

    def __init__(self, opt):
        self.tokenizer = Tokenizer()
        self.model = CommandScorer(hidden=opt.hidden_size)
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=opt.lr)
        self.gamma = 0.9
        self.training = True

    def _pad(self, seqs, n=None):
        n = n or max(len(s) for s in seqs)
        return torch.tensor([s + [0] * (n - len(s)) for s in seqs])

    def act(self, obs, infos):
        self.transitions = getattr(self, "transitions", [])
        self.model.train(self.training)   # dropout only while learning
        obs_ids = self._pad([self.tokenizer(o) for o in obs])
        cmd_tok = [[self.tokenizer(c) for c in cmds] for cmds in infos["admissible_commands"]]
        width = max(len(t) for cmds in cmd_tok for t in cmds)
        cmd_ids = torch.stack([self._pad(cmds, width) for cmds in cmd_tok])
        scores, values = self.model(obs_ids, cmd_ids)
        probs = F.softmax(scores, dim=-1)
        if self.training:
            idx = torch.multinomial(probs, 1).squeeze(-1)
        else:
            idx = probs.argmax(dim=-1)
        log_probs = torch.log(probs.gather(1, idx.unsqueeze(-1)).squeeze(-1))
        self.transitions.append((log_probs, values))
        return [cmds[i] for cmds, i in zip(infos["admissible_commands"], idx.tolist())]

    def observe(self, rewards):
        log_probs, values = self.transitions[-1]
        self.transitions[-1] = (log_probs, values, torch.tensor(rewards))

    def end_episode(self):
        if not self.training:
            self.transitions = []
            return
        loss, returns = 0.0, torch.zeros(len(self.transitions[0][0]))
        for log_probs, values, rewards in reversed(self.transitions):
            returns = rewards + self.gamma * returns
            advantage = returns - values.detach()
            loss = loss + (-log_probs * advantage + 0.5 * (returns - values) ** 2).mean()
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        self.transitions = []
