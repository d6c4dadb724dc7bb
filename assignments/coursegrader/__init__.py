"""Grading helpers for the course assignments (checks, sandbox, nbgrader preprocessor)."""
