"""Admin for tournaments: staff create them here (through ``services.create_tournament``,
which checks the settings, draws the seed and arms the timers), follow their entrants
and rounds, and cancel or advance them. Boards are never shown here: their pages show
them once their round has ended (R13.6)."""

from django import forms
from django.contrib import admin, messages
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from . import policies, services
from .models import Entrant, Pairing, Registration, Round, Tournament


class RegistrationInline(admin.TabularInline):
    model = Registration
    extra = 0
    fields = ("user", "entrant", "seen_at", "created_at")
    readonly_fields = ("seen_at", "created_at")
    raw_id_fields = ("user", "entrant")


class RoundInline(admin.TabularInline):
    model = Round
    extra = 0
    fields = ("number", "status", "starts_at", "started_at", "finished_at")
    readonly_fields = fields
    can_delete = False
    show_change_link = True

    def has_add_permission(self, request, obj=None):
        return False


class TournamentForm(forms.ModelForm):
    class Meta:
        model = Tournament
        fields = ["name", "format", "rounds", "boards_per_round", "think_time", "bot_speed", "bot_level",
                  "registration_opens_at", "registration_closes_at", "starts_at", "round_break", "is_private"]

    def clean(self):
        cleaned = super().clean()
        if self.instance.pk is None and not self.errors:
            reason = policies.refuse_schedule(
                now=timezone.now(), opens_at=cleaned["registration_opens_at"],
                closes_at=cleaned["registration_closes_at"], starts_at=cleaned["starts_at"],
                rounds=cleaned["rounds"], boards_per_round=cleaned["boards_per_round"], fmt=cleaned["format"])
            if reason:
                raise forms.ValidationError(reason)
        return cleaned

    def _post_clean(self):
        # A new tournament is made by services.create_tournament (seed, invitation code,
        # the rules' checks); the form only gathers the settings.
        if self.instance.pk is not None:
            super()._post_clean()


@admin.register(Tournament)
class TournamentAdmin(admin.ModelAdmin):
    form = TournamentForm
    list_display = ("name", "format", "status", "current_round", "rounds", "boards_per_round", "starts_at",
                    "is_private", "organiser")
    list_filter = ("status", "format", "is_private")
    search_fields = ("name", "organiser__username")
    date_hierarchy = "starts_at"
    inlines = [RegistrationInline, RoundInline]
    actions = ["advance_now", "cancel_tournaments"]

    def get_readonly_fields(self, request, obj=None):
        if obj is None:
            return ()
        # Once created, its settings are the tournament's: only the name may change.
        return ("format", "rounds", "boards_per_round", "think_time", "bot_speed", "bot_level",
                "registration_opens_at", "registration_closes_at", "starts_at", "round_break", "is_private",
                "invite_code", "status", "current_round", "note", "organiser", "started_at", "finished_at")

    def get_fields(self, request, obj=None):
        fields = list(TournamentForm.Meta.fields)
        if obj is not None:
            fields += ["invite_code", "status", "current_round", "note", "organiser", "started_at", "finished_at"]
        return fields

    def save_model(self, request, obj, form, change):
        if change:
            super().save_model(request, obj, form, change)
            return
        data = {name: form.cleaned_data[name] for name in TournamentForm.Meta.fields}
        created = services.create_tournament(organiser=request.user, **data)
        obj.pk = created.pk
        obj.__dict__.update(created.__dict__)

    @admin.action(description=_("Do what is due now (close registration, start or end a round)"))
    def advance_now(self, request, queryset):
        steps = sum(services.advance(tournament_id=t.pk) for t in queryset)
        self.message_user(request, _("%(steps)s steps taken.") % {"steps": steps})

    @admin.action(description=_("Cancel the selected tournaments"))
    def cancel_tournaments(self, request, queryset):
        for tournament in queryset:
            try:
                services.cancel(tournament=tournament, user=request.user, note=str(_("Cancelled by staff.")))
            except services.TournamentError as error:
                self.message_user(request, f"{tournament}: {error.message}", messages.WARNING)


class PairingInline(admin.TabularInline):
    model = Pairing
    extra = 0
    fields = ("number", "ns", "ew", "table", "absent")
    readonly_fields = fields
    can_delete = False

    def has_add_permission(self, request, obj=None):
        return False


@admin.register(Round)
class RoundAdmin(admin.ModelAdmin):
    list_display = ("tournament", "number", "status", "starts_at", "started_at", "finished_at")
    list_filter = ("status",)
    readonly_fields = ("tournament", "number", "status", "starts_at", "started_at", "finished_at", "standings")
    inlines = [PairingInline]

    def has_add_permission(self, request):
        return False


@admin.register(Entrant)
class EntrantAdmin(admin.ModelAdmin):
    list_display = ("__str__", "tournament", "number", "is_bot_pair", "left_out", "created_at")
    list_filter = ("is_bot_pair", "left_out")
    search_fields = ("tournament__name", "registrations__user__username")
    readonly_fields = ("tournament", "number", "is_bot_pair", "partner_code", "left_out", "created_at")
    inlines = [RegistrationInline]

    def has_add_permission(self, request):
        return False
