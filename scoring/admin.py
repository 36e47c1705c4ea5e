from django.contrib import admin

from scoring.models import Game, Hand, ScoreEvent, Seat, Side


class SideInline(admin.TabularInline):
    model = Side
    extra = 0
    readonly_fields = ["position", "name"]
    can_delete = False


class SeatInline(admin.TabularInline):
    model = Seat
    extra = 0
    raw_id_fields = ["player"]
    readonly_fields = ["position", "name", "side"]
    can_delete = False


@admin.register(Game)
class GameAdmin(admin.ModelAdmin):
    list_display = ["__str__", "ruleset_key", "status", "totals", "winner", "updated_at"]
    list_filter = ["status", "ruleset_key", "public", "held"]
    search_fields = ["label"]
    filter_horizontal = ["referees"]
    # ``held`` follows the tournament round's status: publishing the round opens the game.
    readonly_fields = [
        "ruleset",
        "totals",
        "held",
        "hand_count",
        "revision",
        "created_at",
        "updated_at",
    ]
    inlines = [SideInline, SeatInline]


@admin.register(Hand)
class HandAdmin(admin.ModelAdmin):
    """Hands are written by the scoring services (corrections are new versions): read here."""

    list_display = ["game", "number", "version", "is_current", "ended", "awards", "recorded_by"]
    list_filter = ["ended", "is_current", "voided"]
    raw_id_fields = ["game", "recorded_by"]

    def has_change_permission(self, request, obj=None):
        return False

    def has_add_permission(self, request):
        return False


@admin.register(ScoreEvent)
class ScoreEventAdmin(admin.ModelAdmin):
    list_display = ["game", "hand_number", "seat", "kind", "points", "active", "created_at"]
    list_filter = ["kind", "active"]
    raw_id_fields = ["game", "seat", "side", "pair", "created_by"]

    def has_change_permission(self, request, obj=None):
        return False

    def has_add_permission(self, request):
        return False
