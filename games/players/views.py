"""Leaderboards (R10.11) and player pages (个人主页)."""

from urllib.parse import urlencode

from django.contrib.auth import get_user_model
from django.http import HttpResponseRedirect
from django.shortcuts import get_object_or_404, render
from django.urls import reverse
from django.utils.translation import gettext as _

from accounts import career
from accounts import selectors as account_selectors
from games.models import Table
from games.players import rating, selectors
from games.players.present import rating_chart
from games.tables import selectors as table_selectors


def _page_number(value, pages: int) -> int:
    try:
        return min(max(int(value), 1), pages)
    except (TypeError, ValueError):
        return 1


def leaderboard(request):
    """Players by rating or career points, this season or all time, provisional ratings
    apart (R10.11): 50 a page, the viewer's own row highlighted and one click away."""
    board = selectors.Board.from_query(request.GET)
    rank = selectors.rank_of(board, request.user)
    if "me" in request.GET and rank:
        query = urlencode({**board.query(), "page": selectors.page_of_rank(rank)})
        return HttpResponseRedirect(f"{reverse('leaderboard')}?{query}#me")
    count = selectors.board_count(board)
    pages = selectors.pages_of(count)
    page = _page_number(request.GET.get("page"), pages)
    def tab(label, by=board.by, period=board.period, provisional=board.provisional):
        chosen = selectors.Board(by, period, provisional and by == "rating")
        return {"label": label, "url": f"?{urlencode(chosen.query())}",
                "current": (chosen.by, chosen.period, chosen.provisional) == (board.by, board.period, board.provisional)}

    by_tabs = [tab(_("Rating"), by="rating"), tab(_("Career points"), by="points")]
    period_tabs = [tab(_("All time"), period="all"), tab(_("This season"), period="season")]
    provisional_tabs = [tab(_("Established"), provisional=False), tab(_("Provisional"), provisional=True)]
    rows = selectors.board_page(board, page)
    for row in rows:
        if "tier" in row:
            row["tier_label"] = career.TIERS[row["tier"]].label
    context = {
        "board": board,
        "by_tabs": by_tabs,
        "period_tabs": period_tabs,
        "provisional_tabs": provisional_tabs,
        "rows": rows,
        "count": count,
        "page": page,
        "pages": pages,
        "page_url": lambda number: f"?{urlencode({**board.query(), 'page': number})}",
        "rank": rank,
        "rank_page": selectors.page_of_rank(rank) if rank else None,
        "base_query": urlencode(board.query()),
    }
    context["previous_url"] = context["page_url"](page - 1) if page > 1 else ""
    context["next_url"] = context["page_url"](page + 1) if page < pages else ""
    context["me_url"] = f"?{urlencode({**board.query(), 'me': 1})}" if rank else ""
    return render(request, "players/leaderboard.html", context)


def player_page(request, username):
    """Anyone's player page: rating and its history, career points and tier, deals,
    wins, 头游 and accuracy, favourite partners, the latest matches with their replays.
    A friend table's play is shown only to its players (R10.3): here, to the player."""
    user = get_object_or_404(get_user_model(), username=username, is_active=True)
    profile = account_selectors.profile_of(user)
    own = request.user.is_authenticated and request.user.pk == user.pk
    kinds = selectors.KINDS if own or request.user.is_staff else (Table.Kind.MATCH, Table.Kind.PRACTICE)
    viewer = table_selectors.viewer_for(request.user, invited_table_ids=table_selectors.invitations(request.session).keys())
    matches = [row for row in account_selectors.recent_matches(user) if table_selectors.may_see_match(row["match"], viewer)]
    player_rating = selectors.rating_of(user)
    board = selectors.Board("rating", "all")
    rank = selectors.rank_of(board, user) if player_rating and not player_rating.provisional else None
    context = {
        "shown_user": user,
        "profile": profile,
        "is_own": own,
        "rating": player_rating,
        "deals_to_establish": max(0, rating.PROVISIONAL_DEALS - (player_rating.rated_deals if player_rating else 0)),
        "rank": rank,
        "rank_url": f"{reverse('leaderboard')}?{urlencode({**board.query(), 'page': selectors.page_of_rank(rank)})}"
        if rank else "",
        "season": selectors.season_score(user),
        "chart": rating_chart(selectors.rating_history(user)),
        "figures": selectors.deal_figures(user, kinds=kinds),
        "partners": selectors.favourite_partners(user, kinds=kinds),
        "recent_matches": matches,
    }
    return render(request, "players/player.html", context)
