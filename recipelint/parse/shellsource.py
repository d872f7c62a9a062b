"""What a script brings in from elsewhere or hands to a shell again: `source`/`.` (read, never
run), `cd` and `git clone` (the folder later paths are read from), `bash -c STRING` and `eval`
(the string read again as the command it runs), and the files it writes (redirections, heredocs
and sed-filled templates, through shelltemplate).
"""

from __future__ import annotations

import posixpath
import re
from pathlib import Path
from typing import TYPE_CHECKING

from recipelint.parse.files import SourceError
from recipelint.parse.shellnodes import parser, unwrap_string
from recipelint.parse.shellrecords import OPTION_PARSERS, Binding, Broken, Command, Sourced, Word, positional, unknown_path
from recipelint.parse.shellwords import WordReader
from recipelint.parse.span import SourceText, Span
from recipelint.parse.where import repo_root, shown
from recipelint.records import replace

if TYPE_CHECKING:
    from tree_sitter import Node

MAX_SOURCE_DEPTH = 4
# `bash -c STRING` (often `srun ... bash -c "$LAUNCHER $CMD"`): the string is read as the command it runs.
_C_SHELLS = frozenset({"bash", "sh", "/bin/bash", "/bin/sh", "/usr/bin/bash"})
_EXPANSION = re.compile(r"\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))")
# `cd "$(dirname "${BASH_SOURCE[0]}")/../sft/"` (01-ai/Yi's finetune scripts): the script's own
# folder, whatever folder it was started from, then a path the script spells (quotes removed).
_OWN_FOLDER = re.compile(r"^(?:\$\(\s*dirname\s+(?P<a>[^()`]+)\s*\)|`\s*dirname\s+(?P<b>[^()`]+)`)(?P<rest>/[^$`']*)?$")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# Commands that take `=` as an argument (`test "$a" = b` is `[ ... ]`; these are spelled plainly).
_TAKES_EQUALS = frozenset({"test", "echo", "printf", "expr", "let", "alias", "awk", "sed"})
_DOLLAR_ASSIGNMENT = re.compile(r"^\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))=")
_DOUBLE_QUOTED_ESCAPE = re.compile(r'\\([$`"\\\n])')
_OWN_PATH = ("$0", "${0}", "$BASH_SOURCE", "${BASH_SOURCE}", "${BASH_SOURCE[0]}")


