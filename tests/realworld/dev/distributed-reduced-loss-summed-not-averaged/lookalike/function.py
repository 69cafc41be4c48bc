import logging

from utils import AverageMeter, reduce_tensor


def train(config, epoch, trainloader, optimizer, lr_scheduler, model, writer, rank):
    model.train()
    ave_loss = AverageMeter()
    for i_iter, (images, labels) in enumerate(trainloader):
        images, labels = images.cuda(non_blocking=True), labels.long().cuda(non_blocking=True)
        losses, _ = model(images, labels)
        loss = losses.mean()
        model.zero_grad()
        loss.backward()
        optimizer.step()
        lr_scheduler.step()
        reduced_loss = reduce_tensor(loss)
        ave_loss.update(reduced_loss.item())
        if i_iter % config.PRINT_FREQ == 0 and rank == 0:
            logging.info(f"Epoch {epoch} iter {i_iter}/{len(trainloader)} lr {lr_scheduler.get_last_lr()[0]:.6f} "
                         f"loss {ave_loss.average:.6f}")
    if rank == 0:
        writer.add_scalar("train_loss", ave_loss.average, epoch)
    return ave_loss.average
