"""HTTP(S) shards in a data.list, which WeNet 3.x cannot read.

## What it does
Flags `http://` and `https://` lines (and other non-file schemes) in a shard data.list, unless
the WeNet checkout the recipe runs opens shards in stream mode (`r|*`: WeNet 2.x, or a checkout
patched with PR #2509). The known-issue table entry `wenet-http-shards-seek-mode` holds the
range and the code pattern.

## Why is this bad
Since v3.0.0 (#2301) WeNet opens each tar with `tarfile.open(mode="r:*")`, which seeks. A
remote shard arrives on a `wget -q -O -` pipe, and seeking a pipe fails with
`OSError: [Errno 29] Illegal seek`. WeNet catches it and logs
"In tar_file_and_group: [Errno 29] Illegal seek when processing <url>": the shard yields no
samples, and training runs on nothing or hangs at the first uneven join (PR #2509, issue
#2765; wenet-e2e/wenet@01546996:wenet/dataset/processor.py).

## Example
```
https://example.org/shards/shards_000000000.tar
```

## Fix
None in the recipe: download the shards to local or network storage and list those paths,
or patch WeNet with PR #2509 (stream mode `r|*`).

## Fix safety
No fix.
"""

from __future__ import annotations

from collections.abc import Iterator

from recipelint import knownissues
from recipelint.context import Context
from recipelint.diagnostics import Diagnostic, Severity
from recipelint.parse.checkout import issue_status
from recipelint.toolkits.wenet.part import REMOTE, train_data

CODE = "RL203"
NAME = "http-shards"
SEVERITY = Severity.ERROR
VISITS = ("recipe",)
FIXABLE = False
SOURCE = "wenet-e2e/wenet@01546996:wenet/dataset/processor.py: tarfile mode r:* on a wget pipe -> Illegal seek (wenet-e2e/wenet@v3.0.0:wenet/dataset/processor.py to HEAD; wenet-e2e/wenet#2765)"


def check(ctx: Context) -> Iterator[Diagnostic | None]:
    recipe = ctx.recipe
    if recipe.arg("data_type").value != "shard":
        return
    lists = [(data, {scheme: n for scheme, n in data.schemes.items() if scheme in REMOTE}) for data in train_data(recipe)]
    lists = [(data, remote) for data, remote in lists if remote]
    if not lists:
        return
    judged = ["WeNet v3.0.0 to HEAD open shards with tarfile mode 'r:*' (#2301; PR #2509 unmerged)"]
    if recipe.checkout is not None:
        status = issue_status(knownissues.by_id("wenet-http-shards-seek-mode"), recipe.checkout)
        if status.affected is False:
            return  # this checkout streams tars ('r|*'), which a wget pipe can serve
        where = f" at {status.where[0]}" if status.where else ""
        judged = [f"{recipe.checkout.label()}: {status.how}{where}"]
    for data, remote in lists:
        count = sum(remote.values())
        example = data.example[next(iter(remote))]
        yield ctx.diagnostic(
            CODE,
            SEVERITY,
            f"{count} of {data.lines} shards in {data.path.name} are remote ({', '.join(sorted(remote))}): WeNet 3.x opens tars in seek mode and gets 'Illegal seek' on the wget pipe, so they yield no samples",
            data.setting.span,
            setting="train_data",
            current=example,
            evidence=[f"e.g. {example}", *judged],
        )
