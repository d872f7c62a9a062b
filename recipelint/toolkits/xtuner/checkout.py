"""XTuner's code as recipelint finds it in a checkout (`XTUNER_CODE`, the `CodeKind`
recipelint.parse.checkout reads): its release tags, version file, own pin files and the code
patterns of its known bugs."""

from __future__ import annotations

from recipelint.parse.checkout import CodeKind
from recipelint.toolkits import upstream
from recipelint.toolkits.xtuner.patterns import PATTERNS

XTUNER_CODE = CodeKind(
    package="xtuner",
    label="XTuner",
    tags=upstream.XTUNER_TAGS,
    requirements=("requirements/runtime.txt", "requirements/deepspeed.txt"),
    version_file="version.py",
    patterns=PATTERNS,
)
