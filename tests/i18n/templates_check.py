"""Find text a person can see in a template that is not marked for translation.

A template is read with its template syntax taken out: ``{% translate %}`` and
``{% blocktranslate %}`` (marked), ``{{ variables }}`` (data, translated where it is
made), other tags and comments. What is left and still holds a word is a visible
string nobody can translate: text between tags, and the attributes people read or hear
(``title``, ``alt``, ``placeholder``, ``aria-label``, ``aria-description``, a button's
``value``). Text inside an element with a ``lang`` attribute is in that language on
purpose (the switcher's 中文 and English) and is left alone, as are rule ids (R4.2),
card faces and ranks.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

TEMPLATE_SYNTAX = re.compile(
    r"\{%\s*comment\s*%\}.*?\{%\s*endcomment\s*%\}"
    r"|\{%\s*blocktrans(?:late)?\b.*?%\}.*?\{%\s*endblocktrans(?:late)?\s*%\}"
    r"|\{#.*?#\}|\{\{.*?\}\}|\{%.*?%\}",
    re.S,
)
READ_ATTRIBUTES = {"title", "alt", "placeholder", "aria-label", "aria-description", "aria-roledescription"}
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}
# Words that are not language: rule ids, card ranks and faces, the seconds unit's symbol
# and similar marks a reader of either language reads the same.
# (A and B are also the teams' names, R1.1.)
NOT_LANGUAGE = re.compile(r"^(?:R\d+(?:\.\d+)?|[2-9TJQKAB]|10|[2-9TJQKA][SHCD]|SJ|BJ|s)$")
WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9.'’-]*")


class _Finder(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.found: list[str] = []
        self.stack: list[tuple[str, bool]] = []  # (tag, inside a lang element or script/style)

    def _quiet(self) -> bool:
        return bool(self.stack) and self.stack[-1][1]

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        quiet = self._quiet() or "lang" in attrs or tag in ("script", "style")
        if not quiet:
            for name, value in attrs.items():
                if value and name in READ_ATTRIBUTES:
                    self._check(value, f"{tag}[{name}]")
                if tag == "input" and name == "value" and attrs.get("type") in ("submit", "button") and value:
                    self._check(value, f"{tag}[{name}]")
        if tag not in VOID:
            self.stack.append((tag, quiet))

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        if tag not in VOID and self.stack:
            self.stack.pop()

    def handle_endtag(self, tag):
        for i in range(len(self.stack) - 1, -1, -1):
            if self.stack[i][0] == tag:
                del self.stack[i:]
                break

    def handle_data(self, data):
        if not self._quiet():
            self._check(data, "text")

    def _check(self, text: str, where: str):
        words = [w for w in WORD.findall(text.replace("…", " ")) if re.search("[A-Za-z]", w) and not NOT_LANGUAGE.match(w.rstrip("."))]
        if words:
            self.found.append(f"{where}: {text.strip()[:80]!r}")


def unmarked_strings(path: Path) -> list[str]:
    """The visible strings of a template that are not marked for translation."""
    source = TEMPLATE_SYNTAX.sub(" ", path.read_text(encoding="utf-8"))
    finder = _Finder()
    finder.feed(source)
    finder.close()
    return finder.found
