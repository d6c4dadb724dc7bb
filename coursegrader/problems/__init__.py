"""Problem sets: one module ``psN`` per assignment, each with a ``PARTS`` dict of Part."""
