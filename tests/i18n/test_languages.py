"""Choosing the language (issue 14): the browser's Accept-Language picks the first time,
zh-TW and zh-Hant fall back to zh-Hans, the header's switcher changes it, a signed-in
player's choice is saved on the profile and follows the player to another device, and
``<html lang>`` always names the language shown."""

from __future__ import annotations

import re

import pytest
from django.conf import settings
from django.test import Client
from django.urls import reverse

from accounts.models import Profile

pytestmark = pytest.mark.django_db

CJK = re.compile(r"[\u4e00-\u9fff]")


def html_lang(response) -> str:
    return re.search(r'<html lang="([^"]+)"', response.content.decode()).group(1)


def visible(response) -> str:
    text = re.sub(r"<(script|style)\b.*?</\1>", " ", response.content.decode(), flags=re.S)
    text = re.sub(r'<((?!html\b)\w+)[^>]*\blang="(?:en|zh-hans)"[^>]*>.*?</\1>', " ", text, flags=re.S)
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", text))


@pytest.mark.parametrize("header, shown", [
    ("zh-CN,zh;q=0.9,en;q=0.5", "zh-hans"),
    ("zh-Hans", "zh-hans"),
    ("zh-TW,zh;q=0.9", "zh-hans"),
    ("zh-HK", "zh-hans"),
    ("zh-Hant-TW", "zh-hans"),
    ("en-GB,en;q=0.8", "en"),
    ("fr-FR,fr;q=0.9", "en"),
])
def test_the_browser_picks_the_first_time(client, header, shown):
    response = client.get(reverse("games:lobby"), HTTP_ACCEPT_LANGUAGE=header)
    assert html_lang(response) == shown
    assert response["Content-Language"] == shown
    if shown == "zh-hans":
        assert "大厅" in visible(response) and "Lobby" not in visible(response)
        assert "注销" not in visible(response)  # Django's own word is never mixed in
    else:
        assert "Lobby" in visible(response) and not CJK.search(visible(response).replace("掼", ""))


def test_the_header_offers_both_languages_each_in_its_own(client):
    html = client.get(reverse("games:lobby")).content.decode()
    assert f'action="{reverse("set_language")}"' in html
    assert re.search(r'<button[^>]*value="zh-hans" lang="zh-hans"[^>]*>中文</button>', html)
    assert re.search(r'<button[^>]*value="en" lang="en"[^>]*aria-current="true"[^>]*>English</button>', html)
    assert f'href="{reverse("rules:page")}"' in html


def test_the_switcher_changes_the_language_of_every_page(client):
    response = client.post(reverse("set_language"), {"language": "zh-hans", "next": "/practice/"},
                           HTTP_ACCEPT_LANGUAGE="en")
    assert response.status_code == 302 and response["Location"] == "/practice/"
    assert client.cookies[settings.LANGUAGE_COOKIE_NAME].value == "zh-hans"
    for url in (reverse("games:lobby"), reverse("practice:home"), reverse("leaderboard"), reverse("rules:page"),
                reverse("accounts:login"), reverse("accounts:signup")):
        response = client.get(url, HTTP_ACCEPT_LANGUAGE="en")
        assert html_lang(response) == "zh-hans", url
        assert CJK.search(visible(response)), url
    client.post(reverse("set_language"), {"language": "en", "next": "/"})
    assert html_lang(client.get(reverse("games:lobby"), HTTP_ACCEPT_LANGUAGE="zh-CN")) == "en"


def test_a_signed_in_players_choice_follows_the_player(client, make_user):
    user = make_user()
    client.force_login(user)
    client.post(reverse("set_language"), {"language": "zh-hans", "next": "/"})
    assert Profile.objects.get(user=user).language == "zh-hans"
    # Another device: a browser that asks for English, with no cookie yet.
    other = Client()
    other.force_login(user)
    response = other.get(reverse("accounts:profile"), HTTP_ACCEPT_LANGUAGE="en-US")
    assert html_lang(response) == "zh-hans" and CJK.search(visible(response))
    # The cookie is set to the profile's language, so the table's socket agrees.
    assert response.cookies[settings.LANGUAGE_COOKIE_NAME].value == "zh-hans"
    other.post(reverse("set_language"), {"language": "en", "next": "/"})
    assert Profile.objects.get(user=user).language == "en"
    assert html_lang(client.get(reverse("games:lobby"))) == "en"


def test_an_unknown_language_changes_nothing(client, make_user):
    user = make_user()
    client.force_login(user)
    client.post(reverse("set_language"), {"language": "xx", "next": "/"})
    assert Profile.objects.get(user=user).language == ""
    assert html_lang(client.get(reverse("games:lobby"), HTTP_ACCEPT_LANGUAGE="en")) == "en"


def test_the_error_pages_speak_the_readers_language(client, settings):
    settings.DEBUG = False
    response = client.get("/no-such-page/", HTTP_ACCEPT_LANGUAGE="zh-CN")
    assert response.status_code == 404
    assert html_lang(response) == "zh-hans" and "这里什么都没有" in response.content.decode()
    from django.template.loader import render_to_string
    from django.utils import translation

    with translation.override("zh-hans"):
        page = render_to_string("500.html")
        csrf = render_to_string("403_csrf.html")
    assert '<html lang="zh-hans">' in page and "出错了" in page
    assert '<html lang="zh-hans">' in csrf and "表单已过期" in csrf


def test_numbers_and_dates_follow_the_locale(make_user):
    from django.template import Context, Template
    from django.utils import timezone, translation

    moment = timezone.datetime(2026, 3, 4, 5, 6, tzinfo=timezone.get_current_timezone())
    template = Template('{{ when|date:"SHORT_DATETIME_FORMAT" }}')
    with translation.override("zh-hans"):
        chinese = template.render(Context({"when": moment}))
    with translation.override("en"):
        english = template.render(Context({"when": moment}))
    assert chinese != english and "2026" in chinese
