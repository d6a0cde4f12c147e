"""The drills' words (``games/bots/drills.py``, plain data without Django) for the
translation catalogue, and their result messages in the reader's language.

``games/bots`` may not import Django, so its titles, goals, hints and results are listed
here with ``gettext_noop`` and translated where a drill is shown (``games/practice/views.py``).
A test checks that every text of every drill is listed.
"""

from __future__ import annotations

import re

from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

TEXTS = (
    gettext_noop('Out in three'),
    gettext_noop('Empty your hand in 3 plays or fewer.'),
    gettext_noop('Look for a straight and a full house.'),
    gettext_noop('A straight 3-7, a full house of 9s with the 8s, and the pair of Qs empty the hand in three leads.'),
    gettext_noop('Wild to the top'),
    gettext_noop('Beat the straight 10-A with the strongest reading of your cards.'),
    gettext_noop('A wild may stand for any card, suit included.'),
    gettext_noop('Yes: the wild as the ace of diamonds makes a straight flush 10-A, the highest (R3.2, R4.9).'),
    gettext_noop('A straight cannot top a straight 10-A (R5.1); play the cards as a straight flush, and let the wild be the ace of diamonds for the strongest one (R3.5).'),
    gettext_noop('Full house or bomb?'),
    gettext_noop('Beat the bomb of four Ks.'),
    gettext_noop('The same five cards have two readings.'),
    gettext_noop('Right: three 9s and two wilds read as a bomb of five 9s, which beats any four-card bomb (R5.2).'),
    gettext_noop('Only a bigger bomb beats a bomb (R5.1, R5.2): play 9 9 9 and both wilds as a bomb of five 9s, not a full house (R3.5).'),
    gettext_noop("Your partner's trick"),
    gettext_noop("Your partner's pair of Ks leads the trick. Play the right move."),
    gettext_noop('Who is winning this trick?'),
    gettext_noop('Right: your partner holds the trick; passing keeps your As and lets your partner lead again (R6.2).'),
    gettext_noop('Topping your partner spends your pair of As for nothing: pass and your partner keeps the lead (R6.2).'),
    gettext_noop('The right bomb'),
    gettext_noop('Beat the straight, keeping your strongest bomb.'),
    gettext_noop('Every bomb beats a straight.'),
    gettext_noop('Yes: any bomb beats a straight (R5.1); the four 4s do it and the six Qs stay for later (R5.2).'),
    gettext_noop('The lowest bomb that beats is enough: any bomb beats a straight (R5.1), so spend the four 4s and keep the six Qs (R5.2).'),
    gettext_noop('Stop the runner'),
    gettext_noop("Seat 2 has one card left after this pair. Don't let it go out."),
    gettext_noop('What happens if everyone passes?'),
    gettext_noop('Right: your bomb takes the trick, so seat 2 cannot lead its last card (R5.1, R6.5).'),
    gettext_noop('If you pass, seat 2 leads its last card and takes 1st place (R6.5). Bomb with the four 5s.'),
    gettext_noop('Feed your partner'),
    gettext_noop('Your partner holds one card. Lead so your partner can go out.'),
    gettext_noop('What can a player with one card play?'),
    gettext_noop('Right: a low single gives your partner the chance to beat it with the last card and go out (R6.5).'),
    gettext_noop('With one card left your partner can only play a single: lead your lowest single (R6.1).'),
    gettext_noop('Keep the bomb'),
    gettext_noop('Beat the 5 without breaking your bomb of 8s.'),
    gettext_noop('Which single beats a 5 and belongs to no combination?'),
    gettext_noop('Good: the Q beats the 5 and the four 8s stay a bomb (R4.8).'),
    gettext_noop('Beat the 5 with your Q: an 8 would break the bomb of 8s (R4.8), and passing gives the trick away.'),
    gettext_noop('Winner first'),
    gettext_noop('Go out in two plays.'),
    gettext_noop('Which of your plays can nobody beat?'),
    gettext_noop('Out in two: nobody can beat the pair of big jokers without a bomb, so you lead again and play the 3 (R6.5).'),
    gettext_noop('Lead the pair of big jokers first: it wins the trick (R5.1), then the 3 finishes. Led first, the 3 gives the lead away.'),
    gettext_noop('Ride the wind'),
    gettext_noop('Your partner just went out with an A. Make the best move.'),
    gettext_noop('Who leads after a player goes out?'),
    gettext_noop("Right: if nobody beats your partner's last card, the lead comes to you by the wind (R6.4), and your big joker stays in hand."),
    gettext_noop("No need to spend the big joker: pass, and if nobody beats your partner's last card the lead comes to you by the wind (R6.4)."),
    gettext_noop('A return that feeds nobody'),
    gettext_noop('Seat 2 paid you tribute. Give back a card that costs you nothing and helps them least.'),
    gettext_noop('Which card belongs to none of your combinations?'),
    gettext_noop('Good: the 3 is your only loose card, and a 3 completes fewer straights (R4.5) and pairs than any other card you may return (R8.4).'),
    gettext_noop('Return the 3: every other card you may return breaks your pair run, bomb, triples or pairs, and a low 3 fits the fewest straights of the opponent (R4.5, R8.4).'),
    gettext_noop('Which ace to pay'),
    gettext_noop('You came 4th and pay tribute with an ace. Keep your straight flush.'),
    gettext_noop('Both aces are legal. Which one belongs to a bomb?'),
    gettext_noop('Right: the ace of diamonds pays the tribute and 10-A of hearts stays a straight flush (R8.3, R4.9).'),
    gettext_noop('The tribute must be an ace (R8.1), but you choose which (R8.3): give the ace of diamonds and keep the straight flush 10-A of hearts.'),
    gettext_noop("No move made yet."),
    gettext_noop("Good start: now finish."),
)

# The results that carry a number (``drills._check_finish_in``).
_COUNTED = (
    (re.compile(r"Out in (?P<n>\d+) plays \(R6\.5\)\. (?P<example>.*)\Z", re.S),
     lambda m: _("Out in %(n)s plays (R6.5). %(example)s") % {"n": m["n"], "example": _(m["example"])}),
    (re.compile(r"That took more than (?P<n>\d+) plays \(R6\.5\)\. (?P<example>.*)\Z", re.S),
     lambda m: _("That took more than %(n)s plays (R6.5). %(example)s") % {"n": m["n"], "example": _(m["example"])}),
    (re.compile(r"Not out yet: (?P<n>\d+) plays so far\.\Z"),
     lambda m: _("Not out yet: %(n)s plays so far.") % {"n": m["n"]}),
)


def drill_text(text: str) -> str:
    """A drill's title, goal, hint or result message in the reader's language."""
    if not text:
        return ""
    for pattern, build in _COUNTED:
        m = pattern.match(text)
        if m:
            return build(m)
    return _(text)
