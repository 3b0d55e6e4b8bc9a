"""Real Marian (pymarian) for marian_export.sh: train a tiny transformer, decode a file, segment
text with a SentencePiece model, and compare two outputs line by line.

  marian_peer.py train SRC TRG OUT_DIR UPDATES       (a .yml vocabulary Marian builds: OUT_DIR/vocab.yml)
  marian_peer.py decode MODEL VOCAB INPUT OUTPUT     (beam 4, one sentence a batch, no normalisation)
  marian_peer.py segment SPM < text > pieces
  marian_peer.py compare MARIAN REALMT SOURCE_PIECES FACTOR MIN_SHARE [SPM]
    (SPM: the outputs are text, counted in its pieces; else they are pieces)
"""
import math
import os
import sys


def train(src, trg, out, updates):
    import pymarian
    os.makedirs(out, exist_ok=True)
    cli = (f"--type transformer --model {out}/model.npz --train-sets {src} {trg} "
           f"--vocabs {out}/vocab.yml {out}/vocab.yml --dim-emb 32 --enc-depth 1 --dec-depth 1 "
           "--transformer-heads 2 --transformer-dim-ffn 64 --transformer-dropout 0 --tied-embeddings-all "
           f"--mini-batch 32 --learn-rate 0.003 --lr-warmup 20 --after {updates}u --disp-freq {updates}u "
           f"--save-freq {updates}u --valid-freq 1000000u --seed 1 --cpu-threads 1 --overwrite "
           "--no-restore-corpus --quiet")
    pymarian.Trainer(cli).train()


def decode(model, vocab, inp, out):
    import pymarian
    t = pymarian.Translator(f"-m {model} -v {vocab} {vocab} --beam-size 4 --normalize 0 --word-penalty 0 "
                            "--mini-batch 1 --maxi-batch 1 --cpu-threads 1 --quiet --quiet-translation")
    with open(inp, encoding="utf-8") as f:
        lines = [line.rstrip("\n") for line in f]
    with open(out, "w", encoding="utf-8") as f:
        for line in t.translate(lines):
            f.write(line + "\n")


def segment(spm):
    import sentencepiece
    sp = sentencepiece.SentencePieceProcessor(model_file=spm)
    for line in sys.stdin:
        print(" ".join(sp.encode(line.rstrip("\n"), out_type=str)))


def compare(marian, realmt, source_pieces, factor, min_share, spm=None):
    read = lambda p: open(p, encoding="utf-8").read().split("\n")[:-1]
    if spm:
        import sentencepiece
        sp = sentencepiece.SentencePieceProcessor(model_file=spm)
        pieces = lambda text: len(sp.encode(text, out_type=str))
    else:
        pieces = lambda text: len(text.split())
    m, r, s = read(marian), read(realmt), read(source_pieces)
    assert len(m) == len(r) == len(s), f"line counts differ: {len(m)} {len(r)} {len(s)}"
    same = sum(a == b for a, b in zip(m, r))
    share = same / len(m)
    print(f"identical: {same} of {len(m)} lines ({100 * share:.1f}%)")
    for i, (a, b, src) in enumerate(zip(m, r, s)):
        if a == b:
            continue
        limit = math.ceil(float(factor) * (len(src.split()) + 1))
        # A translation cut at the limit has `limit` pieces; one ending in eos there, one fewer.
        at_limit = max(pieces(a), pieces(b)) >= limit - 1
        cause = f"length limit ({limit} tokens)" if at_limit else "search (a near tie, or a loop guard when on)"
        print(f"line {i + 1}: {cause}\n  marian: {a}\n  realmt: {b}")
    sys.exit(0 if share >= float(min_share) else 1)


if __name__ == "__main__":
    cmd, args = sys.argv[1], sys.argv[2:]
    {"train": train, "decode": decode, "segment": segment, "compare": compare}[cmd](*args)
