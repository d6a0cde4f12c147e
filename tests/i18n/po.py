"""A small reader of gettext .po files (entries with their context, plural and flags)."""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CATALOGUE = ROOT / "locale" / "zh_Hans" / "LC_MESSAGES" / "django.po"
COMPILED = CATALOGUE.with_suffix(".mo")


@dataclass
class Entry:
    msgid: str = ""
    msgid_plural: str | None = None
    msgctxt: str | None = None
    msgstr: dict[int, str] = field(default_factory=dict)
    flags: set[str] = field(default_factory=set)
    obsolete: bool = False

    @property
    def key(self) -> tuple[str | None, str]:
        return self.msgctxt, self.msgid

    @property
    def translated(self) -> bool:
        return bool(self.msgstr) and all(self.msgstr.values())


_LINE = re.compile(r'^(msgctxt|msgid_plural|msgid|msgstr(?:\[(\d+)\])?) (".*")$')


def read(path: Path) -> list[Entry]:
    entries: list[Entry] = []
    entry: Entry | None = None
    target: tuple[str, int | None] | None = None
    for raw in path.read_text(encoding="utf-8").splitlines() + [""]:
        line = raw.strip()
        if not line:
            if entry is not None:
                entries.append(entry)
            entry, target = None, None
            continue
        if entry is None:
            entry = Entry()
        if line.startswith("#~"):
            entry.obsolete = True
            continue
        if line.startswith("#,"):
            entry.flags.update(flag.strip() for flag in line[2:].split(","))
            continue
        if line.startswith("#"):
            continue
        m = _LINE.match(line)
        if m:
            name, index, value = m.group(1), m.group(2), ast.literal_eval(m.group(3))
            if name.startswith("msgstr"):
                target = ("msgstr", int(index) if index else 0)
                entry.msgstr[target[1]] = value
            else:
                target = (name, None)
                setattr(entry, name, value)
        elif line.startswith('"') and target is not None:
            value = ast.literal_eval(line)
            if target[0] == "msgstr":
                entry.msgstr[target[1]] += value
            else:
                setattr(entry, target[0], getattr(entry, target[0]) + value)
    return [e for e in entries if not e.obsolete]


def messages(path: Path) -> list[Entry]:
    """The catalogue's messages (its header left out)."""
    return [e for e in read(path) if e.msgid]
