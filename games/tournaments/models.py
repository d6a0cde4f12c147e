"""Tournaments (R13): the event, its entrants (pairs of registered players), its boards,
its rounds and each round's tables.

Everything a tournament is lives in these rows, so it resumes after any restart from
the database alone: the status says what comes next, each round says whether it is
paired, playing or finished, each pairing names its table. Board results are never
copied here: they are the deals the tables played (``games.models.Deal``), read back by
``games.tournaments.selectors`` and scored by the pure ``games.tournaments.scoring``.

Seats: the pair listed first at a table (``ns``) sits in seats 1 and 3 (team A), the
other (``ew``) in seats 2 and 4 (team B) (R1.1).
"""

from decimal import Decimal

from django.conf import settings
from django.db import models
from django.db.models import F, Q
from django.utils.translation import gettext_lazy as _

from games.models import BotLevel, Table

MAX_ROUNDS = 15
MAX_BOARDS_PER_ROUND = 8


class Tournament(models.Model):
    """A tournament (R13.1): who runs it, its format and schedule, and where it stands."""

    class Format(models.TextChoices):
        DUPLICATE = "duplicate", _("Duplicate pairs")
        PLAIN = "plain", _("Plain pairs")

    class Status(models.TextChoices):
        REGISTERING = "registering", _("Registration open")
        CLOSED = "closed", _("Registration closed")
        RUNNING = "running", _("Running")
        FINISHED = "finished", _("Finished")
        CANCELLED = "cancelled", _("Cancelled")

    ROUND_BREAK_CHOICES = [
        (0, _("No pause")),
        (30, _("30 seconds")),
        (60, _("1 minute")),
        (120, _("2 minutes")),
        (300, _("5 minutes")),
        (600, _("10 minutes")),
    ]

    name = models.CharField(_("name"), max_length=80)
    organiser = models.ForeignKey(
        settings.AUTH_USER_MODEL, verbose_name=_("organiser"), on_delete=models.SET_NULL, null=True, blank=True,
        related_name="organised_tournaments",
    )
    format = models.CharField(_("format"), max_length=10, choices=Format.choices, default=Format.DUPLICATE,
                              help_text=_("Duplicate pairs compare tables that held the same cards (R13.4)."))
    rounds = models.PositiveSmallIntegerField(_("rounds"), default=3)
    boards_per_round = models.PositiveSmallIntegerField(_("boards per round"), default=4)
    think_time = models.PositiveSmallIntegerField(
        _("think time"), choices=Table.THINK_TIME_CHOICES, default=30, help_text=_("Seconds per turn (R9.2).")
    )
    bot_speed = models.DecimalField(_("bot speed"), max_digits=3, decimal_places=1, choices=Table.BOT_SPEED_CHOICES,
                                    default=Decimal("1.0"),
                                    help_text=_("Seconds the bot pair and the autopilot wait before they play."))
    bot_level = models.CharField(_("bot level"), max_length=10, choices=BotLevel.choices, default=BotLevel.NORMAL,
                                 help_text=_("The bot pair's and the autopilot's strength (R13.1, R13.5)."))
    registration_opens_at = models.DateTimeField(_("registration opens"))
    registration_closes_at = models.DateTimeField(_("registration closes"))
    starts_at = models.DateTimeField(_("starts"), help_text=_("When round 1 starts."))
    round_break = models.PositiveIntegerField(_("pause between rounds"), choices=ROUND_BREAK_CHOICES, default=120,
                                              help_text=_("Seconds from a round's end to the next round's start."))
    is_private = models.BooleanField(_("private"), default=False,
                                     help_text=_("Seen and entered only by invitation link."))
    invite_code = models.CharField(_("invitation code"), max_length=12, unique=True, null=True, blank=True)
    seed = models.BigIntegerField(_("seed"), help_text=_("Draws the boards and round 1's pairings (R13.2, R13.3)."))
    status = models.CharField(_("status"), max_length=12, choices=Status.choices, default=Status.REGISTERING)
    current_round = models.PositiveSmallIntegerField(_("current round"), default=0)
    note = models.CharField(_("note"), max_length=200, blank=True, help_text=_("Why it was cancelled, if it was."))
    created_at = models.DateTimeField(_("created"), auto_now_add=True)
    started_at = models.DateTimeField(_("started"), null=True, blank=True)
    finished_at = models.DateTimeField(_("finished"), null=True, blank=True)

    class Meta:
        verbose_name = _("tournament")
        verbose_name_plural = _("tournaments")
        ordering = ["-starts_at", "-id"]
        indexes = [models.Index(fields=["status", "starts_at"])]
        constraints = [
            models.CheckConstraint(
                condition=Q(registration_opens_at__lt=F("registration_closes_at"))
                & Q(registration_closes_at__lte=F("starts_at")),
                name="tournament_registration_before_start",
                violation_error_message=_("R13.1: registration opens, then closes, no later than the start."),
            ),
            models.CheckConstraint(condition=Q(rounds__gte=1) & Q(rounds__lte=MAX_ROUNDS), name="tournament_rounds_range"),
            models.CheckConstraint(condition=Q(boards_per_round__gte=1) & Q(boards_per_round__lte=MAX_BOARDS_PER_ROUND),
                                   name="tournament_boards_range"),
            models.CheckConstraint(condition=Q(current_round__lte=F("rounds")), name="tournament_current_round_range"),
            models.CheckConstraint(
                condition=(Q(is_private=True) & Q(invite_code__isnull=False))
                | (Q(is_private=False) & Q(invite_code__isnull=True)),
                name="tournament_invite_code_only_when_private",
            ),
            models.CheckConstraint(condition=Q(think_time__gte=5) & Q(think_time__lte=300),
                                   name="tournament_think_time_range"),
            models.CheckConstraint(condition=Q(bot_speed__gt=0), name="tournament_bot_speed_positive"),
        ]

    def __str__(self):
        return self.name

    @property
    def is_over(self) -> bool:
        return self.status in (self.Status.FINISHED, self.Status.CANCELLED)

    @property
    def boards_total(self) -> int:
        return self.rounds * self.boards_per_round


