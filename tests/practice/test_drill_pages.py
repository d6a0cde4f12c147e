"""Drill pages (R10.4): every drill loads, a right move passes and a wrong one fails
through the page's own posts, refusals change nothing (R9.1), several readings ask the
player to choose (R3.5), hints select the suggested cards, and the last results show on
the practice page."""

import html as html_lib
import re

import pytest
from django.urls import reverse

from games.bots.drills import DRILLS, HUMAN_SEAT, get_drill
from games.engine.cards import FACE_OF
from games.live.render import play_as_options
from games.practice.services import load_drill
from games.practice.views import SESSION_KEY

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}


def drill_url(drill_id, step=""):
    name = {"": "practice:drill", "act": "practice:drill_act", "reset": "practice:drill_reset"}[step]
    return reverse(name, args=[drill_id])


def session_log(client, drill_id):
    return (client.session.get(SESSION_KEY) or {}).get("logs", {}).get(drill_id)


def session_result(client, drill_id):
    return (client.session.get(SESSION_KEY) or {}).get("results", {}).get(drill_id)


def current_run(client, drill_id):
    return load_drill(get_drill(drill_id), session_log(client, drill_id))


def ids_of(state, faces):
    """The human's physical cards for ``faces`` (two copies of a face are two ids)."""
    chosen = []
    for text in faces.split():
        chosen.append(next(c for c in state.hands[HUMAN_SEAT] if FACE_OF[c] == text and c not in chosen))
    return chosen


# What the human does, as the page's form would post it. A step is ("pass",),
# ("play", faces), ("play", faces, reading name) when several readings are legal (R3.5),
# ("tribute", face) or ("return", face). Right and wrong moves follow tests/bots/test_drills.py.
def _seq(*plays):
    return lambda state, i: plays[i]


def _singles_then_rest(state, i):
    if state.top is not None:
        return ("pass",)
    return ("play", ["3S", "4H", "5C", "6D", "7S", "QS QH", "9S 9H 9C 8D 8S"][i])


def _joker_pair_late(state, i):
    if i == 0:
        return ("play", "3S")
    return ("play", "BJ BJ") if state.top is None else ("pass",)


SCRIPTS = {
    "finish-in-three": (_seq(("play", "3S 4H 5C 6D 7S"), ("play", "9S 9H 9C 8D 8S"), ("play", "QS QH")), _singles_then_rest),
    "wild-straight-flush": (
        _seq(("play", "TD JD QD KD 7H", "straight flush 10-A")),
        _seq(("play", "TD JD QD KD 7H", "straight flush 9-K")),
    ),
    "wild-five-bomb": (_seq(("play", "9S 9C 9D 5H 5H")), _seq(("pass",))),
    "pass-for-partner": (_seq(("pass",)), _seq(("play", "AS AC"))),
    "right-bomb": (_seq(("play", "4S 4H 4C 4D")), _seq(("play", "QS QH QC QD QS QH"))),
    "stop-the-runner": (_seq(("play", "5S 5H 5C 5D")), _seq(("pass",))),
    "feed-partner": (_seq(("play", "3C")), _seq(("play", "QH QC"))),
    "keep-the-bomb": (_seq(("play", "QC")), _seq(("play", "8S"))),
    "winner-first": (_seq(("play", "BJ BJ"), ("play", "3S")), _joker_pair_late),
    "wind": (_seq(("pass",)), _seq(("play", "BJ"))),
    "low-return": (_seq(("return", "3C")), _seq(("return", "9S"))),
    "tribute-keeps-flush": (_seq(("tribute", "AD")), _seq(("tribute", "AH"))),
}


def post_step(client, drill_id, step):
    """Post one human step the way the board's form does; returns the response."""
    state = current_run(client, drill_id).state
    kind = step[0]
    if kind == "pass":
        return client.post(drill_url(drill_id, "act"), {"action": "pass"}, **HTMX)
    cards = ids_of(state, step[1])
    action = kind
    if len(step) == 3:
        names = [reading.name for reading in play_as_options(state, cards)]
        action = f"play-as-{names.index(step[2])}"
    return client.post(drill_url(drill_id, "act"), {"action": action, "card": cards}, **HTMX)


