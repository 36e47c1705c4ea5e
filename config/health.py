"""The health check a load balancer or an operator's script polls."""

from django.db import connection
from django.http import HttpResponse
from django.views.decorators.cache import never_cache


@never_cache
def health(request):
    """Answer ``ok`` when the application and its database respond."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
    return HttpResponse("ok", content_type="text/plain")
