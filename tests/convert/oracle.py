#!/usr/bin/env python3
"""realmt-convert against independent implementations: PyTorch (Hugging Face transformers) and
CTranslate2. Nothing is downloaded: the models are generated here, the SentencePiece models are
trained on a few lines of ../shared/data.

  hf      a randomly initialised MarianMTModel (fixed seed, small), saved with save_pretrained and
          converted: realmt's encoder output and decoder log-probabilities equal PyTorch's within
          1e-4 on a padded batch; greedy and beam-4 outputs equal generate()'s token by token; the
          same model saved as pytorch_model.bin converts to the same checkpoint.
  ct2     the same model converted to CTranslate2 by its own converter and by realmt-convert
          --to ctranslate2 from the realmt checkpoint: identical translations (beam 1 and 4).
  marian  the same weights written as a Marian .npz with its .yml vocabulary: realmt's numbers
          equal PyTorch's once PyTorch uses Marian's positions, layer norm epsilon and softmax
          without the <pad> entry.
  native  a realmt-trained model (realmt-init: ADMIN omegas profiled, no residual attention)
          exported to CTranslate2: CTranslate2's token log-probabilities equal realmt-score's.

Exit status: 0 passed, 1 failed, 77 skipped (no ../shared/data).
Usage: oracle.py --bin BUILD/apps --dump BUILD/tests/convert/convert_oracle_dump --work DIR
                 [--data ../shared/data] [--parts hf,ct2,marian,native]
"""
import argparse
import json
import math
import os
import shutil
import subprocess
import sys

SKIP = 77
SEED = 1234
UPDATES = int(os.environ.get("ORACLE_UPDATES", "300"))
TOL = 1e-4
FAILURES = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what, flush=True)
    if not ok:
        FAILURES.append(what)


def run(cmd, **kw):
    r = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if r.returncode != 0:
        sys.stderr.write("command failed: %s\n%s%s" % (" ".join(cmd), r.stdout, r.stderr))
        raise SystemExit(1)
    return r.stdout


# ---------------------------------------------------------------------------------------------
# Vocabularies and the Hugging Face model


def make_tokenizer_files(out, data):
    """source.spm (English), target.spm (French), a Marian-style joint vocab.json."""
    import sentencepiece as spm
    for side, lang, size in (("source", "en", 150), ("target", "fr", 170)):
        spm.SentencePieceTrainer.train(
            input=os.path.join(data, "Europarl_dev_1k." + lang), model_prefix=os.path.join(out, side),
            vocab_size=size, model_type="unigram", character_coverage=1.0, minloglevel=2,
            bos_id=-1, eos_id=0, unk_id=1, pad_id=-1)
        os.replace(os.path.join(out, side + ".model"), os.path.join(out, side + ".spm"))
    pieces = []
    for side in ("source", "target"):
        sp = spm.SentencePieceProcessor(model_file=os.path.join(out, side + ".spm"))
        for i in range(sp.get_piece_size()):
            p = sp.id_to_piece(i)
            if p not in ("</s>", "<unk>") and p not in pieces:
                pieces.append(p)
    vocab = {"</s>": 0, "<unk>": 1}
    for p in pieces:
        vocab[p] = len(vocab)
    vocab["<pad>"] = len(vocab)
    with open(os.path.join(out, "vocab.json"), "w") as f:
        json.dump(vocab, f, ensure_ascii=False)
    with open(os.path.join(out, "tokenizer_config.json"), "w") as f:
        json.dump({"source_lang": "en", "target_lang": "fr", "model_max_length": 512}, f)
    return vocab


