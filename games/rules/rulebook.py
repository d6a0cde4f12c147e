"""The site's ruleset (``RULES.md``) written for players, one entry per rule id.

Plain data with translated words: the rules page draws it (``games/rules/views.py``),
and tests check that every rule id the code cites has its entry. Examples are card
faces in the R1.4 notation, drawn with the site's own cards.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from django.utils.translation import gettext_lazy as _


@dataclass(frozen=True)
class Example:
    faces: str  # R1.4 faces, space separated
    level: str  # the active level the example is read at
    caption: object  # a translated caption


@dataclass(frozen=True)
class Rule:
    id: str
    text: object
    examples: tuple[Example, ...] = ()


@dataclass(frozen=True)
class Section:
    id: str
    title: object
    rules: tuple[Rule, ...] = field(default_factory=tuple)
    intro: object = ""


SECTIONS: tuple[Section, ...] = (
    Section("R1", _("Table, deck, teams"), (
        Rule("R1.1", _("Four seats, numbered 1 to 4. Seats 1 and 3 are team A, seats 2 and 4 team B: partners sit "
                       "opposite each other.")),
        Rule("R1.2", _("Play goes from seat to seat in increasing number (1, 2, 3, 4, then 1 again), which is "
                       "counter-clockwise at a real table. Seats that have emptied their hand are skipped.")),
        Rule("R1.3", _("Two full decks of 54 cards: 108 cards. Every card face exists twice, every ordinary rank eight "
                       "times, and there are two small and two big jokers. Each seat is dealt 27 cards.")),
        Rule("R1.4", _("Cards are written as rank and suit: ranks 2 to 10, J, Q, K, A and suits spades, hearts, clubs, "
                       "diamonds (TH is the 10 of hearts); SJ is the small joker, BJ the big joker. The site draws "
                       "suits as symbols."), (Example("TH 2S AD SJ BJ", "2", _("10 of hearts, 2 of spades, ace of diamonds, small and big joker")),)),
    )),
    Section("R2", _("Levels and card strength"), (
        Rule("R2.1", _("Levels run 2, 3, 4 ... 10, J, Q, K, A. Each team has its own level; both start at 2.")),
        Rule("R2.2", _("The active level of a deal is the level of the team that came first in the previous deal; "
                       "the first deal of a match plays 2. All four seats play the same level.")),
        Rule("R2.3", _("The eight cards of the active rank are level cards. In singles, pairs, triples, full houses "
                       "and rank bombs the order is: big joker, small joker, the level rank, then A, K, Q ... 3, 2. "
                       "Suit never breaks a tie."), (Example("BJ SJ 7S AS KS 2S", "7", _("At level 7, from the strongest: a 7 beats an ace")),)),
        Rule("R2.4", _("In straights, pair runs, triple runs and straight flushes every rank, the level rank too, "
                       "keeps its natural place on the chain A-2-3 ... K-A. The ace may be low (A-2-3-4-5) or high "
                       "(10-J-Q-K-A), never in the middle: Q-K-A-2-3 is not a straight."),
             (Example("AS 2H 3C 4D 5S", "7", _("The lowest straight")), Example("TS JH QC KD AS", "7", _("The highest straight")))),
    )),
    Section("R3", _("Wild cards"), (
        Rule("R3.1", _("The two hearts of the active rank are wild. The other six level cards are not wild, nor are "
                       "hearts of other ranks."), (Example("7H 7H", "7", _("At level 7 the two 7 of hearts are wild")),)),
        Rule("R3.2", _("In a combination with at least one card that is not a wild, a wild may stand for any card "
                       "but a joker, to complete a pair, triple, full house, straight, pair run, triple run, bomb or "
                       "straight flush. One card fills one place."),
             (Example("9S 9C 7H", "7", _("A wild completes three 9s")),)),
        Rule("R3.3", _("A wild never stands for a joker and never joins the joker bomb.")),
        Rule("R3.4", _("A wild may also be played as itself: alone it is a level single, the two wilds together a "
                       "level pair.")),
        Rule("R3.5", _("The card never changes, only how the play is read. When the same cards can be read several "
                       "ways (a straight high or low, three cards and two wilds as a full house or a bomb), the "
                       "player chooses: the table shows one \"Play as\" button for each. A single legal reading is "
                       "taken at once."), (Example("QS QC QD 7H 7H", "7", _("Full house or bomb of five Qs: the player chooses")),)),
    )),
    Section("R4", _("Combinations"), (
        Rule("R4.1", _("Single: one card."), (Example("KS", "2", _("Single K")),)),
        Rule("R4.2", _("Pair: two cards of one rank, or two small jokers, or two big jokers. A small and a big joker "
                       "are not a pair."), (Example("8S 8D", "2", _("Pair of 8s")),)),
        Rule("R4.3", _("Triple: three cards of one rank (no jokers)."), (Example("5S 5H 5C", "2", _("Three 5s")),)),
        Rule("R4.4", _("Full house: a triple and a pair of another rank, five cards, no jokers. Only the triple "
                       "counts."), (Example("JS JH JC 4S 4D", "2", _("Full house, three Js")),)),
        Rule("R4.5", _("Straight: five consecutive ranks of any suits, no jokers, exactly five cards. It is "
                       "compared by its top card."), (Example("6S 7H 8C 9D TS", "2", _("Straight 6-10")),)),
        Rule("R4.6", _("Pair run: three consecutive pairs, six cards."), (Example("3S 3H 4C 4D 5S 5H", "9", _("Pair run 3-5")),)),
        Rule("R4.7", _("Triple run: two consecutive triples, six cards."), (Example("9S 9H 9C TS TH TD", "2", _("Triple run 9-10")),)),
        Rule("R4.8", _("Rank bomb: 4 to 10 cards of one rank (eight natural cards and up to two wilds)."),
             (Example("6S 6H 6C 6D", "2", _("Bomb of four 6s")),)),
        Rule("R4.9", _("Straight flush: five consecutive ranks all of one suit. It is a bomb."),
             (Example("4C 5C 6C 7C 8C", "2", _("Straight flush 4-8")),)),
        Rule("R4.10", _("Joker bomb: exactly the four jokers, the strongest play of all."),
             (Example("SJ SJ BJ BJ", "2", _("Joker bomb")),)),
        Rule("R4.11", _("Nothing else is a combination: no triple with a single, no four with attachments, no runs "
                        "of four pairs or three triples, no six-card straights, no plain flush.")),
        Rule("R4.12", _("Five cards of one suit in sequence are a straight flush, not a straight. With a wild, the "
                        "ordinary straight is offered only where the wild takes another suit; then both readings "
                        "are offered.")),
    )),
    Section("R5", _("Beating a play"), (
        Rule("R5.1", _("An ordinary play is beaten only by a higher play of the same shape, or by any bomb. The same "
                       "number of cards is not enough: a full house never beats a straight.")),
        Rule("R5.2", _("The bomb ladder, from low to high: 4-card bomb, 5-card bomb, straight flush, 6-card, 7-card, "
                       "8-card, 9-card, 10-card bomb, joker bomb. On one rung, rank bombs compare their rank and "
                       "straight flushes their top card.")),
        Rule("R5.3", _("Equal never beats equal. Nothing beats the joker bomb.")),
    )),
    Section("R6", _("Tricks, wind and finishing"), (
        Rule("R6.1", _("The leader plays any combination; a leader cannot pass.")),
        Rule("R6.2", _("In turn, each other seat with cards plays a higher combination or passes. Passing is always "
                       "allowed and only skips this turn: the seat may still play later in the same trick.")),
        Rule("R6.3", _("The trick ends when every other seat with cards has passed since the last play; the seat "
                       "that played last leads the next trick.")),
        Rule("R6.4", _("Wind: when that seat has just played its last card, its partner leads the next trick. A "
                       "finishing play may still be beaten first; then play goes on as usual.")),
        Rule("R6.5", _("Places: the first seat to empty its hand is 1st, then 2nd, 3rd and 4th.")),
        Rule("R6.6", _("The deal ends as soon as 1st's partner finishes (1-2 or 1-3), or when three seats have "
                       "finished. The team of the 1st wins the deal.")),
    )),
    Section("R7", _("Promotion and winning the match"), (
        Rule("R7.1", _("Only the winning team goes up, from its own level: partner 2nd +3 levels (the opponents "
                       "are double-down), 3rd +2, 4th +1. The losers keep their level. Points on cards and bombs "
                       "add nothing.")),
        Rule("R7.2", _("Levels stop at A. Reaching A (say K +2) does not win the match.")),
        Rule("R7.3", _("A team wins the match when, in a deal at A that is its own level, it comes 1st and its "
                       "partner 2nd or 3rd. A 1-4 finish at A only wins the deal: the team stays at A.")),
    )),
    Section("R8", _("Tribute, return, resistance"), (
        Rule("R8.1", _("Single tribute (previous deal not 1-2): the previous 4th gives the previous 1st its highest "
                       "card other than a wild, by the new deal's level.")),
        Rule("R8.2", _("Double tribute (previous deal 1-2): both losers each give their highest card other than a "
                       "wild. The higher gift goes to 1st, the lower to 2nd; with equal gifts, the donor first in "
                       "seat order after 1st gives to 1st.")),
        Rule("R8.3", _("With several cards of that highest rank, the donor chooses which one to give.")),
        Rule("R8.4", _("Return: each recipient gives one card back to its donor: a card ranked 2 to 10, not a level "
                       "card, not a joker, and never the card just received. With no such card, the weakest card "
                       "other than the gift goes back.")),
        Rule("R8.5", _("Resistance: a single tribute is cancelled when the 4th holds both big jokers; a double "
                       "tribute when the two donors hold both big jokers between them. Then there are no gifts and "
                       "no returns."), (Example("BJ BJ", "2", _("Both big jokers: no tribute")),)),
        Rule("R8.6", _("First lead: in the first deal of a match a seat drawn by lot; after a single tribute the "
                       "donor; after a double tribute the donor whose gift went to 1st; after resistance the "
                       "previous 1st. Play starts only when every return is done.")),
    )),
    Section("R9", _("Table conventions of this site"), (
        Rule("R9.1", _("An action the rules do not allow is refused with the reason and its rule; the cards stay in "
                       "the hand and nothing changes. There is no penalty.")),
        Rule("R9.2", _("Each turn has a think time (30 seconds unless the table says otherwise). When it runs out: "
                       "a follower passes, a leader plays its lowest single that breaks no combination, tribute and "
                       "return are chosen automatically. After two timeouts in a row the autopilot plays for the "
                       "seat until its player acts again.")),
        Rule("R9.3", _("Every seat's card count is shown once it is 10 or fewer.")),
        Rule("R9.4", _("A seat that has finished may see its partner's remaining cards.")),
        Rule("R9.5", _("Both teams' levels are shown from your side (\"Us 8 / Them 5\"), with the active level and "
                       "the wild cards.")),
        Rule("R9.6", _("The settlement explains the promotion in words, including R7.2 and R7.3.")),
    )),
    Section("R10", _("Table kinds"), (
        Rule("R10.1", _("Match tables come in three tiers: Junior, Senior and Grandmaster. Finished deals earn career "
                        "points for registered players; bots and guests earn none.")),
        Rule("R10.2", _("A waiting table with at least two players seated may fill its empty seats with bots and "
                        "start. A player alone cannot.")),
        Rule("R10.3", _("Friend tables are private, joined by invitation link or code, and earn no career points.")),
        Rule("R10.4", _("Practice tables seat one player and three bots, earn no points, and have drills, the coach "
                        "and a bot speed. Others may watch but not sit.")),
        Rule("R10.5", _("A player takes an empty seat and may switch seats before the match starts. When all four "
                        "seats are taken, the host (the creator, else the lowest seat) starts the match.")),
        Rule("R10.6", _("Career points (match tables only): after each deal every winner earns the levels advanced "
                        "times the tier factor (Junior 1, Senior 2, Grandmaster 3); the match winners earn 10 times "
                        "the factor more. Losing costs nothing.")),
        Rule("R10.7", _("Tiers open by career points: Junior to everyone, Senior from 100, Grandmaster from 500. "
                        "Leaving a match in progress costs 10 times the tier factor (never below 0); a bot keeps "
                        "the seat and the player may come back.")),
        Rule("R10.8", _("Fair play: suggestions, auto play and the coach are for friend and practice tables only. A "
                        "seat played by the autopilot for more than half of its decisions in a deal earns no points "
                        "for it. A table without players for 10 minutes closes. In the same spirit, the card "
                        "counter (how many cards of each rank are still out, counted from your own hand and the "
                        "cards played) is open at practice tables, at friend tables whose host allows it, and never "
                        "at match tables.")),
        Rule("R10.9", _("Quick play: a registered player asks for a match table of a tier open to them "
                        "with one action and waits in that tier's queue. Waiting players are seated four to a new "
                        "match table, longest wait first; two friends who queue together as partners sit opposite "
                        "each other. When two or three players have waited 20 seconds, they are seated with bots in "
                        "the other seats (R10.2); a player alone keeps waiting. A player waits in one queue at a "
                        "time, never while seated at a match in progress, and leaves the queue by cancelling or by "
                        "leaving the site (no page of it open).")),
        Rule("R10.10", _("Rating: besides career points, every registered player has a match rating. After each "
                         "finished deal at a match table the ratings of its players change by a team rating model: "
                         "partners are a team, and the team that took 1st place wins. Bots have a fixed rating "
                         "that never changes. A deal that earns a player no points (R10.8) does not change their "
                         "rating. A rating is provisional, shown with \"?\", for a player's first 20 rated "
                         "deals.")),
        Rule("R10.11", _("Leaderboards rank players by rating and by career points, over the current season (a "
                         "calendar month) and all time; provisional ratings are listed apart.")),
    )),
    Section("R11", _("Replays"), (
        Rule("R11.1", _("A deal is fully set by its hands, its levels and its list of actions, so every finished "
                        "deal can be replayed step by step exactly as it was played.")),
    )),
    Section("R13", _("Tournaments and duplicate play"), (
        Rule("R13.1", _("A tournament has an organiser, a format (duplicate pairs or plain pairs), a number of "
                        "rounds, the boards per round, a start time and a registration window. Entrants are pairs "
                        "of registered players; a player who registers alone is paired with another lone entrant "
                        "when registration closes. An odd pair out plays against a bot pair, whose results are not "
                        "ranked.")),
        Rule("R13.2", _("A board is one deal fixed in advance: the four hands, the level (both teams play at it; "
                        "this site draws it from 2 to K) and the seat that leads. Every table of a round plays the "
                        "same boards in the same order, each as a single deal with no tribute; the other rules "
                        "apply as usual.")),
        Rule("R13.3", _("Pairing: round 1 is drawn at random; later rounds are Swiss: pairs with the closest totals "
                        "meet, and no two pairs meet twice while that can be avoided.")),
        Rule("R13.4", _("Duplicate scoring: a pair's result on a board is the level change from its side, signed: "
                        "+3, +2 or +1 when it takes 1st, -3, -2 or -1 when its opponents do. It is compared with "
                        "every pair that held the same seats' cards at the other tables: 2 match points for each "
                        "pair it outscored, 1 for each tie. Its score is its match points as a percentage of the "
                        "most it could have had. Plain scoring: the sum of its signed results. Ties in the "
                        "standings: the opponents' scores, then head to head.")),
        Rule("R13.5", _("An entrant absent when a round starts, or away for longer than two think times in a row, "
                        "is played by the autopilot for the rest of that round; its results count and are marked.")),
        Rule("R13.6", _("Standings, every board's comparison (each table's result with its replay) and the next "
                        "round's pairings are public once the round's last board ends. While a round is in play no "
                        "one sees another table's result on a board they have not finished.")),
    )),
)

# The worked example of duplicate scoring (R13.4) the rules page draws as a table: one
# board at four tables, (table, result of seats 1 & 3, its match points, result of seats
# 2 & 4, its match points); the most on a board of four tables is 6 (tests check these
# against games.tournaments.scoring).
DUPLICATE_EXAMPLE: tuple[tuple[int, int, int, int, int], ...] = (
    (1, 3, 6, -3, 0),
    (2, 1, 3, -1, 3),
    (3, 1, 3, -1, 3),
    (4, -2, 0, 2, 6),
)
DUPLICATE_EXAMPLE_TOP = 6


def rule_ids() -> list[str]:
    """Every rule id and section id the page has an anchor for."""
    ids = []
    for section in SECTIONS:
        ids.append(section.id)
        ids.extend(rule.id for rule in section.rules)
    return ids


# The bomb ladder (R5.2) as the page draws it, low to high: (faces, level, caption).
BOMB_LADDER: tuple[Example, ...] = (
    Example("6S 6H 6C 6D", "2", _("4-card bomb")),
    Example("6S 6H 6C 6D 6S", "2", _("5-card bomb")),
    Example("4C 5C 6C 7C 8C", "2", _("Straight flush")),
    Example("9S 9H 9C 9D 9S 9H", "2", _("6-card bomb")),
    Example("9S 9H 9C 9D 9S 9H 9C", "2", _("7-card bomb")),
    Example("9S 9H 9C 9D 9S 9H 9C 9D", "2", _("8-card bomb")),
    Example("SJ SJ BJ BJ", "2", _("Joker bomb")),
)
