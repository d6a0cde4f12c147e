"""Admin for tables, seats, matches, deals and the action log.

The action log is append-only: it is shown read-only, in order, and never edited here.
Closing a table goes through ``games.tables.services.close_table`` like everywhere else.
"""

from django.contrib import admin, messages
from django.urls import reverse
from django.utils.html import format_html_join
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from games.analysis import services as analysis_services
from games.models import Action, Deal, DealAnalysis, Match, Participant, Seat, Table
from games.tables import services


class SeatInline(admin.TabularInline):
    model = Seat
    extra = 0
    fields = ("position", "user", "is_bot", "bot_level", "away_user", "autopilot")
    raw_id_fields = ("user", "away_user")


@admin.register(Table)
class TableAdmin(admin.ModelAdmin):
    list_display = ("id", "kind", "tier", "status", "host", "seat_summary", "think_time", "bot_speed", "created_at")
    list_filter = ("kind", "tier", "status", "bot_level")
    search_fields = ("=id", "invite_code", "host__username", "seats__user__username", "seats__user__profile__display_name")
    raw_id_fields = ("host",)
    readonly_fields = ("created_at", "updated_at")
    inlines = [SeatInline]
    actions = ["close_tables"]
    date_hierarchy = "created_at"

    def get_queryset(self, request):
        return super().get_queryset(request).select_related("host").prefetch_related("seats__user")

    @admin.display(description=_("seats"))
    def seat_summary(self, table):
        seats = {seat.position: seat for seat in table.seats.all()}
        labels = []
        for position in range(4):
            seat = seats.get(position)
            if seat is None:
                labels.append((position + 1, _("empty")))
            elif seat.is_bot:
                labels.append((position + 1, _("bot")))
            else:
                labels.append((position + 1, seat.user.get_username()))
        return format_html_join(", ", "{}: {}", labels)

    @admin.action(description=_("Close the selected tables"))
    def close_tables(self, request, queryset):
        closed = 0
        for table in queryset:
            try:
                services.close_table(table=table, user=request.user)
            except services.TableError as error:
                self.message_user(request, f"{table}: {error.message}", messages.WARNING)
            else:
                closed += 1
        if closed:
            self.message_user(
                request,
                ngettext("Closed %(count)d table.", "Closed %(count)d tables.", closed) % {"count": closed},
                messages.SUCCESS,
            )


@admin.register(Seat)
class SeatAdmin(admin.ModelAdmin):
    list_display = ("table", "position", "user", "is_bot", "bot_level", "away_user", "autopilot", "seated_at")
    list_filter = ("is_bot", "autopilot", "table__kind", "table__status")
    search_fields = ("=table__id", "user__username", "away_user__username")
    raw_id_fields = ("table", "user", "away_user")
    list_select_related = ("table", "user", "away_user")


class ParticipantInline(admin.TabularInline):
    model = Participant
    extra = 0
    fields = ("position", "user", "is_bot", "bot_level")
    readonly_fields = fields
    can_delete = False

    def has_add_permission(self, request, obj=None):
        return False


class DealInline(admin.TabularInline):
    model = Deal
    extra = 0
    fields = ("number", "active_level", "seq", "started_at", "finished_at")
    readonly_fields = fields
    show_change_link = True
    can_delete = False

    def has_add_permission(self, request, obj=None):
        return False


@admin.register(Match)
class MatchAdmin(admin.ModelAdmin):
    list_display = ("id", "table", "number", "status", "level_a", "level_b", "winner_team", "started_at", "finished_at")
    list_filter = ("status", "table__kind", "table__tier")
    search_fields = ("=id", "=table__id", "participants__user__username")
    raw_id_fields = ("table",)
    readonly_fields = ("started_at",)
    list_select_related = ("table",)
    inlines = [ParticipantInline, DealInline]

    def view_on_site(self, obj):
        """The match history page (its deals, results and replays)."""
        return reverse("replays:match", args=[obj.pk])


@admin.register(Participant)
class ParticipantAdmin(admin.ModelAdmin):
    list_display = ("match", "position", "user", "is_bot", "bot_level")
    list_filter = ("is_bot",)
    search_fields = ("=match__id", "=match__table__id", "user__username")
    raw_id_fields = ("match", "user")
    list_select_related = ("match", "user")


class ActionInline(admin.TabularInline):
    """The deal's action log, read-only and in order (R11.1: the log is the truth)."""

    model = Action
    extra = 0
    ordering = ("seq",)
    fields = ("seq", "seat", "kind", "cards", "reading", "actor", "user", "created_at")
    readonly_fields = fields
    can_delete = False

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False


@admin.register(Deal)
class DealAdmin(admin.ModelAdmin):
    list_display = ("id", "match", "number", "active_level", "seq", "ruleset_version", "started_at", "finished_at")
    list_filter = ("ruleset_version", "match__table__kind")
    search_fields = ("=id", "=match__id", "=match__table__id", "match__participants__user__username")
    list_select_related = ("match",)
    inlines = [ActionInline]
    actions = ["analyse_deals"]

    # A deal is its hands and its action log, written by the door only (the snapshot is
    # the log's fold; the web processes keep the newest step they served and trust the
    # stored one to match it): shown here, never edited.
    def get_readonly_fields(self, request, obj=None):
        return [field.name for field in Deal._meta.fields]

    def has_add_permission(self, request):
        return False

    def view_on_site(self, obj):
        """The deal's replay (refused to outsiders while the deal is in progress)."""
        return reverse("replays:deal", args=[obj.pk])

    @admin.action(description=_("Analyse the selected deals (again, if analysed)"))
    def analyse_deals(self, request, queryset):
        """Queue the analysis of each finished deal (a fresh one where one is stored);
        deals in play are refused with the rule (R9.3)."""
        queued = 0
        for deal in queryset.select_related("match"):
            try:
                analysis_services.request_analysis(deal=deal, user=request.user, force=True)
            except analysis_services.AnalysisError as error:
                self.message_user(request, f"{deal}: {error.message}", messages.WARNING)
            else:
                queued += 1
        if queued:
            self.message_user(request, ngettext(
                "%(count)d analysis queued.", "%(count)d analyses queued.", queued) % {"count": queued})


@admin.register(DealAnalysis)
class DealAnalysisAdmin(admin.ModelAdmin):
    """Stored analyses: listed and shown; made by the deal admin's action, the replay's
    button, a practice deal's end or the ``analyse_deals`` command, never edited here."""

    list_display = ("deal", "status", "version", "done", "total", "requested_by", "requested_at", "finished_at")
    list_filter = ("status", "version")
    search_fields = ("=deal__id", "=deal__match__id", "requested_by__username")
    list_select_related = ("deal__match", "requested_by")
    readonly_fields = [field.name for field in DealAnalysis._meta.fields]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def view_on_site(self, obj):
        return reverse("replays:deal", args=[obj.deal_id])


@admin.register(Action)
class ActionAdmin(admin.ModelAdmin):
    """Append-only: actions are listed and shown, never added, changed or deleted here."""

    list_display = ("deal", "seq", "seat", "kind", "actor", "user", "created_at")
    list_filter = ("kind", "actor")
    search_fields = ("=deal__id", "=deal__match__table__id", "user__username")
    list_select_related = ("deal", "user")
    ordering = ("deal", "seq")

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False