def make_hf_model(out, data):
    """A small MarianMTModel from a fixed seed, trained for a few hundred updates on 1,000 Europarl
    pairs so that its outputs end with eos at varied lengths (a purely random model repeats one
    token forever or stops at once, which leaves beam search nothing to choose), with a random
    final_logits_bias (a buffer training leaves alone)."""
    import torch
    from transformers import MarianConfig, MarianMTModel, MarianTokenizer
    with open(os.path.join(out, "vocab.json")) as f:
        v = len(json.load(f))
    torch.manual_seed(SEED)
    torch.set_num_threads(2)
    config = MarianConfig(
        vocab_size=v, decoder_vocab_size=v, d_model=32, encoder_layers=2, decoder_layers=2,
        encoder_attention_heads=4, decoder_attention_heads=4, encoder_ffn_dim=64, decoder_ffn_dim=64,
        activation_function="swish", max_position_embeddings=512, scale_embedding=True,
        pad_token_id=v - 1, eos_token_id=0, decoder_start_token_id=v - 1, forced_eos_token_id=0,
        init_std=0.1, dropout=0.0)
    model = MarianMTModel(config)
    with torch.no_grad():
        bias = torch.randn(1, v) * 0.3
        bias[0, v - 1] = 0.0
        model.final_logits_bias.copy_(bias)
    model.save_pretrained(out)  # the tokenizer below reads the directory
    tokenizer = MarianTokenizer.from_pretrained(out)
    with open(os.path.join(data, "Europarl_dev_1k.en")) as f:
        src = [" ".join(line.split()[:12]) for line in f]
    with open(os.path.join(data, "Europarl_dev_1k.fr")) as f:
        tgt = [" ".join(line.split()[:12]) for line in f]
    opt = torch.optim.Adam(model.parameters(), lr=3e-3)
    model.train()
    for step in range(UPDATES):
        i = (step * 32) % (len(src) - 32)
        batch = tokenizer(src[i:i + 32], text_target=tgt[i:i + 32], return_tensors="pt", padding=True)
        batch["labels"][batch["labels"] == config.pad_token_id] = -100
        loss = model(**batch).loss
        opt.zero_grad()
        loss.backward()
        opt.step()
    model.eval()
    with torch.no_grad():
        # The decoder starts from the <pad> embedding, which is zero in a converted OPUS-MT model
        # (Marian starts from a zero vector; CTranslate2's converter relies on it). Training
        # moved it through the tied output layer: zero it again.
        model.model.shared.weight[config.pad_token_id].zero_()
    print("trained %d updates, last loss %.2f" % (UPDATES, loss.item()), flush=True)
    model.save_pretrained(out)
    return model


def marian_batch(tokenizer, sentences):
    return tokenizer(sentences, return_tensors="pt", padding=True)


# ---------------------------------------------------------------------------------------------
# Comparisons


def realmt_numbers(args, model, src_ids, dec_ids, work):
    """Encoder output and decoder log-probabilities from convert_oracle_dump."""
    from safetensors.numpy import load_file
    sf, df, of = (os.path.join(work, n) for n in ("src.ids", "dec.ids", "dump.safetensors"))
    with open(sf, "w") as f:
        f.writelines(" ".join(map(str, r)) + "\n" for r in src_ids)
    with open(df, "w") as f:
        f.writelines(" ".join(map(str, r)) + "\n" for r in dec_ids)
    run([args.dump, model, sf, df, of])
    return load_file(of)


def compare_numbers(args, model, torch_model, tokenizer, sentences, references, work, label):
    import torch
    batch = marian_batch(tokenizer, sentences)
    targets = [tokenizer(text_target=r).input_ids[:-1][:12] for r in references]
    start = torch_model.config.decoder_start_token_id
    dec = [[start] + t for t in targets]
    lengths = [int(m.sum()) for m in batch.attention_mask]
    check(min(lengths) < max(lengths), label + ": the batch holds padding")
    src = [batch.input_ids[i, :n].tolist() for i, n in enumerate(lengths)]
    got = realmt_numbers(args, model, src, dec, work)
    width = max(len(d) for d in dec)
    pad = torch_model.config.pad_token_id
    dec_t = torch.tensor([d + [pad] * (width - len(d)) for d in dec])
    dec_mask = torch.tensor([[1] * len(d) + [0] * (width - len(d)) for d in dec])
    with torch.no_grad():
        enc = torch_model.model.encoder(input_ids=batch.input_ids, attention_mask=batch.attention_mask)
        out = torch_model(input_ids=batch.input_ids, attention_mask=batch.attention_mask,
                          decoder_input_ids=dec_t, decoder_attention_mask=dec_mask)
        logp = torch.log_softmax(out.logits, dim=-1).numpy()
    ref_enc = enc.last_hidden_state.numpy()
    e = max(abs(got["encoder"][i, :n] - ref_enc[i, :n]).max() for i, n in enumerate(lengths))
    # Entries with a logit near -1e9 (Marian's <pad>: no probability) are compared as such: in f32
    # the spacing of numbers near 1e9 is 64.
    live = logp > -1e6
    check(((got["log_probs"] > -1e6) == live).all(), label + ": the same entries have no probability")
    d = max(abs(got["log_probs"][i, :len(t)] - logp[i, :len(t)])[live[i, :len(t)]].max()
            for i, t in enumerate(dec))
    check(e <= TOL, "%s: encoder output within %g of PyTorch (max difference %.2e)" % (label, TOL, e))
    check(d <= TOL, "%s: decoder log-probabilities within %g of PyTorch (max difference %.2e)" % (label, TOL, d))
    return e, d


