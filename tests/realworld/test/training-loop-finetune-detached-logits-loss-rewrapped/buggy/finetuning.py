"""Fine-tuning helpers: freezing, one training pass, validation accuracy."""
import torch
from torch.autograd import Variable


def freeze_layers(model, unfrozen_keyword="output_layer"):
    for name, param in model.named_parameters():
        param.requires_grad = unfrozen_keyword in name or "attention" in name
    return model


def evaluate_using_acc(model, loader):
    model.eval()
    correct, seen = 0, 0
    with torch.no_grad():
        for seqs, labels in loader:
            preds = model(seqs).argmax(dim=1)
            correct += (preds == labels).sum().item()
            seen += labels.numel()
    return correct / max(seen, 1)


def train_epoch(model, loss_op, optim_op, loader, clip_norm=1.0):
    model.train()
    total = 0.0
    for seqs, labels in loader:
        optim_op.zero_grad()
        outputs = model(seqs)
        loss = loss_op(outputs, labels)
        loss = Variable(loss, requires_grad=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), clip_norm)
        optim_op.step()
        total += loss.item() * labels.size(0)
    return total / len(loader.dataset)


def fit_model(model, loss_op, optim_op, train_loader, val_loader, nb_epochs, checkpoint_path):
    best_acc = -1.0
    for epoch in range(nb_epochs):
        train_loss = train_epoch(model, loss_op, optim_op, train_loader)
        val_acc = evaluate_using_acc(model, val_loader)
        print(f"epoch {epoch}: train loss {train_loss:.4f} val acc {val_acc:.3f}")
        if val_acc > best_acc:
            best_acc = val_acc
            torch.save(model.state_dict(), checkpoint_path)
    return best_acc