class Entrant(models.Model):
    """A pair (R13.1): one or two registered players, or the bot pair that plays the odd
    pair out. A player who registers alone is a pair of one until registration closes,
    when lone entrants are paired; one left over (``left_out``) does not play."""

    tournament = models.ForeignKey(Tournament, verbose_name=_("tournament"), on_delete=models.CASCADE,
                                   related_name="entrants")
    number = models.PositiveSmallIntegerField(_("number"), null=True, blank=True,
                                              help_text=_("Given when registration closes: 1, 2, 3 ..."))
    is_bot_pair = models.BooleanField(_("bot pair"), default=False,
                                      help_text=_("Plays the odd pair out; its results are not ranked (R13.1)."))
    partner_code = models.CharField(_("partner code"), max_length=16, unique=True, null=True, blank=True,
                                    help_text=_("The link a lone entrant sends a partner to join."))
    left_out = models.BooleanField(_("left out"), default=False,
                                   help_text=_("Registered alone and no partner was left at the close (R13.1)."))
    created_at = models.DateTimeField(_("registered"), auto_now_add=True)

    class Meta:
        verbose_name = _("entrant")
        verbose_name_plural = _("entrants")
        ordering = ["tournament", "number", "created_at", "id"]
        constraints = [
            models.UniqueConstraint(fields=["tournament", "number"], condition=Q(number__isnull=False),
                                    name="entrant_number_unique"),
            models.UniqueConstraint(fields=["tournament"], condition=Q(is_bot_pair=True), name="entrant_one_bot_pair"),
            models.CheckConstraint(condition=Q(is_bot_pair=False) | Q(partner_code__isnull=True),
                                   name="entrant_bot_pair_has_no_partner_code"),
        ]

    def __str__(self):
        if self.is_bot_pair:
            return str(_("Bot pair"))
        return " & ".join(r.name for r in self.registrations.all()) or str(_("Pair"))


class Registration(models.Model):
    """One player in one entrant (a player is in at most one entrant of a tournament).
    ``seen_at``: when the player last had the tournament's page open; a player not seen
    when a round starts is played by the autopilot for that round (R13.5)."""

    tournament = models.ForeignKey(Tournament, verbose_name=_("tournament"), on_delete=models.CASCADE,
                                   related_name="registrations")
    entrant = models.ForeignKey(Entrant, verbose_name=_("entrant"), on_delete=models.CASCADE,
                                related_name="registrations")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, verbose_name=_("player"), on_delete=models.CASCADE,
                             related_name="tournament_registrations")
    seen_at = models.DateTimeField(_("last seen"), null=True, blank=True)
    created_at = models.DateTimeField(_("registered"), auto_now_add=True)

    class Meta:
        verbose_name = _("registration")
        verbose_name_plural = _("registrations")
        ordering = ["entrant", "created_at", "id"]
        constraints = [
            models.UniqueConstraint(fields=["tournament", "user"], name="registration_one_per_player",
                                    violation_error_message=_("R13.1: a player enters a tournament once.")),
        ]

    def __str__(self):
        return self.name

    @property
    def name(self) -> str:
        profile = getattr(self.user, "profile", None)
        return profile.display_name if profile is not None else self.user.get_username()