def realmt_translate(args, model, spms, sentences, beam, factor, work):
    inp = os.path.join(work, "in.txt")
    with open(inp, "w") as f:
        f.writelines(s + "\n" for s in sentences)
    out = run([os.path.join(args.bin, "realmt-translate"), "-m", model, "-v"] + spms +
              ["-i", inp, "--beam-size", str(beam), "--beam-mode", "full", "--normalize", "1",
               "--max-length-factor", str(factor),
               "--repeat-guard", "0", "--allow-unk", "--no-spm-decode", "--quiet", "--mini-batch", "8"])
    return [line.split() for line in out.splitlines()]


def part_hf(args, hf, work, sentences, references):
    import torch
    from transformers import MarianMTModel, MarianTokenizer
    model = os.path.join(work, "hf.realmt")
    run([os.path.join(args.bin, "realmt-convert"), "--from", "hf", hf, "-o", model])
    tokenizer = MarianTokenizer.from_pretrained(hf)
    torch_model = MarianMTModel.from_pretrained(hf).eval()
    compare_numbers(args, model, torch_model, tokenizer, sentences, references, work, "hf")

    # pytorch_model.bin (older Hub models) converts to the very same checkpoint.
    from safetensors.numpy import load_file
    bin_dir = os.path.join(work, "hf-bin")
    shutil.rmtree(bin_dir, ignore_errors=True)
    shutil.copytree(hf, bin_dir, ignore=shutil.ignore_patterns("model.safetensors"))
    torch.save(torch_model.state_dict(), os.path.join(bin_dir, "pytorch_model.bin"))
    bin_model = os.path.join(work, "hf-bin.realmt")
    run([os.path.join(args.bin, "realmt-convert"), "--from", "hf", bin_dir, "-o", bin_model])
    a, b = load_file(model), load_file(bin_model)
    check(sorted(a) == sorted(b) and all((a[k] == b[k]).all() for k in a),
          "hf: pytorch_model.bin and model.safetensors convert to identical tensors")

    part_hf_layouts(args, hf, work, torch_model, a)

    spms = [os.path.join(hf, "source.spm"), os.path.join(hf, "target.spm")]
    # realmt's output limit: floor(factor x source tokens with eos), eos included; generate's the
    # same with max_new_tokens. At the limit generate forces eos with log-probability 0 where realmt
    # counts eos's own: identical outputs are only expected when generate's best ends before it (a
    # factor of 3 let the beams of two sentences all run into it).
    factor = 8
    pad = torch_model.config.pad_token_id
    for beam in (1, 4):
        want, limited = [], 0
        for s in sentences:
            ids = tokenizer([s], return_tensors="pt")
            limit = factor * ids.input_ids.shape[1]
            beam_args = dict(length_penalty=1.0, early_stopping=True) if beam > 1 else {}
            with torch.no_grad():
                gen = torch_model.generate(**ids, num_beams=beam, do_sample=False, max_new_tokens=limit,
                                           bad_words_ids=[[pad]], **beam_args)
            row = gen[0].tolist()[1:]
            limited += (row.index(0) + 1 if 0 in row else len(row)) >= limit  # eos forced, or none
            want.append(tokenizer.convert_ids_to_tokens(row[:row.index(0)] if 0 in row else row))
        got = realmt_translate(args, model, spms, sentences, beam, factor, work)
        same = sum(g == w for g, w in zip(got, want))
        lengths = sorted(len(w) for w in want)
        check(lengths[0] > 0 and lengths[0] < lengths[-1] and limited == 0,
              "hf: beam %d outputs of generate() end with eos before the limit, at varied lengths (%d..%d)"
              % (beam, lengths[0], lengths[-1]))
        check(len(got) == len(want) and same == len(want),
              "hf: beam %d outputs identical to generate() token by token (%d of %d sentences)"
              % (beam, same, len(want)))
        for i, (g, w) in enumerate(zip(got, want)):
            if g != w:
                print("  sentence %d\n    realmt   %s\n    generate %s" % (i, " ".join(g), " ".join(w)))
    return model, tokenizer


