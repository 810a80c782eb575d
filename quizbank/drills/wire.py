"""What travels between the grader and the grading child: framed messages and values, never code.

A frame is ``PSNC`` + two big-endian lengths + a JSON header + a binary blob. A value is a JSON tree in the
header whose tensors and arrays point into the blob as raw bytes with a dtype and a shape, so decoding runs
nothing (no pickle) and checks every length. Anything else the candidate returns travels as its type name
only. Framing needs only the standard library; encoding and decoding values import numpy and torch.
"""

from __future__ import annotations

import json
import os
import struct
from typing import Any

MAGIC = b"PSNC"
_HEAD = struct.Struct(">4sII")
HEADER_LIMIT = 4 * 2**20
BLOB_LIMIT = 256 * 2**20
_MAX_NODES = 100_000
_MAX_DEPTH = 32
_TORCH_DTYPES = (
    "float16 bfloat16 float32 float64 complex64 complex128 uint8 int8 int16 int32 int64 bool".split()
)


class WireError(Exception):
    """A frame or value that does not follow the format (garbage on the channel, a truncated message)."""


class FrameTooLarge(WireError):
    """A well-formed frame whose blob is over the reader's limit; refused before its bytes are buffered."""

    def __init__(self, size: int, limit: int) -> None:
        super().__init__(f"a frame of {size} bytes, over the limit of {limit}")
        self.size, self.limit = size, limit


def frame(header: dict[str, Any], blob: bytes = b"") -> bytes:
    data = json.dumps(header, ensure_ascii=True, allow_nan=False).encode()
    return _HEAD.pack(MAGIC, len(data), len(blob)) + data + blob


def send(fd: int, header: dict[str, Any], blob: bytes = b"") -> None:
    view = memoryview(frame(header, blob))
    while view:
        view = view[os.write(fd, view) :]


class Reader:
    """Splits a byte stream into frames: `feed` bytes as they arrive, take whole frames with `next`.

    `blob_limit` caps a frame's blob: a bigger one raises `FrameTooLarge` as soon as its length is read."""

    def __init__(self, blob_limit: int = BLOB_LIMIT) -> None:
        self.buffer = bytearray()
        self.blob_limit = min(blob_limit, BLOB_LIMIT)

    def feed(self, data: bytes) -> None:
        self.buffer += data

    def next(self) -> tuple[dict[str, Any], bytes] | None:
        if len(self.buffer) < _HEAD.size:
            return None
        magic, head_len, blob_len = _HEAD.unpack_from(self.buffer)
        if magic != MAGIC or head_len > HEADER_LIMIT:
            raise WireError("not a grader frame")
        if blob_len > self.blob_limit:
            raise FrameTooLarge(_HEAD.size + head_len + blob_len, self.blob_limit)
        end = _HEAD.size + head_len + blob_len
        if len(self.buffer) < end:
            return None
        try:
            header = json.loads(bytes(self.buffer[_HEAD.size : _HEAD.size + head_len]))
        except ValueError as exc:
            raise WireError(f"bad frame header: {exc}") from None
        except RecursionError:  # JSON nested deeper than the parser's stack
            raise WireError("bad frame header: nested too deeply") from None
        blob = bytes(self.buffer[_HEAD.size + head_len : end])
        del self.buffer[:end]
        if not isinstance(header, dict):
            raise WireError("a frame header must be an object")
        return header, blob


def recv_blocking(fd: int, reader: Reader) -> tuple[dict[str, Any], bytes] | None:
    """The next frame from `fd` (blocking), or None at end of file."""
    while True:
        item = reader.next()
        if item is not None:
            return item
        chunk = os.read(fd, 1 << 20)
        if not chunk:
            if reader.buffer:
                raise WireError("the channel closed in the middle of a frame")
            return None
        reader.feed(chunk)


# -- values ------------------------------------------------------------------------------------------
class Opaque:
    """Stands for a returned object that cannot travel (a module, a generator...): only its type name does."""

    def __repr__(self) -> str:
        return f"<{type(self).__name__}>"


def encode(value: Any) -> tuple[Any, bytes]:
    """`(tree, blob)` for `value`."""
    parts: list[bytes] = []
    count = [0]
    return _encode(value, parts, count, 0), b"".join(parts)


def _offset(parts: list[bytes]) -> int:
    return sum(len(p) for p in parts)


