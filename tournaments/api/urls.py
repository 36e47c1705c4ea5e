from django.urls import path

from tournaments.api import archive, clock, eventday, officiating, staff, suspensions, views

urlpatterns = [
    path("tournaments/", views.TournamentListView.as_view(), name="tournament-list"),
    path(
        "tournaments/<slug:slug>/", views.TournamentDetailView.as_view(), name="tournament-detail"
    ),
    path(
        "tournaments/<slug:slug>/entrants/",
        views.EntrantListView.as_view(),
        name="tournament-entrants",
    ),
    path(
        "tournaments/<slug:slug>/entrants/<int:pk>/disqualify/",
        officiating.DisqualifyView.as_view(),
        name="tournament-entrant-disqualify",
    ),
    path(
        "tournaments/<slug:slug>/audit/", officiating.AuditView.as_view(), name="tournament-audit"
    ),
    path(
        "tournaments/<slug:slug>/archive/",
        archive.ArchiveView.as_view(),
        name="tournament-archive",
    ),
    path(
        "tournaments/<slug:slug>/disputes/",
        officiating.OpenDisputesView.as_view(),
        name="tournament-disputes",
    ),
    path(
        "tournaments/<slug:slug>/entrants/<int:pk>/suspensions/",
        suspensions.EntrantSuspensionsView.as_view(),
        name="tournament-entrant-suspensions",
    ),
    path(
        "tournaments/<slug:slug>/entrants/<int:pk>/<str:action>/",
        views.EntrantActionView.as_view(),
        name="tournament-entrant-action",
    ),
    path(
        "tournaments/<slug:slug>/stages/", views.StageListView.as_view(), name="tournament-stages"
    ),
    path(
        "tournaments/<slug:slug>/stages/<int:order>/finish/",
        views.StageFinishView.as_view(),
        name="tournament-stage-finish",
    ),
    path(
        "tournaments/<slug:slug>/stages/<int:order>/check-in/",
        eventday.StageCheckInView.as_view(),
        name="tournament-stage-check-in",
    ),
    path(
        "tournaments/<slug:slug>/rounds/", views.RoundListView.as_view(), name="tournament-rounds"
    ),
    path(
        "tournaments/<slug:slug>/rounds/<int:number>/",
        views.RoundDetailView.as_view(),
        name="tournament-round",
    ),
    path(
        "tournaments/<slug:slug>/rounds/<int:number>/publish/",
        views.RoundPublishView.as_view(),
        name="tournament-round-publish",
    ),
    path(
        "tournaments/<slug:slug>/rounds/<int:number>/clock/",
        clock.RoundClockView.as_view(),
        name="tournament-round-clock",
    ),
    path(
        "tournaments/<slug:slug>/stages/<int:order>/round-clock/",
        clock.StageClockView.as_view(),
        name="tournament-stage-round-clock",
    ),
    path(
        "tournaments/<slug:slug>/rounds/<int:number>/swap/",
        views.RoundSwapView.as_view(),
        name="tournament-round-swap",
    ),
    path(
        "tournaments/<slug:slug>/rounds/<int:number>/referees/",
        views.RoundRefereesView.as_view(),
        name="tournament-round-referees",
    ),
    path(
        "tournaments/<slug:slug>/standings/",
        views.StandingsView.as_view(),
        name="tournament-standings",
    ),
    path(
        "tournaments/<slug:slug>/export/<str:kind>.csv",
        views.ExportView.as_view(),
        name="tournament-export-api",
    ),
    path("tournaments/<slug:slug>/staff/", staff.StaffView.as_view(), name="tournament-staff"),
    path("invitations/", staff.MyInvitationsView.as_view(), name="my-invitations"),
    path(
        "invitations/<int:pk>/<str:answer>/",
        staff.InvitationAnswerView.as_view(),
        name="invitation-answer-api",
    ),
    path("account/token/", staff.MyTokenView.as_view(), name="my-token"),
    path("matches/<int:pk>/", views.MatchDetailView.as_view(), name="match-detail"),
    path("matches/<int:pk>/referee/", views.MatchRefereeView.as_view(), name="match-referee"),
    path(
        "matches/<int:pk>/did-not-play/",
        eventday.MatchDidNotPlayView.as_view(),
        name="match-did-not-play",
    ),
]
