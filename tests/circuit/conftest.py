import pytest


@pytest.fixture
def committed(django_capture_on_commit_callbacks):
    """``with committed():`` runs what the block's commits would have run after commit."""
    return lambda: django_capture_on_commit_callbacks(execute=True)
