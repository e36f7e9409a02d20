"""Image files: which they are, reading one safely, and its keyword description.

PNG, JPEG, GIF (first frame), WebP, BMP and TIFF; SVG is text and stays text. Reading
applies EXIF orientation and refuses decompression bombs by the pixel count in the
header, before any pixel is decoded. Any failure is `Unreadable` with a short reason: a
bad image costs one skipped file, never the run. Pillow is imported only when an image is
read (it comes with the `images` extra).
"""

from __future__ import annotations

import io
import re
import warnings
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any

from semlith.ingest.formats.limits import Unreadable

IMAGE_EXTENSIONS = frozenset({".png", ".jpg", ".jpeg", ".gif", ".webp", ".bmp",
                              ".tif", ".tiff"})
# 40 MP: a 7,000 x 5,700 photo passes; decoding one costs ~160 MB as RGB. Pillow's own
# limit (89 MP warns, 179 MP raises) is looser than we want for a background indexer.
MAX_PIXELS = 40_000_000
# What `semlith_read` sends an agent that asks for the picture (docs/images.md).
PREVIEW_SIDE = 512
PREVIEW_BYTES = 256 << 10
_FORMATS = {"PNG", "JPEG", "GIF", "WEBP", "BMP", "TIFF", "MPO"}


@dataclass(frozen=True, slots=True)
class ImageFile:
    image: Any  # a loaded PIL image, EXIF orientation applied, first frame
    width: int
    height: int
    format: str  # "PNG", "JPEG", ...


def is_image(rel: str) -> bool:
    name = rel[rel.rfind("/") + 1:]
    dot = name.rfind(".")  # PurePosixPath's suffix, without building one per file
    return 0 < dot < len(name) - 1 and name[dot:].lower() in IMAGE_EXTENSIONS


def read_image(data: bytes, *, max_pixels: int = MAX_PIXELS) -> ImageFile:
    """Decode an image's first frame, upright. Raises Unreadable with the reason."""
    from PIL import Image, ImageOps, UnidentifiedImageError

    try:
        with warnings.catch_warnings():
            # Pillow warns from 89 MP and raises from 179 MP; our own cap is lower.
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            image = Image.open(io.BytesIO(data))
        width, height = image.size
        if width * height > max_pixels:
            raise Unreadable(_too_large(width, height, max_pixels))
        fmt = image.format or ""
        if fmt not in _FORMATS:
            raise Unreadable(f"image: unsupported format {fmt or 'unknown'}")
        image.seek(0)
        image.load()
        upright = ImageOps.exif_transpose(image)
    except Image.DecompressionBombError as exc:  # Pillow's own header check, past 179 MP
        pixels = re.search(r"\((\d+) pixels\)", str(exc))
        size = f"{int(pixels.group(1)):,} pixels" if pixels else "over 179 MP"
        raise Unreadable(f"image too large ({size}; cap {max_pixels // 1_000_000} MP)") \
            from None
    except UnidentifiedImageError:
        raise Unreadable("image: not a readable image") from None
    except (OSError, ValueError, SyntaxError, EOFError) as exc:  # Pillow's decoder errors
        raise Unreadable(f"image: {_brief(exc)}") from None
    return ImageFile(upright, upright.width, upright.height, "JPEG" if fmt == "MPO" else fmt)


def describe(rel: str, image: ImageFile) -> str:
    """The chunk text of an image for the keyword index: its name's words, size, format."""
    words = " ".join(w for w in re.split(r"[^0-9A-Za-z]+", PurePosixPath(rel).stem) if w)
    return f"image {words} {image.width}x{image.height} {image.format.lower()}".replace("  ", " ")


def preview(data: bytes, *, side: int = PREVIEW_SIDE,
            max_bytes: int = PREVIEW_BYTES) -> tuple[bytes, str]:
    """A downscaled copy for an agent: (bytes, MIME type), longest side <= `side`.

    PNG when that fits in `max_bytes` (screenshots and diagrams stay sharp), else JPEG at
    falling quality and size until it fits. Raises Unreadable.
    """
    image = read_image(data).image
    image.thumbnail((side, side))
    has_alpha = image.mode in ("RGBA", "LA", "P")
    png = _encode(image.convert("RGBA" if has_alpha else "RGB"), "PNG")
    if len(png) <= max_bytes:
        return png, "image/png"
    rgb = image.convert("RGB")
    while True:
        for quality in (85, 70, 50):
            jpeg = _encode(rgb, "JPEG", quality=quality)
            if len(jpeg) <= max_bytes:
                return jpeg, "image/jpeg"
        rgb = rgb.resize((max(1, rgb.width // 2), max(1, rgb.height // 2)))


def _encode(image: Any, fmt: str, **options: Any) -> bytes:
    out = io.BytesIO()
    image.save(out, fmt, **options)
    return out.getvalue()


def _too_large(width: int, height: int, cap: int) -> str:
    return f"image too large ({width}x{height} pixels; cap {cap // 1_000_000} MP)"


def _brief(exc: BaseException) -> str:
    return str(exc).splitlines()[0][:200] if str(exc) else type(exc).__name__
