"""The replay pages: step links, htmx steps, seat views, privacy, export, match history.

Privacy is tested by scanning every response for ``data-card`` ids (every card the site
draws carries one) and comparing them with what the engine's ``view_for`` lets that
viewer see (hidden information: R9.3, R9.4).
"""

import json
import re

import pytest
from django.urls import reverse

from games.engine.replay import fold
from games.engine.views import cards_in_view, view_for
from games.models import Action, Deal
from games.replays.log import import_export, replay_states

pytestmark = pytest.mark.django_db

CARD = re.compile(r'data-card="(\d+)"')


def cards_in(html: bytes | str) -> set[int]:
    text = html.decode() if isinstance(html, bytes) else html
    return {int(x) for x in CARD.findall(text)}


def board_of(html: bytes) -> str:
    """The ``#replay-board`` section of a page."""
    text = html.decode()
    start = text.index('<section id="replay-board"')
    return text[start:text.index("</section>", text.rindex('class="replay-share"', start))]


def url(deal, **params):
    query = "&".join(f"{k}={v}" for k, v in params.items())
    return reverse("replays:deal", args=[deal.pk]) + (f"?{query}" if query else "")


def a_play(deal, nth=3):
    """A known play from the stored log: (step, row)."""
    row = Action.objects.filter(deal=deal, kind="play").order_by("seq")[nth]
    return row.seq, row


# --------------------------------------------------------------------------------------
# Step links


def test_a_step_link_opens_at_that_step(client, played):
    deal = played[1].deal
    step, row = a_play(deal, nth=5)
    response = client.get(url(deal, step=step, seat="all"))
    assert response.status_code == 200
    html = response.content.decode()
    board = board_of(response.content)
    assert f'data-step="{step}"' in board
    reading = replay_states(deal)[step].history[-1].reading.name
    assert f"Seat {row.seat + 1} plays {reading}" in board
    events = board[board.index("replay-events"):board.index("replay-felt")]
    assert set(row.cards) <= cards_in(events)
    # The link to this step names the deal and the step.
    assert f"/replays/deals/{deal.pk}/?step={step}&amp;seat=all" in html


def test_step_zero_is_as_dealt_and_the_default(client, played):
    deal = played[0].deal
    response = client.get(url(deal))
    assert response.status_code == 200
    board = board_of(response.content)
    assert 'data-step="0"' in board
    # All four hands open, each of 27 cards (R1.3), on a finished deal.
    assert cards_in(board) == set(range(108))
    assert "drawn from the deal&#x27;s seed (R8.6)" in board


def test_the_last_step_shows_places_and_the_settlement(client, played):
    deal = played[1].deal
    deal.refresh_from_db()
    response = client.get(url(deal, step=deal.seq))
    board = board_of(response.content)
    assert deal.result["explanation"].replace(">", "&gt;") in board
    assert "The deal is over (R6.6)" in board
    assert 'data-testid="settlement"' in board


def test_the_tribute_step_shows_the_tribute(client, played):
    """R8: the second deal opens with its tribute (or its resistance, R8.5) in words."""
    deal = played[1].deal
    state = replay_states(deal)[0]
    board = board_of(client.get(url(deal, step=0)).content)
    assert 'data-replay-jump="tribute"' in board
    text = re.sub(r"<[^>]+>", "", board)  # rule ids are links to the rules page
    if state.tribute.resisted:
        assert "Tribute resisted" in text and "(R8.5)" in text
    else:
        gift = state.tribute.gifts[0]
        assert f"Seat {gift.donor + 1} owes seat {gift.recipient + 1}" in text
    assert "tribute (R8." in text and 'href="/rules/#R8.' in board


def test_htmx_steps_get_the_board_alone(client, played):
    deal = played[0].deal
    response = client.get(url(deal, step=4, seat="all"), HTTP_HX_REQUEST="true")
    assert response.status_code == 200
    html = response.content.decode()
    assert html.lstrip().startswith('<section id="replay-board"')
    assert "<html" not in html and "Action log" not in html
    assert 'hx-push-url="true"' in html
    assert "HX-Request" in response["Vary"]
    # The next and previous links step by one and keep the seat choice.
    assert f'hx-get="/replays/deals/{deal.pk}/?step=5&amp;seat=all"' in html
    assert f'hx-get="/replays/deals/{deal.pk}/?step=3&amp;seat=all"' in html


