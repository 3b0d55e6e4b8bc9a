"""PyTorch reference for realmt-bench-train: the same shapes, trained the same way.

Post-LN Transformer encoder-decoder (torch.nn.Transformer: dropout 0.1 on residual branches,
attention probabilities and the FFN activation), one embedding table tied to the source, target
and output projection, sinusoidal positions, embeddings scaled by sqrt(D), label-smoothed (0.1)
cross-entropy summed over target tokens, Adam (0.9, 0.98, 1e-9), f32. Random batches of
32 x (25 + 25) subwords, vocabulary 8000. Prints target tokens/s (800 target tokens a step),
median of --updates steps after 2 warm-up steps.

    python torch_train.py --threads 2 --updates 5 --model small|base|all
"""
import argparse
import json
import math
import statistics
import time

import torch
import torch.nn as nn

SHAPES = {
    "small": dict(layers=3, d=256, f=1024, heads=4),
    "base": dict(layers=6, d=512, f=2048, heads=8),
}


class Model(nn.Module):
    def __init__(self, vocab, layers, d, f, heads):
        super().__init__()
        self.d = d
        self.embed = nn.Embedding(vocab, d)
        nn.init.normal_(self.embed.weight, std=d ** -0.5)
        self.core = nn.Transformer(d_model=d, nhead=heads, num_encoder_layers=layers, num_decoder_layers=layers,
                                   dim_feedforward=f, dropout=0.1, batch_first=True, norm_first=False)
        pos = torch.arange(512).unsqueeze(1)
        div = torch.pow(10000.0, torch.arange(0, d, 2) / d)
        pe = torch.zeros(512, d)
        pe[:, 0::2] = torch.sin(pos / div)
        pe[:, 1::2] = torch.cos(pos / div)
        self.register_buffer("pe", pe)
        self.drop = nn.Dropout(0.1)

    def emb(self, ids):
        return self.drop(self.embed(ids) * math.sqrt(self.d) + self.pe[: ids.shape[1]])

    def forward(self, src, tgt_in):
        t = tgt_in.shape[1]
        causal = torch.triu(torch.full((t, t), float("-inf")), diagonal=1)
        h = self.core(self.emb(src), self.emb(tgt_in), tgt_mask=causal)
        return h @ self.embed.weight.t()


def run(name, threads, updates):
    torch.manual_seed(1)
    s = SHAPES[name]
    vocab, batch, length = 8000, 32, 25
    model = Model(vocab, s["layers"], s["d"], s["f"], s["heads"])
    model.train()
    opt = torch.optim.Adam(model.parameters(), lr=1e-4, betas=(0.9, 0.98), eps=1e-9)
    loss_fn = nn.CrossEntropyLoss(label_smoothing=0.1, reduction="sum")
    src = torch.randint(4, vocab, (batch, length))
    tgt = torch.randint(4, vocab, (batch, length))

    def step():
        opt.zero_grad(set_to_none=False)
        logits = model(src, tgt)
        loss = loss_fn(logits.reshape(-1, vocab), tgt.reshape(-1))
        loss.backward()
        opt.step()

    for _ in range(2):
        step()
    times = []
    for _ in range(updates):
        t0 = time.perf_counter()
        step()
        times.append(time.perf_counter() - t0)
    params = sum(p.numel() for p in model.parameters())
    return {"model": name, "params": params, "tokens_per_s": batch * length / statistics.median(times)}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--updates", type=int, default=5)
    ap.add_argument("--model", default="all", choices=["small", "base", "all"])
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    torch.set_num_interop_threads(1)
    names = ["small", "base"] if a.model == "all" else [a.model]
    for n in names:
        print(json.dumps(run(n, a.threads, a.updates)), flush=True)


if __name__ == "__main__":
    main()
