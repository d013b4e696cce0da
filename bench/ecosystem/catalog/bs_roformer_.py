"""BS-RoFormer: the band-split and mel-band RoFormer music source separators and the
flow-matching variant, each built small (width 32, depth 1 with one time and one frequency
transformer layer, 4 heads of 8; STFT of 128 points with hop 32, so 65 frequencies; two
multi-resolution STFT loss windows) with random weights, on 2048 samples of audio.

- ``BSRoformer``: the README's mono model (hyper-connection residual streams, flash/SDPA
  attention, rotary embeddings); with PoPE in place of rotary embeddings; stereo with two stems
  and DC zeroing, without flash attention; on a frequency range with fractional residual
  connections in place of residual streams;
- ``MelBandRoformer`` (8 mel bands at 16 kHz; a linear-attention layer before the time and
  frequency layers, value residuals): mono; stereo with two stems, PoPE, no flash attention,
  output padded to the input's length;
- ``FlowBSRoformer``, mono.

Evaluation calls the model as separation does (the audio alone; the flow model with a noised
target and times, as its sampler does); training passes the target, and the model returns its
loss (L1 plus the multi-resolution STFT loss). With flash attention each attention call breaks
the graph, which makes compiling slow: depth 1 and a few entries keep a package under five
minutes of measuring.
"""
from __future__ import annotations

from typing import Dict, List

BATCH = 2
SAMPLES = 2048

_STFT = ("stft_n_fft=128, stft_hop_length=32, stft_win_length=128,\n"
         "    multi_stft_resolutions_window_sizes=(128, 64), multi_stft_hop_size=32")
_SMALL = "dim=32, depth=1, time_transformer_depth=1, freq_transformer_depth=1, heads=4, dim_head=8"
_BANDS = "freqs_per_bands=(8, 8, 8, 8, 8, 8, 8, 9)"


def _model(cls: str, options: str, stereo: bool = False, stems: int = 1, flow: bool = False) -> str:
    """``cls`` with the small sizes and ``options``, with its audio inputs."""
    channels = (2,) if stereo else ()
    stem_dims = (stems,) if stems > 1 else ()
    audio = (BATCH, *channels, SAMPLES)
    target = (BATCH, *stem_dims, *(channels or (1,) if stems > 1 else channels), SAMPLES)
    text = (
        f"from bs_roformer import {cls}\n"
        "\n"
        f"model = {cls}(\n"
        f"    {_SMALL},\n"
        f"    {_STFT},\n"
        f"    {options},\n"
        ")\n"
        f"audio = torch.randn{audio}\n"
        f"target = torch.randn{target}\n"
    )
    if flow:
        text += (
            "noised_target = torch.randn_like(target)\n"
            f"times = torch.rand({BATCH})\n"
            "args = (audio,)\n"
            "kwargs = dict(noised_target=noised_target, times=times)\n"
        )
    else:
        text += "args = (audio,)\nkwargs = dict()\n"
    return text + "train_args = (audio,)\ntrain_kwargs = dict(target=target)\n"


def _entries() -> Dict[str, str]:
    e: Dict[str, str] = {}
    e["bs_roformer"] = _model("BSRoformer", _BANDS)
    e["bs_roformer_pope"] = _model("BSRoformer", f"{_BANDS}, use_pope=True")
    e["bs_roformer_stereo_stems_no_flash"] = _model(
        "BSRoformer", f"{_BANDS}, stereo=True, num_stems=2, zero_dc=True, flash_attn=False", stereo=True, stems=2)
    e["bs_roformer_freq_range_residual_fracs"] = _model(
        "BSRoformer", "freqs_per_bands=(8, 8, 8, 8, 8, 8), freq_range=(1, 49), num_residual_streams=1,\n"
        "    num_residual_fracs=4, flash_attn=False")
    mel = "num_bands=8, sample_rate=16000"
    e["mel_band_roformer"] = _model("MelBandRoformer", mel)
    e["mel_band_roformer_stereo_stems_pope"] = _model(
        "MelBandRoformer", f"{mel}, stereo=True, num_stems=2, use_pope=True, flash_attn=False,\n"
        "    match_input_audio_length=True", stereo=True, stems=2)
    e["flow_bs_roformer"] = _model("FlowBSRoformer", _BANDS, flow=True)
    return e


def names() -> List[str]:
    """The entries, sorted."""
    return sorted(_entries())


def setup(name: str) -> str:
    """User-style source for the entry ``name`` (see ``spec.py``)."""
    return "import torch\n" + _entries()[name]
