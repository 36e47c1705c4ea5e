from django.contrib import admin

from accounts.models import IdempotencyKey, Player


@admin.register(Player)
class PlayerAdmin(admin.ModelAdmin):
    list_display = ["display_name", "club", "country", "user"]
    search_fields = ["display_name", "club"]
    list_filter = ["country"]
    raw_id_fields = ["user"]


@admin.register(IdempotencyKey)
class IdempotencyKeyAdmin(admin.ModelAdmin):
    list_display = ["user", "key", "status_code", "created_at"]
    search_fields = ["key", "user__username"]
    readonly_fields = ["user", "key", "fingerprint", "status_code", "response", "created_at"]