def play_drill(client, drill_id, script):
    """Play the drill through its page until it is done; returns the last board."""
    response = None
    for index in range(20):
        run = current_run(client, drill_id)
        if run.done:
            return response
        response = post_step(client, drill_id, script(run.state, index))
        assert response.status_code == 200
        assert b"tbl-message-error" not in response.content, board_message(response)
    pytest.fail(f"{drill_id} did not finish")


def page(response) -> str:
    """The page's HTML with entities decoded, to compare with the drills' own texts."""
    return html_lib.unescape(response.content.decode())


def text_of(html: str) -> str:
    """What a person reads of a piece of HTML: tags dropped (rule ids are links)."""
    return html_lib.unescape(re.sub(r"<[^>]+>", "", html))


def board_message(response) -> str:
    match = re.search(r'id="drill-message"[^>]*>(.*?)</p>', page(response), re.S)
    return text_of(match.group(1)) if match else ""


def test_there_are_twelve_drills_at_least():
    assert len(DRILLS) >= 12
    assert set(SCRIPTS) == {drill.id for drill in DRILLS}


@pytest.mark.parametrize("drill", DRILLS, ids=lambda d: d.id)
def test_each_drill_page_loads_with_its_situation(client, drill):
    response = client.get(drill_url(drill.id))
    assert response.status_code == 200
    html = page(response)
    assert drill.title in html and drill.goal in html and drill.rule in html
    state = drill.start_state()
    # The human's hand, each card a checkbox named by its card (accessible name).
    hand = re.findall(r'<input type="checkbox" class="hand-check" id="dc-(\d+)"', html)
    assert sorted(int(card) for card in hand) == sorted(state.hands[HUMAN_SEAT])
    # The level and the two wilds (R3.1, R9.5), and the four seats with their counts (R9.3).
    assert "Playing " in html and html.count("card-wild card-small") >= 2
    assert html.count('class="drill-seat ') == 4
    assert 'data-done="0"' in html
    # The public trick so far: the setup's last play is on the table.
    if state.top is not None:
        assert "On top, by seat %d:" % (state.top.seat + 1) in html


def test_unknown_drill_is_not_found(client):
    assert client.get("/practice/drills/no-such-drill/").status_code == 404
    assert client.post("/practice/drills/no-such-drill/act/", {"action": "pass"}).status_code == 404


@pytest.mark.parametrize("drill", DRILLS, ids=lambda d: d.id)
def test_right_move_passes(client, drill):
    right, _wrong = SCRIPTS[drill.id]
    board = play_drill(client, drill.id, right)
    result = session_result(client, drill.id)
    assert result is not None and result["passed"] is True, result
    html = page(board)
    assert 'data-testid="drill-result" data-passed="1"' in html
    assert "Passed" in html and result["message"] in text_of(html)
    assert "Try again" in html
    if drill is not DRILLS[-1]:
        assert "Next drill" in html


@pytest.mark.parametrize("drill", DRILLS, ids=lambda d: d.id)
def test_wrong_move_fails_citing_a_rule(client, drill):
    _right, wrong = SCRIPTS[drill.id]
    board = play_drill(client, drill.id, wrong)
    result = session_result(client, drill.id)
    assert result is not None and result["passed"] is False, result
    assert re.search(r"\(R\d+\.\d+", result["message"]), result["message"]
    html = page(board)
    assert 'data-passed="0"' in html and "Not passed" in html


