from django.contrib.auth import views as auth_views
from django.urls import path

from . import views

app_name = "accounts"

urlpatterns = [
    path("signup/", views.sign_up, name="signup"),
    path("login/", views.SiteLoginView.as_view(), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("guest/", views.play_as_guest, name="guest"),
    path("register/", views.claim_guest, name="claim"),
    path("password/", views.SitePasswordChangeView.as_view(), name="password_change"),
    path(
        "password/done/",
        auth_views.PasswordChangeDoneView.as_view(template_name="accounts/password_change_done.html"),
        name="password_change_done",
    ),
    path("password/reset/", views.SitePasswordResetView.as_view(), name="password_reset"),
    path(
        "password/reset/sent/",
        auth_views.PasswordResetDoneView.as_view(template_name="accounts/password_reset_done.html"),
        name="password_reset_done",
    ),
    path("password/reset/<uidb64>/<token>/", views.SitePasswordResetConfirmView.as_view(), name="password_reset_confirm"),
    path(
        "password/reset/complete/",
        auth_views.PasswordResetCompleteView.as_view(template_name="accounts/password_reset_complete.html"),
        name="password_reset_complete",
    ),
    path("profile/", views.my_profile, name="profile"),
    path("data/", views.my_data, name="data"),
    path("data/download/", views.download_my_data, name="data_download"),
    path("delete/", views.delete_my_account, name="delete"),
    path("bots/", views.my_bots, name="bots"),
]
