"""Hugging Face Transformers: one model per family (folder under ``transformers/models/``),
the family's base model class from ``MODEL_MAPPING_NAMES``, built from its config class with the
sizes shrunk (two layers, hidden size 32, four heads, small vocabulary) and called with random
inputs of the kind its ``main_input_name`` says (token ids and an attention mask, pixel values,
audio values or features).

The families of :data:`RESERVED` are kept for evaluation: they are never measured or tuned on.
"""
from __future__ import annotations

import inspect
from typing import Any, Dict, List

#: families reserved for evaluation (issue 12): never measured here
RESERVED = frozenset("""
aria bamba bart bert bigbird_pegasus clip convnext d_fine data2vec dbrx deformable_detr distilbert encodec
falcon_h1 fastspeech2_conformer flaubert florence2 funnel gemma3 glm4v got_ocr2 gpt2 granitemoehybrid
grounding_dino hubert informer internvl jamba led llama llava longcat_flash longformer longt5 mbart mimi
mistral mixtral mra nemotron_h nllb_moe olmo_hybrid opt paddleocr_vl paligemma pe_audio qwen2 qwen3_5
qwen3_next recurrent_gemma reformer rt_detr seamless_m4t siglip2 speecht5 switch_transformers t5 udop
unispeech_sat video_llama_3 vilt vit vits wav2vec2 wavlm whisper xcodec
""".split())

#: scalar config keys and the small value each gets (only keys the config has are set)
SMALL = {
    "hidden_size": 32, "d_model": 32, "n_embd": 32, "embed_dim": 32, "dim": 32, "model_dim": 32,
    "intermediate_size": 64, "ffn_dim": 64, "encoder_ffn_dim": 64, "decoder_ffn_dim": 64, "d_ff": 64,
    "n_inner": 64, "mlp_dim": 64, "moe_intermediate_size": 16, "shared_expert_intermediate_size": 16,
    "num_hidden_layers": 2, "num_layers": 2, "n_layer": 2, "n_layers": 2, "encoder_layers": 2,
    "decoder_layers": 2, "num_decoder_layers": 2, "num_encoder_layers": 2, "depth": 2,
    "num_attention_heads": 4, "n_head": 4, "n_heads": 4, "num_heads": 4, "encoder_attention_heads": 4,
    "decoder_attention_heads": 4, "num_key_value_heads": 2, "n_kv_heads": 2, "head_dim": 8,
    "num_experts": 4, "num_local_experts": 4, "n_routed_experts": 4, "num_experts_per_tok": 2,
    "moe_topk": 2, "n_shared_experts": 1, "first_k_dense_replace": 1, "n_group": 1, "topk_group": 1,
    "vocab_size": 128, "max_position_embeddings": 128, "num_labels": 2,
    "kv_lora_rank": 16, "q_lora_rank": 16, "qk_rope_head_dim": 8, "qk_nope_head_dim": 8, "v_head_dim": 8,
    "qk_head_dim": 16, "rotary_dim": 4,
}

#: token ids above this are set to small values so that random inputs and embeddings agree
TOKEN_KEYS = ("pad_token_id", "bos_token_id", "eos_token_id", "decoder_start_token_id", "sep_token_id",
              "cls_token_id", "mask_token_id", "unk_token_id")

SEQ = 16
BATCH = 2


def _family(model_type: str) -> str:
    from transformers.models.auto.configuration_auto import model_type_to_module_name
    return model_type_to_module_name(model_type)


def names() -> List[str]:
    """One model type per family, sorted: the type whose name is the family's folder when there
    is one, else the first; reserved families left out."""
    from transformers.models.auto.modeling_auto import MODEL_MAPPING_NAMES
    by_family: Dict[str, str] = {}
    for model_type in sorted(MODEL_MAPPING_NAMES):
        fam = _family(model_type)
        if fam in RESERVED:
            continue
        if fam not in by_family or model_type == fam:
            by_family[fam] = model_type
    return sorted(by_family.values())


def _shrink(cfg: Dict[str, Any]) -> Dict[str, Any]:
    """The keyword arguments that make a config small, for the keys ``cfg`` (a config's
    ``to_dict()``) has; sub-configs (dicts with a ``model_type``) are shrunk in turn."""
    out: Dict[str, Any] = {}
    staged = isinstance(cfg.get("depths"), list)  # Swin-like: stages, their widths derive from embed_dim
    layers = None if staged else cfg.get("num_hidden_layers") or cfg.get("num_layers")
    for key, value in cfg.items():
        if isinstance(value, dict) and "model_type" in value:
            out[key] = _shrink(value)
        elif staged and key in ("num_layers", "hidden_size", "num_hidden_layers"):
            continue
        elif key in SMALL and isinstance(value, int) and not isinstance(value, bool) and value > SMALL[key]:
            out[key] = SMALL[key]
        elif key in TOKEN_KEYS and isinstance(value, int) and value >= SMALL["vocab_size"]:
            out[key] = 1
        elif (isinstance(value, list) and isinstance(layers, int) and layers > 2 and len(value) == layers
              and key not in ("hidden_sizes", "depths")):
            out[key] = value[:2]
        elif key == "depths" and isinstance(value, list):
            out[key] = [1] * len(value)
        elif key == "hidden_sizes" and isinstance(value, list) and value and all(isinstance(v, int) for v in value):
            out[key] = [32 * (i + 1) for i in range(len(value))]
        elif key == "layer_types" and isinstance(value, list) and len(value) > 2:
            out[key] = value[:2]
        elif key == "num_heads" and isinstance(value, list) and value and all(isinstance(v, int) for v in value):
            out[key] = [2 ** i for i in range(len(value))]  # stage i has 32 * 2**i channels
    return out


