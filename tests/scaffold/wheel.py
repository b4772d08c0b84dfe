"""A minimal, valid Sealboard-named wheel for scaffold tests (pip installs it; building the
real one takes a minute). Its bytes are all pip needs to check the pinned hash."""

from __future__ import annotations

import base64
import hashlib
import zipfile
from pathlib import Path


def make_wheel(directory: Path, version: str = "0.1.0", marker: str = "") -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"sealboard-{version}-py3-none-any.whl"
    info = f"sealboard-{version}.dist-info"
    files = {
        "sealboard_pin_marker.py": f"MARKER = {marker!r}\n",
        f"{info}/METADATA": f"Metadata-Version: 2.1\nName: sealboard\nVersion: {version}\n",
        f"{info}/WHEEL": "Wheel-Version: 1.0\nGenerator: tests\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
    }
    record = []
    for name, text in files.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(text.encode()).digest()).rstrip(b"=").decode()
        record.append(f"{name},sha256={digest},{len(text.encode())}")
    files[f"{info}/RECORD"] = "\n".join([*record, f"{info}/RECORD,,"]) + "\n"
    with zipfile.ZipFile(path, "w") as zf:
        for name, text in files.items():
            zf.writestr(name, text)
    return path