def part_hf_layouts(args, hf, work, torch_model, want):
    """The same model as transformers saves it in f16 and bf16 (each converts to the f32 tensors
    rounded to that dtype: realmt reads them as f32), and sharded: model.safetensors.index.json by
    save_pretrained's max_shard_size, pytorch_model.bin.index.json with torch.save shards (each
    converts to the unsharded model's tensors)."""
    import torch
    from safetensors.numpy import load_file

    def convert(name, prepare):
        d = os.path.join(work, name)
        shutil.rmtree(d, ignore_errors=True)
        shutil.copytree(hf, d, ignore=shutil.ignore_patterns("model.safetensors"))
        prepare(d)
        out = d + ".realmt"
        run([os.path.join(args.bin, "realmt-convert"), "--from", "hf", d, "-o", out])
        return d, load_file(out)

    for dtype in (torch.float16, torch.bfloat16):
        name = str(dtype).replace("torch.", "")
        _, got = convert("hf-" + name, lambda d: copy_model(torch_model).to(dtype).save_pretrained(d))
        rounded = {k: torch.from_numpy(v).to(dtype).float().numpy() for k, v in want.items()}
        check(sorted(got) == sorted(want) and all((got[k] == rounded[k]).all() for k in want),
              "hf: the %s checkpoint converts to the f32 tensors rounded to %s" % (name, name))

    # config.json with every field this transformers' MarianConfig writes (to_diff_dict drops
    # the defaults; to_dict keeps them all): realmt-convert's table knows each one.
    from transformers import MarianConfig

    def full_config(d):
        torch_model.save_pretrained(d)
        full = MarianConfig.from_pretrained(d).to_dict()
        with open(os.path.join(d, "config.json"), "w") as f:
            json.dump(full, f)
    d, _ = convert("hf-full-config", full_config)
    r = subprocess.run([os.path.join(args.bin, "realmt-convert"), "--from", "hf", d, "-o", d + "-2.realmt"],
                       capture_output=True, text=True)
    check(r.returncode == 0 and "does not know" not in r.stderr,
          "hf: every field of MarianConfig().to_dict() is in realmt-convert's config table%s"
          % (" (" + r.stderr.strip() + ")" if "does not know" in r.stderr else ""))

    d, got = convert("hf-shards", lambda d: torch_model.save_pretrained(d, max_shard_size="100KB"))
    with open(os.path.join(d, "model.safetensors.index.json")) as f:
        shards = set(json.load(f)["weight_map"].values())
    check(len(shards) > 1 and sorted(got) == sorted(want) and all((got[k] == want[k]).all() for k in want),
          "hf: model.safetensors.index.json over %d shards converts to the unsharded tensors" % len(shards))

    def torch_shards(d, n=3):
        sd = torch_model.state_dict()
        names = sorted(sd)
        index = {"metadata": {}, "weight_map": {}}
        for i in range(n):
            shard = "pytorch_model-%05d-of-%05d.bin" % (i + 1, n)
            part = {k: sd[k].clone() for k in names[i::n]}
            torch.save(part, os.path.join(d, shard))
            index["weight_map"].update({k: shard for k in part})
        with open(os.path.join(d, "pytorch_model.bin.index.json"), "w") as f:
            json.dump(index, f)
    _, got = convert("hf-bin-shards", torch_shards)
    check(sorted(got) == sorted(want) and all((got[k] == want[k]).all() for k in want),
          "hf: pytorch_model.bin.index.json over 3 shards converts to the unsharded tensors")