def _merged(base: Dict[str, Any], small: Dict[str, Any]) -> Dict[str, Any]:
    """``base`` with ``small`` laid over it, sub-config by sub-config."""
    out = dict(base)
    for key, value in small.items():
        if isinstance(value, dict) and isinstance(base.get(key), dict):
            out[key] = _merged(base[key], value)
        else:
            out[key] = value
    return out


def _vision(cfg: Dict[str, Any]):
    sub = cfg.get("vision_config") if isinstance(cfg.get("vision_config"), dict) else cfg
    size = sub.get("image_size", 64)
    if isinstance(size, (list, tuple)):
        size = size[0]
    if not isinstance(size, int) or size > 224:
        size = 224
    return sub.get("num_channels", 3), size


def _kwargs(values: Dict[str, Any]) -> str:
    """``a=1, b={'c': 2}``: keyword arguments as users write them (``**{...}`` for keys that are
    not identifiers)."""
    plain = {k: v for k, v in values.items() if k.isidentifier()}
    rest = {k: v for k, v in values.items() if not k.isidentifier()}
    parts = [f"{k}={v!r}" for k, v in plain.items()]
    if rest:
        parts.append(f"**{rest!r}")
    return ", ".join(parts)


def setup(name: str) -> str:
    """User-style source for the model type ``name`` (see ``spec.py``)."""
    import transformers
    from transformers.models.auto.configuration_auto import CONFIG_MAPPING_NAMES
    from transformers.models.auto.modeling_auto import MODEL_MAPPING_NAMES
    config_name = CONFIG_MAPPING_NAMES[name]
    model_name = MODEL_MAPPING_NAMES[name]
    if isinstance(model_name, (list, tuple)):
        model_name = model_name[0]
    config_cls = getattr(transformers, config_name)
    model_cls = getattr(transformers, model_name)
    base = config_cls().to_dict()
    small = _shrink(base)
    cfg = _merged(base, small)
    main = getattr(model_cls, "main_input_name", "input_ids")
    params = inspect.signature(model_cls.forward).parameters
    lines = ["import torch", f"from transformers import {config_name}, {model_name}", "",
             f"config = {config_name}({_kwargs(small)})", f"model = {model_name}(config)"]
    vocab = cfg.get("vocab_size") or (cfg.get("text_config") or {}).get("vocab_size") or 64
    high = max(2, min(int(vocab), 64))
    if main == "input_ids":
        lines.append(f"input_ids = torch.randint(3, {high}, ({BATCH}, {SEQ}))")
        kw = ["input_ids=input_ids"]
        if "attention_mask" in params:
            kw.append(f"attention_mask=torch.ones({BATCH}, {SEQ}, dtype=torch.long)")
        if cfg.get("is_encoder_decoder") and "decoder_input_ids" in params:
            kw.append(f"decoder_input_ids=torch.randint(3, {high}, ({BATCH}, 8))")
        if "pixel_values" in params and "vision_config" in cfg:
            channels, size = _vision(cfg)
            kw.append(f"pixel_values=torch.randn({BATCH}, {channels}, {size}, {size})")
    elif main == "pixel_values":
        channels, size = _vision(cfg)
        kw = [f"pixel_values=torch.randn({BATCH}, {channels}, {size}, {size})"]
        if "input_ids" in params:
            kw.append(f"input_ids=torch.randint(3, {high}, ({BATCH}, {SEQ}))")
    elif main == "input_values":
        kw = [f"input_values=torch.randn({BATCH}, 8000)"]
    elif main == "input_features":
        bins = cfg.get("num_mel_bins") or cfg.get("feature_size") or cfg.get("input_feat_per_channel") or 80
        kw = [f"input_features=torch.randn({BATCH}, {int(bins)}, 200)"]
        if cfg.get("is_encoder_decoder") and "decoder_input_ids" in params:
            kw.append(f"decoder_input_ids=torch.randint(3, {high}, ({BATCH}, 8))")
    else:
        raise ValueError(f"no inputs for main input `{main}`")
    lines.append("args = ()")
    lines.append("kwargs = dict(" + ", ".join(kw) + ")")
    return "\n".join(lines) + "\n"
