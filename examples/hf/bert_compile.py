"""Build a Hugging Face BERT from its config and compile it: `gblint check --follow-imports
transformers examples/hf/bert_compile.py` follows the calls into the installed package's source
(never importing it) and reports the breaks Dynamo would meet there."""
import torch
from transformers.models.bert.configuration_bert import BertConfig
from transformers.models.bert.modeling_bert import BertModel

config = BertConfig(hidden_size=64, num_hidden_layers=2, num_attention_heads=4, intermediate_size=128)
model = BertModel(config)
model.compile()


def main():
    ids = torch.randint(0, config.vocab_size, (2, 16))
    return model(ids)
