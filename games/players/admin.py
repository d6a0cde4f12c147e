"""Admin for ratings (R10.10), players' records and season scores (R10.11).

Shown read-only: ratings change only at settlements and by recomputing them from the
stored deals (the action below, or ``manage.py recompute_ratings``), so they always
agree with the deals behind them."""

from django.contrib import admin, messages
from django.utils.translation import gettext_lazy as _

from games.players import services
from games.players.models import PlayedDeal, Rating, RatingChange, SeasonScore


class ReadOnlyAdmin(admin.ModelAdmin):
    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False


@admin.register(Rating)
class RatingAdmin(ReadOnlyAdmin):
    list_display = ("user", "shown", "mu", "sigma", "rated_deals", "rated_at")
    search_fields = ("user__username", "user__profile__display_name")
    ordering = ("-mu",)
    actions = ["recompute"]

    @admin.display(description=_("shown"))
    def shown(self, rating):
        return rating.shown

    @admin.action(description=_("Recompute every rating from the stored deals"))
    def recompute(self, request, queryset):
        outcome = services.recompute_ratings()
        self.message_user(request, _("%(deals)s deals, %(changes)s rating changes; %(differ)s ratings differed.") % outcome,
                          messages.SUCCESS)


@admin.register(RatingChange)
class RatingChangeAdmin(ReadOnlyAdmin):
    list_display = ("user", "deal", "position", "won", "shown_before", "shown_after", "created_at")
    list_filter = ("won",)
    search_fields = ("user__username", "=deal__id")
    raw_id_fields = ("user", "deal")
    date_hierarchy = "created_at"


@admin.register(PlayedDeal)
class PlayedDealAdmin(ReadOnlyAdmin):
    list_display = ("user", "deal", "table_kind", "position", "place", "won", "advance", "partner", "assisted",
                    "accuracy", "finished_at")
    list_filter = ("table_kind", "won", "place", "assisted")
    search_fields = ("user__username", "=deal__id")
    raw_id_fields = ("user", "deal", "match", "partner")
    date_hierarchy = "finished_at"


@admin.register(SeasonScore)
class SeasonScoreAdmin(ReadOnlyAdmin):
    list_display = ("user", "season", "points", "rated_deals", "mu", "provisional")
    list_filter = ("season", "provisional")
    search_fields = ("user__username",)
