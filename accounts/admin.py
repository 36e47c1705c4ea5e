from django.contrib import admin

from accounts.models import IdempotencyKey


@admin.register(IdempotencyKey)
class IdempotencyKeyAdmin(admin.ModelAdmin):
    list_display = ["user", "key", "status_code", "created_at"]
    search_fields = ["key", "user__username"]
    readonly_fields = ["user", "key", "fingerprint", "status_code", "response", "created_at"]
