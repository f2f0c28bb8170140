"""sqlite-utils, imported without numpy and pandas.

sqlite-utils imports numpy (and pandas, when installed) only to map their
scalar types to column types; tcab writes plain Python values, so that is
~0.1 s of CPU a `tcab run` would pay to record one row (docs/runs.md). The
two are hidden from sqlite-utils' own import only, and only when nothing
has imported them yet: a process that uses numpy (validation's SSIM)
imports it as usual before or after.
"""

from __future__ import annotations

import sys


def _import_sqlite_utils():
    hidden = [name for name in ("numpy", "pandas") if name not in sys.modules]
    for name in hidden:
        sys.modules[name] = None  # type: ignore[assignment]  # import_module raises ImportError
    try:
        import sqlite_utils
    finally:
        for name in hidden:
            if name in sys.modules and sys.modules[name] is None:
                del sys.modules[name]
    return sqlite_utils


sqlite_utils = _import_sqlite_utils()
