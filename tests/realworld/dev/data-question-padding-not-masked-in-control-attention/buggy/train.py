import pickle

import torch
import torch.nn as nn
from torch.utils.data import DataLoader

from dataset import CLEVR, collate_data
from model import MACNetwork


def train(net, loader, optimizer, criterion, device):
    net.train()
    for image, question, q_len, answer in loader:
        image, question, answer = image.to(device), question.to(device), answer.to(device)
        net.zero_grad()
        loss = criterion(net(image, question, q_len), answer)
        loss.backward()
        optimizer.step()


if __name__ == "__main__":
    device = "cuda"
    with open("data/dic.pkl", "rb") as f:
        dic = pickle.load(f)
    net = MACNetwork(len(dic["word_dic"]) + 1, classes=len(dic["answer_dic"])).to(device)
    loader = DataLoader(CLEVR("data"), batch_size=64, shuffle=True, num_workers=4, collate_fn=collate_data)
    optimizer = torch.optim.Adam(net.parameters(), lr=1e-4)
    for epoch in range(20):
        train(net, loader, optimizer, nn.CrossEntropyLoss(), device)
