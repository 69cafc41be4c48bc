import torch
import torch.nn as nn
import torch.nn.functional as F

from utils.dice_score import dice_loss


def train_model(model, train_loader, device, epochs=5, learning_rate=1e-5, weight_decay=1e-8,
                momentum=0.999, gradient_clipping=1.0, amp=True):
    optimizer = torch.optim.RMSprop(model.parameters(), lr=learning_rate, weight_decay=weight_decay,
                                    momentum=momentum, foreach=True)
    scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer, "max", patience=5)
    grad_scaler = torch.amp.GradScaler("cuda", enabled=amp)
    criterion = nn.CrossEntropyLoss() if model.n_classes > 1 else nn.BCEWithLogitsLoss()
    global_step = 0
    for epoch in range(1, epochs + 1):
        model.train()
        for batch in train_loader:
            images = batch["image"].to(device=device, dtype=torch.float32, memory_format=torch.channels_last)
            true_masks = batch["mask"].to(device=device, dtype=torch.long)
            with torch.autocast(device.type, enabled=amp):
                masks_pred = model(images)
                loss = criterion(masks_pred, true_masks)
                loss += dice_loss(F.softmax(masks_pred, dim=1).float(),
                                  F.one_hot(true_masks, model.n_classes).permute(0, 3, 1, 2).float(),
                                  multiclass=True)
            optimizer.zero_grad(set_to_none=True)
            grad_scaler.scale(loss).backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), gradient_clipping)
            grad_scaler.step(optimizer)
            grad_scaler.update()
            global_step += 1
    return model
