"""nbgrader's own applications as the course runs them."""
