"""Forms of the tournament pages."""

from datetime import timedelta

from django import forms
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from games.models import BotLevel, Table
from games.rules.words import link_help_texts

from .models import MAX_BOARDS_PER_ROUND, MAX_ROUNDS, Tournament


class LocalDateTimeInput(forms.DateTimeInput):
    input_type = "datetime-local"

    def __init__(self, **kwargs):
        super().__init__(format="%Y-%m-%dT%H:%M", **kwargs)


class TournamentForm(forms.Form):
    """Create a tournament (R13.1): staff choose public or private; a player's is private."""

    name = forms.CharField(label=_("Name"), max_length=80)
    format = forms.ChoiceField(label=_("Format"), choices=Tournament.Format.choices, initial=Tournament.Format.DUPLICATE,
                               help_text=_("Duplicate pairs compare the tables that held the same cards (R13.4)."))
    rounds = forms.IntegerField(label=_("Rounds"), min_value=1, max_value=MAX_ROUNDS, initial=3)
    boards_per_round = forms.IntegerField(label=_("Boards per round"), min_value=1, max_value=MAX_BOARDS_PER_ROUND,
                                          initial=4)
    think_time = forms.TypedChoiceField(label=_("Think time"), choices=Table.THINK_TIME_CHOICES, coerce=int, initial=30)
    registration_closes_at = forms.DateTimeField(label=_("Registration closes"), widget=LocalDateTimeInput())
    starts_at = forms.DateTimeField(label=_("Round 1 starts"), widget=LocalDateTimeInput())
    round_break = forms.TypedChoiceField(label=_("Pause between rounds"), choices=Tournament.ROUND_BREAK_CHOICES,
                                         coerce=int, initial=120)
    bot_level = forms.ChoiceField(label=_("Bot level"), choices=BotLevel.choices, initial=BotLevel.NORMAL,
                                  help_text=_("The bot pair's and the autopilot's strength."))
    is_private = forms.BooleanField(label=_("Private (entered by invitation link)"), required=False, initial=True)

    def __init__(self, *args, user=None, **kwargs):
        super().__init__(*args, **kwargs)
        start = (timezone.now() + timedelta(hours=1)).replace(minute=0, second=0, microsecond=0)
        self.fields["registration_closes_at"].initial = start - timedelta(minutes=5)
        self.fields["starts_at"].initial = start
        if user is None or not user.is_staff:
            # A player's tournament is a private one for a club (R13.1).
            del self.fields["is_private"]
        link_help_texts(self)

    def clean(self):
        cleaned = super().clean()
        if "is_private" not in self.fields:
            cleaned["is_private"] = True
        return cleaned