def copy_model(model):
    import copy
    return copy.deepcopy(model)


def part_ct2(args, hf, model, tokenizer, work, sentences):
    import ctranslate2
    own, ours = os.path.join(work, "ct2-own"), os.path.join(work, "ct2-realmt")
    ctranslate2.converters.TransformersConverter(hf).convert(own, force=True)
    shutil.rmtree(ours, ignore_errors=True)
    run([os.path.join(args.bin, "realmt-convert"), "--from", "realmt", model, "--to", "ctranslate2", "-o", ours])
    a, b = ctranslate2.Translator(own, device="cpu"), ctranslate2.Translator(ours, device="cpu")
    with_eos = [tokenizer.convert_ids_to_tokens(tokenizer(s).input_ids) for s in sentences]
    pieces = [t[:-1] for t in with_eos]  # realmt's export appends eos itself (add_source_eos)
    for beam in (1, 4):
        ra = a.translate_batch(with_eos, beam_size=beam, max_decoding_length=40)
        rb = b.translate_batch(pieces, beam_size=beam, max_decoding_length=40)
        ha, hb = [r.hypotheses[0] for r in ra], [r.hypotheses[0] for r in rb]
        same = sum(x == y for x, y in zip(ha, hb))
        check(same == len(ha), "ct2: beam %d translations of CTranslate2's own conversion and realmt-convert's "
              "identical (%d of %d)" % (beam, same, len(ha)))
        sa = [r.scores[0] for r in a.translate_batch(with_eos, beam_size=beam, max_decoding_length=40,
                                                       return_scores=True)]
        sb = [r.scores[0] for r in b.translate_batch(pieces, beam_size=beam, max_decoding_length=40,
                                                       return_scores=True)]
        diff = max(abs(x - y) for x, y in zip(sa, sb))
        check(diff <= TOL, "ct2: beam %d scores equal within %g (max difference %.2e)" % (beam, TOL, diff))


def marian_positions(n, d):
    """Marian's sinusoids (float arithmetic, as its C++): sin | cos, frequencies 10000^(-i/(d/2-1))."""
    import numpy as np
    half = d // 2
    inc = np.float32(math.log(10000.0)) / (np.float32(half) - np.float32(1))
    out = np.zeros((n, d), np.float32)
    for p in range(n):
        for i in range(half):
            v = np.float32(p) * np.exp(np.float32(i) * -inc, dtype=np.float32)
            out[p, i] = np.sin(v, dtype=np.float32)
            out[p, half + i] = np.cos(v, dtype=np.float32)
    return out


