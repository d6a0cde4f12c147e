"""The throttle helper (guandan_site/throttle.py): one line limits a view per client or
per player; beyond the limit the view is not run and the site answers 429 with when to
try again. Sign-up and a guest's registration are limited per client."""

import itertools

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AnonymousUser
from django.http import HttpResponse
from django.test import Client
from django.urls import reverse

from guandan_site import throttle
from tests.conftest import PASSWORD

pytestmark = pytest.mark.django_db
_addresses = (f"10.77.{n // 250}.{n % 250 + 1}" for n in itertools.count())

ran = []


@throttle.limited("test_view", limit="TEST_VIEWS_PER_MINUTE", period=60, per="user")
def limited_view(request):
    ran.append(request.method)
    return HttpResponse("ran")


def _request(rf, method, user, address):
    request = getattr(rf, method.lower())("/x/", REMOTE_ADDR=address)
    request.user = user
    return request


def test_one_line_limits_a_view_per_player_and_reads_its_setting_each_time(rf, make_user, settings):
    settings.TEST_VIEWS_PER_MINUTE = 2
    me, you = make_user(), make_user()
    address = next(_addresses)
    ran.clear()
    codes = [limited_view(_request(rf, "POST", me, address)).status_code for _ in range(3)]
    assert codes == [200, 200, 429] and ran == ["POST", "POST"]  # the third was not run
    refused = limited_view(_request(rf, "POST", me, address))
    assert 0 < int(refused["Retry-After"]) <= 60 and b"Try again in about" in refused.content
    assert limited_view(_request(rf, "GET", me, address)).status_code == 200  # only POSTs count
    assert limited_view(_request(rf, "POST", you, address)).status_code == 200  # per player, same address
    settings.TEST_VIEWS_PER_MINUTE = 10
    assert limited_view(_request(rf, "POST", me, address)).status_code == 200  # read at each request


def test_signed_out_clients_count_by_address(rf, settings):
    settings.TEST_VIEWS_PER_MINUTE = 1
    first, second = next(_addresses), next(_addresses)
    anonymous = AnonymousUser()
    assert limited_view(_request(rf, "POST", anonymous, first)).status_code == 200
    assert limited_view(_request(rf, "POST", anonymous, first)).status_code == 429
    assert limited_view(_request(rf, "POST", anonymous, second)).status_code == 200


def test_sign_up_and_registration_are_limited_per_client(settings):
    settings.GUANDAN_REGISTRATIONS_PER_HOUR = 2
    address = next(_addresses)
    users = get_user_model().objects
    before = users.count()
    codes = []
    for n in range(3):
        form = {"username": f"many{n}", "display_name": "", "password1": PASSWORD, "password2": PASSWORD}
        codes.append(Client(REMOTE_ADDR=address).post(reverse("accounts:signup"), form).status_code)
    assert codes == [302, 302, 429] and users.count() - before == 2
    # A guest registering from the same client counts too.
    guest = Client(REMOTE_ADDR=address)
    guest.post(reverse("accounts:guest"))
    form = {"username": "laterlin", "display_name": "", "password1": PASSWORD, "password2": PASSWORD}
    assert guest.post(reverse("accounts:claim"), form).status_code == 429
    assert Client(REMOTE_ADDR=next(_addresses)).post(
        reverse("accounts:signup"), dict(form, username="elsewhere")).status_code == 302


def test_per_must_say_client_or_user():
    with pytest.raises(ValueError):
        throttle.limited("x", limit=1, period=1, per="team")
