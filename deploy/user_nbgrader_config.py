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

    # warn before a failing or unchanged notebook goes in; say what went in, and
    # only once the exchange took it: a refused submission fails, saying why
    # (submit_check.py, submit_outcome.py, installed into the students' environment)
    import submit_check
    import submit_outcome

    c.ExchangeFactory.submit = submit_check.checked(
        submit_outcome.NgshareSubmit if server.exchange == "ngshare"
        else submit_outcome.FolderSubmit)

if server.role == "instructor" and server.exchange == "ngshare":
    # ngshare dates a submission itself, when it receives it; the course's collect
    # keeps where that time came from (coursegrader/tools/ngshare_collect.py)
    c.ExchangeFactory.collect = "coursegrader.tools.ngshare_collect.DatedNgshareCollect"

if server.role == "instructor" and server.exchange != "ngshare":
    # In the shared folder any student may write into inbound/ and name the
    # submission after someone else, or rewrite its timestamp.txt. The course's
    # collect takes each student's latest folder that they own (Unix owner = the
    # name; the others are refused and listed), dates it by its change time,
    # and copies regular files only (coursegrader/tools/exchange_collect.py).
    c.ExchangeCollect.check_owner = True
    c.ExchangeFactory.collect = "coursegrader.tools.exchange_collect.NoLinkCollect"
