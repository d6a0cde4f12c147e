"""Keep a table's version (``Table.updated_at``) honest when its seats or the names
shown in them change outside the door and the seating services, such as in the admin.

The door reads a table's seats from a per-process cache valid for one version of the
table (``games.live.door.seat_cache``): whatever changes a seat, or the name of a player in
one, must give the table a new version.
"""

from django.db.models import Q
from django.db.models.signals import post_delete, post_save
from django.dispatch import receiver
from django.utils import timezone

from accounts.models import Profile
from games.models import Seat, Table


@receiver(post_save, sender=Seat)
@receiver(post_delete, sender=Seat)
def seat_changed(sender, instance: Seat, **kwargs) -> None:
    Table.objects.filter(pk=instance.table_id).update(updated_at=timezone.now())


@receiver(post_save, sender=Profile)
def name_changed(sender, instance: Profile, update_fields=None, created=False, **kwargs) -> None:
    if created or (update_fields is not None and "display_name" not in update_fields):
        return  # a new player sits nowhere yet; points and flags are not shown in seats
    Table.objects.filter(Q(seats__user_id=instance.user_id) | Q(seats__away_user_id=instance.user_id)).update(
        updated_at=timezone.now()
    )
