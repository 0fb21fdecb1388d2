"""Shared job plumbing: workers on the thread pool (`workers`) and the one-line progress widget
(`job_progress`)."""
