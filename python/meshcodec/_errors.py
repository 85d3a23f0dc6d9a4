"""The exceptions of meshcodec, raised by its native module as well as by Python code."""

from __future__ import annotations

import json
from typing import Any, Dict, List, Optional


class FormatError(ValueError):
    """The bytes are not a file meshcodec reads, or a payload in them does not decode.

    ``offset`` is the byte offset in the file where reading failed, and ``field`` the
    structure or field being read there, where the library knows them (else ``None``).
    """

    def __init__(self, message: str, offset: Optional[int] = None, field: Optional[str] = None):
        super().__init__(message)
        self.offset = offset
        self.field = field


class LossyConversion(ValueError):
    """A conversion that would lose data the target cannot hold, refused.

    Pass ``allow_lossy=True`` to convert anyway. ``losses`` lists the report's lines (as
    the CLI prints them); ``report`` the same as dicts with ``kind``, ``level`` (``"lost"``
    or ``"re-laid"``), ``count`` and ``text``.
    """

    def __init__(self, message: str, losses: List[str], report: str = "[]"):
        super().__init__(message)
        self.losses = list(losses)
        self.report: List[Dict[str, Any]] = json.loads(report)
