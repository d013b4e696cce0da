"""Hugging Face Diffusers: one entry per denoiser or autoencoder class that ``diffusers``
exports, built from explicit constructor keyword arguments and called the way its pipeline calls it.

It covers the UNets (``UNet1DModel``, ``UNet2DModel``, ``UNet2DConditionModel``,
``UNet3DConditionModel``, ``UNetSpatioTemporalConditionModel``, ``I2VGenXLUNet``,
``Kandinsky3UNet``, ``StableCascadeUNet``, ``UVit2DModel``), a ``ControlNetModel``, the image
autoencoders (``AutoencoderKL``, ``AutoencoderTiny``, ``VQModel``, ``AsymmetricAutoencoderKL``)
and the diffusion transformers: image (``PriorTransformer``, ``DiTTransformer2DModel``,
``PixArtTransformer2DModel``, ``SD3Transformer2DModel``, ``FluxTransformer2DModel``,
``AuraFlowTransformer2DModel``, ``HunyuanDiT2DModel``, ``Lumina2Transformer2DModel``,
``SanaTransformer2DModel``, ``QwenImageTransformer2DModel``) and video
(``CogVideoXTransformer3DModel``, ``LTXVideoTransformer3DModel``, ``WanTransformer3DModel``,
``AllegroTransformer3DModel``, ``MochiTransformer3DModel``, ``HunyuanVideoTransformer3DModel``).
Left out to keep to thirty: ``ChromaTransformer2DModel`` (Flux's blocks again),
``LuminaNextDiT2DModel`` (``Lumina2Transformer2DModel`` stands for the family) and the plain
``Transformer2DModel`` (the spatial transformer the conditional UNets already run).

Each is built small, the way diffusers' own test suite builds them (channel counts of 8 to 64,
one or two layers or blocks, two to four heads of 8 to 16 dimensions, group norms that divide the
channels, latents of 8 to 32 pixels, a frame or two for video), with random weights, and called
with random inputs of the kind its pipeline passes: latents, a timestep tensor, text embeddings and
masks, pooled projections, position ids, guidance, micro-conditions. An entry's name is its class
name.
"""
from __future__ import annotations

from typing import Any, Dict, List

