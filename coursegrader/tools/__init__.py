"""The instructor's tools, one per step of the course: ``python -m coursegrader.tools.<name>``
(the course's Makefile runs them)."""
