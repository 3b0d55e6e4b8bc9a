#!/usr/bin/env python3
"""Writes the seed corpora of the fuzz targets (fuzz/corpus/<target>/): small valid inputs of
each format plus a few broken ones, so that the fuzzers start from the formats' structure.
Run it again after changing it; the outputs are committed."""
import gzip
import json
import os
import shutil
import struct
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "corpus")


def put(target, name, data):
    d = os.path.join(OUT, target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode("utf-8"))


# ---- safetensors -----------------------------------------------------------------------------
def safetensors(tensors, metadata=None, checksums=True):
    """tensors: list of (name, dtype, shape, raw bytes)."""
    header, data = {}, b""
    if metadata is not None:
        meta = dict(metadata)
        if checksums:
            meta["realmt.crc32"] = " ".join("%08x" % (zlib.crc32(raw) & 0xFFFFFFFF) for _, _, _, raw in tensors)
        header["__metadata__"] = meta
    for name, dtype, shape, raw in tensors:
        header[name] = {"dtype": dtype, "shape": shape, "data_offsets": [len(data), len(data) + len(raw)]}
        data += raw
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * ((8 - len(text) % 8) % 8)
    return struct.pack("<Q", len(text)) + text + data


def f32(*xs):
    return struct.pack("<%df" % len(xs), *xs)


CONFIG = ("type: transformer\nvocab-size: 10\nenc-depth: 1\ndec-depth: 1\ndim-emb: 8\ntransformer-heads: 2\n"
          "transformer-dim-ffn: 16\n")
put("safetensors_fuzz", "model.safetensors", safetensors(
    [("encoder.w", "F32", [2, 3], f32(1, 2, 3, 4, 5, 6)), ("decoder.omega", "F32", [3], f32(0.5, 1, 1.5))],
    {"realmt.format": "1", "realmt.config": CONFIG, "realmt.vocab": "spm-fnv1a64:10:0123456789abcdef"}))
put("safetensors_fuzz", "mixed.safetensors", safetensors(
    [("a", "BF16", [2], b"\x80\x3f\x00\x40"), ("b", "F16", [1], b"\x00\x3c"), ("c", "I32", [1], b"\x07\0\0\0"),
     ("d", "U8", [3], b"xyz"), ("e", "F64", [], struct.pack("<d", 2.5))], {"format": "pt"}, checksums=False))
put("safetensors_fuzz", "empty.safetensors", safetensors([]))
put("safetensors_fuzz", "nan.safetensors", safetensors(
    [("w", "F32", [2], f32(1, float("nan")))], {"realmt.format": "1"}))
put("safetensors_fuzz", "format2.safetensors", safetensors([("w", "F32", [1], f32(1))], {"realmt.format": "2"}))
put("safetensors_fuzz", "truncated.safetensors", safetensors([("w", "F32", [4], f32(1, 2, 3, 4))])[:-5])

# ---- YAML configs ----------------------------------------------------------------------------
put("yaml_config_fuzz", "train.yml",
    "train-sets: [corpus.en, corpus.fr]\nvocabs: [vocab.spm]\nmodel: model.safetensors\nenc-depth: 6\n"
    "dec-depth: 6\ndim-emb: 512\ntransformer-heads: 8\nmini-batch-words: 4000\nlearn-rate: 0.0003\n"
    "lr-warmup: 8000u\nafter: 100Ku\nvalid-freq: 5000\nvalid-metrics: [ce-mean-words, bleu]\n"
    "optimizer-params: [0.9, 0.98, 1e-09]\nexponential-smoothing: 1e-4\nshuffle: data\ndevices: [0, 1]\n"
    "residual-attention: mean\nadmin-init: profile\ntied-embeddings-all: true\n")
put("yaml_config_fuzz", "nulls.yml", "model:\ntrain-sets: []\ndevices: ~\nlog: \"\"\n")
put("yaml_config_fuzz", "model_config.yml", CONFIG + "ffn-activation: gelu\ntransformer-dropout: 0.1\n")
put("yaml_config_fuzz", "errors.yml", "enc-depth: [1, 2]\nafter: 3 epochs\n{nested: {a: 1}}\n")
put("yaml_config_fuzz", "flow.yml", "{enc-depth: 2, after: 1e, disp-freq: 10t, save-freq: 2e}\n")
for name in os.listdir(os.path.join(HERE, "..", "marian-style-configs")):
    if name.endswith(".yml"):
        shutil.copy(os.path.join(HERE, "..", "marian-style-configs", name), os.path.join(OUT, "yaml_config_fuzz", name))

# ---- SGM -------------------------------------------------------------------------------------
put("sgm_fuzz", "newstest.sgm",
    '<srcset setid="newstest2014" srclang="any">\n<doc sysid="ref" docid="1-a" genre="news" origlang="fr">\n'
    '<p>\n<seg id="1"> Tom &amp; Jerry &lt;3 &quot;cats&quot; &#233;t&#xE9; </seg>\n'
    '<seg id="2">second &apos;line&apos;&nbsp;&copy;&#13;</seg>\n</p>\n</doc>\n'
    "<doc docid='b'><seg id=\"1\">AT&T & co</seg><seg>two on a line</seg></doc>\n</srcset>\n")
