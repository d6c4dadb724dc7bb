"""What the course's hub tells each user's server: the variables, and the one place that reads them.

The hub sets these variables on every server it starts (``roles.py``, through
:func:`variables`); ``install.sh`` copies this module into the students' and
the instructor's environments, where the environment's
``nbgrader_config.py`` (``user_nbgrader_config.py``) reads them through
:class:`ServerSettings` alone.  An instructor's server also carries the
gradebook's URL, which the course's own settings read (``coursegrader/settings.py``).
(``course_open.py``, the "Open in the course hub" extension, still reads the
book service's variable itself.)
"""

import os

from traitlets import Enum, Unicode, default
from traitlets.config import Configurable

__all__ = ["VARIABLES", "ServerSettings", "variables"]

#: Each setting of a server, and the variable the hub passes it in.
VARIABLES = {
    "role": "KERNEL_COURSE_ROLE",
    "course_id": "NBGRADER_COURSE_ID",
    "course_root": "KERNEL_COURSE_ROOT",
    "exchange": "KERNEL_COURSE_EXCHANGE",
    "ngshare_url": "KERNEL_COURSE_NGSHARE_URL",
    "exchange_root": "NBGRADER_EXCHANGE",
    "gradebook_url": "NBGRADER_DB_URL",
    "book_url": "KERNEL_COURSE_BOOK_URL",
}


def variables(**settings):
    """The variables that pass ``settings`` (names of :data:`VARIABLES`) to a server."""
    unknown = sorted(set(settings) - set(VARIABLES))
    if unknown:
        raise ValueError(f"settings: unknown {unknown}; known: {sorted(VARIABLES)}")
    return {VARIABLES[name]: str(value) for name, value in settings.items() if value}


def _variable(name):
    return os.environ.get(VARIABLES[name], "")


class ServerSettings(Configurable):
    """A user's server on the course's hub, as the hub set it up."""

    role = Enum(["student", "instructor", ""], default_value="",
                help="The user's role: student or instructor (empty: not on the hub).")
    course_id = Unicode(help="The course's id (default: the course's own, "
                             "coursecheck.problems.COURSE_ID).")
    course_root = Unicode(help="An instructor's course folder.")
    exchange = Enum(["ngshare", "folder", ""], default_value="",
                    help="The exchange the hub chose: the ngshare service or a shared folder.")
    ngshare_url = Unicode(help="The ngshare service's URL (exchange ngshare).")
    exchange_root = Unicode(help="The shared folder of the exchange (exchange folder).")
    gradebook_url = Unicode(help="The gradebook's database URL, for an instructor (empty: "
                                 "the course's own default).")
    book_url = Unicode(help="The hub's book service, from which \"Open in the course hub\" "
                            "copies a chapter (course_open.py).")

    @default("role")
    def _default_role(self):
        return _variable("role")

    @default("course_id")
    def _default_course_id(self):
        from coursecheck.problems import COURSE_ID
        return _variable("course_id") or COURSE_ID

    @default("course_root")
    def _default_course_root(self):
        return _variable("course_root")

    @default("exchange")
    def _default_exchange(self):
        return _variable("exchange")

    @default("ngshare_url")
    def _default_ngshare_url(self):
        return _variable("ngshare_url")

    @default("exchange_root")
    def _default_exchange_root(self):
        return _variable("exchange_root")

    @default("gradebook_url")
    def _default_gradebook_url(self):
        return _variable("gradebook_url")

    @default("book_url")
    def _default_book_url(self):
        return _variable("book_url")