class SourceReader(WordReader):
    """Sourcing, folders, re-read strings and written files, over the word evaluation."""

    def walk(self, node: Node) -> None:
        raise NotImplementedError  # the control-flow reader walks

    def walk_all(self, nodes: list[Node]) -> None:
        raise NotImplementedError

    def isolated(self, node: Node) -> None:
        raise NotImplementedError

    def inline_c(self, words: list[Word], env: dict[str, Word]) -> tuple[list[Word], dict[str, Word]] | None:
        """`bash -c STRING` and `eval ARGS`: the words before it, then the command the string (the
        arguments eval joins) holds, its variables put in as the script assigned them (an exported
        `LAUNCHER="accelerate launch ..."`, `CMD="torchrun ..."; eval $CMD`, read as written) and the
        rest left for the run time. The words read from the string all stand at the string's place
        (eval's first argument) with no place to write: a finding points at it, a fix edits nothing."""
        reread = self._reread(words) if self.depth < MAX_SOURCE_DEPTH else None
        if reread is None:
            return None
        before, string, text = reread
        if text is None:
            return None
        child = type(self)(SourceText(self.source.path, text.encode()), None, MAX_SOURCE_DEPTH)
        child.env, child.budget = self.env.copy(), self.budget
        for override in self.overrides:  # `X="$2"` in an option loop: the command line decides it
            child.env.vars[override.name] = Binding(None, None, override.note)
        child.walk(parser().parse(text.encode()).root_node)
        inner = next((c for c in child.commands if c.words), None)
        if inner is None or inner.words[0].value is None:
            return None  # the string names no program the script decides: `bash -c` is what is known

        def placed(word: Word) -> Word:
            option = (word.option[0], placed(word.option[1])) if word.option is not None else None
            return replace(word, span=string.span, edit_span=None, option=option)

        return before + [placed(w) for w in inner.words], {**env, **{k: placed(v) for k, v in inner.env.items()}}

    def _reread(self, words: list[Word]) -> tuple[list[Word], Word, str | None] | None:
        """What `bash -c STRING` or `eval ARGS` hands the shell to read again: the words before
        it, the word its findings stand at, and the text (None: the run time decides it)."""
        at = next((i for i, w in enumerate(words[:-2]) if w.value in _C_SHELLS and words[i + 1].value == "-c"), None)
        if at is not None:
            return words[:at], words[at + 2], self.substituted(words[at + 2].text, 0)
        if len(words) > 1 and words[0].value == "eval":  # eval joins its arguments and reads them again
            pieces = [self._eval_piece(w.text) for w in words[1:]]
            return [], words[1], None if None in pieces else " ".join(p for p in pieces if p is not None)
        return None

    def _eval_piece(self, text: str) -> str | None:
        """One argument of `eval` as the shell hands it over: an unquoted `$CMD` is split on blanks
        and newlines (its value's line breaks, and the continuations of the assignment it was
        written in, separate words, not commands); a quoted one keeps its lines."""
        piece = self.substituted(text, 0)
        if piece is None or text.startswith(('"', "'")):
            return piece
        return " ".join(piece.replace("\\\n", " ").split())

    def substituted(self, text: str, depth: int) -> str | None:
        """A `-c` string as the shell hands it over: quotes taken off and each plain `$VAR` replaced
        by its value, or, when the value waits on the run time and the assignment holds several
        words (`LAUNCHER="python -m torch.distributed.run --nnodes $NNODES ..."`), by what the
        assignment wrote (itself substituted, a few levels deep). A one-word variable with an
        unknown value, one with no single assignment, or one the script's command line may set
        (an option loop's `X="$2"`) stays `$VAR`: read as the variable."""
        if depth > 3:
            return None
        if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'":
            # inside double quotes `\$(hostname -s)` is `$(hostname -s)` for the shell that reads the
            # string again (srun bash -c "$LAUNCHER"): the escapes are taken off, the substitution stays
            text = _DOUBLE_QUOTED_ESCAPE.sub(_unescaped, text[1:-1]) if text[0] == '"' else text[1:-1]

        def value(match: re.Match[str]) -> str:
            name = match.group(1) or match.group(2)
            binding = self.env.vars.get(name)
            if binding is None or binding.origin is None or any(o.name == name for o in self.overrides):
                return match.group(0)
            if binding.value is not None:
                return binding.value
            written = binding.origin.value.text
            if not any(c.isspace() for c in written.strip("\"'")):
                return match.group(0)  # one word (a path): read as the variable, linked to its assignment
            inner = self.substituted(written, depth + 1)
            return inner if inner is not None else match.group(0)

        out = _EXPANSION.sub(value, text)
        return out if self.budget.take(len(out)) else None

    def builtin(self, command: Command, node: Node) -> None:
        name = command.name
        args = command.words[1:]
        self.not_an_assignment(command)
        if name in ("exit", "return"):
            self.env.dead = True
        elif name in (".", "source") and args:
            self.source_file(args[0], node)
        elif name in ("cd", "pushd"):
            self.change_dir(args[0] if args else None)
        elif name == "git" and args and args[0].value == "clone":
            self.clone(args[1:])
        elif name == "popd":
            self.env.cwd = None
        elif name == "set" and args and args[0].value == "--":
            self.set_positional(args[1:])
        elif name == "shift":
            self.shift(args[0].value if args else "1")
        elif name in self.functions and name not in self.calling and len(self.calling) < MAX_SOURCE_DEPTH:
            self.call(name, args)
        elif name == "read":
            line = self.line(node)
            for word in args:
                if word.value and word.value.isidentifier():
                    self.env.vars[word.value] = Binding(None, None, f"{word.value} is read by `read` at run time (line {line})")

    def not_an_assignment(self, command: Command) -> None:
        """`NGPU = 8` (blanks around `=`) or `$X=8` (a `$` before the name): bash runs a command
        and assigns nothing; recorded for the rule that follows the variable to a launch."""
        words = command.words
        spaced = len(words) > 1 and _NAME.fullmatch(words[0].text) is not None and words[1].text.startswith("=")
        spaced = spaced and words[0].text not in _TAKES_EQUALS
        dollar = _DOLLAR_ASSIGNMENT.match(words[0].text) if words else None
        if not self.recording or not (spaced or dollar):
            return
        name = words[0].text if spaced else dollar.group(1) or dollar.group(2) if dollar else ""
        program = words[0].text if spaced else words[0].value or words[0].text
        said = f"{program}: command not found"
        self.broken.append(Broken(name, command.span, command.span.line, said))

    def set_positional(self, words: list[Word]) -> None:
        """`set --` or a function call: `$1`.. from the words; a word the run time decides leaves
        each later one unknown too (its split is unknown)."""
        for key in [k for k in self.env.vars if k.isdigit() or k in ("@", "#")]:
            del self.env.vars[key]
        self.env.vars.update(positional(words))

    def shift(self, count: str | None) -> None:
        every = self.env.vars.get("@")
        if every is None or every.items is None or count is None or not count.isdigit():
            for key in [k for k in self.env.vars if k.isdigit() or k in ("@", "#")]:
                del self.env.vars[key]  # `$1` is the command line's again: unknown
            return
        self.set_positional(list(every.items.values())[int(count) :])

    def call(self, name: str, args: list[Word]) -> None:
        """A function the script defined, called: its body walked with `$1`.. set from the call
        (bash's globals stay set after it; a command in it is recorded at its first call only,
        where the body is written)."""
        saved = {k: v for k, v in self.env.vars.items() if k.isdigit() or k in ("@", "#")}
        recording = self.recording
        self.recording = recording and name not in self.called
        self.called.add(name)
        self.calling.append(name)
        self.set_positional(args)
        try:
            self.walk_all(self.functions[name])
        finally:
            self.calling.pop()
            self.recording = recording
            for key in [k for k in self.env.vars if k.isdigit() or k in ("@", "#")]:
                del self.env.vars[key]
            self.env.vars.update(saved)
            self.env.dead = False  # `return` ends the function, not the script

    def redirected(self, node: Node) -> None:
        """A command with redirections: it runs as usual, and the files it writes are noted
        (a script that writes its DeepSpeed JSON with `cat <<EOF > $ds_config` names no missing file)."""
        self.walk_all(node.children)
        if not self.recording:
            return
        redirects = [c for c in node.named_children if c.type == "file_redirect"]
        for heredoc in (c for c in node.named_children if c.type == "heredoc_redirect"):
            redirects.extend(c for c in heredoc.named_children if c.type == "file_redirect")
        for redirect in redirects:
            operators = {c.type for c in redirect.children if not c.is_named}
            target = redirect.named_children[-1] if redirect.named_child_count else None
            if target is None or not operators & {">", ">>", "&>", ">|", "&>>"}:
                continue
            value, _ = self.evaluate(target)
            if value and not posixpath.isabs(value) and self.env.cwd is not None:
                path = posixpath.normpath(posixpath.join(self.env.cwd or ".", value))
                self.written.setdefault(path, self.span(redirect))
                self.template(node, path, self.span(redirect))
            elif value is None:  # `> ${config_json}`, its name decided at run time: kept by its assignment
                # (whatever the folder: the launch reads it through the same variable, from the same place)
                binding = self.plain_binding(unwrap_string(target))
                if binding is not None and binding.origin is not None:
                    self.template(node, unknown_path(binding.origin), self.span(redirect))

    def template(self, node: Node, path: str, span: Span) -> None:
        """What a heredoc or a sed pipeline writes, when it writes it from the script's own text."""
        heredoc = any(c.type == "heredoc_redirect" for c in node.named_children)
        if not heredoc and not self.data.startswith(b"sed", node.start_byte):
            return  # `> log.txt`: nothing to read, and no reader to import
        from recipelint.parse import shelltemplate  # only for scripts that write files

        written = shelltemplate.capture(self, node, path, span)
        earlier = self.templates.get(path)
        if earlier is not None:  # written twice (on two branches, or over itself): what both write
            self.templates[path] = shelltemplate.merge(earlier, written, span)
        elif written is not None:
            self.templates[path] = written

    def change_dir(self, target: Word | None) -> None:
        own = _OWN_FOLDER.match(target.text.replace('"', "")) if target is not None and target.value is None else None
        if own is not None and (own.group("a") or own.group("b") or "").strip() in _OWN_PATH:
            self.env.cwd = posixpath.normpath("." + (own.group("rest") or ""))
            if self.recording and self.env.cwd not in self.cd_dirs:
                self.cd_dirs.append(self.env.cwd)
            return
        if target is None or target.value is None or target.value in ("-", "~") or target.value.startswith("~"):
            self.env.cwd = None
            return
        if posixpath.isabs(target.value):
            self.env.cwd = None  # a folder of the training machine, not of this checkout
            return
        if self.env.cwd is None:
            return
        self.env.cwd = posixpath.normpath(posixpath.join(self.env.cwd or ".", target.value))
        if self.recording and self.env.cwd not in self.cd_dirs:
            self.cd_dirs.append(self.env.cwd)

    def clone(self, args: list[Word]) -> None:
        """`git clone [options] URL [DIR]`: the folder it makes is DIR, else the URL's last part without `.git`."""
        plain = [word.value for word in args if word.value is not None and not word.value.startswith("-")]
        if not plain:
            return
        name = plain[1] if len(plain) > 1 else posixpath.basename(plain[0].rstrip("/"))
        name = name[:-4] if len(plain) == 1 and name.endswith(".git") else name
        if name and self.recording and name not in self.clones:
            self.clones.append(name)

    def source_file(self, target: Word, node: Node) -> None:
        span = self.span(node)
        written = target.value if target.value is not None else target.text
        if Path(written).name in OPTION_PARSERS:
            note = "Kaldi option parser: any variable assigned above may be overridden on the command line"
            if self.options:
                note += f"; the caller sets {', '.join(sorted(self.options))}"
            self.sourced.append(Sourced(written, span, False, note))
            for name, binding in self.options.items():
                if name in self.env.vars:  # parse_options.sh rejects an option no variable declares
                    self.env.vars[name] = Binding(binding.value, None, binding.reason, self.env.vars[name].exported)
            return
        path, where = self.sourced_path(target)
        if path is None:
            self.sourced.append(Sourced(written, span, False, f"not read: {where}"))
            return
        try:
            text = self.read(path) if self.read is not None else None
        except SourceError as error:
            self.sourced.append(Sourced(written, span, False, f"not read: {error.reason}"))
            return
        if text is None:
            return
        child = type(self)(text, self.read, self.depth + 1, self.order if self.order is not None else node.start_byte)
        child.env, child.exports, child.seen, child.budget = self.env, self.exports, self.seen | {path}, self.budget
        child.functions, child.called = self.functions, self.called
        child.walk(parser().parse(text.data).root_node)
        self.env = child.env
        self.env.dead = False  # a sourced helper's `return` (or `exit` under `|| exit`) is not this script's end
        self.sourced.append(Sourced(written, span, True, f"read for its assignments ({child.assigned} values){where}"))
        self.sourced.extend(child.sourced)

    def sourced_path(self, target: Word) -> tuple[Path | None, str]:
        if self.read is None:
            return None, "no files are read for a command line"
        if target.value is None:
            return None, target.reason or "its path is decided at run time"
        if posixpath.isabs(target.value) or target.value.startswith("~"):
            return None, "an absolute path on the training machine"
        if self.depth >= MAX_SOURCE_DEPTH:
            return None, "sourced files nested too deeply"
        # bash reads a relative path from the current folder: the script's own (after its `cd`s),
        # or the repository root a launch is commonly run from (`bash scripts/train.sh`)
        root = repo_root(self.source.path.parent.absolute())
        tried = [self.source.path.parent / self.env.cwd] if self.env.cwd is not None else []
        tried += [root] if root is not None and root != self.source.path.parent.absolute() else []
        for folder, path in ((folder, folder / target.value) for folder in tried):
            if path in self.seen or path.absolute() in (p.absolute() for p in self.seen):
                return None, "it sources itself"
            if path.is_file():
                return path, "" if folder is not root else " (found from the repository root, the folder the script is run from)"
        if not tried:
            return None, "the script's current folder is unknown here"
        elsewhere = f" nor {shown(root / target.value)} (at the repository root)" if len(tried) > 1 and root is not None else ""
        return None, f"no such file {tried[0] / target.value}{elsewhere}"


def _unescaped(match: re.Match[str]) -> str:
    return "" if match.group(1) == "\n" else match.group(1)
