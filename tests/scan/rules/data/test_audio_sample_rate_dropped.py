"""The ``audio-sample-rate-dropped`` rule (``mlsleuth/scan/rules/data/audio_sample_rate_dropped.py``)."""

from __future__ import annotations

from scan.helpers import check, findings

RULE = "audio-sample-rate-dropped"


def test_rate_never_read_and_feature_extractor_told_16k():
    src = """
    import torchaudio

    TARGET_SR = 16000

    class Clips:
        def load_audio(self, path):
            audio, sr = torchaudio.load(path)  # expect: audio-sample-rate-dropped
            return audio.mean(dim=0)[: 6 * TARGET_SR]

    class Collator:
        def __init__(self, feature_extractor):
            self.fe = feature_extractor

        def __call__(self, batch):
            return self.fe([b.numpy() for b in batch], sampling_rate=TARGET_SR, return_tensors="pt")
    """
    (f,) = findings(src, RULE)
    check(src, {RULE})
    assert "torchaudio.load" in f.message


def test_soundfile_underscore_indexing_scipy_and_librosa_native_rate():
    src = """
    import soundfile as sf
    import librosa
    from scipy.io import wavfile
    from torchaudio import load as load_audio
    from torchaudio.transforms import MelSpectrogram

    mel = MelSpectrogram(sample_rate=16000, n_mels=64)

    def speech(path, processor):
        speech, _ = sf.read(path)  # expect: audio-sample-rate-dropped
        return processor(speech, sampling_rate=16000, return_tensors="pt").input_values[0]

    def first_element(path, extractor):
        wav = load_audio(path)[0]  # expect: audio-sample-rate-dropped
        return extractor(wav.numpy(), sampling_rate=16000)

    def scipy_wave(path, extractor):
        _, data = wavfile.read(path)  # expect: audio-sample-rate-dropped
        return extractor(data, sampling_rate=16000)

    def native(path, extractor):
        y, sr = librosa.load(path, sr=None)  # expect: audio-sample-rate-dropped
        return extractor(y, sampling_rate=extractor.sampling_rate)
    """
    check(src, {RULE})


def test_negative_rate_kept_checked_or_resampled_or_nothing_assumed():
    src = """
    import librosa
    import soundfile as sf
    import torchaudio

    def resampled_by_librosa(path, processor):
        y, _ = librosa.load(path, sr=16000)
        return processor(y, sampling_rate=16000)

    def checked(path, processor):
        wav, sr = torchaudio.load(path)
        assert sr == 16000, sr
        return processor(wav, sampling_rate=16000)

    def kept(path):
        wav, sr = sf.read(path)
        return {"audio": wav, "sr": sr}

    def passed_on(path, processor):
        wav, sr = sf.read(path)
        return processor(wav, sampling_rate=sr)
    """
    check(src, {RULE})
    other = """
    import torchaudio

    def no_rate_assumed(path):
        wav, _ = torchaudio.load(path)
        return wav.mean(0)
    """
    check(other, {RULE})
    transform_rate = """
    import torchaudio

    class Calls:
        def __init__(self, cfg):
            self.melspec = torchaudio.transforms.MelSpectrogram(sample_rate=cfg.sample_rate, n_mels=cfg.n_mels)

        def segment(self, path, offset, n):
            wav, _ = torchaudio.load(path, frame_offset=offset, num_frames=n)
            return self.melspec(wav.mean(0))
    """
    check(transform_rate, {RULE})
    fixed_resampler = """
    import torchaudio

    resampler = torchaudio.transforms.Resample(orig_freq=44100, new_freq=16000)

    def load(path, processor):
        wav, _ = torchaudio.load(path)
        return processor(resampler(wav), sampling_rate=16000)
    """
    check(fixed_resampler, {RULE})
