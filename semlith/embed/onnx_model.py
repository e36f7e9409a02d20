"""An `Embedder` over a built recipe: `tokenizers` + one onnxruntime session + mean pooling."""

from __future__ import annotations

import itertools
import json
import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from semlith.errors import ModelError

# One text per ONNX call. Measured fastest for the default model in round 1 (batch 1:
# 23.7 chunks/s, 8: 17.9, 32: 14.4; docs/performance.md, "index") and re-measured for the
# int8 graphs (docs/performance.md, "Models"). It also keeps a text's vector independent of
# its batch-mates: dynamic int8 quantisation scales activations per tensor, so a padded
# batch would nudge every vector in it.
BATCH_SIZE = 1


@dataclass(frozen=True, slots=True)
class Runtime:
    """How a recipe's graph is fed: prefixes, token limit, padding id."""

    query_prefix: str = ""
    document_prefix: str = ""
    max_tokens: int = 512
    pad_id: int = 0


def session_options(threads: int) -> object:
    """onnxruntime options with an explicit thread count (never onnxruntime's guess)."""
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    options.log_severity_level = 3  # its shape-merge warnings are noise for a finished graph
    # Idle pool threads sleep instead of spinning: on a busy machine spinning threads burn
    # the cores the work needs (MiniLM int8, 2 threads at load 12: 3.7 chunks/s spinning,
    # 6.3 not; 1 thread: 4.6; docs/performance.md, "Models").
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    return options


_tokenizers: dict[Path, Any] = {}
_tokenizers_lock = threading.Lock()


def _shared_tokenizer(path: Path, runtime: Runtime) -> Any:
    """One tokenizer per file and process: the documents' and the queries' instances share
    it. e5's 250k-piece Unigram costs ~280 MB resident in `tokenizers` (measured)."""
    from tokenizers import Tokenizer

    with _tokenizers_lock:
        tokenizer = _tokenizers.get(path)
        if tokenizer is None:
            tokenizer = Tokenizer.from_file(str(path))
            tokenizer.enable_truncation(runtime.max_tokens)
            tokenizer.enable_padding(pad_id=runtime.pad_id)
            _tokenizers[path] = tokenizer
        return tokenizer


class OnnxEmbedder:
    """A built recipe model (folder with model.onnx, tokenizer.json, optional charmap.json).

    `threads` sessions of one thread each, not one session of `threads` threads (issue
    #43): a chunk's graph is too small to keep two threads busy, and two one-thread
    sessions embedding two chunks at once did 135.8 chunks/s against 93.0 for one
    two-thread session on 240 flask chunks (1.46x, idle Xeon), with vectors identical to
    the bit (one text per call either way). A second session of the int8 MiniLM costs 41
    MB. Queries use the first session.
    """

    def __init__(self, name: str, folder: Path, runtime: Runtime, *, threads: int) -> None:
        import onnxruntime as ort

        self.name = name
        self.threads = threads
        self.query_prefix = runtime.query_prefix
        self.document_prefix = runtime.document_prefix
        try:
            self._tokenizer = _shared_tokenizer(folder / "tokenizer.json", runtime)
            self._sessions = [ort.InferenceSession(str(folder / "model.onnx"),
                                                   session_options(1),
                                                   providers=["CPUExecutionProvider"])
                              for _ in range(max(1, threads))]
        except Exception as exc:  # noqa: BLE001 - onnxruntime/tokenizers raise their own kinds
            raise ModelError(f"model {name!r} in {str(folder)!r} failed to load: {exc}; "
                             f"rebuild it: semlith models --build {name}") from None
        self._session = self._sessions[0]
        self._workers: ThreadPoolExecutor | None = None
        charmap = folder / "charmap.json"
        self._table: dict[int, str] | None = None
        if charmap.exists():
            self._table = {int(k): v for k, v in json.loads(charmap.read_text()).items()}
        self.dim = int(self._run(["dimension probe"]).shape[1])

    def token_ids(self, text: str) -> list[int]:
        """The ids the model sees for `text` (prefix not added), specials included."""
        ids: list[int] = self._tokenizer.encode(self._normalise(text)).ids
        return ids

    def _normalise(self, text: str) -> str:
        return text.translate(self._table) if self._table is not None else text

    def _run(self, texts: Sequence[str], session: Any = None) -> np.ndarray:
        """Mean-pooled, unnormalised vectors for `texts` in one call (of `session`)."""
        encoded = self._tokenizer.encode_batch([self._normalise(t) for t in texts])
        ids = np.array([e.ids for e in encoded], np.int64)
        mask = np.array([e.attention_mask for e in encoded], np.int64)
        hidden = (session or self._session).run(
            None, {"input_ids": ids, "attention_mask": mask})[0]
        weights = mask[:, :, None].astype(np.float32)
        pooled: np.ndarray = (hidden * weights).sum(1) / np.maximum(weights.sum(1), 1.0)
        return pooled

    def _lengths(self, texts: Sequence[str]) -> list[int]:
        return [len(e.ids) for e in self._tokenizer.encode_batch(list(texts))]

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.empty((0, self.dim), np.float32)
        prefixed = [self.document_prefix + t for t in texts]
        out = np.empty((len(texts), self.dim), np.float32)
        if BATCH_SIZE == 1:
            self._each(prefixed, out)
            return unit(out)
        # Similar lengths in a batch waste less padding.
        order = np.argsort(self._lengths(prefixed), kind="stable")
        for start in range(0, len(order), BATCH_SIZE):
            rows = order[start:start + BATCH_SIZE]
            out[rows] = self._run([prefixed[i] for i in rows])
        return unit(out)

    def embed_query(self, text: str) -> np.ndarray:
        vector: np.ndarray = unit(self._run([self.query_prefix + text]))[0]
        return vector

    def _each(self, texts: list[str], out: np.ndarray) -> None:
        """`out[i]` = the vector of `texts[i]`, one text per call, the sessions taking
        the next text as each finishes (onnxruntime releases the GIL while it runs)."""
        if len(self._sessions) == 1 or len(texts) == 1:
            for i, text in enumerate(texts):
                out[i] = self._run([text])[0]
            return
        if self._workers is None:
            self._workers = ThreadPoolExecutor(len(self._sessions),
                                               thread_name_prefix="semlith-embed")
        turn = itertools.count()
        lock = threading.Lock()

        def work(session: Any) -> None:
            while True:
                with lock:
                    i = next(turn)
                if i >= len(texts):
                    return
                out[i] = self._run([texts[i]], session)[0]

        for done in [self._workers.submit(work, s) for s in self._sessions]:
            done.result()


def unit(vectors: np.ndarray) -> np.ndarray:
    """Rows scaled to length 1 (a zero row stays zero)."""
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    out: np.ndarray = (vectors / np.maximum(norms, 1e-12)).astype(np.float32)
    return out
