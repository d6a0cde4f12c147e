from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class AccountsConfig(AppConfig):
    """People: profiles, guests, career points and their ledger."""

    name = "accounts"
    verbose_name = _("Accounts")

    def ready(self):
        # Every user gets a profile, however the user was made (sign-up, guest,
        # createsuperuser, the admin).
        from . import signals  # noqa: F401
