"""A BERT encoder as an ONNX graph, written from numpy arrays with onnx's helpers.

Both recipe models are BERT encoders (all-MiniLM-L6-v2: 6 layers; multilingual-e5-small:
12), so one writer serves both. The graph takes `input_ids` and `attention_mask` (int64,
[batch, sequence]) and returns `last_hidden_state` [batch, sequence, hidden]; pooling
happens in numpy beside it (semlith/embed/onnx_model.py).

The word-embedding table stays in the 8-bit codes its source stores, with one fp32 scale
per block of each row, and is dequantised after the Gather: only the rows a text uses are
ever expanded, so the table costs a quarter of its fp32 size in memory (e5: 96 MB of codes
instead of 384 MB of floats).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OPSET = 17  # LayerNormalization is an ONNX op from 17 on
MS_DOMAIN = "com.microsoft"


@dataclass(frozen=True, slots=True)
class BertShape:
    layers: int
    hidden: int
    heads: int
    ffn: int
    eps: float


@dataclass(frozen=True, slots=True, eq=False)
class Embeddings:
    """A [rows, hidden] table as int8 codes times one fp32 scale per block of a row."""

    codes: np.ndarray  # int8 [rows, hidden]
    scales: np.ndarray  # float32 [rows, hidden // block]

    def __post_init__(self) -> None:
        rows, hidden = self.codes.shape
        if self.codes.dtype != np.int8 or self.scales.shape[0] != rows or (
                hidden % self.scales.shape[1]):
            raise ValueError(f"embedding codes {self.codes.dtype}{self.codes.shape} do not "
                             f"fit scales {self.scales.shape}")

    def dense(self, ids: np.ndarray) -> np.ndarray:
        """fp32 rows for `ids` (what the graph computes after its Gather)."""
        blocks = self.scales.shape[1]
        rows = self.codes[ids].astype(np.float32).reshape(len(ids), blocks, -1)
        out: np.ndarray = (rows * self.scales[ids][:, :, None]).reshape(len(ids), -1)
        return out


@dataclass(frozen=True, slots=True, eq=False)
class Layer:
    """One encoder layer; matrices are [in, out] (x @ w), biases and norms are vectors."""

    q_w: np.ndarray
    q_b: np.ndarray
    k_w: np.ndarray
    k_b: np.ndarray
    v_w: np.ndarray
    v_b: np.ndarray
    o_w: np.ndarray
    o_b: np.ndarray
    ln1_w: np.ndarray
    ln1_b: np.ndarray
    fi_w: np.ndarray
    fi_b: np.ndarray
    fo_w: np.ndarray
    fo_b: np.ndarray
    ln2_w: np.ndarray
    ln2_b: np.ndarray


@dataclass(frozen=True, slots=True, eq=False)
class BertWeights:
    shape: BertShape
    word: Embeddings
    position: np.ndarray  # [positions, hidden], token type 0 already added
    ln_w: np.ndarray
    ln_b: np.ndarray
    layers: tuple[Layer, ...]


@dataclass
class _Graph:
    """Nodes and initializers under construction, with generated value names."""

    nodes: list[onnx.NodeProto] = field(default_factory=list)
    inits: list[onnx.TensorProto] = field(default_factory=list)
    count: int = 0
    named: set[str] = field(default_factory=set)

    def op(self, op_type: str, inputs: list[str], domain: str = "", outputs: int = 1,
           **attrs: Any) -> str:
        self.count += 1
        names = [f"{op_type.lower()}_{self.count}_{i}" for i in range(outputs)]
        self.nodes.append(helper.make_node(op_type, inputs, names, domain=domain or None,
                                           **attrs))
        return names[0]

    def const(self, value: np.ndarray, name: str) -> str:
        """An initializer; a name given twice (a shared shape or scalar) is stored once."""
        if name not in self.named:
            self.named.add(name)
            self.inits.append(numpy_helper.from_array(np.ascontiguousarray(value), name))
        return name

    def ints(self, values: list[int], name: str) -> str:
        return self.const(np.array(values, np.int64), name)


def _f32(a: np.ndarray) -> np.ndarray:
    return np.asarray(a, np.float32)


def _linear(g: _Graph, x: str, w: np.ndarray, b: np.ndarray, name: str) -> str:
    return g.op("Add", [g.op("MatMul", [x, g.const(_f32(w), f"{name}.w")]),
                        g.const(_f32(b), f"{name}.b")])


def _embed(g: _Graph, w: BertWeights) -> str:
    """word (dequantised after the Gather) + position (+ type 0), layer-normed."""
    blocks = w.word.scales.shape[1]
    codes = g.op("Gather", [g.const(w.word.codes, "word.codes"), "input_ids"])
    scales = g.op("Unsqueeze", [g.op("Gather", [g.const(_f32(w.word.scales), "word.scales"),
                                               "input_ids"]), g.ints([-1], "axis_last")])
    block_shape = g.ints([0, 0, blocks, w.shape.hidden // blocks], "shape_blocks")
    words = g.op("Mul", [g.op("Reshape", [g.op("Cast", [codes], to=TensorProto.FLOAT),
                                          block_shape]), scales])
    words = g.op("Reshape", [words, g.ints([0, 0, w.shape.hidden], "shape_hidden")])
    # Positions 0..length-1 as a Slice of the table with 1-D bounds: the Gather-of-Range
    # spelling is rewritten by onnxruntime 1.32's optimizer into a Slice that fails at run
    # time ("Starts must be a 1-D array").
    length = g.op("Shape", ["input_ids"], start=1, end=2)
    positions = g.op("Slice", [g.const(_f32(w.position), "position"), g.ints([0], "zero"),
                               length, g.ints([0], "zero")])
    summed = g.op("Add", [words, positions])
    return g.op("LayerNormalization", [summed, g.const(_f32(w.ln_w), "emb.ln.w"),
                                       g.const(_f32(w.ln_b), "emb.ln.b")],
                axis=-1, epsilon=w.shape.eps)


def _mask_bias(g: _Graph) -> str:
    """[batch, 1, 1, sequence]: 0 where attended, -10000 at padding (BERT's own value)."""
    mask = g.op("Cast", ["attention_mask"], to=TensorProto.FLOAT)
    inverted = g.op("Sub", [g.const(np.array(1.0, np.float32), "f_one"), mask])
    bias = g.op("Mul", [inverted, g.const(np.array(-10000.0, np.float32), "f_neg")])
    return g.op("Unsqueeze", [bias, g.ints([1, 2], "axes_12")])


def _attention(g: _Graph, x: str, layer: Layer, s: BertShape, mask: str, n: int) -> str:
    """Plain-op self-attention; 1/sqrt(head size) is folded into the query weights."""
    head = s.hidden // s.heads
    scale = np.float32(1.0 / np.sqrt(head))
    split = g.ints([0, 0, s.heads, head], "shape_heads")
    q = g.op("Transpose", [g.op("Reshape", [_linear(g, x, layer.q_w * scale,
                                                    layer.q_b * scale, f"l{n}.q"), split])],
             perm=[0, 2, 1, 3])
    k = g.op("Transpose", [g.op("Reshape", [_linear(g, x, layer.k_w, layer.k_b, f"l{n}.k"),
                                            split])], perm=[0, 2, 3, 1])
    v = g.op("Transpose", [g.op("Reshape", [_linear(g, x, layer.v_w, layer.v_b, f"l{n}.v"),
                                            split])], perm=[0, 2, 1, 3])
    probs = g.op("Softmax", [g.op("Add", [g.op("MatMul", [q, k]), mask])], axis=-1)
    context = g.op("Transpose", [g.op("MatMul", [probs, v])], perm=[0, 2, 1, 3])
    merged = g.op("Reshape", [context, g.ints([0, 0, s.hidden], "shape_hidden")])
    return _linear(g, merged, layer.o_w, layer.o_b, f"l{n}.o")


def _gelu(g: _Graph, x: str) -> str:
    """Exact (erf) GELU; onnxruntime fuses this pattern into one Gelu kernel."""
    root2 = g.const(np.array(np.sqrt(2.0), np.float32), "f_sqrt2")
    erf = g.op("Erf", [g.op("Div", [x, root2])])
    half = g.op("Mul", [x, g.const(np.array(0.5, np.float32), "f_half")])
    one = g.const(np.array(1.0, np.float32), "f_one")
    return g.op("Mul", [half, g.op("Add", [erf, one])])


def _plain_layer(g: _Graph, x: str, layer: Layer, s: BertShape, mask: str, n: int) -> str:
    attended = g.op("LayerNormalization", [
        g.op("Add", [x, _attention(g, x, layer, s, mask, n)]),
        g.const(_f32(layer.ln1_w), f"l{n}.ln1.w"), g.const(_f32(layer.ln1_b), f"l{n}.ln1.b")],
        axis=-1, epsilon=s.eps)
    inner = _gelu(g, _linear(g, attended, layer.fi_w, layer.fi_b, f"l{n}.fi"))
    return g.op("LayerNormalization", [
        g.op("Add", [attended, _linear(g, inner, layer.fo_w, layer.fo_b, f"l{n}.fo")]),
        g.const(_f32(layer.ln2_w), f"l{n}.ln2.w"), g.const(_f32(layer.ln2_b), f"l{n}.ln2.b")],
        axis=-1, epsilon=s.eps)


def _fused_layer(g: _Graph, x: str, layer: Layer, s: BertShape, mask: str, n: int) -> str:
    """onnxruntime's contrib ops: Attention, SkipLayerNormalization, BiasGelu."""
    qkv_w = np.concatenate([layer.q_w, layer.k_w, layer.v_w], axis=1)
    qkv_b = np.concatenate([layer.q_b, layer.k_b, layer.v_b])
    attended = g.op("Attention", [x, g.const(_f32(qkv_w), f"l{n}.qkv.w"),
                                  g.const(_f32(qkv_b), f"l{n}.qkv.b"), mask],
                    domain=MS_DOMAIN, num_heads=s.heads)
    projected = g.op("MatMul", [attended, g.const(_f32(layer.o_w), f"l{n}.o.w")])
    x = g.op("SkipLayerNormalization", [
        projected, x, g.const(_f32(layer.ln1_w), f"l{n}.ln1.w"),
        g.const(_f32(layer.ln1_b), f"l{n}.ln1.b"), g.const(_f32(layer.o_b), f"l{n}.o.b")],
        domain=MS_DOMAIN, epsilon=s.eps)
    inner = g.op("BiasGelu", [g.op("MatMul", [x, g.const(_f32(layer.fi_w), f"l{n}.fi.w")]),
                              g.const(_f32(layer.fi_b), f"l{n}.fi.b")], domain=MS_DOMAIN)
    out = g.op("MatMul", [inner, g.const(_f32(layer.fo_w), f"l{n}.fo.w")])
    return g.op("SkipLayerNormalization", [
        out, x, g.const(_f32(layer.ln2_w), f"l{n}.ln2.w"),
        g.const(_f32(layer.ln2_b), f"l{n}.ln2.b"), g.const(_f32(layer.fo_b), f"l{n}.fo.b")],
        domain=MS_DOMAIN, epsilon=s.eps)


def bert_graph(weights: BertWeights, *, fused: bool = False) -> onnx.ModelProto:
    """The fp32 encoder graph (input_ids, attention_mask) -> last_hidden_state.

    `fused` writes onnxruntime's contrib Attention/SkipLayerNormalization/BiasGelu ops
    instead of plain ONNX ops; the caller quantises either with `quantize_dynamic`.
    """
    g = _Graph()
    x = _embed(g, weights)
    mask = g.op("Cast", ["attention_mask"], to=TensorProto.INT32) if fused else _mask_bias(g)
    layer_fn = _fused_layer if fused else _plain_layer
    for n, layer in enumerate(weights.layers):
        x = layer_fn(g, x, layer, weights.shape, mask, n)
    g.nodes.append(helper.make_node("Identity", [x], ["last_hidden_state"]))
    tokens = ["batch", "sequence"]
    graph = helper.make_graph(
        g.nodes, "bert",
        [helper.make_tensor_value_info("input_ids", TensorProto.INT64, tokens),
         helper.make_tensor_value_info("attention_mask", TensorProto.INT64, tokens)],
        [helper.make_tensor_value_info("last_hidden_state", TensorProto.FLOAT,
                                       [*tokens, weights.shape.hidden])],
        g.inits)
    opsets = [helper.make_opsetid("", OPSET)]
    if fused:
        opsets.append(helper.make_opsetid(MS_DOMAIN, 1))
    model = helper.make_model(graph, opset_imports=opsets, producer_name="semlith")
    model.ir_version = 8  # onnxruntime >= 1.18 reads it; newer IRs are refused by older ones
    return model
