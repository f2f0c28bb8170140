"""Parsing Handlebars source into a tree, as handlebars.js 4.7 does.

The lexer follows handlebars.js' (``\\{{`` escapes, ``{{!-- --}}`` comments
that may hold ``}}``, ``~`` whitespace control) and every node keeps the
offset of its ``{{`` so errors name the exact line and column. Standalone
lines (a block, ``else`` or comment alone on its line) are removed with
handlebars.js' own WhitespaceControl rules, ported below.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from tcab.errors import TemplateError

# handlebars.js' ID token: anything but whitespace and !"#%&'()*+,./;<=>@[\]^`{|}~
_ID = r"[^\s!\"#%&'()*+,./;<=>@\[\\\]^`{|}~]+"
_TOKEN = re.compile(
    r"""(?P<ws>\s+)
    |(?P<str>"(?:\\"|[^"])*"|'(?:\\'|[^'])*')
    |(?P<num>-?[0-9]+(?:\.[0-9]+)?(?=[=~}\s)]|$))
    |(?P<kw>(?:true|false|null|undefined)(?=[=~}\s)]|$))
    |(?P<hash>""" + _ID + r""")=
    |(?P<open>\()|(?P<close>\))
    |(?P<path>(?:@|\.\./|\./)*(?:\[[^\]]*\]|""" + _ID + r"""|\.\.|\.)(?:[./](?:\[[^\]]*\]|""" + _ID + r"""|\.\.))*)
    """,
    re.X,
)


@dataclass
class Text:
    value: str
    original: str
    left_stripped: bool = False
    right_stripped: bool = False


@dataclass(frozen=True)
class Path:
    """``depth`` ``../`` hops, ``data`` for ``@`` names, ``parts`` the segments."""

    parts: tuple[str, ...]
    depth: int = 0
    data: bool = False
    this: bool = False  # written with this/. : never a helper
    text: str = ""

    @property
    def simple(self) -> bool:
        return len(self.parts) == 1 and not self.depth and not self.data and not self.this


@dataclass(frozen=True)
class Literal:
    value: Any


@dataclass(frozen=True)
class Call:
    """A helper call or a path: ``path`` plus positional and hash arguments."""

    path: Path
    params: tuple[Any, ...] = ()
    hash: tuple[tuple[str, Any], ...] = ()
    pos: int = 0


@dataclass
class Mustache:
    call: Call
    pos: int
    strip: tuple[bool, bool] = (False, False)


@dataclass
class Comment:
    pos: int
    strip: tuple[bool, bool] = (False, False)


@dataclass
class Program:
    body: list[Any] = field(default_factory=list)
    chained: bool = False


@dataclass
class Block:
    call: Call
    program: Program | None
    inverse: Program | None
    pos: int
    open_strip: tuple[bool, bool] = (False, False)
    inverse_strip: tuple[bool, bool] = (False, False)
    close_strip: tuple[bool, bool] = (False, False)
    inverted: bool = False  # {{^name}}


def line_col(source: str, pos: int) -> tuple[int, int]:
    """1-based line and column of ``pos``."""
    line = source.count("\n", 0, pos) + 1
    return line, pos - (source.rfind("\n", 0, pos) + 1) + 1


class _Parser:
    def __init__(self, source: str, name: str):
        self.src = source
        self.name = name

    def fail(self, pos: int, message: str) -> TemplateError:
        line, col = line_col(self.src, pos)
        return TemplateError(f"{self.name}:{line}:{col}: {message}")

    # -- lexing: content and the raw text of each {{ ... }} ------------------
    def tokens(self) -> list[tuple[str, int, Any]]:
        src, out, i, n = self.src, [], 0, len(self.src)
        escaped = False
        while i < n:
            j = src.find("{{", i + 2 if escaped else i)
            if escaped:  # \{{...: text up to the next {{ (or \{{), the escape dropped
                end = n if j < 0 else j - 1 if src[j - 1] == "\\" and j - 1 > i else j
                out.append(("text", i, src[i:end]))
                i, escaped = end, False
                continue
            if j < 0:
                out.append(("text", i, src[i:]))
                break
            if j > 0 and src[j - 1] == "\\" and not (j > 1 and src[j - 2] == "\\"):
                if j - 1 > i:
                    out.append(("text", i, src[i : j - 1]))
                i, escaped = j, True
                continue
            if j > 1 and src[j - 1] == "\\":  # \\{{x}}: one backslash, then a real mustache
                out.append(("text", i, src[i : j - 1]))
            elif j > i:
                out.append(("text", i, src[i:j]))
            i = self.mustache_token(j, out)
        return out

    def mustache_token(self, j: int, out: list) -> int:
        src = self.src
        if src.startswith("{{{{", j):
            raise self.fail(j, "raw blocks ({{{{raw}}}}) are not supported")
        k = j + 2
        left = src.startswith("~", k)
        k += left
        if src.startswith("!--", k):
            end = re.compile(r"--(~?)}}").search(src, k + 3)
            if not end:
                raise self.fail(j, "unclosed comment {{!-- (expected --}})")
            out.append(("comment", j, (left, bool(end.group(1)))))
            return end.end()
        if src.startswith("!", k):
            end = src.find("}}", k)
            if end < 0:
                raise self.fail(j, "unclosed comment {{! (expected }})")
            out.append(("comment", j, (left, src[end - 1] == "~")))
            return end + 2
        triple = src.startswith("{", k)
        k += triple
        close = "}}}" if triple else "}}"
        end = self.find_close(k, close, j)
        inner = src[k:end]
        right = inner.endswith("~")
        if right:
            inner = inner[:-1]
        out.append(("mustache", j, (inner, k, triple, (left, right))))
        return end + len(close)

    def find_close(self, k: int, close: str, start: int) -> int:
        """Where the mustache opened at ``start`` closes, skipping string literals."""
        src, i = self.src, k
        while i < len(src):
            ch = src[i]
            if ch in "\"'":
                end = src.find(ch, i + 1)
                i = len(src) if end < 0 else end + 1
                continue
            if src.startswith(close, i):
                return i
            i += 1
        raise self.fail(start, f"unclosed mustache (expected {close})")

    # -- expressions -----------------------------------------------------------
    def expression(self, text: str, base: int, start: int) -> Call:
        items = []
        for m in _TOKEN.finditer(text):
            if m.group("ws"):
                continue
            items.append((m.lastgroup, m.group(m.lastgroup), base + m.start()))
        consumed = sum(len(m.group(0)) for m in _TOKEN.finditer(text))
        if consumed != len(text):
            bad = self._first_gap(text)
            raise self.fail(base + bad, f"cannot parse {text[bad:bad + 20]!r} in this expression")
        if not items:
            raise self.fail(start, "empty expression")
        call, rest = self.sexpr(items, 0, start)
        if rest != len(items):
            raise self.fail(items[rest][2], "unbalanced ')'")
        return call

    @staticmethod
    def _first_gap(text: str) -> int:
        i = 0
        for m in _TOKEN.finditer(text):
            if m.start() != i:
                return i
            i = m.end()
        return i

    def sexpr(self, items: list, i: int, start: int) -> tuple[Call, int]:
        kind, value, pos = items[i]
        if kind == "path":
            head: Any = self.path(value, pos)
        elif kind in ("str", "num", "kw"):
            head = self.literal(kind, value)
        elif kind == "open":
            raise self.fail(pos, "a subexpression cannot be called")
        else:
            raise self.fail(pos, f"unexpected {value!r}")
        i += 1
        params, hashes = [], []
        while i < len(items) and items[i][0] != "close":
            kind, value, pos = items[i]
            if kind == "hash":
                if i + 1 >= len(items) or items[i + 1][0] == "close":
                    raise self.fail(pos, f"{value}= needs a value")
                arg, i = self.param(items, i + 1, pos)
                hashes.append((value, arg))
                continue
            if hashes:
                raise self.fail(pos, "a positional argument after key=value arguments")
            arg, i = self.param(items, i, pos)
            params.append(arg)
        if isinstance(head, Literal):
            if params or hashes:
                raise self.fail(start, f"{head.value!r} is not a helper")
            return Call(Path((str(head.value),), text=str(head.value)), (head,), pos=start), i
        return Call(head, tuple(params), tuple(hashes), pos=start), i

    def param(self, items: list, i: int, start: int) -> tuple[Any, int]:
        kind, value, pos = items[i]
        if kind == "open":
            if i + 1 >= len(items):
                raise self.fail(pos, "unclosed '('")
            call, j = self.sexpr(items, i + 1, pos)
            if j >= len(items):
                raise self.fail(pos, "unclosed '('")
            return call, j + 1
        if kind == "path":
            return self.path(value, pos), i + 1
        if kind in ("str", "num", "kw"):
            return self.literal(kind, value), i + 1
        raise self.fail(pos, f"unexpected {value!r}")

    @staticmethod
    def literal(kind: str, value: str) -> Literal:
        if kind == "str":
            return Literal(value[1:-1].replace("\\" + value[0], value[0]))
        if kind == "num":
            return Literal(float(value) if "." in value else int(value))
        return Literal({"true": True, "false": False, "null": None, "undefined": None}[value])

    def path(self, text: str, pos: int) -> Path:
        data = text.startswith("@")
        rest = text[1:] if data else text
        depth, this = 0, False
        while rest.startswith("../") or rest == "..":
            depth, rest = depth + 1, rest[3:]
        if rest in (".", "this"):
            this, rest = True, ""
        elif rest.startswith(("./", "this.", "this/")):
            this, rest = True, rest[2:] if rest.startswith("./") else rest[5:]
        parts = [seg[1:-1] if seg.startswith("[") else seg
                 for seg in re.findall(r"\[[^\]]*\]|[^./\[\]]+", rest)]
        rebuilt = "".join(f"[{p}]" if f"[{p}]" in rest else p for p in parts)
        if rest and (not parts or any(seg in ("..", ".", "this") for seg in parts[1:] if not seg)
                     or len(re.sub(r"[./]", "", rest)) != len(rebuilt.replace(".", "").replace("/", ""))
                     and "[" not in rest):
            raise self.fail(pos, f"invalid path {text!r}")
        if re.search(r"[./][0-9]+(\.[0-9]+)?($|[./])", rest):
            raise self.fail(pos, f"invalid path {text!r}: write a number segment as [1]")
        if re.search(r"(^|[./])\.\.?($|[./])", rest) or re.search(r"[./]{2}", rest):
            raise self.fail(pos, f"invalid path {text!r}: '..' and '.' only at the start")
        return Path(tuple(parts), depth, data, this or depth > 0, text)

    # -- the tree --------------------------------------------------------------
    def parse(self) -> Program:
        self.toks = self.tokens()
        self.i = 0
        program, end = self.program(None)
        if end is not None:
            raise self.fail(end[1], "unexpected {{/...}} or {{else}} with no open block")
        return program

    def program(self, opened: Block | None) -> tuple[Program, Any]:
        """Statements up to the end, an ``{{else}}`` or a ``{{/x}}``; returns what stopped it."""
        body: list[Any] = []
        while self.i < len(self.toks):
            kind, pos, value = self.toks[self.i]
            self.i += 1
            if kind == "text":
                body.append(Text(value, value))
            elif kind == "comment":
                body.append(Comment(pos, value))
            else:
                inner, base, triple, strip = value
                stripped = inner.strip()
                first = stripped[:1]
                if not triple and first == "/":
                    return Program(body), ("close", pos, stripped[1:].strip(), strip)
                if not triple and (stripped == "else" or stripped.startswith(("else ", "else\n"))
                                   or first == "^" and not stripped[1:].strip()):
                    return Program(body), ("else", pos, stripped, strip)
                if not triple and first in "#^" and stripped[1:2] not in (">", "*"):
                    body.append(self.block(inner, base, pos, strip, first == "^"))
                elif not triple and first in ">&" or stripped[:2] in ("#>", "#*"):
                    if first == "&":
                        off = inner.index("&") + 1
                        body.append(Mustache(self.expression(inner[off:], base + off, pos), pos, strip))
                    else:
                        raise self.fail(pos, "partials and decorators ({{> ...}}) are not supported")
                else:
                    body.append(Mustache(self.expression(inner, base, pos), pos, strip))
        return Program(body), None

    def block(self, inner: str, base: int, pos: int, strip: tuple, inverted: bool) -> Block:
        off = inner.index("#" if not inverted else "^") + 1
        call = self.expression(inner[off:], base + off, pos)
        program, end = self.program(None)
        block = Block(call, program, None, pos, open_strip=strip, inverted=inverted)
        current = block
        while end is not None and end[0] == "else":
            _, epos, text, estrip = end
            current.inverse_strip = estrip
            chain = text[1:].strip() if text.startswith("^") else text[4:].strip()
            if chain:  # {{else if x}}: the inverse is a program holding one chained block
                call2 = self.expression(chain, epos, epos)
                body, end = self.program(None)
                nested = Block(call2, body, None, epos, open_strip=estrip)
                current.inverse = Program([nested], chained=True)
                current = nested
                continue
            current.inverse, end = self.program(None)
            if end is not None and end[0] == "else":
                raise self.fail(end[1], "a second {{else}} in one block")
        if end is None:
            raise self.fail(pos, f"unclosed block {{{{{inner.strip()}}}}} (no {{{{/{call.path.text}}}}})")
        _, cpos, name, cstrip = end
        if name != call.path.text:
            raise self.fail(cpos, f"{{{{/{name}}}}} does not close {{{{#{call.path.text}}}}}")
        node: Block | None = block
        while node is not None:  # every link of an else-if chain shares the close
            node.close_strip = cstrip
            nxt = node.inverse.body[0] if node.inverse and node.inverse.chained else None
            node = nxt
        if inverted:
            block.program, block.inverse = block.inverse, block.program
        return block


# -- standalone lines and ~, ported from handlebars.js' whitespace-control.js ----------
_PREV = re.compile(r"\r?\n\s*?$")
_PREV_ROOT = re.compile(r"(^|\r?\n)\s*?$")
_NEXT = re.compile(r"^\s*?\r?\n")
_NEXT_ROOT = re.compile(r"^\s*?(\r?\n|$)")


def _prev_ws(body: list, i: int | None = None, is_root: bool = False) -> bool:
    i = len(body) if i is None else i
    prev = body[i - 1] if i - 1 >= 0 else None
    sibling = body[i - 2] if i - 2 >= 0 else None
    if prev is None:
        return is_root
    if isinstance(prev, Text):
        return bool((_PREV if sibling is not None or not is_root else _PREV_ROOT).search(prev.original))
    return False


def _next_ws(body: list, i: int | None = None, is_root: bool = False) -> bool:
    i = -1 if i is None else i
    nxt = body[i + 1] if i + 1 < len(body) else None
    sibling = body[i + 2] if i + 2 < len(body) else None
    if nxt is None:
        return is_root
    if isinstance(nxt, Text):
        return bool((_NEXT if sibling is not None or not is_root else _NEXT_ROOT).search(nxt.original))
    return False


def _omit_right(body: list, i: int | None = None, multiple: bool = False) -> None:
    j = 0 if i is None else i + 1
    current = body[j] if j < len(body) else None
    if not isinstance(current, Text) or (not multiple and current.right_stripped):
        return
    original = current.value
    current.value = re.sub(r"^\s+" if multiple else r"^[ \t]*\r?\n?", "", original, count=1)
    current.right_stripped = current.value != original


def _omit_left(body: list, i: int | None = None, multiple: bool = False) -> bool:
    j = len(body) - 1 if i is None else i - 1
    current = body[j] if 0 <= j < len(body) else None
    if not isinstance(current, Text) or (not multiple and current.left_stripped):
        return False
    original = current.value
    current.value = re.sub(r"\s+$" if multiple else r"[ \t]+$", "", original, count=1)
    current.left_stripped = current.value != original
    return current.left_stripped


class _Whitespace:
    def __init__(self) -> None:
        self.root_seen = False

    def program(self, program: Program) -> None:
        is_root = not self.root_seen
        self.root_seen = True
        body = program.body
        for i, current in enumerate(body):
            strip = self.accept(current)
            if not strip:
                continue
            prev_ws, next_ws = _prev_ws(body, i, is_root), _next_ws(body, i, is_root)
            open_sa = strip.get("open_standalone") and prev_ws
            close_sa = strip.get("close_standalone") and next_ws
            inline_sa = strip.get("inline_standalone") and prev_ws and next_ws
            if strip.get("close"):
                _omit_right(body, i, True)
            if strip.get("open"):
                _omit_left(body, i, True)
            if inline_sa:
                _omit_right(body, i)
                _omit_left(body, i)
            if open_sa:
                _omit_right((current.program or current.inverse).body)
                _omit_left(body, i)
            if close_sa:
                _omit_right(body, i)
                _omit_left((current.inverse or current.program).body)

    def accept(self, node: Any) -> dict | None:
        if isinstance(node, Mustache):
            return {"open": node.strip[0], "close": node.strip[1]}
        if isinstance(node, Comment):
            return {"inline_standalone": True, "open": node.strip[0], "close": node.strip[1]}
        if isinstance(node, Block):
            return self.block(node)
        return None

    def block(self, block: Block) -> dict:
        if block.program is not None:
            self.program(block.program)
        if block.inverse is not None:
            self.program(block.inverse)
        program = block.program or block.inverse
        inverse = block.inverse if block.program is not None else None
        first_inverse = last_inverse = inverse
        if inverse is not None and inverse.chained:
            first_inverse = inverse.body[0].program
            while last_inverse.chained:
                last_inverse = last_inverse.body[-1].program
        strip = {
            "open": block.open_strip[0],
            "close": block.close_strip[1],
            "open_standalone": _next_ws(program.body),
            "close_standalone": _prev_ws((first_inverse or program).body),
        }
        if block.open_strip[1]:
            _omit_right(program.body, None, True)
        if inverse is not None:
            if block.inverse_strip[0]:
                _omit_left(program.body, None, True)
            if block.inverse_strip[1]:
                _omit_right(first_inverse.body, None, True)
            if block.close_strip[0]:
                _omit_left(last_inverse.body, None, True)
            if _prev_ws(program.body) and _next_ws(first_inverse.body):
                _omit_left(program.body)
                _omit_right(first_inverse.body)
        elif block.close_strip[0]:
            _omit_left(program.body, None, True)
        return strip


def parse(source: str, name: str) -> Program:
    """The tree of ``source`` with whitespace control applied. Raises TemplateError
    naming ``name``, line and column."""
    program = _Parser(source, name).parse()
    _Whitespace().program(program)
    return program