class Board(models.Model):
    """A board (R13.2), drawn from the tournament's seed when registration closes and
    stored: never shown before it is played."""

    tournament = models.ForeignKey(Tournament, verbose_name=_("tournament"), on_delete=models.CASCADE,
                                   related_name="boards")
    round_number = models.PositiveSmallIntegerField(_("round"))
    number = models.PositiveSmallIntegerField(_("number"), help_text=_("Its place in the round: 1, 2, 3 ..."))
    seed = models.BigIntegerField(_("seed"))
    hands = models.JSONField(_("hands"), help_text=_("Four lists of card ids 0-107, seats 1-4."))
    level = models.PositiveSmallIntegerField(_("level"), help_text=_("Rank index: 0 is 2, 11 is K."))
    leader = models.PositiveSmallIntegerField(_("leading seat"), help_text=_("0-3 in code, seats 1-4 on screen."))

    class Meta:
        verbose_name = _("board")
        verbose_name_plural = _("boards")
        ordering = ["tournament", "round_number", "number"]
        constraints = [
            models.UniqueConstraint(fields=["tournament", "round_number", "number"], name="board_unique_number"),
            models.CheckConstraint(condition=Q(leader__lte=3), name="board_leader_range"),
            models.CheckConstraint(condition=Q(level__lte=11), name="board_level_range"),
        ]

    def __str__(self):
        return _("Round %(round)s, board %(number)s") % {"round": self.round_number, "number": self.number}

    def as_table_board(self) -> dict:
        """What a tournament table keeps of it (``games.models.Match.boards``)."""
        return {"number": self.number, "seed": self.seed, "hands": self.hands, "level": self.level,
                "leader": self.leader}


class Round(models.Model):
    """A round (R13.3): paired (its pairings public), then playing, then finished, with
    the standings after it."""

    class Status(models.TextChoices):
        PAIRED = "paired", _("Paired")
        PLAYING = "playing", _("Playing")
        FINISHED = "finished", _("Finished")

    tournament = models.ForeignKey(Tournament, verbose_name=_("tournament"), on_delete=models.CASCADE,
                                   related_name="round_set")
    number = models.PositiveSmallIntegerField(_("number"))
    status = models.CharField(_("status"), max_length=10, choices=Status.choices, default=Status.PAIRED)
    starts_at = models.DateTimeField(_("starts"))
    started_at = models.DateTimeField(_("started"), null=True, blank=True)
    finished_at = models.DateTimeField(_("finished"), null=True, blank=True)
    standings = models.JSONField(_("standings after the round"), null=True, blank=True)

    class Meta:
        verbose_name = _("round")
        verbose_name_plural = _("rounds")
        ordering = ["tournament", "number"]
        constraints = [
            models.UniqueConstraint(fields=["tournament", "number"], name="round_unique_number"),
            models.CheckConstraint(condition=~Q(status="finished") | Q(standings__isnull=False),
                                   name="round_finished_has_standings"),
        ]

    def __str__(self):
        return _("Round %(number)s") % {"number": self.number}


class Pairing(models.Model):
    """One table of a round: ``ns`` in seats 1 and 3, ``ew`` in seats 2 and 4, and the
    table they play at once the round starts."""

    round = models.ForeignKey(Round, verbose_name=_("round"), on_delete=models.CASCADE, related_name="pairings")
    number = models.PositiveSmallIntegerField(_("table number"))
    ns = models.ForeignKey(Entrant, verbose_name=_("seats 1 & 3"), on_delete=models.CASCADE, related_name="+")
    ew = models.ForeignKey(Entrant, verbose_name=_("seats 2 & 4"), on_delete=models.CASCADE, related_name="+")
    table = models.OneToOneField(Table, verbose_name=_("table"), on_delete=models.SET_NULL, null=True, blank=True,
                                 related_name="tournament_pairing")
    absent = models.JSONField(_("absent at the start"), default=list, blank=True,
                              help_text=_("User ids the autopilot played from the round's start (R13.5)."))

    class Meta:
        verbose_name = _("pairing")
        verbose_name_plural = _("pairings")
        ordering = ["round", "number"]
        constraints = [
            models.UniqueConstraint(fields=["round", "number"], name="pairing_unique_table_number"),
            models.UniqueConstraint(fields=["round", "ns"], name="pairing_ns_once_a_round"),
            models.UniqueConstraint(fields=["round", "ew"], name="pairing_ew_once_a_round"),
            models.CheckConstraint(condition=~Q(ns=F("ew")), name="pairing_two_different_pairs"),
        ]

    def __str__(self):
        return _("Table %(number)s of %(round)s") % {"number": self.number, "round": self.round}
