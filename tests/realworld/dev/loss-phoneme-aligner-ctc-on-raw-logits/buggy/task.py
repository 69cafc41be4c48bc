import torch
import torch.nn.functional as F

BLANK = 0


class AlignerTask:
    def __init__(self, model, lambda_ctc=1.0, lambda_bd=0.5):
        self.model = model
        self.lambda_ctc = lambda_ctc
        self.lambda_bd = lambda_bd

    def run_model(self, sample):
        output = self.model(sample["mel"])
        losses = {}
        self.add_ctc_loss(output, sample, losses)
        self.add_boundary_loss(output, sample, losses)
        return losses, output

    def add_ctc_loss(self, output, sample, losses):
        ph_frame_logits = output["ph_frame_logits"]
        ph_ctc_loss = F.ctc_loss(
            ph_frame_logits.transpose(0, 1),
            sample["ph_seq"],
            sample["mel_lengths"],
            sample["ph_lengths"],
            blank=BLANK,
            zero_infinity=True,
        )
        losses["ph_ctc_loss"] = self.lambda_ctc * ph_ctc_loss

    def add_boundary_loss(self, output, sample, losses):
        frame_mask = (
            torch.arange(sample["mel"].size(1))[None, :] < sample["mel_lengths"][:, None]
        ).float()
        bd = F.binary_cross_entropy_with_logits(
            output["boundary_logits"], sample["boundaries"], reduction="none"
        )
        losses["boundary_loss"] = self.lambda_bd * (bd * frame_mask).sum() / frame_mask.sum()