def test_a_history_restore_gets_the_whole_page(client, played):
    deal = played[0].deal
    response = client.get(url(deal, step=4), HTTP_HX_REQUEST="true", HTTP_HX_HISTORY_RESTORE_REQUEST="true")
    assert "<html" in response.content.decode()


def test_bad_steps_and_seats_are_refused(client, played):
    deal = played[0].deal
    deal.refresh_from_db()
    assert client.get(url(deal, step=deal.seq + 1)).status_code == 404
    assert client.get(url(deal, step=-1)).status_code == 404
    assert client.get(url(deal, step="x")).status_code == 400
    assert client.get(url(deal, seat="5")).status_code == 400
    assert client.get(reverse("replays:deal", args=[999999])).status_code == 404


def test_trick_jumps_link_to_each_trick_start(client, played):
    deal = played[0].deal
    response = client.get(url(deal, step=0))
    board = board_of(response.content)
    jumps = re.findall(r'data-replay-jump="trick-(\d+)"', board)
    assert jumps and jumps == [str(n) for n in range(1, len(jumps) + 1)]
    assert len(jumps) == replay_states(deal)[-1].trick_no + 1


def test_keyboard_shortcuts_are_documented(client, played):
    html = client.get(url(played[0].deal)).content.decode()
    for key in ("→", "←", "Space", "Home", "End"):
        assert f"<kbd>{key}</kbd>" in html


# --------------------------------------------------------------------------------------
# Seat views


