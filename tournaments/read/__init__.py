"""The read side of tournaments: what pages, the API, streams and tasks show.

``standings`` (the metric registry and the pure ranking), ``standings_store`` (the kept
snapshots and their SQL aggregate), ``selectors`` (reads shared by views and tasks) and
``live`` (the live answers and their tags). These modules import models, pure modules
and public functions only, never a write service.
"""
