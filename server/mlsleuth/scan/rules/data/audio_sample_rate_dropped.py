"""The ``audio-sample-rate-dropped`` rule: audio read at its file's rate, the rate thrown away, a fixed rate assumed later."""

from __future__ import annotations

import ast

from mlsleuth.scan.analysis.context import FileContext, constant, keyword
from mlsleuth.scan.registry import Rule, register_rule

# loader -> position of the sample rate in the returned pair
_LOADERS = {
    "torchaudio.load": 1,
    "soundfile.read": 1,
    "scipy.io.wavfile.read": 0,
    "librosa.load": 1,  # only with sr=None: otherwise librosa resamples itself
    "audiofile.read": 1,
}


def _loader(ctx: FileContext, call: ast.Call) -> int | None:
    qual = ctx.qualname(call) or ""
    position = _LOADERS.get(qual)
    if position is None:
        return None
    if qual == "librosa.load":
        sr = keyword(call, "sr")
        if sr is None or not (isinstance(sr, ast.Constant) and sr.value is None):
            return None  # librosa resamples to `sr` (22050 by default)
    return position


def _dropped(ctx: FileContext, call: ast.Call, position: int) -> bool:
    """The returned rate is never looked at: `_`, a name nobody reads, or `load(p)[0]`."""
    parent = ctx.parent(call)
    if isinstance(parent, ast.Subscript) and parent.value is call:
        return constant(parent.slice) == 1 - position
    if not (isinstance(parent, ast.Assign) and len(parent.targets) == 1):
        return False
    target = parent.targets[0]
    if not (isinstance(target, ast.Tuple) and len(target.elts) == 2 and isinstance(target.elts[position], ast.Name)):
        return False
    rate = target.elts[position].id
    if rate == "_":
        return True
    scope = ctx.enclosing_function(call) or ctx.tree
    return not any(isinstance(n, ast.Name) and n.id == rate and isinstance(n.ctx, ast.Load) for n in ast.walk(scope))


def _assumed_rate(ctx: FileContext) -> ast.AST | None:
    """A call in the file that vouches for the audio's rate (`feature_extractor(w, sampling_rate=16000)`).

    Only `sampling_rate=`, the keyword with which Hugging Face feature extractors and processors check
    the rate: the code tells that check a rate it never read. A rate configured in a transform
    (`MelSpectrogram(sample_rate=...)`) is also how clean code on a single-rate corpus looks, so it is no evidence.
    """
    for call in ctx.nodes_of(ast.Call):
        for kw in call.keywords:
            if kw.arg == "sampling_rate" and not (isinstance(kw.value, ast.Constant) and kw.value.value is None):
                if not (isinstance(kw.value, ast.Name) and _is_returned_rate(ctx, kw.value)):
                    return call
    return None


def _is_returned_rate(ctx: FileContext, name: ast.Name) -> bool:
    """``sampling_rate=sr`` where ``sr`` came from a loader: the real rate is passed, the check works."""
    bound = ctx.value_of(name)
    return isinstance(bound, ast.Call) and (ctx.qualname(bound) or "") in _LOADERS


def _resamples(ctx: FileContext) -> bool:
    return "resample" in ctx.source.lower()


@register_rule
class AudioSampleRateDropped(Rule):
    """Audio's own sample rate discarded, a fixed rate assumed later.

    What it finds: `torchaudio.load`, `soundfile.read`, `scipy.io.wavfile.read` or `librosa.load(..., sr=None)`
    whose returned sample rate is thrown away (`wav, _ = ...`, a rate name never read, `load(p)[0]`) in a
    file that hands the audio to a feature extractor or processor with a fixed `sampling_rate=` (the
    keyword its rate check reads) and never resamples. A rate only configured in a transform
    (`MelSpectrogram(sample_rate=...)`) stays silent: that is also how clean single-rate code looks.
    Why it matters: clips recorded at 44.1 or 48 kHz reach a model trained on 16 kHz audio unchanged, and
    the extractor's rate check passes because the code tells it the audio is 16 kHz, a rate it never read. The model hears
    speech slowed down about threefold with its pitch shifted, crops keep a third of the intended
    duration, and accuracy on those sources is poor; nothing errors.
    How to confirm: print the rate the loader returns for a sample of files; any value other than the
    rate passed downstream is affected.
    What to do instead: keep the rate and resample when it differs
    (`torchaudio.functional.resample(wav, sr, target_sr)`, `librosa.load(path, sr=target_sr)`), or assert
    that it equals the expected rate.
    """

    id = "audio-sample-rate-dropped"
    category = "data"
    severity = "warning"
    triggers = ("torchaudio", "soundfile", "wavfile", "librosa", "audiofile")
    requires = (("sampling_rate",),)

    def check(self, ctx: FileContext):
        stated: ast.AST | None = None
        for call in ctx.calls_named("load", "read"):
            position = _loader(ctx, call)
            if position is None or not _dropped(ctx, call, position):
                continue
            if stated is None:
                if _resamples(ctx):
                    return
                stated = _assumed_rate(ctx)
                if stated is None:
                    return
            yield self.finding(
                ctx,
                call,
                f"{ctx.qualname(call)} returns the file's own sample rate and it is discarded, while this file hands "
                f"the audio on at a fixed rate (line {stated.lineno}) and never resamples: clips at other rates are "
                f"fed as if they were at that rate",
                observation=f"`{ctx.segment(ctx.parent(call) or call, 70)}`; fixed rate stated at line {stated.lineno}: "
                f"`{ctx.segment(stated, 70)}`",
                next_test="Print the rate the loader returns for a sample of files and compare it with the rate passed downstream.",
            )
