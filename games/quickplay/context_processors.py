"""Every page knows whether its viewer waits for quick play (R10.9): while they do, the
page keeps their place (its own socket, the slim bar in the header) and goes to the
table by itself once seated."""

from games.quickplay.models import QueueEntry


def quickplay(request):
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {"quickplay_entry": None}
    return {"quickplay_entry": QueueEntry.objects.filter(user=user).only("status", "tier", "joined_at").first()}