#: class name -> constructor keyword arguments, extra imports, input lines and keyword inputs.
#: ``prep`` lines run after the model is built; ``inputs`` are ``(keyword, expression)`` pairs,
#: each bound to a variable of that name and passed by keyword.
MODELS: Dict[str, Dict[str, Any]] = {
    # ------------------------------------------------------------------ UNets
    "UNet1DModel": dict(
        init=dict(
            block_out_channels=(8, 8, 16, 16), in_channels=14, out_channels=14,
            time_embedding_type="positional", use_timestep_embedding=True, flip_sin_to_cos=False,
            freq_shift=1.0, out_block_type="OutConv1DBlock", mid_block_type="MidResTemporalBlock1D",
            down_block_types=("DownResnetBlock1D", "DownResnetBlock1D", "DownResnetBlock1D", "DownResnetBlock1D"),
            up_block_types=("UpResnetBlock1D", "UpResnetBlock1D", "UpResnetBlock1D"), act_fn="swish",
        ),
        inputs=[("sample", "torch.randn(2, 14, 16)"), ("timestep", "torch.tensor([10, 10])")],
    ),
    "UNet2DModel": dict(
        init=dict(
            sample_size=32, in_channels=3, out_channels=3, layers_per_block=1,
            block_out_channels=(16, 32), norm_num_groups=8, attention_head_dim=8,
            down_block_types=("DownBlock2D", "AttnDownBlock2D"), up_block_types=("AttnUpBlock2D", "UpBlock2D"),
        ),
        inputs=[("sample", "torch.randn(2, 3, 32, 32)"), ("timestep", "torch.tensor([10])")],
    ),
    "UNet2DConditionModel": dict(
        init=dict(
            sample_size=16, in_channels=4, out_channels=4, layers_per_block=1,
            block_out_channels=(16, 32), norm_num_groups=8, cross_attention_dim=16, attention_head_dim=8,
            down_block_types=("CrossAttnDownBlock2D", "DownBlock2D"),
            up_block_types=("UpBlock2D", "CrossAttnUpBlock2D"),
        ),
        inputs=[
            ("sample", "torch.randn(2, 4, 16, 16)"),
            ("timestep", "torch.tensor([10])"),
            ("encoder_hidden_states", "torch.randn(2, 8, 16)"),
        ],
    ),
    "UNet3DConditionModel": dict(
        init=dict(
            sample_size=16, in_channels=4, out_channels=4, layers_per_block=1,
            block_out_channels=(16, 32), norm_num_groups=8, cross_attention_dim=16, attention_head_dim=8,
            down_block_types=("CrossAttnDownBlock3D", "DownBlock3D"),
            up_block_types=("UpBlock3D", "CrossAttnUpBlock3D"),
        ),
        inputs=[
            ("sample", "torch.randn(2, 4, 2, 16, 16)"),
            ("timestep", "torch.tensor([10])"),
            ("encoder_hidden_states", "torch.randn(2, 8, 16)"),
        ],
    ),
    "UNetSpatioTemporalConditionModel": dict(
        init=dict(
            sample_size=16, in_channels=4, out_channels=4, layers_per_block=1,
            block_out_channels=(32, 64), num_attention_heads=(2, 4), cross_attention_dim=32,
            down_block_types=("CrossAttnDownBlockSpatioTemporal", "DownBlockSpatioTemporal"),
            up_block_types=("UpBlockSpatioTemporal", "CrossAttnUpBlockSpatioTemporal"),
            addition_time_embed_dim=8, projection_class_embeddings_input_dim=24, num_frames=2,
        ),
        inputs=[
            ("sample", "torch.randn(2, 2, 4, 16, 16)"),
            ("timestep", "torch.tensor([10])"),
            ("encoder_hidden_states", "torch.randn(2, 1, 32)"),
            ("added_time_ids", "torch.tensor([[6.0, 127.0, 0.02], [6.0, 127.0, 0.02]])"),
        ],
    ),
    "I2VGenXLUNet": dict(
        init=dict(
            sample_size=16, in_channels=4, out_channels=4, layers_per_block=1,
            block_out_channels=(16, 32), norm_num_groups=8, cross_attention_dim=16, attention_head_dim=8,
            down_block_types=("CrossAttnDownBlock3D", "DownBlock3D"),
            up_block_types=("UpBlock3D", "CrossAttnUpBlock3D"),
        ),
        inputs=[
            ("sample", "torch.randn(2, 4, 2, 16, 16)"),
            ("timestep", "torch.tensor([10])"),
            ("fps", "torch.tensor([16, 16])"),
            ("image_latents", "torch.randn(2, 4, 2, 16, 16)"),
            ("image_embeddings", "torch.randn(2, 16)"),
            ("encoder_hidden_states", "torch.randn(2, 8, 16)"),
        ],
    ),
    "Kandinsky3UNet": dict(
        init=dict(
            in_channels=4, time_embedding_dim=16, groups=8, attention_head_dim=8, layers_per_block=2,
            block_out_channels=(16, 32), cross_attention_dim=16, encoder_hid_dim=32,
        ),
        inputs=[
            ("sample", "torch.randn(2, 4, 16, 16)"),
            ("timestep", "torch.tensor([10, 10])"),
            ("encoder_hidden_states", "torch.randn(2, 8, 32)"),
            ("encoder_attention_mask", "torch.ones(2, 8)"),
        ],
    ),
    "StableCascadeUNet": dict(
        init=dict(
            in_channels=16, out_channels=16, conditioning_dim=32, block_out_channels=(32, 32),
            num_attention_heads=(2, 2), down_num_layers_per_block=(1, 1), up_num_layers_per_block=(1, 1),
            clip_text_in_channels=32, clip_text_pooled_in_channels=32, clip_image_in_channels=32,
            switch_level=(False,),
        ),
        inputs=[
            ("sample", "torch.randn(2, 16, 8, 8)"),
            ("timestep_ratio", "torch.rand(2)"),
            ("clip_text_pooled", "torch.randn(2, 1, 32)"),
            ("clip_text", "torch.randn(2, 8, 32)"),
            ("clip_img", "torch.randn(2, 1, 32)"),
        ],
    ),
    "UVit2DModel": dict(
        init=dict(
            hidden_size=32, cond_embed_dim=16, micro_cond_encode_dim=2, micro_cond_embed_dim=10,
            encoder_hidden_size=16, vocab_size=32, codebook_size=16, in_channels=16, block_out_channels=16,
            num_res_blocks=1, downsample=True, upsample=True, block_num_heads=2, num_hidden_layers=1,
            num_attention_heads=2, intermediate_size=64, sample_size=8,
        ),
        inputs=[
            ("input_ids", "torch.randint(0, 32, (2, 8, 8))"),
            ("encoder_hidden_states", "torch.randn(2, 8, 16)"),
            ("pooled_text_emb", "torch.randn(2, 16)"),
            ("micro_conds", "torch.tensor([[256.0, 256.0, 0.0, 0.0, 6.0], [256.0, 256.0, 0.0, 0.0, 6.0]])"),
        ],
    ),
    "ControlNetModel": dict(
        init=dict(
            in_channels=4, layers_per_block=1, block_out_channels=(16, 32), norm_num_groups=8,
            cross_attention_dim=16, attention_head_dim=8, conditioning_embedding_out_channels=(8, 16),
            down_block_types=("CrossAttnDownBlock2D", "DownBlock2D"),
        ),
        inputs=[
            ("sample", "torch.randn(2, 4, 16, 16)"),
            ("timestep", "torch.tensor([10])"),
            ("encoder_hidden_states", "torch.randn(2, 8, 16)"),
            ("controlnet_cond", "torch.rand(2, 3, 32, 32)"),
        ],
    ),
    # ------------------------------------------------------------ autoencoders
    "AutoencoderKL": dict(
        init=dict(
            in_channels=3, out_channels=3, latent_channels=4, layers_per_block=1,
            block_out_channels=(16, 32), norm_num_groups=8, sample_size=32,
            down_block_types=("DownEncoderBlock2D", "DownEncoderBlock2D"),
            up_block_types=("UpDecoderBlock2D", "UpDecoderBlock2D"),
        ),
        inputs=[("sample", "torch.randn(2, 3, 32, 32)")],
    ),
    "AutoencoderTiny": dict(
        init=dict(
            in_channels=3, out_channels=3, latent_channels=4,
            encoder_block_out_channels=(16, 16), decoder_block_out_channels=(16, 16),
            num_encoder_blocks=(1, 1), num_decoder_blocks=(1, 1),
        ),
        inputs=[("sample", "torch.randn(2, 3, 32, 32)")],
    ),
    "VQModel": dict(
        init=dict(
            in_channels=3, out_channels=3, latent_channels=4, layers_per_block=1,
            block_out_channels=(16, 32), norm_num_groups=8, num_vq_embeddings=64, sample_size=32,
            down_block_types=("DownEncoderBlock2D", "DownEncoderBlock2D"),
            up_block_types=("UpDecoderBlock2D", "UpDecoderBlock2D"),
        ),
        inputs=[("sample", "torch.randn(2, 3, 32, 32)")],
    ),
    "AsymmetricAutoencoderKL": dict(
        init=dict(
            in_channels=3, out_channels=3, latent_channels=4, norm_num_groups=8, sample_size=32,
            down_block_types=("DownEncoderBlock2D", "DownEncoderBlock2D"), down_block_out_channels=(16, 32),
            layers_per_down_block=1,
            up_block_types=("UpDecoderBlock2D", "UpDecoderBlock2D"), up_block_out_channels=(16, 32),
            layers_per_up_block=1,
        ),
        inputs=[("sample", "torch.randn(2, 3, 32, 32)"), ("mask", "torch.ones(2, 1, 32, 32)")],
    ),
    # ------------------------------------------------------ image transformers
    "PriorTransformer": dict(
        init=dict(
            num_attention_heads=2, attention_head_dim=8, num_layers=2, embedding_dim=16,
            num_embeddings=8, additional_embeddings=4,
        ),
        inputs=[
            ("hidden_states", "torch.randn(2, 16)"),
            ("timestep", "torch.tensor([10])"),
            ("proj_embedding", "torch.randn(2, 16)"),
            ("encoder_hidden_states", "torch.randn(2, 8, 16)"),
        ],
    ),
    "DiTTransformer2DModel": dict(
        init=dict(
            sample_size=16, patch_size=2, in_channels=4, out_channels=8, num_layers=2,
            num_attention_heads=2, attention_head_dim=8, num_embeds_ada_norm=10,
        ),
        inputs=[
            ("hidden_states", "torch.randn(2, 4, 16, 16)"),
            ("timestep", "torch.randint(0, 1000, (2,))"),
            ("class_labels", "torch.randint(0, 10, (2,))"),
        ],
    ),
    "PixArtTransformer2DModel": dict(
        init=dict(
            sample_size=16, patch_size=2, in_channels=4, out_channels=8, num_layers=2,
            num_attention_heads=2, attention_head_dim=8, cross_attention_dim=16, caption_channels=32,
        ),
        inputs=[
            ("hidden_states", "torch.randn(2, 4, 16, 16)"),
            ("encoder_hidden_states", "torch.randn(2, 8, 32)"),
            ("timestep", "torch.randint(0, 1000, (2,))"),
            ("added_cond_kwargs", '{"resolution": None, "aspect_ratio": None}'),
        ],
    ),
    "SD3Transformer2DModel": dict(
        init=dict(
            sample_size=16, patch_size=2, in_channels=4, out_channels=4, num_layers=2,
            attention_head_dim=8, num_attention_heads=4, caption_projection_dim=32, joint_attention_dim=32,
            pooled_projection_dim=32, pos_embed_max_size=32, dual_attention_layers=(0,), qk_norm="rms_norm",
        ),
        inputs=[
            ("hidden_states", "torch.randn(2, 4, 16, 16)"),
            ("encoder_hidden_states", "torch.randn(2, 16, 32)"),
            ("pooled_projections", "torch.randn(2, 32)"),
            ("timestep", "torch.randint(0, 1000, (2,))"),
        ],
    ),
    "FluxTransformer2DModel": dict(
        init=dict(
            patch_size=1, in_channels=16, num_layers=1, num_single_layers=1, attention_head_dim=16,
            num_attention_heads=2, joint_attention_dim=32, pooled_projection_dim=32,
            guidance_embeds=True, axes_dims_rope=(4, 4, 8),
        ),
        prep=[
            "img_ids = torch.zeros(8, 8, 3)",
            "img_ids[..., 1] = img_ids[..., 1] + torch.arange(8)[:, None]",
            "img_ids[..., 2] = img_ids[..., 2] + torch.arange(8)[None, :]",
            "img_ids = img_ids.reshape(64, 3)",
        ],
        inputs=[
            ("hidden_states", "torch.randn(2, 64, 16)"),
            ("encoder_hidden_states", "torch.randn(2, 16, 32)"),
            ("pooled_projections", "torch.randn(2, 32)"),
            ("timestep", "torch.tensor([0.5, 0.5])"),
            ("img_ids", None),
            ("txt_ids", "torch.zeros(16, 3)"),
            ("guidance", "torch.full((2,), 3.5)"),
        ],
    ),
    "AuraFlowTransformer2DModel": dict(
        init=dict(
            sample_size=16, patch_size=2, in_channels=4, out_channels=4, num_mmdit_layers=1,
            num_single_dit_layers=1, attention_head_dim=8, num_attention_heads=4,
            caption_projection_dim=32, joint_attention_dim=32, pos_embed_max_size=64,
        ),
        inputs=[
            ("hidden_states", "torch.randn(2, 4, 16, 16)"),
            ("encoder_hidden_states", "torch.randn(2, 16, 32)"),
            ("timestep", "torch.randint(0, 1000, (2,))"),
        ],
    ),
    "HunyuanDiT2DModel": dict(
        init=dict(
            sample_size=16, patch_size=2, in_channels=4, num_layers=2, attention_head_dim=8,
            num_attention_heads=2, hidden_size=16, cross_attention_dim=16, cross_attention_dim_t5=16,
            pooled_projection_dim=8, text_len=8, text_len_t5=8, activation_fn="gelu-approximate",
        ),
        imports=["from diffusers.models.embeddings import get_2d_rotary_pos_embed"],
        inputs=[
            ("hidden_states", "torch.randn(2, 4, 16, 16)"),
            ("timestep", "torch.randint(0, 1000, (2,)).float()"),
            ("encoder_hidden_states", "torch.randn(2, 8, 16)"),
            ("text_embedding_mask", "torch.ones(2, 8)"),
            ("encoder_hidden_states_t5", "torch.randn(2, 8, 16)"),
            ("text_embedding_mask_t5", "torch.ones(2, 8)"),
            ("image_meta_size", "torch.tensor([[1024.0, 1024.0, 16.0, 16.0, 0.0, 0.0]] * 2)"),
            ("style", "torch.zeros(2, dtype=torch.long)"),
            ("image_rotary_emb", "get_2d_rotary_pos_embed(8, ((0, 0), (8, 8)), (8, 8))"),
        ],
    ),
    "Lumina2Transformer2DModel": dict(
        init=dict(
            sample_size=16, patch_size=2, in_channels=4, hidden_size=24, num_layers=2,
            num_refiner_layers=1, num_attention_heads=3, num_kv_heads=1, multiple_of=16,
            axes_dim_rope=(4, 2, 2), axes_lens=(128, 128, 128), cap_feat_dim=32,
        ),
        inputs=[
            ("hidden_states", "torch.randn(2, 4, 16, 16)"),
            ("timestep", "torch.rand(2)"),
            ("encoder_hidden_states", "torch.randn(2, 16, 32)"),
            ("encoder_attention_mask", "torch.ones(2, 16, dtype=torch.bool)"),
        ],
    ),
    "SanaTransformer2DModel": dict(
        init=dict(
            sample_size=16, patch_size=1, in_channels=4, out_channels=4, num_layers=2,
            num_attention_heads=2, attention_head_dim=8, num_cross_attention_heads=2,
            cross_attention_head_dim=8, cross_attention_dim=16, caption_channels=16,
        ),
        inputs=[
            ("hidden_states", "torch.randn(2, 4, 16, 16)"),
            ("encoder_hidden_states", "torch.randn(2, 8, 16)"),
            ("timestep", "torch.randint(0, 1000, (2,))"),
        ],
    ),
    "QwenImageTransformer2DModel": dict(
        init=dict(
            patch_size=2, in_channels=16, out_channels=4, num_layers=2, attention_head_dim=16,
            num_attention_heads=2, joint_attention_dim=16, axes_dims_rope=(8, 4, 4),
        ),
        inputs=[
            ("hidden_states", "torch.randn(2, 16, 16)"),
            ("encoder_hidden_states", "torch.randn(2, 8, 16)"),
            ("encoder_hidden_states_mask", "torch.ones(2, 8, dtype=torch.long)"),
            ("timestep", "torch.tensor([0.5, 0.5])"),
            ("img_shapes", "[[(1, 4, 4)]] * 2"),
        ],
    ),
    # ------------------------------------------------------ video transformers
    "CogVideoXTransformer3DModel": dict(
        init=dict(
            num_attention_heads=2, attention_head_dim=8, in_channels=4, out_channels=4, time_embed_dim=16,
            text_embed_dim=16, num_layers=2, sample_width=8, sample_height=8, sample_frames=5,
            patch_size=2, temporal_compression_ratio=4, max_text_seq_length=8,
        ),
        inputs=[
            ("hidden_states", "torch.randn(2, 2, 4, 8, 8)"),
            ("encoder_hidden_states", "torch.randn(2, 8, 16)"),
            ("timestep", "torch.randint(0, 1000, (2,))"),
        ],
    ),
    "LTXVideoTransformer3DModel": dict(
        init=dict(
            in_channels=4, out_channels=4, num_attention_heads=2, attention_head_dim=8,
            cross_attention_dim=16, num_layers=2, caption_channels=16,
        ),
        inputs=[
            ("hidden_states", "torch.randn(2, 2 * 8 * 8, 4)"),
            ("encoder_hidden_states", "torch.randn(2, 8, 16)"),
            ("timestep", "torch.randint(0, 1000, (2,))"),
            ("encoder_attention_mask", "torch.ones(2, 8, dtype=torch.bool)"),
            ("num_frames", "2"),
            ("height", "8"),
            ("width", "8"),
        ],
    ),
    "WanTransformer3DModel": dict(
        init=dict(
            patch_size=(1, 2, 2), num_attention_heads=2, attention_head_dim=12, in_channels=4,
            out_channels=4, text_dim=16, freq_dim=32, ffn_dim=32, num_layers=2, cross_attn_norm=True,
            qk_norm="rms_norm_across_heads", rope_max_seq_len=32,
        ),
        inputs=[
            ("hidden_states", "torch.randn(2, 4, 2, 16, 16)"),
            ("timestep", "torch.randint(0, 1000, (2,))"),
            ("encoder_hidden_states", "torch.randn(2, 12, 16)"),
        ],
    ),
    "AllegroTransformer3DModel": dict(
        init=dict(
            num_attention_heads=2, attention_head_dim=8, in_channels=4, out_channels=4, num_layers=2,
            cross_attention_dim=16, sample_width=8, sample_height=8, sample_frames=8, caption_channels=16,
        ),
        inputs=[
            ("hidden_states", "torch.randn(2, 4, 2, 8, 8)"),
            ("encoder_hidden_states", "torch.randn(2, 8, 16)"),
            ("timestep", "torch.randint(0, 1000, (2,))"),
        ],
    ),
    "MochiTransformer3DModel": dict(
        init=dict(
            patch_size=2, num_attention_heads=2, attention_head_dim=8, num_layers=2,
            pooled_projection_dim=16, in_channels=4, qk_norm="rms_norm", text_embed_dim=16,
            time_embed_dim=4, activation_fn="swiglu", max_sequence_length=8,
        ),
        inputs=[
            ("hidden_states", "torch.randn(2, 4, 2, 16, 16)"),
            ("encoder_hidden_states", "torch.randn(2, 8, 16)"),
            ("timestep", "torch.randint(0, 1000, (2,))"),
            ("encoder_attention_mask", "torch.ones(2, 8, dtype=torch.bool)"),
        ],
    ),
    "HunyuanVideoTransformer3DModel": dict(
        init=dict(
            in_channels=4, out_channels=4, num_attention_heads=2, attention_head_dim=10, num_layers=1,
            num_single_layers=1, num_refiner_layers=1, patch_size=1, patch_size_t=1,
            guidance_embeds=True, text_embed_dim=16, pooled_projection_dim=8, rope_axes_dim=(2, 4, 4),
        ),
        inputs=[
            ("hidden_states", "torch.randn(2, 4, 1, 16, 16)"),
            ("timestep", "torch.randint(0, 1000, (2,)).float()"),
            ("encoder_hidden_states", "torch.randn(2, 12, 16)"),
            ("encoder_attention_mask", "torch.ones(2, 12)"),
            ("pooled_projections", "torch.randn(2, 8)"),
            ("guidance", "torch.full((2,), 6000.0)"),
        ],
    ),
}


def names() -> List[str]:
    """The entries, sorted."""
    return sorted(MODELS)


def _constructor(cls: str, init: Dict[str, Any]) -> List[str]:
    lines = [f"model = {cls}("]
    lines += [f"    {key}={value!r}," for key, value in init.items()]
    lines.append(")")
    return lines


def setup(name: str) -> str:
    """User-style source for the entry ``name`` (see ``spec.py``). Raises ``KeyError``."""
    entry = MODELS[name]
    lines = ["import torch", f"from diffusers import {name}"]
    lines += entry.get("imports", [])
    lines.append("")
    lines += _constructor(name, entry["init"])
    lines.append("")
    lines += entry.get("prep", [])
    keywords = []
    for key, expr in entry["inputs"]:
        if expr is not None:
            lines.append(f"{key} = {expr}")
        keywords.append(f"{key}={key}")
    lines.append("")
    lines.append("args = ()")
    call = "kwargs = dict(" + ", ".join(keywords) + ")"
    if len(call) > 100:
        call = "kwargs = dict(\n" + "".join(f"    {k},\n" for k in keywords) + ")"
    lines.append(call)
    return "\n".join(lines) + "\n"