@pytest.mark.parametrize(
    "drill_id, post, rule",
    [
        ("keep-the-bomb", {"action": "play", "faces": "3S"}, "R5.3"),  # a 3 is not higher than a 5
        ("keep-the-bomb", {"action": "play", "faces": "3S 8S"}, "R4.2"),  # not a pair
        ("keep-the-bomb", {"action": "play", "faces": ""}, "R6.1"),  # nothing selected
        ("feed-partner", {"action": "pass"}, "R6.1"),  # a leader cannot pass
        ("tribute-keeps-flush", {"action": "tribute", "faces": "TH"}, "R8.1"),  # not the highest card
        ("tribute-keeps-flush", {"action": "tribute", "faces": "AH AD"}, "R8.3"),  # one card only
        ("low-return", {"action": "return", "faces": "KS"}, "R8.4"),  # a K is no return
        ("wind", {"action": "dance"}, "R9.1"),  # not an action
    ],
)
def test_refusals_show_the_rule_and_change_nothing(client, drill_id, post, rule):
    """R9.1: an illegal action is refused with a reason citing the rule; the cards stay in
    hand (and selected) and the drill's log is untouched."""
    client.get(drill_url(drill_id))
    before = session_log(client, drill_id)
    state = current_run(client, drill_id).state
    data = {"action": post["action"]}
    cards = ids_of(state, post["faces"]) if post.get("faces") else []
    if cards:
        data["card"] = cards
    response = client.post(drill_url(drill_id, "act"), data, **HTMX)
    assert response.status_code == 200
    message = board_message(response)
    assert message.startswith(f"{rule}:"), message
    assert "tbl-message-error" in page(response)
    assert session_log(client, drill_id) == before
    assert session_result(client, drill_id) is None
    assert current_run(client, drill_id).state == state
    for card in cards:
        assert f'value="{card}" aria-label' in page(response)
        assert re.search(rf'id="dc-{card}"[^>]* checked', page(response))


def test_malformed_cards_are_refused(client):
    client.get(drill_url("keep-the-bomb"))
    for value, rule in (("x", "R1.4"), ("999", "R1.4")):
        response = client.post(drill_url("keep-the-bomb", "act"), {"action": "play", "card": [value]}, **HTMX)
        assert board_message(response).startswith(f"{rule}:")
    response = client.post(drill_url("keep-the-bomb", "act"), {"action": "play", "card": ["5", "5"]}, **HTMX)
    assert board_message(response).startswith("R3.2:")
    assert session_log(client, "keep-the-bomb") is None


def test_a_finished_drill_refuses_more_moves(client):
    play_drill(client, "keep-the-bomb", SCRIPTS["keep-the-bomb"][0])
    log = session_log(client, "keep-the-bomb")
    response = client.post(drill_url("keep-the-bomb", "act"), {"action": "pass"}, **HTMX)
    assert board_message(response).startswith("R9.1:")
    assert session_log(client, "keep-the-bomb") == log


def test_several_readings_ask_the_player_to_choose(client):
    """R3.5: a wild completing a straight flush high or low is offered both ways; the
    choice decides the drill."""
    state = current_run(client, "wild-straight-flush").state
    cards = ids_of(state, "TD JD QD KD 7H")
    response = client.post(drill_url("wild-straight-flush", "act"), {"action": "play", "card": cards}, **HTMX)
    html = page(response)
    assert board_message(response).startswith("R3.5:")
    assert "Play as straight flush 9-K" in html and "Play as straight flush 10-A" in html
    assert session_log(client, "wild-straight-flush") is None  # nothing played yet
    index = [r.name for r in play_as_options(state, cards)].index("straight flush 10-A")
    response = client.post(
        drill_url("wild-straight-flush", "act"), {"action": f"play-as-{index}", "card": cards}, **HTMX
    )
    assert session_result(client, "wild-straight-flush")["passed"] is True
    response = client.post(drill_url("wild-straight-flush", "reset"), **HTMX)
    response = client.post(drill_url("wild-straight-flush", "act"), {"action": "play-as-7", "card": cards}, **HTMX)
    assert board_message(response).startswith("R3.5:")


