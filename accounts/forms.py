"""Forms for signing up, registering a guest account and naming oneself."""

from django import forms
from django.contrib.auth import get_user_model, password_validation
from django.contrib.auth.forms import PasswordResetForm, UserCreationForm
from django.utils import translation
from django.utils.translation import gettext_lazy as _

DISPLAY_NAME_HELP = _("Shown at tables and on the leaderboard. Your username if left empty.")
EMAIL_HELP = _("Optional. Only for resetting a forgotten password; never shown to anyone.")


def email_field(**kwargs) -> forms.EmailField:
    return forms.EmailField(label=_("Email"), required=False, help_text=EMAIL_HELP,
                            widget=forms.EmailInput(attrs={"autocomplete": "email"}), **kwargs)


class SignUpForm(UserCreationForm):
    display_name = forms.CharField(label=_("Display name"), max_length=40, required=False, help_text=DISPLAY_NAME_HELP)
    email = email_field()

    class Meta(UserCreationForm.Meta):
        model = get_user_model()
        fields = ("username", "display_name", "email")


class ClaimGuestForm(forms.Form):
    """Register a guest account: choose a username and password; everything the guest
    played stays with the account."""

    username = forms.CharField(
        label=_("Username"),
        max_length=150,
        validators=[get_user_model().username_validator],
        help_text=_("Letters, digits and @/./+/-/_ only."),
        widget=forms.TextInput(attrs={"autocomplete": "username"}),
    )
    display_name = forms.CharField(label=_("Display name"), max_length=40, required=False, help_text=DISPLAY_NAME_HELP)
    email = email_field()
    password1 = forms.CharField(
        label=_("Password"),
        strip=False,
        widget=forms.PasswordInput(attrs={"autocomplete": "new-password"}),
        help_text=password_validation.password_validators_help_text_html(),
    )
    password2 = forms.CharField(
        label=_("Password confirmation"), strip=False, widget=forms.PasswordInput(attrs={"autocomplete": "new-password"})
    )

    def __init__(self, *args, user, **kwargs):
        self.user = user
        super().__init__(*args, **kwargs)

    def clean_username(self):
        username = self.cleaned_data["username"]
        if get_user_model().objects.filter(username__iexact=username).exclude(pk=self.user.pk).exists():
            raise forms.ValidationError(_("That username is taken."))
        return username

    def clean(self):
        cleaned = super().clean()
        password1, password2 = cleaned.get("password1"), cleaned.get("password2")
        if password1 and password2 and password1 != password2:
            self.add_error("password2", _("The two password fields didn’t match."))
        elif password1:
            try:
                password_validation.validate_password(password1, self.user)
            except forms.ValidationError as error:
                self.add_error("password1", error)
        return cleaned


class DisplayNameForm(forms.Form):
    display_name = forms.CharField(label=_("Display name"), max_length=40)


class EmailForm(forms.Form):
    email = email_field()


class DeleteAccountForm(forms.Form):
    """Confirm deleting one's account: the password, or for a guest (who has none) a tick."""

    password = forms.CharField(label=_("Your password"), strip=False, required=False,
                               widget=forms.PasswordInput(attrs={"autocomplete": "current-password"}))
    confirm = forms.BooleanField(label=_("I understand that this cannot be undone."), required=True)

    def __init__(self, *args, user, **kwargs):
        self.user = user
        super().__init__(*args, **kwargs)
        if not user.has_usable_password():
            del self.fields["password"]

    def clean_password(self):
        password = self.cleaned_data.get("password") or ""
        if not self.user.check_password(password):
            raise forms.ValidationError(_("That is not your password."))
        return password


class BotForm(forms.Form):
    """Name a new bot account (accounts.bots)."""

    name = forms.CharField(label=_("Bot name"), max_length=30, help_text=_("Shown at tables with \"(bot)\" after it."))


class _TableChoice(forms.ModelChoiceField):
    def label_from_instance(self, table):
        return str(table)


class BotTicketForm(forms.Form):
    """Choose a bot, one of the owner's tables where bots may sit, and a seat: the bots
    page answers with a connection line (``games.botapi.tickets``)."""

    bot = forms.ModelChoiceField(label=_("Bot"), queryset=None, empty_label=None)
    table = _TableChoice(label=_("Table"), queryset=None, empty_label=None)
    seat = forms.TypedChoiceField(label=_("Seat"), choices=[(n, n) for n in range(1, 5)], coerce=int, initial=2)

    def __init__(self, *args, bots, tables, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["bot"].queryset = bots
        from games.models import Table

        self.fields["table"].queryset = Table.objects.filter(pk__in=[table.pk for table in tables]).order_by("-created_at")


class SitePasswordResetForm(PasswordResetForm):
    """Django's reset form; the email is written in the account's own language (its
    profile's, else the language the page was asked in)."""

    def send_mail(self, subject_template_name, email_template_name, context, from_email, to_email,
                  html_email_template_name=None):
        from .middleware import profile_language

        language = profile_language(context.get("user")) or translation.get_language()
        with translation.override(language):
            super().send_mail(subject_template_name, email_template_name, context, from_email, to_email,
                              html_email_template_name)