def write_marian_model(torch_model, hf, out):
    """The Hugging Face weights under Marian's names (W [in, out]), without the <pad> entry."""
    import numpy as np
    sd = {k: v.numpy() for k, v in torch_model.state_dict().items()}
    c = torch_model.config
    w = {"Wemb": sd["model.shared.weight"][:-1],
         "decoder_ff_logit_out_b": sd["final_logits_bias"][:, :-1]}
    def att(hf_prefix, m):
        for x in "qkv":
            w[m + "_W" + x] = sd[hf_prefix + ".%s_proj.weight" % x].T
            w[m + "_b" + x] = sd[hf_prefix + ".%s_proj.bias" % x][None]
        w[m + "_Wo"] = sd[hf_prefix + ".out_proj.weight"].T
        w[m + "_bo"] = sd[hf_prefix + ".out_proj.bias"][None]
    def ln(hf_prefix, m):
        w[m + "_ln_scale"] = sd[hf_prefix + ".weight"][None]
        w[m + "_ln_bias"] = sd[hf_prefix + ".bias"][None]
    def ffn(hf_prefix, m):
        w[m + "_W1"] = sd[hf_prefix + ".fc1.weight"].T
        w[m + "_b1"] = sd[hf_prefix + ".fc1.bias"][None]
        w[m + "_W2"] = sd[hf_prefix + ".fc2.weight"].T
        w[m + "_b2"] = sd[hf_prefix + ".fc2.bias"][None]
        ln(hf_prefix + ".final_layer_norm", m + "_ffn")
    for i in range(c.encoder_layers):
        h, m = "model.encoder.layers.%d" % i, "encoder_l%d" % (i + 1)
        att(h + ".self_attn", m + "_self")
        ln(h + ".self_attn_layer_norm", m + "_self_Wo")
        ffn(h, m + "_ffn")
    for i in range(c.decoder_layers):
        h, m = "model.decoder.layers.%d" % i, "decoder_l%d" % (i + 1)
        att(h + ".self_attn", m + "_self")
        ln(h + ".self_attn_layer_norm", m + "_self_Wo")
        att(h + ".encoder_attn", m + "_context")
        ln(h + ".encoder_attn_layer_norm", m + "_context_Wo")
        ffn(h, m + "_ffn")
    v = c.vocab_size - 1
    config = ("type: transformer\ndim-vocabs: [%d, %d]\ndim-emb: %d\nenc-depth: %d\ndec-depth: %d\n"
              "transformer-heads: %d\ntransformer-dim-ffn: %d\ntransformer-ffn-activation: swish\n"
              "transformer-preprocess: \"\"\ntransformer-postprocess: dan\ntransformer-postprocess-emb: d\n"
              "tied-embeddings-all: true\n" % (v, v, c.d_model, c.encoder_layers, c.decoder_layers,
                                               c.encoder_attention_heads, c.encoder_ffn_dim))
    w["special:model.yml"] = np.frombuffer(config.encode() + b"\0", dtype=np.int8)
    np.savez(os.path.join(out, "model.npz"), **{k: np.ascontiguousarray(a) for k, a in w.items()})
    with open(os.path.join(hf, "vocab.json")) as f:
        vocab = json.load(f)
    with open(os.path.join(out, "vocab.yml"), "w") as f:
        for piece, i in sorted(vocab.items(), key=lambda kv: kv[1]):
            if piece != "<pad>":
                f.write("%s: %d\n" % (json.dumps(piece), i))


def part_marian(args, hf, work, sentences, references):
    import torch
    from transformers import MarianMTModel, MarianTokenizer
    torch_model = MarianMTModel.from_pretrained(hf).eval()
    tokenizer = MarianTokenizer.from_pretrained(hf)
    mdir = os.path.join(work, "marian")
    os.makedirs(mdir, exist_ok=True)
    write_marian_model(torch_model, hf, mdir)
    model = os.path.join(work, "marian.realmt")
    run([os.path.join(args.bin, "realmt-convert"), "--from", "marian", os.path.join(mdir, "model.npz"),
         "--vocabs", os.path.join(mdir, "vocab.yml"), "-o", model])
    # PyTorch as Marian computes: its positions, epsilon 1e-6, no probability for <pad>.
    with torch.no_grad():
        table = torch.from_numpy(marian_positions(torch_model.config.max_position_embeddings,
                                                  torch_model.config.d_model))
        torch_model.model.encoder.embed_positions.weight.copy_(table)
        torch_model.model.decoder.embed_positions.weight.copy_(table)
        for mod in torch_model.modules():
            if isinstance(mod, torch.nn.LayerNorm):
                mod.eps = 1e-6
        torch_model.final_logits_bias[0, -1] = -1e9
    compare_numbers(args, model, torch_model, tokenizer, sentences, references, work, "marian")


