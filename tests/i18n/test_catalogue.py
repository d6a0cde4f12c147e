"""The zh-Hans catalogue is complete and compiled (issue 14, "CI"):

- every string marked for translation anywhere in the site (Python and templates, as
  ``makemessages`` finds it) has a zh-Hans entry that is translated and not fuzzy;
- the placeholders of every translation are those of its English text;
- the compiled catalogue committed beside it (``django.mo``) says exactly what the .po
  says, so a fresh clone shows Chinese without compiling anything;
- every visible string in a template is marked for translation.
"""

from __future__ import annotations

import gettext
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from . import po
from .templates_check import unmarked_strings

ROOT = po.ROOT
PLACEHOLDER = re.compile(r"%\(\w+\)[-#0 +]*\d*(?:\.\d+)?[sdrf]|\{\w*\}")
SOURCES = ("accounts", "games", "guandan_site", "templates", "manage.py")


def test_no_entry_is_untranslated_or_fuzzy():
    entries = po.messages(po.CATALOGUE)
    assert len(entries) > 800
    fuzzy = [e.msgid for e in entries if "fuzzy" in e.flags]
    untranslated = [e.msgid for e in entries if not e.translated]
    assert not fuzzy, f"fuzzy entries: {fuzzy[:10]}"
    assert not untranslated, f"untranslated entries: {untranslated[:10]}"


def test_header_names_the_language_and_is_not_fuzzy():
    header = next(e for e in po.read(po.CATALOGUE) if e.msgid == "")
    assert "fuzzy" not in header.flags
    assert "Language: zh_Hans" in header.msgstr[0]
    assert "nplurals=1" in header.msgstr[0]


def test_translations_keep_their_placeholders():
    wrong = []
    for entry in po.messages(po.CATALOGUE):
        wanted = sorted(set(PLACEHOLDER.findall(entry.msgid)))
        for text in entry.msgstr.values():
            if sorted(set(PLACEHOLDER.findall(text))) != wanted:
                wrong.append((entry.msgid, text))
    assert not wrong, wrong[:5]


def test_translations_are_chinese_where_the_english_has_words():
    # Rule ids, card faces and ranks (jack is J, R1.4) and symbols may stay as they are;
    # a sentence may not.
    ranks = {"jack", "queen", "king", "ace"}
    english = [e.msgid for e in po.messages(po.CATALOGUE)
               if re.search(r"[a-z]{3,}", PLACEHOLDER.sub("", e.msgid)) and e.msgid not in ranks
               and not re.search(r"[\u4e00-\u9fff]", e.msgstr[0])
               and e.msgctxt not in ("keyboard key", "file format")]
    assert not english, english[:10]


def test_the_compiled_catalogue_says_what_the_po_says():
    with po.COMPILED.open("rb") as handle:
        compiled = gettext.GNUTranslations(handle)
    different = []
    for entry in po.messages(po.CATALOGUE):
        if entry.msgid_plural is not None:
            got = compiled.npgettext(entry.msgctxt, entry.msgid, entry.msgid_plural, 2) if entry.msgctxt \
                else compiled.ngettext(entry.msgid, entry.msgid_plural, 2)
        else:
            got = compiled.pgettext(entry.msgctxt, entry.msgid) if entry.msgctxt else compiled.gettext(entry.msgid)
        if got != entry.msgstr[0]:
            different.append(entry.msgid)
    assert not different, f"django.mo is out of date (msgfmt the .po): {different[:5]}"


def test_every_marked_string_has_a_translation(tmp_path):
    """``makemessages`` over a copy of the site: every message it finds is in the
    committed catalogue, translated."""
    if shutil.which("xgettext") is None or shutil.which("msgmerge") is None:
        pytest.fail("gettext's tools are missing: apt-get install gettext (scripts/test.sh installs them)")
    for name in SOURCES:
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, tmp_path / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        else:
            shutil.copy(source, tmp_path / name)
    (tmp_path / "locale").mkdir()
    subprocess.run(
        [sys.executable, "manage.py", "makemessages", "-l", "zh_Hans", "--no-location", "--verbosity", "0"],
        cwd=tmp_path, check=True, capture_output=True,
    )
    found = po.messages(tmp_path / "locale" / "zh_Hans" / "LC_MESSAGES" / "django.po")
    catalogue = {e.key: e for e in po.messages(po.CATALOGUE)}
    missing = [e.msgid for e in found if e.key not in catalogue or not catalogue[e.key].translated
               or "fuzzy" in catalogue[e.key].flags]
    assert len(found) > 800
    assert not missing, f"marked for translation but not in the zh-Hans catalogue: {missing[:10]}"


GETTEXT_CALLS = {"_", "gettext", "gettext_lazy", "ngettext", "ngettext_lazy", "pgettext", "pgettext_lazy",
                 "npgettext", "gettext_noop"}


def test_no_translated_word_hides_inside_an_f_string():
    """xgettext does not read inside f-strings: a word looked up there never reaches the
    catalogue (the table's "timeout" badge once stayed English that way)."""
    import ast

    hidden = []
    for package in ("accounts", "games", "guandan_site"):
        for path in (ROOT / package).rglob("*.py"):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for node in ast.walk(tree):
                if isinstance(node, ast.JoinedStr):
                    for inner in ast.walk(node):
                        if isinstance(inner, ast.Call) and getattr(inner.func, "id", None) in GETTEXT_CALLS:
                            hidden.append(f"{path.relative_to(ROOT)}:{inner.lineno}")
    assert not hidden, hidden


def _templates() -> list[Path]:
    found = sorted((ROOT / "templates").rglob("*.html"))
    for package in ("accounts", "games"):
        found += sorted((ROOT / package).rglob("templates/**/*.html"))
    return found


@pytest.mark.parametrize("path", _templates(), ids=lambda p: str(p.relative_to(ROOT)))
def test_template_text_is_marked_for_translation(path):
    assert unmarked_strings(path) == []


def test_the_template_check_finds_unmarked_text(tmp_path):
    sample = tmp_path / "sample.html"
    sample.write_text(
        '{% load i18n %}<p>{% translate "Marked" %}</p><p>Not marked</p>'
        '<button aria-label="Close it">{% translate "X" %}</button>'
        '<span lang="zh-hans">中文</span><span lang="en">English</span>'
        '<a href="#R4.2">R4.2</a>{# a comment #}<script>var x = "code";</script>'
        '{% blocktranslate %}Also marked{% endblocktranslate %}'
    )
    found = unmarked_strings(sample)
    assert len(found) == 2 and "Not marked" in found[0] and "Close it" in found[1]
