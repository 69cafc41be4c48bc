"""Feature settings shared by pretraining and fine-tuning of the audio-tagging CNN."""

SAMPLE_RATE = 16000
CLIP_SECONDS = 10

MEL_PARAMS = {
    "n_fft": 512,
    "win_length": 512,
    "hop_length": 160,
    "f_min": 50.0,
    "n_mels": 64,
    "power": 2.0,
}

PRETRAINED_CKPT = "checkpoints/cnn10_audioset_16k.pth"
NUM_CLASSES = 41
