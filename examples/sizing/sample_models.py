"""A model of the entry-point form (module:function returning (model, example_inputs)), and one
not among the ensemble's three classifiers: a small text encoder (4 transformer layers, width 256,
128 tokens, batch 1), the shape of a BERT-mini request.

  python3 size_model.py measure --model sample_models.py:text_encoder
"""


def text_encoder():
    import torch
    from torch import nn

    class TextEncoder(nn.Module):
        def __init__(self, vocab=30522, width=256, layers=4, heads=4, tokens=128):
            super().__init__()
            self.embed = nn.Embedding(vocab, width)
            self.position = nn.Parameter(torch.zeros(1, tokens, width))
            layer = nn.TransformerEncoderLayer(width, heads, 4 * width, batch_first=True)
            self.encoder = nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)
            self.head = nn.Linear(width, 2)

        def forward(self, ids):
            return self.head(self.encoder(self.embed(ids) + self.position)[:, 0])

    torch.manual_seed(7)
    return TextEncoder(), (torch.randint(0, 30522, (1, 128)),)