def test_a_seat_view_shows_what_that_seat_saw(client, played):
    """On a finished deal anyone may choose one seat's view: at every step the board then
    holds exactly the cards that seat could see (its hand, public plays, R9.4)."""
    deal = played[1].deal
    states = replay_states(deal)
    for seat in range(4):
        for step in (0, 1, 2, len(states) // 2, len(states) - 2):
            response = client.get(url(deal, step=step, seat=seat + 1), HTTP_HX_REQUEST="true")
            assert response.status_code == 200
            shown = cards_in(response.content)
            allowed = cards_in_view(view_for(states[step], seat))
            assert shown <= allowed, (seat, step, shown - allowed)
            assert set(states[step].hands[seat]) <= shown


def test_levels_are_shown_from_the_viewers_side(client, played):
    """R9.5: "Us / Them" from a seat, teams A and B with all hands open."""
    deal = played[1].deal
    assert "Us " in board_of(client.get(url(deal, seat=2)).content)
    assert "Team A " in board_of(client.get(url(deal, seat="all")).content)


def test_timeouts_and_autopilot_are_marked(client, played):
    deal = played[0].deal
    html = client.get(url(deal)).content.decode()
    assert "time ran out" in html
    assert 'is on autopilot after two timeouts in a row (<a class="rule-link" href="/rules/#R9.2">R9.2</a>)' in html


# --------------------------------------------------------------------------------------
# Privacy: a deal in progress


def test_an_unfinished_deal_is_refused_to_outsiders(client, make_user, open_deal):
    deal = open_deal.deal
    response = client.get(url(deal))
    assert response.status_code == 403
    assert "R9.3" in response.content.decode()
    assert cards_in(response.content) == set()
    client.force_login(make_user())
    for seat in ("all", "1", "2"):
        response = client.get(url(deal, seat=seat))
        assert response.status_code == 403
        assert cards_in(response.content) == set()


def test_a_player_sees_only_their_own_seat_of_an_unfinished_deal(client, players, open_deal):
    deal = open_deal.deal
    states = replay_states(deal)
    host, partner = players
    for user, seat in ((host, 0), (partner, 2)):
        client.force_login(user)
        # Everything this seat could see at some step of the deal so far.
        allowed = set().union(*(cards_in_view(view_for(state, seat)) for state in states))
        hidden = set(range(108)) - allowed
        assert hidden, "other hands must stay hidden"
        for step in (0, 5, len(states) - 1):
            response = client.get(url(deal, step=step))
            assert response.status_code == 200
            assert "no-store" in response["Cache-Control"]
            assert cards_in(response.content) <= allowed
            board_cards = cards_in(board_of(response.content))
            assert board_cards <= cards_in_view(view_for(states[step], seat))
            assert set(states[step].hands[seat]) <= board_cards
        fragment = client.get(url(deal, step=3, seat=seat + 1), HTTP_HX_REQUEST="true")
        assert fragment.status_code == 200 and cards_in(fragment.content) <= allowed
        # Never all hands, never another seat.
        assert client.get(url(deal, seat="all")).status_code == 403
        assert client.get(url(deal, seat=(seat + 1) % 4 + 1)).status_code == 403


def test_the_export_of_an_unfinished_deal_is_refused_to_everyone(client, players, open_deal):
    deal = open_deal.deal
    json_url = reverse("replays:deal_json", args=[deal.pk])
    assert client.get(json_url).status_code == 403
    client.force_login(players[0])
    response = client.get(json_url)
    assert response.status_code == 403
    assert "hands" not in response.json()


def test_a_finished_deal_is_public(client, played):
    """Anyone, signed in or not, may watch a finished deal with every hand open."""
    deal = played[1].deal
    states = replay_states(deal)
    step = len(states) // 2
    response = client.get(url(deal, step=step, seat="all"))
    assert response.status_code == 200
    assert set().union(*states[step].hands) <= cards_in(board_of(response.content))
    assert client.get(reverse("replays:deal_json", args=[deal.pk])).status_code == 200


# --------------------------------------------------------------------------------------
# Export


def test_the_json_export_reimports_to_the_same_deal(client, played):
    deal = played[1].deal
    response = client.get(reverse("replays:deal_json", args=[deal.pk]))
    assert response.status_code == 200
    assert response["Content-Type"] == "application/json"
    data = json.loads(response.content)
    first, actions = import_export(data)
    states = replay_states(deal)
    assert first == states[0]
    assert fold(first, actions) == states[-1]


# --------------------------------------------------------------------------------------
# Match history


def test_match_history_lists_deals_with_results_and_level_changes(client, match, played, open_deal):
    response = client.get(reverse("replays:match", args=[match.pk]))
    assert response.status_code == 200
    html = response.content.decode()
    for item in played:
        deal = Deal.objects.get(pk=item.deal.pk)
        assert f'data-deal="{deal.number}"' in html
        assert deal.result["explanation"].replace(">", "&gt;") in html
        assert reverse("replays:deal", args=[deal.pk]) in html
        before = deal.team_levels_before
        after = deal.result["levels"]
        winner = deal.result["winner_team"]
        ranks = "23456789TJQKA"
        shown = lambda r: "10" if ranks[r] == "T" else ranks[r]  # noqa: E731
        assert f"{'AB'[winner]} {shown(before[winner])} → {shown(after[winner])}" in html
    # The deal in progress is listed, without a replay link for outsiders.
    assert f'data-deal="{open_deal.deal.number}"' in html
    assert reverse("replays:deal", args=[open_deal.deal.pk]) not in html
    assert "In progress" in html
    assert cards_in(response.content) == set()


def test_match_history_links_a_player_to_their_seat_of_the_deal_in_progress(client, players, match, played, open_deal):
    client.force_login(players[0])
    html = client.get(reverse("replays:match", args=[match.pk])).content.decode()
    assert reverse("replays:deal", args=[open_deal.deal.pk]) in html
    assert reverse("replays:deal_json", args=[open_deal.deal.pk]) not in html


def test_the_replay_links_back_to_its_match_history(client, match, played):
    html = client.get(url(played[0].deal)).content.decode()
    assert reverse("replays:match", args=[match.pk]) in html


def test_the_play_button_says_play_back_not_play_cards(client, played):
    """A replay plays back (播放); 出牌 is a move at the table."""
    deal = played[1].deal
    client.cookies["django_language"] = "zh-hans"
    html = client.get(url(deal)).content.decode()
    label = re.search(r'<span data-replay-play-label data-play="([^"]*)" data-pause="([^"]*)">([^<]*)</span>', html)
    assert label is not None
    assert label.groups() == ("播放", "暂停", "播放")
