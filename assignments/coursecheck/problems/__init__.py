"""The public checks of each problem set, one module per set (psN.py)."""
