"""Launch commands in Markdown: every CommonMark code block form, line numbers exact."""

from __future__ import annotations

from pathlib import Path

from recipelint import engine
from recipelint.parse.files import FileCache


def launch_lines(tmp_path: Path, text: str) -> list[int]:
    doc = tmp_path / "README.md"
    doc.write_text(text)
    recipes = engine.load_target(engine.Target("markdown", doc), FileCache())
    return sorted(r.launch.command.span.line for r in recipes if r.launch is not None)


def test_fences_of_any_language_and_case(tmp_path: Path) -> None:
    text = (
        "```python\nprint('```bash')\n```\n"  # 1-3: a python block never opens a bash one
        "```Bash\nxtuner train a.py\n```\n"  # 4-6
        "```\nxtuner train b.py\n```\n"  # 7-9: unlabelled
        "~~~shell\nxtuner train c.py\n~~~\n"  # 10-12
        "````text\n```\nxtuner train d.py\n````\n"  # 13-16: the inner ``` does not close a ```` fence
        "```diff\n- xtuner train old.py\n+ xtuner train new.py\n```\n"  # 17-20
    )
    assert launch_lines(tmp_path, text) == [5, 8, 11, 15, 19]


def test_an_unknown_fence_never_flips_the_state(tmp_path: Path) -> None:
    text = "```yaml\nkey: 1\n```\n\nprose with `xtuner train` in it\n\n```sh\nNPROC_PER_NODE=8 xtuner train e.py\n```\n"
    assert launch_lines(tmp_path, text) == [8]


def test_indented_blocks_quotes_and_prose_commands(tmp_path: Path) -> None:
    text = (
        "Run:\n\n    xtuner train f.py\n\n"  # 3: indented code block
        "- a list item\n\n    not code, the item's text\n\n"  # 7: list continuation, not code
        "> ```bash\n> NPROC_PER_NODE=8 xtuner train g.py\n> ```\n\n"  # 10: a fence in a blockquote
        "**Train:**\n\nxtuner train ${CONFIG}\n"  # 15: a command written as a paragraph
    )
    assert launch_lines(tmp_path, text) == [3, 10, 15]


def test_crlf_and_prompts_keep_columns(tmp_path: Path) -> None:
    text = "# t\r\n\r\n```console\r\n$ xtuner train h.py --deepspeed deepspeed_zero2\r\n```\r\n"
    doc = tmp_path / "README.md"
    doc.write_bytes(text.encode())
    (recipe,) = engine.load_target(engine.Target("markdown", doc), FileCache())
    assert recipe.launch is not None
    assert (recipe.launch.command.span.line, recipe.launch.command.span.column) == (4, 3)
    deepspeed = recipe.args["deepspeed"].span
    assert deepspeed is not None and deepspeed.column == 33  # "$ " blanked, not removed
