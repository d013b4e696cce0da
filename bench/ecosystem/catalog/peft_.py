"""PEFT: the package's adapter kinds, each wrapped with ``get_peft_model`` around a tiny
Transformers model built from its config (two layers, hidden size 32, four heads, vocabulary 128,
random weights), as users fine-tune them. The compiled model is the ``PeftModel``; it is called
with token ids and an attention mask (the second sequence has four padded tokens at its end).

- LoRA in its variants: plain, rsLoRA with dropout on all linear layers, DoRA, and a sequence
  classifier whose head is saved alongside (``modules_to_save``);
- the other weight adapters: LoHa, LoKr, (IA)^3, AdaLoRA, OFT, VeRA, FourierFT, LN tuning;
- the prompt-learning methods, which add virtual tokens or key/values in ``PeftModel.forward``:
  prefix tuning, prompt tuning and P-tuning (a prompt encoder).

The base models come from families the Transformers catalogue does not reserve for evaluation
(GPT-NeoX, Phi, Gemma, RoBERTa, Falcon, GPT-J, BLOOM, StableLM, Starcoder2), one family per
adapter where it fits, so the adapters also meet different attention and MLP layouts. BOFT is
left out: building it compiles a CUDA extension. The training step passes labels and
back-propagates the model's loss.
"""
from __future__ import annotations

from typing import Dict, List

BATCH = 2
SEQ = 16

#: per base family: its config class and the keyword arguments that make it tiny
_BASES = {
    "gpt_neox": ("GPTNeoXConfig", "vocab_size=128, hidden_size=32, num_hidden_layers=2, num_attention_heads=4, "
                 "intermediate_size=64, max_position_embeddings=128"),
    "phi": ("PhiConfig", "vocab_size=128, hidden_size=32, num_hidden_layers=2, num_attention_heads=4, "
            "num_key_value_heads=4, intermediate_size=64, max_position_embeddings=128"),
    "gemma": ("GemmaConfig", "vocab_size=128, hidden_size=32, num_hidden_layers=2, num_attention_heads=4, "
              "num_key_value_heads=2, head_dim=8, intermediate_size=64, max_position_embeddings=128"),
    "roberta": ("RobertaConfig", "vocab_size=128, hidden_size=32, num_hidden_layers=2, num_attention_heads=4, "
                "intermediate_size=64, max_position_embeddings=64, num_labels=2"),
    "falcon": ("FalconConfig", "vocab_size=128, hidden_size=32, num_hidden_layers=2, num_attention_heads=4, "
               "bos_token_id=1, eos_token_id=2"),
    "gptj": ("GPTJConfig", "vocab_size=128, n_embd=32, n_layer=2, n_head=4, n_positions=128, rotary_dim=4, "
             "bos_token_id=1, eos_token_id=2"),
    "bloom": ("BloomConfig", "vocab_size=128, hidden_size=32, n_layer=2, n_head=4"),
    "stablelm": ("StableLmConfig", "vocab_size=128, hidden_size=32, num_hidden_layers=2, num_attention_heads=4, "
                 "num_key_value_heads=2, intermediate_size=64, max_position_embeddings=128"),
    "starcoder2": ("Starcoder2Config", "vocab_size=128, hidden_size=32, num_hidden_layers=2, num_attention_heads=4, "
                   "num_key_value_heads=2, intermediate_size=64, max_position_embeddings=128, "
                   "bos_token_id=1, eos_token_id=2"),
}

_MODEL_CLASS = {
    "gpt_neox": "GPTNeoX", "phi": "Phi", "gemma": "Gemma", "roberta": "Roberta", "falcon": "Falcon",
    "gptj": "GPTJ", "bloom": "Bloom", "stablelm": "StableLm", "starcoder2": "Starcoder2",
}


def _peft(family: str, peft_config: str, imports: str, seq_cls: bool = False) -> str:
    """``get_peft_model`` of the ``family``'s causal LM (or sequence classifier) with ``peft_config``."""
    config_cls, config_kwargs = _BASES[family]
    head = "ForSequenceClassification" if seq_cls else "ForCausalLM"
    model_cls = _MODEL_CLASS[family] + head
    labels = f"torch.tensor([0, 1])" if seq_cls else "input_ids"
    lines = [
        f"from transformers import {config_cls}, {model_cls}",
        f"from peft import get_peft_model, {imports}",
        "",
        f"config = {config_cls}({config_kwargs})",
        f"base = {model_cls}(config)",
        f"peft_config = {peft_config}",
        "model = get_peft_model(base, peft_config)",
        f"input_ids = torch.randint(3, 128, ({BATCH}, {SEQ}))",
        f"attention_mask = (torch.arange({SEQ}).unsqueeze(0) < torch.tensor([[{SEQ}], [{SEQ - 4}]])).long()",
        "args = ()",
        "kwargs = dict(input_ids=input_ids, attention_mask=attention_mask)",
        f"train_kwargs = dict(input_ids=input_ids, attention_mask=attention_mask, labels={labels})",
        "",
        "",
        "def output(out):",
        "    return out.loss",
    ]
    return "\n".join(lines) + "\n"


