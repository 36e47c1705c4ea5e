"""Coalesced background work: one runner for every app's jobs (see ``jobs.runner``)."""
