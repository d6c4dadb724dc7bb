"""Judging a submission: the problem sets as the grader sees them, each part run
against its cases in the sandbox, and the notebook's own run."""
