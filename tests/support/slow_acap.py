"""``acap`` with each file it stages into a folder target slowed down: a publish into a
folder on this machine has no connection to slow, so an interruption test paces the
writes instead (``ACAP_TEST_SLOW`` seconds each). Everything else is the real command.

Run as ``python tests/support/slow_acap.py publish ...``.
"""

from __future__ import annotations

import os
import time

from acap.publisher import _local

_real = _local.LocalFs.write


def _slow(fs: _local.LocalFs, path: str, data: bytes) -> None:
    if ".acap-stage/" in path and not data.startswith(b'{\n "publishedBy"'):
        time.sleep(float(os.environ.get("ACAP_TEST_SLOW", "0.5")))
    _real(fs, path, data)


_local.LocalFs.write = _slow  # type: ignore[method-assign]

if __name__ == "__main__":
    from acap._entry import main

    main()
