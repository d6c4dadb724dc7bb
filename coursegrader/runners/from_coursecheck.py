"""The two student-side modules the runners share with the notebook's check.

:mod:`coursecheck.serial` (the encoding of cases and answers) and
:mod:`coursecheck.policy` (what graded code may not import) are bound into
the sandbox next to the runners, where ``coursecheck`` itself does not
exist; on the host they are imported from ``coursecheck``.  This is the one
place that knows both.
"""

try:  # inside the sandbox: bound next to this module
    from . import policy, serial
except ImportError:  # on the host
    from coursecheck import policy, serial

__all__ = ["policy", "serial"]