put("sgm_fuzz", "unclosed.sgm", '<doc docid="d">\n<seg id="1">open\n</doc>\n')
put("sgm_fuzz", "noseg.sgm", "<srcset>\n<doc docid=\"x\">\n</doc>\n</srcset>\n")


# ---- .mo catalogs ----------------------------------------------------------------------------
def mo(entries, big_endian=False):
    n = len(entries)
    e = ">" if big_endian else "<"
    orig, trans, base = 28, 28 + 8 * n, 28 + 16 * n
    head = struct.pack(e + "7I", 0x950412DE, 0, n, orig, trans, 0, 0)
    strings, o_tab, t_tab = b"", b"", b""
    for k, v in entries:
        o_tab += struct.pack(e + "2I", len(k), base + len(strings))
        strings += k + b"\0"
    for k, v in entries:
        t_tab += struct.pack(e + "2I", len(v), base + len(strings))
        strings += v + b"\0"
    return head + o_tab + t_tab + strings


put("mo_fuzz", "fr.mo", mo([(b"", b"Content-Type: text/plain; charset=UTF-8\n"), (b"menu\x04_Open", b"_Ouvrir"),
                            (b"%d file\0%d files", b"%d fichier\0%d fichiers"),
                            (b"<b>Save</b> the document", b"<b>Enregistrer</b> le document")]))
put("mo_fuzz", "latin1-be.mo", mo([(b"", b"Content-Type: text/plain; charset=ISO-8859-1\n"),
                                   (b"Caf\xe9 menu", b"Menu du caf\xe9")], big_endian=True))
put("mo_fuzz", "unknown-charset.mo", mo([(b"", b"Content-Type: text/plain; charset=X-NONE\n"), (b"Hello", b"Salut")]))

# ---- gzip / text input -----------------------------------------------------------------------
text = "first line\nsecond line with \u00e9t\u00e9\n\nlast line without newline"
put("gzip_fuzz", "plain.txt", "\x80" + text)  # the first byte picks where the gzip copy is cut
put("gzip_fuzz", "crlf.txt", "\x10" + "a\r\nb\r\n")
put("gzip_fuzz", "text.gz", gzip.compress(text.encode()))
put("gzip_fuzz", "two-members.gz", gzip.compress(b"one\n") + gzip.compress(b"two\n"))

# ---- server request --------------------------------------------------------------------------
put("request_fuzz", "simple.json", '{"text": ["Hello world.", "Second sentence."]}')
put("request_fuzz", "options.json", '{"text": ["x"], "beam_size": 4, "n_best": 2, "timeout_ms": 5000}')
put("request_fuzz", "bad.json", '{"text": "not a list", "beam_size": 1e400, "extra": null}')
put("request_fuzz", "unicode.json", '{"text": ["\\u00e9t\\u00e9 \\ud83d\\ude00", ""]}')

# ---- BLEU tokenizers and TER -----------------------------------------------------------------
lines = ["The dog bit the man.", "It wasn't surprising -- 3.5% of $1,000 (approx.)!",
         "L'\u00e9t\u00e9 \u00ab chaud \u00bb, n'est-ce pas ?", "\u6211\u4eec\u559c\u6b22\u300c\u5317\u4eac\u300d\u3002 2023\u5e74",
         "Stra\u00dfe \u0130stanbul \u03a3\u0399\u03a3", "a&b <tag> \"quoted\" 'single'", "  spaced\tout  "]
for kind in ("13a", "intl", "zh", "char"):
    put("bleu_%s_fuzz" % kind, "lines.txt", "\n".join(lines) + "\n")
    put("bleu_%s_fuzz" % kind, "empty-lines.txt", "\n\n\n")
put("ter_fuzz", "pairs.txt", "\x00" + "d e f g h a b c\na b c d e f g h\nthe cat sat\nthe cat sat\n")
put("ter_fuzz", "options.txt", "\x0f" + "\n".join(lines) + "\n")

# ---- realmt-convert: zip archives, .npy arrays, torch.save pickles ----------------------------
put("safetensors_fuzz", "hf-buffers.safetensors", safetensors(
    [("model.position_ids", "I64", [2], struct.pack("<2q", 0, 1)), ("mask", "BOOL", [2], b"\x01\x00"),
     ("w", "F16", [1], b"\x00\x3c")], {"format": "pt"}, checksums=False))


def npy(descr, shape, raw, version=1):
    header = "{'descr': '%s', 'fortran_order': False, 'shape': %s, }" % (descr, shape)
    pre = 10 if version == 1 else 12
    header += " " * ((64 - (pre + len(header) + 1) % 64) % 64) + "\n"
    size = struct.pack("<H", len(header)) if version == 1 else struct.pack("<I", len(header))
    return b"\x93NUMPY" + bytes([version, 0]) + size + header.encode() + raw


