"""Asking for a deal's analysis from its replay page.

``POST /replays/deals/<id>/analysis/``: a player of the deal (or staff) asks for the
analysis of a finished deal, and is sent back to the replay's analysis panel (303, to
``#analysis``), where the progress bar moves over the deal's analysis socket as the work goes on. A refusal (a deal not
finished, R9.3; someone not of the deal) answers 403 with the reason and changes
nothing, as does one for now (too many analyses waiting: the player's or the site's,
``services.request_analysis``) with 429; asking twice queues one analysis.
"""

from __future__ import annotations

from django.http import Http404, HttpResponseRedirect
from django.shortcuts import get_object_or_404, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from games.analysis import services
from games.models import Deal
from games.tables import selectors as table_selectors
from games.tables.selectors import invitations


@require_POST
def request_analysis(request, deal_id: int):
    deal = get_object_or_404(Deal.objects.select_related("match__table"), pk=deal_id)
    viewer = table_selectors.viewer_for(request.user, invited_table_ids=invitations(request.session).keys())
    if not table_selectors.may_see_match(deal.match, viewer):
        raise Http404(_("No such match."))  # the same answer as for a match that does not exist
    try:
        services.request_analysis(deal=deal, user=request.user)
    except services.AnalysisError as refusal:
        busy = isinstance(refusal, services.AnalysisBusy)
        heading = _("Analysis not available now") if busy else _("Analysis not available")
        return render(request, "replays/refused.html", {"deal": deal, "message": refusal.message, "heading": heading},
                      status=429 if busy else 403)
    back = reverse("replays:deal", args=[deal.pk])
    if request.GET:
        back += "?" + request.GET.urlencode()
    # Back where the player was looking: at the analysis panel and its progress bar, not at
    # the top of the replay (the reload that shows the verdicts keeps the anchor too).
    return HttpResponseRedirect(back + "#analysis", status=303)
