from django.urls import path

from tournaments import (
    clock_views,
    eventday_views,
    officiating_views,
    organizer_views,
    stream,
    suspension_views,
    views,
)

urlpatterns = [
    path("", views.home, name="home"),
    path("t/<slug:slug>/", views.tournament_page, name="tournament-page"),
    path("t/<slug:slug>/live/", views.live_poll, name="tournament-live"),
    path("t/<slug:slug>/events/", stream.live_events, name="tournament-events"),
    path("t/<slug:slug>/entrants/<int:pk>/", views.entrant_page, name="entrant-page"),
    path("t/<slug:slug>/screen/", views.screen, name="tournament-screen"),
    path(
        "invitations/<int:pk>/<str:answer>/",
        organizer_views.answer_invitation,
        name="invitation-answer",
    ),
    path("organize/", organizer_views.my_tournaments, name="my-tournaments"),
    path("organize/new/", organizer_views.new_tournament, name="new-tournament"),
    path("t/<slug:slug>/manage/", organizer_views.manage, name="manage-tournament"),
    path("t/<slug:slug>/manage/audit/", officiating_views.audit, name="manage-audit"),
    path(
        "t/<slug:slug>/manage/disputes/<int:pk>/resolve/",
        officiating_views.resolve,
        name="manage-dispute-resolve",
    ),
    path(
        "t/<slug:slug>/manage/officiating/disqualify/",
        officiating_views.disqualify,
        name="manage-disqualify",
    ),
    path(
        "t/<slug:slug>/manage/settings/",
        organizer_views.tournament_settings,
        name="tournament-settings",
    ),
    path("t/<slug:slug>/manage/stages/new/", organizer_views.add_stage, name="add-stage"),
    path(
        "t/<slug:slug>/manage/stages/<int:order>/finish/",
        organizer_views.finish_stage,
        name="finish-stage",
    ),
    path(
        "t/<slug:slug>/manage/stages/<int:order>/clock/",
        clock_views.stage_clock,
        name="manage-stage-clock",
    ),
    path(
        "t/<slug:slug>/manage/stages/<int:order>/rounds/<int:number>/clock/",
        clock_views.round_clock_action,
        name="manage-round-clock",
    ),
    path(
        "t/<slug:slug>/manage/entrants/<int:pk>/suspension/",
        suspension_views.suspension_page,
        name="manage-suspension",
    ),
    path("t/<slug:slug>/manage/<str:action>/", organizer_views.act, name="manage-action"),
    path(
        "t/<slug:slug>/manage/event-day/check-in/",
        eventday_views.stage_check_in,
        name="manage-check-in",
    ),
    path(
        "t/<slug:slug>/manage/event-day/did-not-play/",
        eventday_views.did_not_play,
        name="manage-did-not-play",
    ),
    path("t/<slug:slug>/stages/<int:pk>/schedule/", views.stage_schedule, name="stage-schedule"),
    path("t/<slug:slug>/rounds/<int:number>/cards/", views.table_cards, name="print-cards"),
    path("t/<slug:slug>/rounds/<int:number>/sheets/", views.blank_sheets, name="print-sheets"),
    path("t/<slug:slug>/export/<str:kind>.csv", views.export, name="tournament-export"),
]
