import torch
import torchaudio


class LogMel(torch.nn.Module):
    def __init__(self, sample_rate=16000, n_mels=40):
        super().__init__()
        self.mel = torchaudio.transforms.MelSpectrogram(sample_rate=sample_rate, n_fft=480,
                                                        hop_length=160, n_mels=n_mels)

    @torch.no_grad()
    def forward(self, wav):
        return torch.log(self.mel(wav) + 1e-6).unsqueeze(0)