def _entries() -> Dict[str, str]:
    e: Dict[str, str] = {}
    e["lora_gpt_neox"] = _peft(
        "gpt_neox", 'LoraConfig(task_type="CAUSAL_LM", r=8, lora_alpha=16, target_modules=["query_key_value"])',
        "LoraConfig")
    e["lora_rslora_dropout_phi"] = _peft(
        "phi", 'LoraConfig(task_type="CAUSAL_LM", r=4, lora_alpha=8, lora_dropout=0.1, use_rslora=True, '
               'target_modules="all-linear")',
        "LoraConfig")
    e["lora_dora_gemma"] = _peft(
        "gemma", 'LoraConfig(task_type="CAUSAL_LM", r=4, lora_alpha=8, use_dora=True, '
                 'target_modules=["q_proj", "k_proj", "v_proj", "o_proj"])',
        "LoraConfig")
    e["lora_seq_cls_roberta"] = _peft(
        "roberta", 'LoraConfig(task_type="SEQ_CLS", r=8, lora_alpha=16, lora_dropout=0.05, '
                   'target_modules=["query", "value"], modules_to_save=["classifier"])',
        "LoraConfig", seq_cls=True)
    e["loha_stablelm"] = _peft(
        "stablelm", 'LoHaConfig(task_type="CAUSAL_LM", r=4, alpha=8, target_modules=["q_proj", "v_proj"], '
                    'module_dropout=0.1)',
        "LoHaConfig")
    e["lokr_starcoder2"] = _peft(
        "starcoder2", 'LoKrConfig(task_type="CAUSAL_LM", r=4, alpha=8, target_modules=["q_proj", "v_proj", "c_fc"])',
        "LoKrConfig")
    e["ia3_bloom"] = _peft(
        "bloom", 'IA3Config(task_type="CAUSAL_LM", target_modules=["query_key_value", "dense_4h_to_h"], '
                 'feedforward_modules=["dense_4h_to_h"])',
        "IA3Config")
    e["adalora_falcon"] = _peft(
        "falcon", 'AdaLoraConfig(task_type="CAUSAL_LM", init_r=8, target_r=4, total_step=100, '
                  'target_modules=["query_key_value", "dense"])',
        "AdaLoraConfig")
    e["oft_gptj"] = _peft(
        "gptj", 'OFTConfig(task_type="CAUSAL_LM", r=0, oft_block_size=8, target_modules=["q_proj", "v_proj"])',
        "OFTConfig")
    e["vera_gpt_neox"] = _peft(
        "gpt_neox", 'VeraConfig(task_type="CAUSAL_LM", r=16, target_modules=["dense_h_to_4h", "dense_4h_to_h"])',
        "VeraConfig")
    e["fourierft_phi"] = _peft(
        "phi", 'FourierFTConfig(task_type="CAUSAL_LM", n_frequency=64, target_modules=["q_proj", "v_proj"])',
        "FourierFTConfig")
    e["ln_tuning_stablelm"] = _peft(
        "stablelm", 'LNTuningConfig(task_type="CAUSAL_LM", target_modules=["input_layernorm", "post_attention_layernorm", "norm"])',
        "LNTuningConfig")
    e["prefix_tuning_gpt_neox"] = _peft(
        "gpt_neox", 'PrefixTuningConfig(task_type="CAUSAL_LM", num_virtual_tokens=4)',
        "PrefixTuningConfig")
    e["prompt_tuning_gemma"] = _peft(
        "gemma", 'PromptTuningConfig(task_type="CAUSAL_LM", num_virtual_tokens=4)',
        "PromptTuningConfig")
    e["p_tuning_roberta"] = _peft(
        "roberta", 'PromptEncoderConfig(task_type="SEQ_CLS", num_virtual_tokens=4, encoder_hidden_size=32)',
        "PromptEncoderConfig", seq_cls=True)
    return e


def names() -> List[str]:
    """The entries, sorted."""
    return sorted(_entries())


def setup(name: str) -> str:
    """User-style source for the entry ``name`` (see ``spec.py``)."""
    return "import torch\n" + _entries()[name]
