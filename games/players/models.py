"""Ratings (R10.10), every player's record of deals, and season standings (R10.11).

Only ``games.players.services`` writes these, inside the transaction that settles a deal
(``games.live.door``), so a deal's rating changes and its record are never half written.
A rating change is stored with its deal (player, deal, before, after): a player's history
can be drawn, and ``manage.py recompute_ratings`` recomputes every rating from the stored
deals alone.
"""

import datetime

from django.conf import settings
from django.db import models
from django.db.models import F, Q
from django.utils.translation import gettext_lazy as _

from games.models import Deal, Match, Table
from games.players import rating


def season_of(moment: datetime.datetime) -> datetime.date:
    """The season a moment falls in: the first day of its calendar month (R10.11), in
    the site's time zone (UTC)."""
    return moment.date().replace(day=1)


class Rating(models.Model):
    """A registered player's match rating (R10.10): the team model's mean and
    uncertainty, and how many rated deals it rests on (provisional below 20)."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, verbose_name=_("player"), on_delete=models.CASCADE, related_name="rating",
        primary_key=True,
    )
    mu = models.FloatField(_("rating"), default=rating.START_MU, help_text=_("The team model's mean; shown rounded."))
    sigma = models.FloatField(_("uncertainty"), default=rating.START_SIGMA)
    rated_deals = models.PositiveIntegerField(_("rated deals"), default=0)
    rated_at = models.DateTimeField(_("last rated"), null=True, blank=True)

    class Meta:
        verbose_name = _("rating")
        verbose_name_plural = _("ratings")
        ordering = ["-mu", "user_id"]
        indexes = [
            # The leaderboards: established and provisional ratings, each best first.
            models.Index(F("mu").desc(), F("user").asc(), name="rating_established",
                         condition=Q(rated_deals__gte=rating.PROVISIONAL_DEALS)),
            models.Index(F("mu").desc(), F("user").asc(), name="rating_provisional",
                         condition=Q(rated_deals__gt=0, rated_deals__lt=rating.PROVISIONAL_DEALS)),
        ]
        constraints = [models.CheckConstraint(condition=Q(sigma__gt=0), name="rating_sigma_positive")]

    def __str__(self):
        return f"{self.user} {self.shown}"

    @property
    def shown(self) -> str:
        return rating.shown(self.mu, self.rated_deals)

    @property
    def provisional(self) -> bool:
        return self.rated_deals < rating.PROVISIONAL_DEALS

    @property
    def skill(self) -> rating.Skill:
        return rating.Skill(self.mu, self.sigma)


class RatingChange(models.Model):
    """One deal's change of one player's rating: before and after."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, verbose_name=_("player"), on_delete=models.CASCADE, related_name="rating_changes"
    )
    deal = models.ForeignKey(Deal, verbose_name=_("deal"), on_delete=models.CASCADE, related_name="rating_changes")
    position = models.PositiveSmallIntegerField(_("seat position"))
    won = models.BooleanField(_("won"))
    mu_before = models.FloatField(_("rating before"))
    sigma_before = models.FloatField(_("uncertainty before"))
    mu_after = models.FloatField(_("rating after"))
    sigma_after = models.FloatField(_("uncertainty after"))
    rated_deals = models.PositiveIntegerField(_("rated deals after"))
    created_at = models.DateTimeField(_("time"))

    class Meta:
        verbose_name = _("rating change")
        verbose_name_plural = _("rating changes")
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["user", "created_at"], name="rating_change_history")]
        constraints = [
            models.UniqueConstraint(fields=["user", "deal"], name="rating_change_once_per_deal"),
            models.CheckConstraint(condition=Q(position__lte=3), name="rating_change_position_range"),
        ]

    def __str__(self):
        return f"{self.user} {self.shown_before} -> {self.shown_after}"

    @property
    def delta(self) -> int:
        return round(self.mu_after) - round(self.mu_before)

    @property
    def shown_before(self) -> str:
        return rating.shown(self.mu_before, self.rated_deals - 1)

    @property
    def shown_after(self) -> str:
        return rating.shown(self.mu_after, self.rated_deals)


class PlayedDeal(models.Model):
    """One finished deal as one human player played it: the record behind the player
    page's figures (deals, wins, 头游, partners, accuracy)."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, verbose_name=_("player"), on_delete=models.CASCADE, related_name="played_deals"
    )
    deal = models.ForeignKey(Deal, verbose_name=_("deal"), on_delete=models.CASCADE, related_name="played_by")
    match = models.ForeignKey(Match, verbose_name=_("match"), on_delete=models.CASCADE, related_name="+")
    table_kind = models.CharField(_("table kind"), max_length=10, choices=Table.Kind.choices)
    position = models.PositiveSmallIntegerField(_("seat position"))
    place = models.PositiveSmallIntegerField(_("place"), help_text=_("1 for 1st ... 4 for last."))
    won = models.BooleanField(_("won"), help_text=_("The player's team took 1st place (R6.6)."))
    advance = models.SmallIntegerField(
        _("level change"), help_text=_("The winners' levels advanced (R7.1): positive when won, negative when lost.")
    )
    partner = models.ForeignKey(
        settings.AUTH_USER_MODEL, verbose_name=_("partner"), on_delete=models.SET_NULL, null=True, blank=True,
        related_name="+", help_text=_("Empty when a bot was the partner."),
    )
    assisted = models.BooleanField(
        _("mostly automatic"), default=False, help_text=_("The autopilot played most of the seat's decisions (R10.8).")
    )
    accuracy = models.FloatField(_("accuracy"), null=True, blank=True, help_text=_("From the deal's analysis."))
    finished_at = models.DateTimeField(_("finished"))

    class Meta:
        verbose_name = _("played deal")
        verbose_name_plural = _("played deals")
        ordering = ["-finished_at", "-id"]
        indexes = [models.Index(fields=["user", "finished_at"], name="played_deal_history")]
        constraints = [
            models.UniqueConstraint(fields=["user", "deal"], name="played_deal_once"),
            models.CheckConstraint(condition=Q(place__gte=1, place__lte=4), name="played_deal_place_range"),
        ]

    def __str__(self):
        return f"{self.user} {self.deal}"


class SeasonScore(models.Model):
    """A player's season (a calendar month, R10.11): career points earned in it and the
    rating after their last rated deal in it."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, verbose_name=_("player"), on_delete=models.CASCADE, related_name="season_scores"
    )
    season = models.DateField(_("season"), help_text=_("The first day of the month."))
    points = models.IntegerField(_("career points"), default=0)
    rated_deals = models.PositiveIntegerField(_("rated deals"), default=0)
    mu = models.FloatField(_("rating"), null=True, blank=True)
    provisional = models.BooleanField(_("provisional"), default=True)

    class Meta:
        verbose_name = _("season score")
        verbose_name_plural = _("season scores")
        ordering = ["-season", "-points"]
        indexes = [
            models.Index(F("season").asc(), F("points").desc(), F("user").asc(), name="season_points"),
            models.Index(F("season").asc(), F("mu").desc(), F("user").asc(), name="season_rating",
                         condition=Q(rated_deals__gt=0)),
        ]
        constraints = [models.UniqueConstraint(fields=["user", "season"], name="season_score_once")]

    def __str__(self):
        return f"{self.user} {self.season:%Y-%m}"
