import torch

from model import PhonemeFrameEncoder
from task import AlignerTask


def fake_batch(batch_size=8, max_frames=120, n_mels=80, n_phonemes=40, max_ph=20):
    mel_lengths = torch.randint(max_frames // 2, max_frames + 1, (batch_size,))
    ph_lengths = torch.randint(5, max_ph + 1, (batch_size,))
    mel = torch.randn(batch_size, max_frames, n_mels)
    ph_seq = torch.randint(1, n_phonemes + 1, (batch_size, max_ph))
    boundaries = (torch.rand(batch_size, max_frames) < 0.1).float()
    return {
        "mel": mel,
        "mel_lengths": mel_lengths,
        "ph_seq": ph_seq,
        "ph_lengths": ph_lengths,
        "boundaries": boundaries,
    }


def main(steps=50):
    torch.manual_seed(0)
    model = PhonemeFrameEncoder()
    task = AlignerTask(model)
    optimizer = torch.optim.AdamW(model.parameters(), lr=2e-4)
    for step in range(steps):
        sample = fake_batch()
        losses, _ = task.run_model(sample)
        total = sum(losses.values())
        optimizer.zero_grad()
        total.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        if step % 10 == 0:
            print(step, {k: round(v.item(), 4) for k, v in losses.items()})


if __name__ == "__main__":
    main()
