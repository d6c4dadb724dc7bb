"""The public half of each problem set: one module ``psN`` per set, with its parts."""
