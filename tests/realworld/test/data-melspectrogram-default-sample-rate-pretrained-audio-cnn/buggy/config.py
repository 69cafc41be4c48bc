"""Feature settings shared by pretraining and fine-tuning of the audio-tagging CNN."""

SAMPLE_RATE = 32000
CLIP_SECONDS = 10

MEL_PARAMS = {
    "n_fft": 1024,
    "win_length": 1024,
    "hop_length": 320,
    "f_min": 50.0,
    "n_mels": 64,
    "power": 2.0,
}

PRETRAINED_CKPT = "checkpoints/cnn10_audioset_32k.pth"
NUM_CLASSES = 41
