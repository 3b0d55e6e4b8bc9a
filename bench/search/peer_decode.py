"""The decoding peers of bench/search/run_peers.sh: CTranslate2 (and Hugging Face generate) on a
transformer-base-shaped model with random weights, timed as realmt-bench-decode times realmt.

  peer_decode.py make  --dir DIR        a random MarianMT (6+6 layers, D 512, 8 heads, F 2048,
                                        V 32000, shared embeddings, relu) saved in DIR/hf and
                                        converted to DIR/ct2 by CTranslate2's own converter
  peer_decode.py ct2   --dir DIR --compute-type float32|int8 [--threads 2] [--runs 3] ...
  peer_decode.py hf    --dir DIR [--threads 2] ...  PyTorch eager, generate(num_beams=4)

The ct2 and hf commands print one JSON line: target tokens/s (median of --runs timed runs after
one warm-up; tokens = those of the best hypothesis of every sentence, eos included, as realmt
counts), the process's peak RSS (VmHWM) and the peak RSS after loading (VmHWM reset through
/proc/self/clear_refs once the model is loaded). Sources: --batch sentences of --src-len random
ids and eos; outputs fixed to --out-len tokens and eos (min length = out-len, max = out-len + 1).
"""
import argparse
import json
import os
import random
import statistics
import sys
import time

VOCAB = 32000


def peak_rss_mb():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024.0
    return float("nan")


def reset_peak_rss():
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        return True
    except OSError:
        return False


def sources(batch, src_len, seed=3):
    rnd = random.Random(seed)
    return [[rnd.randrange(2, VOCAB) for _ in range(src_len)] for _ in range(batch)]


def make(args):
    import torch
    from transformers import MarianConfig, MarianMTModel

    import ctranslate2

    class Tokenizer:  # what the converter reads from a tokenizer
        eos_token, unk_token = "</s>", "<unk>"

        def get_vocab(self):
            vocab = {"</s>": 0, "<unk>": 1, "<pad>": VOCAB}
            vocab.update({f"t{i}": i for i in range(2, VOCAB)})
            return vocab

    torch.manual_seed(1)
    # Marian's layout: eos 0, unk 1, pad last (Transformers adds it; CTranslate2's converter drops
    # it again and starts the decoder from a zero embedding), so CTranslate2 sees V = 32000.
    config = MarianConfig(
        vocab_size=VOCAB + 1, decoder_vocab_size=VOCAB + 1, d_model=512, encoder_layers=6, decoder_layers=6,
        encoder_attention_heads=8, decoder_attention_heads=8, encoder_ffn_dim=2048, decoder_ffn_dim=2048,
        activation_function="relu", max_position_embeddings=512, pad_token_id=VOCAB, eos_token_id=0,
        decoder_start_token_id=VOCAB, forced_eos_token_id=0, share_encoder_decoder_embeddings=True,
        scale_embedding=True, tie_word_embeddings=True)
    model = MarianMTModel(config).eval()
    hf_dir = os.path.join(args.dir, "hf")
    model.save_pretrained(hf_dir)
    # The vocabulary table realmt-convert reads (--from hf): realmt decodes the same weights.
    with open(os.path.join(hf_dir, "vocab.json"), "w") as f:
        json.dump(Tokenizer().get_vocab(), f)

    class Converter(ctranslate2.converters.TransformersConverter):
        def load_tokenizer(self, tokenizer_class, model_name_or_path, **kwargs):
            return Tokenizer()

    Converter(hf_dir).convert(os.path.join(args.dir, "ct2"), force=True)
    print(json.dumps({"made": args.dir}))


def run_ct2(args):
    import ctranslate2

    translator = ctranslate2.Translator(os.path.join(args.dir, "ct2"), device="cpu", compute_type=args.compute_type,
                                        inter_threads=1, intra_threads=args.threads)
    loaded_rss = peak_rss_mb()
    reset = reset_peak_rss()
    src = [[f"t{i}" for i in s] + ["</s>"] for s in sources(args.batch, args.src_len)]
    opts = dict(beam_size=args.beam, max_batch_size=args.batch, min_decoding_length=args.out_len,
                max_decoding_length=args.out_len + 1, return_scores=False)
    translator.translate_batch(src, **opts)  # warm-up
    rates = []
    for _ in range(args.runs):
        t = time.perf_counter()
        out = translator.translate_batch(src, **opts)
        secs = time.perf_counter() - t
        # The best hypothesis' tokens, eos included (CTranslate2 does not return the eos).
        tokens = sum(min(len(r.hypotheses[0]) + 1, args.out_len + 1) for r in out)
        rates.append(tokens / secs)
    print(json.dumps({"peer": "ctranslate2", "version": ctranslate2.__version__, "compute_type": args.compute_type,
                      "tokens": tokens, "tokens_per_s": statistics.median(rates), "runs": rates,
                      "peak_rss_mb": max(loaded_rss, peak_rss_mb()), "load_peak_rss_mb": loaded_rss,
                      "decode_peak_rss_mb": peak_rss_mb() if reset else None}))


def run_hf(args):
    import torch
    from transformers import MarianMTModel

    torch.set_num_threads(args.threads)
    model = MarianMTModel.from_pretrained(os.path.join(args.dir, "hf")).eval()
    loaded_rss = peak_rss_mb()
    reset = reset_peak_rss()
    ids = torch.tensor([s + [0] for s in sources(args.batch, args.src_len)])
    kw = dict(num_beams=args.beam, min_new_tokens=args.out_len, max_new_tokens=args.out_len + 1, do_sample=False,
              early_stopping=True)
    rates = []
    with torch.inference_mode():
        model.generate(ids[:1], **kw)  # warm-up
        for _ in range(args.runs):
            t = time.perf_counter()
            out = model.generate(ids, **kw)
            secs = time.perf_counter() - t
            # Each row: decoder start token, then the generated tokens (eos included), then padding.
            tokens = int(sum(min(int((row[1:] != VOCAB).sum()), args.out_len + 1) for row in out))
            rates.append(tokens / secs)
    print(json.dumps({"peer": "pytorch-hf-generate", "version": torch.__version__, "tokens": tokens,
                      "tokens_per_s": statistics.median(rates), "runs": rates,
                      "peak_rss_mb": max(loaded_rss, peak_rss_mb()), "load_peak_rss_mb": loaded_rss,
                      "decode_peak_rss_mb": peak_rss_mb() if reset else None}))


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("command", choices=["make", "ct2", "hf"])
    p.add_argument("--dir", required=True)
    p.add_argument("--compute-type", default="float32")
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--beam", type=int, default=4)
    p.add_argument("--batch", type=int, default=32)
    p.add_argument("--src-len", type=int, default=16)
    p.add_argument("--out-len", type=int, default=16)
    args = p.parse_args()
    {"make": make, "ct2": run_ct2, "hf": run_hf}[args.command](args)


if __name__ == "__main__":
    sys.exit(main())
