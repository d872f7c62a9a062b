"""Every rule has a snapshot of its full diagnostic (tests/snapshots/<CODE>.txt).

Each family's fire test compares its case with the snapshot through `helpers.assert_snapshot`
(tests/test_rules.py, test_deepspeed.py, test_xtuner.py, test_checkout.py, test_show.py,
test_host.py; each beside the same rule's quiet case). Set RECIPELINT_UPDATE_SNAPSHOTS=1 to
rewrite them after a deliberate change, then review the diff.
"""

from __future__ import annotations

from recipelint.rules import all_rules
from tests.helpers import SNAPSHOTS

# Rules no test case can make fire here, with the reason. Every rule fires today: none.
CANNOT_FIRE: dict[str, str] = {}


def test_every_rule_has_a_snapshot() -> None:
    stored = sorted(path.stem for path in SNAPSHOTS.glob("*.txt"))
    assert sorted([*stored, *CANNOT_FIRE]) == sorted(all_rules())


def test_each_snapshot_is_of_its_own_rule() -> None:
    for path in SNAPSHOTS.glob("*.txt"):
        blocks = path.read_text().split("\n\n")
        assert all(block.startswith(f"{path.stem} ") for block in blocks), path.name