def test_bots_answer_until_the_human_acts_again(client):
    """A drill judged over several moves: after each of the human's plays the bots play
    the other seats, and the page shows how it stands."""
    post_step(client, "finish-in-three", ("play", "3S 4H 5C 6D 7S"))
    run = current_run(client, "finish-in-three")
    assert not run.done and run.human_to_act
    assert any(action.seat != HUMAN_SEAT for action in run.log)
    response = client.get(drill_url("finish-in-three"))
    assert 'data-testid="drill-progress"' in page(response)
    assert "straight 3-7" in page(response)


def test_hint_selects_the_suggested_cards_with_a_reason(client):
    response = client.post(drill_url("keep-the-bomb", "act"), {"action": "hint"}, **HTMX)
    html = page(response)
    message = board_message(response)
    assert get_drill("keep-the-bomb").hint in message
    assert "The bots would play:" in message
    checked = re.findall(r'id="dc-(\d+)"[^>]* checked', html)
    assert checked, "the suggested cards are selected"
    assert session_log(client, "keep-the-bomb") is None  # a hint plays nothing


def test_clear_and_try_again(client):
    state = current_run(client, "keep-the-bomb").state
    response = client.post(drill_url("keep-the-bomb", "act"), {"action": "clear", "card": ids_of(state, "QC")}, **HTMX)
    assert " checked" not in page(response)
    play_drill(client, "keep-the-bomb", SCRIPTS["keep-the-bomb"][1])
    assert session_result(client, "keep-the-bomb")["passed"] is False
    response = client.post(drill_url("keep-the-bomb", "reset"), **HTMX)
    assert 'data-done="0"' in page(response)
    assert session_log(client, "keep-the-bomb") is None
    # The last result stays until the next try finishes.
    assert session_result(client, "keep-the-bomb")["passed"] is False
    play_drill(client, "keep-the-bomb", SCRIPTS["keep-the-bomb"][0])
    assert session_result(client, "keep-the-bomb")["passed"] is True


def test_plain_posts_render_the_whole_page(client):
    """Without htmx the form still works: the answer is the full drill page."""
    state = current_run(client, "keep-the-bomb").state
    response = client.post(drill_url("keep-the-bomb", "act"), {"action": "play", "card": ids_of(state, "QC")})
    html = page(response)
    assert response.status_code == 200 and "<html" in html and 'data-passed="1"' in html
    response = client.post(drill_url("keep-the-bomb", "reset"))
    assert response.status_code == 302 and response["Location"] == drill_url("keep-the-bomb")


def test_last_results_show_on_the_practice_page(client):
    play_drill(client, "keep-the-bomb", SCRIPTS["keep-the-bomb"][0])
    play_drill(client, "wind", SCRIPTS["wind"][1])
    html = page(client.get(reverse("practice:home")))
    for drill in DRILLS:
        assert drill.title in html and drill.goal in html and f"Rules: {drill.rule}" in html
        assert drill_url(drill.id) in html

    def result_of(drill_id):
        return text_of(re.search(rf'data-testid="drill-result-{drill_id}">(.*?)</p>', html, re.S).group(1))

    assert "Passed" in result_of("keep-the-bomb")
    assert session_result(client, "keep-the-bomb")["message"] in result_of("keep-the-bomb")
    assert "Not passed yet" in result_of("wind")
    assert "Not tried" in result_of("feed-partner")
    assert "1 of %d drills passed" % len(DRILLS) in html


def test_registered_players_keep_results_in_their_session(client, make_user):
    user = make_user()
    client.force_login(user)
    play_drill(client, "stop-the-runner", SCRIPTS["stop-the-runner"][0])
    html = page(client.get(reverse("practice:home")))
    assert "Passed" in re.search(r'data-testid="drill-result-stop-the-runner">(.*?)</p>', html, re.S).group(1)


def test_a_stored_log_that_no_longer_replays_starts_afresh(client):
    session = client.session
    session[SESSION_KEY] = {"logs": {"wind": [{"kind": "play", "seat": 0, "cards": [1, 2, 3]}]}, "results": {}}
    session.save()
    response = client.get(drill_url("wind"))
    assert response.status_code == 200 and 'data-done="0"' in page(response)
