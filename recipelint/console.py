"""What every command prints with: one line per message, control characters escaped, errors as
`recipelint: error: ...` and an exit code. A leaf: `check`, `--add-ignore` and the CLI share it
without importing each other.

Nothing heavy is imported here at module level: start-up matters."""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING, NoReturn

if TYPE_CHECKING:
    from recipelint.parse.files import SourceError


def echo(message: str = "", err: bool = False, nl: bool = True, raw: bool = False) -> None:
    """What typer.echo does with text (a newline, a flush), with every control character escaped
    (recipelint writes no styles; a recipe's bytes must not drive the terminal). `raw`: a diff of
    the files themselves, shown as `git diff` shows it."""
    from recipelint.parse.files import terminal_text

    stream = sys.stderr if err else sys.stdout
    out = message + "\n" if nl else message
    if not raw:
        out = terminal_text(out)
    if out:
        stream.write(out)
    stream.flush()


def fail(message: str) -> NoReturn:
    echo(f"recipelint: error: {message}", err=True)
    raise SystemExit(2)


def report_crash(exc: Exception) -> int:
    """One line for an exception that escaped a command, and the exit code (2); the traceback
    only with RECIPELINT_DEBUG set."""
    from recipelint.parse.files import SourceError

    if isinstance(exc, SourceError):  # bad input found late (a lazily loaded profile): still one line
        print(f"recipelint: error: {exc}", file=sys.stderr)
        return 2
    if os.environ.get("RECIPELINT_DEBUG"):
        raise exc
    print(f"recipelint: internal error: {type(exc).__name__}: {exc} (set RECIPELINT_DEBUG=1 for a traceback)", file=sys.stderr)
    return 2


def print_errors(errors: list[SourceError]) -> None:
    for error in errors:
        echo(f"{error}", err=True)