def _encode(value: Any, parts: list[bytes], count: list[int], depth: int) -> Any:
    import numpy as np
    import torch

    count[0] += 1
    if count[0] > _MAX_NODES or depth > _MAX_DEPTH:
        return {"opaque": "too-large"}
    if value is None:
        return {"none": 1}
    if isinstance(value, bool):
        return {"bool": value}
    if isinstance(value, int):
        return {"int": str(value)} if abs(value) < 10**4000 else {"opaque": "int"}
    if isinstance(value, float):
        return {"float": value.hex()}
    if isinstance(value, complex):
        return {"complex": [value.real.hex(), value.imag.hex()]}
    if isinstance(value, str):
        return {"str": value[:10000]}
    if isinstance(value, torch.dtype):
        return {"dtype": str(value).replace("torch.", "")}
    if isinstance(value, torch.Tensor):
        return _encode_tensor(value, parts)
    if isinstance(value, np.ndarray | np.generic):
        array = np.asarray(value)
        if array.dtype.kind not in "biufc" or array.dtype.byteorder not in "=|<":
            return {"opaque": "ndarray"}
        data = np.ascontiguousarray(array).tobytes()
        tree = {
            "ndarray": array.dtype.str,
            "shape": list(array.shape),
            "off": _offset(parts),
            "len": len(data),
        }
        parts.append(data)
        return {**tree, "scalar": isinstance(value, np.generic)}
    if isinstance(value, tuple | list):
        key = "tuple" if isinstance(value, tuple) else "list"
        return {key: [_encode(v, parts, count, depth + 1) for v in value]}
    if isinstance(value, dict) and all(isinstance(k, str) for k in value):
        return {"dict": [[k, _encode(v, parts, count, depth + 1)] for k, v in value.items()]}
    return {"opaque": type(value).__name__[:100]}


def _encode_tensor(value: Any, parts: list[bytes]) -> Any:
    import torch

    kind = str(value.dtype).replace("torch.", "")
    if kind not in _TORCH_DTYPES or value.layout != torch.strided or value.is_quantized:
        return {"opaque": "Tensor"}
    t = value.detach().cpu()
    transposed = t.dim() >= 2 and not t.is_contiguous() and t.transpose(-1, -2).is_contiguous()
    if transposed:
        t = t.transpose(-1, -2)
    t = t.contiguous()
    data = t.reshape(-1).view(torch.uint8).numpy().tobytes() if t.numel() else b""
    tree = {"tensor": kind, "shape": list(t.shape), "off": _offset(parts), "len": len(data), "T": transposed}
    parts.append(data)
    return tree


def decode(tree: Any, blob: bytes) -> Any:
    count = [0]
    return _decode(tree, blob, count, 0)


def _slice(tree: dict[str, Any], blob: bytes) -> bytes:
    off, size = tree.get("off"), tree.get("len")
    if not (
        isinstance(off, int) and isinstance(size, int) and off >= 0 and size >= 0 and off + size <= len(blob)
    ):
        raise WireError("a value points outside its frame")
    return blob[off : off + size]


def _shape(tree: dict[str, Any]) -> tuple[int, ...]:
    shape = tree.get("shape")
    if not (
        isinstance(shape, list) and len(shape) <= 32 and all(isinstance(n, int) and n >= 0 for n in shape)
    ):
        raise WireError("a bad shape")
    return tuple(shape)


def _decode(tree: Any, blob: bytes, count: list[int], depth: int) -> Any:
    import math

    import numpy as np
    import torch

    count[0] += 1
    if count[0] > _MAX_NODES or depth > _MAX_DEPTH or not isinstance(tree, dict) or len(tree) < 1:
        raise WireError("a value too large or malformed")
    if "none" in tree:
        return None
    if "bool" in tree:
        return bool(tree["bool"])
    if "int" in tree:
        return int(str(tree["int"])[:4100])
    if "float" in tree:
        return float.fromhex(str(tree["float"]))
    if "complex" in tree:
        re, im = tree["complex"]
        return complex(float.fromhex(re), float.fromhex(im))
    if "str" in tree:
        return str(tree["str"])
    if "dtype" in tree:
        name = str(tree["dtype"])
        if name not in _TORCH_DTYPES:
            raise WireError("an unknown dtype")
        return getattr(torch, name)
    if "tensor" in tree:
        kind = str(tree["tensor"])
        if kind not in _TORCH_DTYPES:
            raise WireError("an unknown dtype")
        dtype, shape = getattr(torch, kind), _shape(tree)
        data = _slice(tree, blob)
        numel = math.prod(shape)
        if len(data) != numel * torch.empty((), dtype=dtype).element_size():
            raise WireError("a tensor whose bytes do not match its shape")
        out = (
            torch.frombuffer(bytearray(data), dtype=torch.uint8).view(dtype).reshape(shape)
            if numel
            else torch.empty(shape, dtype=dtype)
        )
        return out.transpose(-1, -2) if tree.get("T") and out.dim() >= 2 else out
    if "ndarray" in tree:
        dtype = np.dtype(str(tree["ndarray"]))
        if dtype.kind not in "biufc":
            raise WireError("an unsupported array dtype")
        shape, data = _shape(tree), _slice(tree, blob)
        if len(data) != math.prod(shape) * dtype.itemsize:
            raise WireError("an array whose bytes do not match its shape")
        array = np.frombuffer(data, dtype=dtype).reshape(shape).copy()
        return array[()] if tree.get("scalar") else array
    if "tuple" in tree:
        return tuple(_decode(v, blob, count, depth + 1) for v in tree["tuple"])
    if "list" in tree:
        return [_decode(v, blob, count, depth + 1) for v in tree["list"]]
    if "dict" in tree:
        return {str(k): _decode(v, blob, count, depth + 1) for k, v in tree["dict"]}
    if "opaque" in tree:
        name = "".join(ch for ch in str(tree["opaque"]) if ch.isalnum() or ch == "_")[:100] or "object"
        return type(name, (Opaque,), {})()
    raise WireError("an unknown kind of value")
