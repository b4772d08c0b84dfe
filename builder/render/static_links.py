"""mkdocs hook of the generated site config: the build's data files reach the site as hard
links instead of copies.

mkdocs copies every static file of the docs tree into the site (``File.copy_file``); on the
demo that is 1,332 data files (26 MB), 6% of the generator's time. The files under
``data/`` are written fresh by this build into the staged tree (``render/site.py``), which
the next build removes whole rather than edits, so the site may share them: the same bytes,
no copy. Anything else (assets, which may be links into installed packages, and a
filesystem without hard links) is copied as mkdocs does.
"""

from __future__ import annotations

import os
from typing import Any

DATA = "data/"


def _linker(file: Any, copy: Any) -> Any:
    def copy_file(dirty: bool = False) -> None:
        output = file.abs_dest_path
        os.makedirs(os.path.dirname(output), exist_ok=True)
        try:
            if os.path.lexists(output):
                os.unlink(output)
            os.link(file.abs_src_path, output)
        except OSError:
            copy(dirty)

    return copy_file


def on_files(files: Any, config: Any) -> Any:
    for file in files:
        if file.src_uri.startswith(DATA) and not file.is_documentation_page() and file.abs_src_path is not None:
            file.copy_file = _linker(file, file.copy_file)
    return files
