import glob

import librosa
import numpy as np


def song_to_fragments(path, sr=22050, win_s=3.0, overlap=0.5):
    y, _ = librosa.load(path, sr=sr)
    win = int(win_s * sr)
    hop = int(win * (1 - overlap))
    frags = []
    for start in range(0, len(y) - win + 1, hop):
        mel = librosa.feature.melspectrogram(y=y[start:start + win], sr=sr, n_mels=128)
        frags.append(librosa.power_to_db(mel, ref=np.max))
    return frags


def build_dataset(root, genres):
    X, y, song_ids = [], [], []
    for g_idx, genre in enumerate(genres):
        for s_idx, path in enumerate(sorted(glob.glob(f"{root}/{genre}/*.wav"))):
            for frag in song_to_fragments(path):
                X.append(frag)
                y.append(g_idx)
                song_ids.append(f"{genre}/{s_idx}")
    return np.stack(X)[:, None].astype(np.float32), np.array(y), np.array(song_ids)
