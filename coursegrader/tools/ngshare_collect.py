"""ngshare's collect, keeping where each submission's time came from.

ngshare dates a submission itself, when it receives it, and its collect writes
that time as ``timestamp.txt``, after the student's files, so in place of any
the student sent. :class:`DatedNgshareCollect` records that the time is the
service's (:mod:`coursegrader.dating`). The hub's instructor environment
selects it when its exchange is ngshare (``deploy/user_nbgrader_config.py``).
"""

from ngshare_exchange.collect import ExchangeCollect as NgshareCollect

from .. import dating
from .exchange_collect import service_dating

__all__ = ["DatedNgshareCollect"]


class DatedNgshareCollect(NgshareCollect):
    """ngshare's collect; each collected folder says its time is the service's."""

    def do_copy(self, src, dest):
        super().do_copy(src, dest)
        dating.write(dest, service_dating(src), timestamp=False)
