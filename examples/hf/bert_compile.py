"""Build a Hugging Face BERT from its config and compile it. gblint reports: GBL003 line 10 (what
`model.compile()` compiles lies in transformers, which is not read); `gblint check --follow-imports
transformers examples/hf/bert_compile.py` reads the installed package's source (never importing it)."""
import torch
from transformers.models.bert.configuration_bert import BertConfig
from transformers.models.bert.modeling_bert import BertModel

config = BertConfig(hidden_size=64, num_hidden_layers=2, num_attention_heads=4, intermediate_size=128)
model = BertModel(config)
model.compile()


def main():
    ids = torch.randint(0, config.vocab_size, (2, 16))
    return model(ids)