put("npy_fuzz", "f4.npy", npy("<f4", "(2, 3)", f32(1, 2, 3, 4, 5, 6)))
put("npy_fuzz", "f2.npy", npy("<f2", "(2,)", b"\x00\x3c\x00\x40"))
put("npy_fuzz", "f8-v2.npy", npy("<f8", "()", struct.pack("<d", 0.5), version=2))
put("npy_fuzz", "text.npy", npy("|i1", "(12,)", b"dim-emb: 8\n\0"))


def zip_archive(members, zip64=False):
    """members: list of (name, bytes, deflate); a ZIP64 extra field in the central directory when asked."""
    out, cd = b"", b""
    for name, data, deflate in members:
        body = zlib.compress(data)[2:-4] if deflate else data
        crc, method, off = zlib.crc32(data) & 0xFFFFFFFF, 8 if deflate else 0, len(out)
        n = name.encode()
        out += struct.pack("<IHHHHHIIIHH", 0x04034B50, 20, 0, method, 0, 0, crc, len(body), len(data), len(n), 0)
        out += n + body
        extra = struct.pack("<HHQQQ", 1, 24, len(data), len(body), off) if zip64 else b""
        big = 0xFFFFFFFF
        cd += struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 45, 20, 0, method, 0, 0, crc,
                          big if zip64 else len(body), big if zip64 else len(data), len(n), len(extra), 0, 0, 0, 0,
                          big if zip64 else off) + n + extra
    return out + cd + struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, len(members), len(members), len(cd), len(out), 0)


put("zip_fuzz", "npz.zip", zip_archive([("w.npy", npy("<f4", "(2,)", f32(1, 2)), False),
                                        ("special:model.yml.npy", npy("|i1", "(4,)", b"a: 1"), True)]))
put("zip_fuzz", "zip64.zip", zip_archive([("a", b"zip64 sizes", False), ("b", b"x" * 300, True)], zip64=True))
put("zip_fuzz", "empty.zip", zip_archive([]))


def torch_pickles():
    """torch.save's data.pkl of a state dict, made by Python's own pickler (protocols 2 and 4) with
    stand-ins for torch's globals, as torch.save does it: tensors reduce to
    torch._utils._rebuild_tensor_v2 over a persistent storage id."""
    import collections
    import pickle
    import sys
    import types
    saved = {k: sys.modules.get(k) for k in ("torch", "torch._utils")}
    torch, utils = types.ModuleType("torch"), types.ModuleType("torch._utils")
    sys.modules["torch"], sys.modules["torch._utils"] = torch, utils
    try:
        def _rebuild_tensor_v2(*args):
            pass
        _rebuild_tensor_v2.__module__, _rebuild_tensor_v2.__qualname__ = "torch._utils", "_rebuild_tensor_v2"
        utils._rebuild_tensor_v2 = _rebuild_tensor_v2
        storages = {}
        for kind in ("FloatStorage", "HalfStorage", "BFloat16Storage", "LongStorage", "BoolStorage"):
            storages[kind] = type(kind, (), {"__module__": "torch"})
            setattr(torch, kind, storages[kind])

        class Storage:
            def __init__(self, kind, key, numel):
                self.id = ("storage", storages[kind], key, "cpu", numel)

        class Tensor:
            def __init__(self, storage, offset, size, stride):
                self.args = (storage, offset, size, stride, False, collections.OrderedDict())

            def __reduce__(self):
                return (_rebuild_tensor_v2, self.args)

        class Pickler(pickle.Pickler):
            def persistent_id(self, obj):
                return obj.id if isinstance(obj, Storage) else None

        sd = collections.OrderedDict()
        sd["w"] = Tensor(Storage("FloatStorage", "0", 16), 0, (3, 2), (1, 3))  # a transpose
        sd["h"] = Tensor(Storage("HalfStorage", "1", 32), 4, (2, 2), (2, 1))
        sd["b"] = Tensor(Storage("BFloat16Storage", "2", 32), 0, (4,), (1,))
        sd["model.position_ids"] = Tensor(Storage("LongStorage", "3", 8), 0, (1, 8), (8, 1))
        sd["mask"] = Tensor(Storage("BoolStorage", "3", 64), 0, (2,), (1,))
        sd._metadata = collections.OrderedDict()
        out = []
        for protocol in (2, 4):
            import io
            f = io.BytesIO()
            Pickler(f, protocol=protocol).dump(sd)
            out.append(f.getvalue())
        return out
    finally:
        for k, v in saved.items():
            if v is None:
                sys.modules.pop(k, None)
            else:
                sys.modules[k] = v


for protocol, data in zip((2, 4), torch_pickles()):
    put("torch_pickle_fuzz", "state_dict-protocol%d.pkl" % protocol, data)
put("torch_pickle_fuzz", "list.pkl", b"\x80\x02]q\x00(K\x01K\x02e.")
