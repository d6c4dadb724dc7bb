"""nbgrader configuration of a user environment ($PREFIX/student or $PREFIX/instructor).

install.sh copies this file to <environment>/etc/jupyter/nbgrader_config.py, so
nbgrader (command line, Assignments tab, Formgrader) reads it in every server
started from the environment.  What the hub decided for the server -- the
role, the course, the exchange, and for an instructor the course folder,
whose own nbgrader_config.py is then loaded -- comes from server_settings.py
(installed beside it), the one reader of the variables the hub sets.  nbgrader
reads the course's file once more after this one; it leaves the exchange's
collect to this file when the hub chose the exchange.
"""

import os

from server_settings import ServerSettings

c = get_config()  # noqa: F821  (provided by nbgrader when it loads this file)
server = ServerSettings()

c.CourseDirectory.course_id = server.course_id

if server.role == "instructor":
    load_subconfig(os.path.join(server.course_root, "nbgrader_config.py"))  # noqa: F821

if server.exchange == "ngshare":
    import ngshare_exchange

    ngshare_exchange.configureExchange(c, server.ngshare_url)
elif server.exchange_root:
    c.Exchange.root = server.exchange_root

if server.role == "student":
    # The kernels nbgrader starts (validate: the command and the Validate button)
    # talk to it over local sockets, readable by the student alone, rather than
    # over TCP ports any user of the server could reach; ipykernel warns of the
    # latter on every run.
    c.KernelManager.transport = "ipc"

    # warn before a failing or unchanged notebook goes in; say what went in
    # (submit_check.py, installed into the students' environment)
    import submit_check
    from nbgrader.exchange.default.submit import ExchangeSubmit as FolderSubmit

    if "submit" in c.ExchangeFactory:
        c.ExchangeFactory.submit = submit_check.checked(c.ExchangeFactory.submit)
    else:
        c.ExchangeFactory.submit = submit_check.checked(FolderSubmit)

if server.role == "instructor" and server.exchange != "ngshare":
    # In the shared folder any student may write into inbound/ and name the
    # submission after someone else; nbgrader only warns about it. Collect the
    # latest submission each student owns (Unix owner = the name), drop the rest.
    # Built on the course's collect, which copies regular files only and follows
    # no link a student put into their folder (coursegrader/tools/exchange_collect.py).
    import glob
    import pwd

    from coursegrader.tools.exchange_collect import NoLinkCollect

    class OwnerCheckedCollect(NoLinkCollect):
        def _owned(self, record):
            path = os.path.join(self.inbound_path, record["filename"])
            try:
                return pwd.getpwuid(os.stat(path).st_uid).pw_name == record["username"]
            except KeyError:
                return False

        def init_src(self):
            super().init_src()
            kept = []
            for record in self.src_records:
                if self._owned(record):
                    kept.append(record)
                    continue
                self.log.warning("ignored %s: it claims to be %s's but %s does not own it",
                                 record["filename"], record["username"], record["username"])
                pattern = os.path.join(self.inbound_path, "{}+{}+*".format(
                    record["username"], self.coursedir.assignment_id))
                owned = [r for r in map(self._path_to_record, glob.glob(pattern)) if self._owned(r)]
                if owned:
                    kept.append(self._sort_by_timestamp(owned)[0])
            self.src_records = kept

    c.ExchangeFactory.collect = OwnerCheckedCollect
