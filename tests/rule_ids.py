"""Every rule id a page shows links to its rule (README, "Rules"): the check the pages'
tests share."""

import re

from games.rules.words import rule_url

LINKED = re.compile(r'<a class="rule-link" href="([^"]+)">(R\d+(?:\.\d+)?)</a>')


def unlinked_rule_ids(html: str) -> list[str]:
    """Rule ids in the text a person reads (not in attributes, scripts or styles) that are
    not links to their rule."""
    for href, rule in LINKED.findall(html):
        assert href == rule_url(rule)
    text = re.sub(r"<(script|style)\b.*?</\1>", " ", LINKED.sub("", html), flags=re.S)
    text = re.sub(r"<!--.*?-->", " ", text, flags=re.S)
    text = re.sub(r"<[^>]+>", " ", text)
    return re.findall(r"\bR\d+\.\d+", text)