def part_native(args, data, hf, work, sentences, references):
    """A realmt-trained model (ADMIN omegas profiled) against its CTranslate2 export."""
    import ctranslate2
    import sentencepiece as spm
    spm_path = os.path.join(hf, "source.spm")
    model = os.path.join(work, "native.realmt")
    run([os.path.join(args.bin, "realmt-init"), "--train-sets", os.path.join(data, "Europarl_dev_1k.en"),
         os.path.join(data, "Europarl_dev_1k.fr"), "--vocabs", spm_path, "--model", model, "--dim-emb", "32",
         "--transformer-heads", "4", "--enc-depth", "2", "--dec-depth", "2", "--transformer-dim-ffn", "64",
         "--residual-attention-encoder", "none", "--residual-attention-decoder", "none",
         "--residual-attention-cross", "none", "--admin-init", "profile", "--transformer-dropout", "0.1",
         "--mini-batch-words", "400", "--seed", "7"])
    out = os.path.join(work, "ct2-native")
    shutil.rmtree(out, ignore_errors=True)
    run([os.path.join(args.bin, "realmt-convert"), "--from", "realmt", model, "--vocabs", spm_path, "--to",
         "ctranslate2", "-o", out])
    sp = spm.SentencePieceProcessor(model_file=spm_path)
    src = [sp.encode(s, out_type=str) for s in sentences]
    tgt = [sp.encode(r, out_type=str)[:10] for r in references]
    pairs_src, pairs_tgt = os.path.join(work, "pairs.src"), os.path.join(work, "pairs.tgt")
    with open(pairs_src, "w") as f:
        f.writelines(s + "\n" for s in sentences)
    with open(pairs_tgt, "w") as f:
        f.writelines(sp.decode(t) + "\n" for t in tgt)
    scored = run([os.path.join(args.bin, "realmt-score"), "-m", model, "-v", spm_path, "-t", pairs_src, pairs_tgt,
                  "--word-scores", "--quiet"])
    realmt_words = [[float(x) for x in line.split("|||")[1].split()] for line in scored.splitlines()]
    tgt = [sp.encode(sp.decode(t), out_type=str) for t in tgt]  # what realmt-score encoded
    ct2 = ctranslate2.Translator(out, device="cpu").score_batch(src, tgt)
    diff = 0.0
    ok = len(realmt_words) == len(ct2)
    for r, c in zip(realmt_words, ct2):
        ok = ok and len(r) == len(c.log_probs)
        diff = max([diff] + [abs(a - b) for a, b in zip(r, c.log_probs)])
    check(ok and diff <= TOL, "native: CTranslate2's token log-probabilities of the export equal realmt-score's "
          "(ADMIN omegas folded; max difference %.2e)" % diff)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--dump", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--data", default=None)
    ap.add_argument("--parts", default="hf,ct2,marian,native")
    args = ap.parse_args()
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    data = os.path.join(args.data or os.path.join(root, "..", "shared", "data"), "europarl-opus-enfr")
    if not os.path.isfile(os.path.join(data, "Europarl_dev_1k.en")):
        print("SKIP: %s not found (the shared data folder)" % data)
        return SKIP
    parts = set(args.parts.split(","))
    os.makedirs(args.work, exist_ok=True)
    hf = os.path.join(args.work, "hf")
    os.makedirs(hf, exist_ok=True)
    make_tokenizer_files(hf, data)
    make_hf_model(hf, data)
    with open(os.path.join(data, "Europarl_test_500.en")) as f:
        sentences = [next(f).strip() for _ in range(8)]
    with open(os.path.join(data, "Europarl_test_500.fr")) as f:
        references = [next(f).strip() for _ in range(8)]
    sentences = [" ".join(s.split()[:n]) for s, n in zip(sentences, (3, 9, 5, 14, 7, 2, 11, 6))]
    model = tokenizer = None
    if "hf" in parts or "ct2" in parts:
        model, tokenizer = part_hf(args, hf, args.work, sentences, references)
    if "ct2" in parts:
        part_ct2(args, hf, model, tokenizer, args.work, sentences)
    if "marian" in parts:
        part_marian(args, hf, args.work, sentences, references)
    if "native" in parts:
        part_native(args, data, hf, args.work, sentences, references)
    if FAILURES:
        print("%d check(s) failed" % len(FAILURES))
        return 1
    print("all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
