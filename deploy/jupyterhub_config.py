"""JupyterHub configuration of the course server.

Everything that differs between servers is in a settings file (JSON) named by
$KERNEL_COURSE_SETTINGS and written by ``deploy/hub.py`` (see deploy/README.md):
ports, the install prefix, who teaches and who studies, the exchange (a shared
folder or the ngshare service), the database URL and the book's folder.

- Users log in with their Unix password (PAM), or from the LMS with LTI 1.3
  (settings "auth": "lti", see lti_login.py); each server runs as that Unix
  user (spawner.py: LocalProcessSpawner, the hub running as root, with each
  server on a port below 1024 that no process of its user can take), from the
  environment of the user's role: $PREFIX/student or $PREFIX/instructor. Those environments hold
  nbgrader's extensions for the role (see install.sh) and an nbgrader_config.py
  reading the variables set here.
- Each server, with all it starts, runs in a memory, a pids and a cpu cgroup of
  its own (spawner.py, server_limits.py): c.Spawner.mem_limit,
  c.CourseSpawner.process_limit and c.Spawner.cpu_limit below, more for the
  instructor, who grades; every server has an equal share of the CPU;
  and in an IPC namespace of its own, so what it leaves there goes with it.
- ngshare runs as a hub service (from $PREFIX/ngshare); the book is a
  static site served by another service at /services/book/.
"""

import json
import logging
import os
import resource
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import roles  # noqa: E402  (deploy/roles.py, next to this file)
import clients  # noqa: E402
import lti_login  # noqa: E402
import login_limits  # noqa: E402
import oauth_checks  # noqa: E402
import server_options  # noqa: E402
import low_ports  # noqa: E402
import request_bodies  # noqa: E402
import request_log  # noqa: E402
import request_rates  # noqa: E402
import spawner  # noqa: E402

settings = json.load(open(os.environ["KERNEL_COURSE_SETTINGS"]))
PREFIX = settings["prefix"]
NGSHARE_ENV = os.path.join(PREFIX, "ngshare")
STATE = settings["state_dir"]
INSTRUCTORS = set(settings["instructors"])
STUDENTS = set(settings["students"])
COURSE_ID = settings["course_id"]

c = get_config()  # noqa: F821  (provided by JupyterHub when it loads this file)

# -- who a client is, behind a trusted front proxy ------------------------------
# The front proxies the hub trusts (hub.py init --front-proxy: nginx terminating
# TLS, deploy/nginx-course.conf): every process that names clients (clients.py in
# the hub, its services and the users' servers; proxy_clients.js in the proxy,
# which inherits the hub's environment) counts the client a front names in
# X-Forwarded-For, not the front, and the proxy's caps per address leave the
# front's own address to the front's limits.
FRONT = clients.front_variables(settings.get("front_proxies"))
os.environ.pop(clients.FRONT_VARIABLE, None)
os.environ.update(FRONT)

# -- the hub and its proxy, on loopback ---------------------------------------
c.JupyterHub.ip = settings.get("ip", "127.0.0.1")
c.JupyterHub.port = settings["port"]
c.JupyterHub.hub_ip = "127.0.0.1"
c.JupyterHub.hub_port = settings["hub_port"]
c.ConfigurableHTTPProxy.api_url = f"http://127.0.0.1:{settings['proxy_api_port']}"
# configurable-http-proxy with the course's limits on what one client connection
# holds of it (proxy_limits.js): as it ships, it starts every request a connection
# pipelines at once, each on a connection of its own to the server, and keeps those
# after the client is gone; and it keeps what a client that reads nothing has not
# taken of a large answer (MBs of the machine's TCP memory each) for as long as it
# likes. With them, requests are passed on one at a time, and connections whose
# client takes nothing are reset (after 60 s, or after 5 s beyond 16 per address).
# node makes its stdout and stderr non-blocking, and with them the one open file of
# hub.log's pipe that the hub and every service share: under a flood of requests
# the pipe filled, and their lines were lost (BlockingIOError) or spliced. So the
# proxy starts on open files of that pipe of its own (sh opens them anew, then
# becomes node, keeping its pid).
c.ConfigurableHTTPProxy.command = [
    "/bin/sh", "-c", 'exec "$0" "$@" >/proc/self/fd/1 2>/proc/self/fd/2',
    "node", "--require", os.path.join(HERE, "proxy_limits.js"),
    os.path.join(PREFIX, "proxy", "node_modules", "configurable-http-proxy", "bin",
                 "configurable-http-proxy")]
c.ConfigurableHTTPProxy.pid_file = os.path.join(STATE, "proxy.pid")
c.JupyterHub.cookie_secret_file = os.path.join(STATE, "cookie_secret")
c.JupyterHub.db_url = settings.get("db_url") or f"sqlite:///{os.path.join(STATE, 'hub.sqlite')}"
c.JupyterHub.cleanup_servers = True

# The hub's API and pages take small bodies: a flood of them holds at most 16 MiB
# at once (request_bodies.py), with what its handlers make of them about 64 MiB.
# One client holds at most 1 MiB of it: its largest honest bodies (a login form,
# an LTI launch, the API's JSON) take a few KiB, so a class of 100 behind one
# address logging in at once holds well under that, and it takes 16 addresses
# to fill the budget.
request_bodies.bound_every_server(16 * 1024**2, "hub", share=1024**2)

# The hub's pages and API take at most 50 requests a second from one client, 500
# at once and 500 more waiting their turn, the rest answered 429 before any
# handler (request_rates.py), as nginx-course.conf's front does for the hub: from
# a student's own server too, which reaches the hub around the front. Servers'
# checks of the tokens they are sent are counted apart, so that requests sent
# to bob's server cannot spend his rate; the machine's own processes are not
# counted.
request_rates.rate_every_server(request_rates.RATE, request_rates.BURST, name="hub",
                                checks=request_rates.is_token_check)

# One short line per request in the hub's log (request_log.py), in place of
# JupyterHub's log_request: at most 240 characters, naming the client as
# clients.py does (JupyterHub's names X-Real-IP, which the sender writes), with
# no dump of the request's headers for a 5xx; an uncaught exception's traceback
# at most once a minute per place in the code. A path with a control character
# is answered 400 before any handler (request_bodies.py). The log's size is
# bounded by hub.py start (log_writer.py).
c.JupyterHub.tornado_settings = {"log_function": request_log.hub_log_request}
request_log.install()
# OAuth's PKCE values as RFC 7636 allows them, before JupyterHub stores them
# (oauth_checks.py)
oauth_checks.install()
# The course's servers take no start options: JupyterHub stored a student's (1 MB
# of them) and returned them with every check of her token (server_options.py)
server_options.install()
c.Spawner.options_from_form = server_options.no_options
# JupyterHub logs each anonymous xsrf cookie it sets ("Setting new xsrf cookie for
# ..."): a second line, 150 bytes, for every request anyone sends without one
logging.getLogger("tornado.application").addFilter(
    lambda record: not str(record.msg).startswith("Setting new xsrf cookie"))

# -- who may log in, and how --------------------------------------------------
# settings "auth": "pam" (the Unix password, the default and the demo's) or "lti"
# (a launch from the LMS, LTI 1.3, settings "lti": see lti_login.py)
AUTH = settings.get("auth", "pam")
if AUTH == "lti":
    lti_login.configure(c, settings)
elif AUTH == "pam":
    # JupyterHub's PAMAuthenticator, with one password check at a time per client
    # and a short line of its own: wrong passwords (3 s each in pam_faildelay)
    # from one address do not queue ahead of everyone's logins (login_limits.py)
    c.JupyterHub.authenticator_class = login_limits.LoginLinesAuthenticator
    c.PAMAuthenticator.open_sessions = False
else:
    raise ValueError(f"settings 'auth' must be 'pam' or 'lti', not {AUTH!r}")
c.Authenticator.allowed_users = INSTRUCTORS | STUDENTS
c.Authenticator.admin_users = set()

# -- each user's server: their Unix account, their role's environment ---------
# Every server serves on a port below 1024 that the hub binds for it and hands
# it as a socket (spawner.py, server_guard.py): a user who kills her own server
# cannot answer on its port while the proxy still sends her link there. The
# hub notices a dead server at its next poll, and removes its route.
c.JupyterHub.spawner_class = spawner.CourseSpawner
# The hub, its proxy and its services listen on ports below 1024 too (hub.py
# init), outside the servers' range; should one of them be down for a moment,
# its port is still never given to a user's server.
c.CourseSpawner.reserved_ports = sorted({settings[name] for name in low_ports.SETTINGS})
c.Spawner.poll_interval = 5
c.Spawner.default_url = "/lab"
c.Spawner.notebook_dir = "~"
c.Spawner.start_timeout = 180
c.Spawner.http_timeout = 180
# Only these variables pass from the hub to user servers (not PYTHONPATH: a
# server sees the course only through its role's environment).
c.Spawner.env_keep = ["LANG", "LC_ALL", "TZ"]
# Every user server answers on the hub's one origin, so a server must run the
# course's code only: not the user's Jupyter config or data files (~/.jupyter,
# ~/.local/share/jupyter: a server extension or a page of scripts of their own
# would run on that origin for whoever opens their link), nor Python modules
# of theirs (the user site-packages, the home folder the server starts in):
# JupyterHub's disable_user_config, and Python's isolated mode (-I) for the
# server process alone; kernels, started afresh, still see what the user
# installed.
c.Spawner.disable_user_config = True
# Each server, with every kernel and terminal it starts, runs in a memory, a pids
# and a cpu cgroup of its own (spawner.py, server_limits.py): a student's
# notebook that fills the memory, or a fork bomb, stops her own kernel, not her
# classmates' servers nor the hub; her hundreds of spinning processes get her
# server's share of the CPU, one CPU at most. The instructor's server grades
# (make autograde, Formgrader), whose sandbox lets a submission's kernel use up
# to 8 GB and runs parallel workers, so it gets more: every CPU.
c.Spawner.mem_limit = "2G"
c.CourseSpawner.process_limit = 512
c.Spawner.cpu_limit = 1
# A student's server runs in a network namespace of its own (spawner.py,
# server_network.py), and reaches of the machine's loopback only the hub's API,
# the public port (ngshare, through the proxy) and the book service ("Open in
# the course hub"). An instructor's shares the hub's network: the gradebook's
# database may be anywhere.
STUDENT_SERVER_REACHES = ("hub_port", "port", "book_port")
# For each student's server the hub holds her namespace and a listener per port
# in it, and two descriptors per connection it joins (64 at most): its open files
# go up to the hard limit (a service starts at 1024 under systemd), which
# hub.py start raises to the machine's most (open_files.py) before the hub starts.
resource.setrlimit(resource.RLIMIT_NOFILE, (resource.getrlimit(resource.RLIMIT_NOFILE)[1],) * 2)
INSTRUCTOR_LIMITS = {"mem_limit": "12G", "process_limit": 2048,
                     "cpu_limit": float(os.cpu_count() or 1)}


def choose_environment(spawner):
    """Start the server from the environment of the user's role, within its limits."""
    name = spawner.user.name
    if roles.role_of(settings, name) == "instructor":
        for limit, value in INSTRUCTOR_LIMITS.items():
            if getattr(spawner, limit) is not None:   # None: the admin set no limit
                setattr(spawner, limit, value)
    bin_dir = roles.environment_bin(settings, name)
    spawner.cmd = [os.path.join(bin_dir, "python"), "-I",
                   os.path.join(bin_dir, "jupyterhub-singleuser")]
    spawner.environment = roles.user_environment(settings, name)
    if roles.role_of(settings, name) == "student":
        # her own network: what her server reaches of the machine's (spawner.py)
        spawner.loopback_ports = [settings[port] for port in STUDENT_SERVER_REACHES]


c.Spawner.pre_spawn_hook = choose_environment
# A link into a user's server that is not running ("Open in the course hub",
# after logging in) starts it rather than stopping at a "Launch server" page.
c.JupyterHub.implicit_spawn_seconds = 0.5

# -- services: ngshare (the exchange) and the book ----------------------------
# Each service carries the hub's settings path, which names it as this hub's
# (deploy/hub.py stop finds by it what a killed hub left running).
OURS = {"KERNEL_COURSE_SETTINGS": os.environ["KERNEL_COURSE_SETTINGS"], **FRONT}
c.JupyterHub.services = [
    {
        "name": "book",
        "url": f"http://127.0.0.1:{settings['book_port']}",
        "command": [sys.executable, os.path.join(HERE, "book_service.py"), settings["book_dir"]],
        "environment": OURS,
        "display": True,
        "oauth_no_confirm": True,
    },
    {
        # course set-up (deploy/hub.py): may create tokens of the course's users
        "name": "course-setup",
        "api_token": open(os.path.join(STATE, "setup_token")).read().strip(),
    },
]
c.JupyterHub.load_roles = [
    {"name": "course-setup", "services": ["course-setup"],
     "scopes": [f"tokens!user={name}" for name in sorted(INSTRUCTORS | STUDENTS)]},
]
# Every user has JupyterHub's "self" but its tokens: no API token of a student's
# is needed (her server has its own, JUPYTERHUB_API_TOKEN, of the server role), and
# a student who could make them stored 500 KB notes with each, 61 MB of the hub's
# database in 3 s, and listing them took the hub 2 GB and 2 s of its event loop.
# An instructor keeps his (course-instructor, below). Every user may open the book
# (it is listed in the hub's Services menu only for users with access to it) and,
# with ngshare, reach the exchange service (ngshare checks what each may do).
SELF_BUT_TOKENS = [f"{scope}!user" for scope in (
    "read:users", "users:shares", "read:shares", "users:activity", "servers",
    "access:servers")]
user_scopes = [*SELF_BUT_TOKENS, "access:services!service=book"]
if settings["exchange"] == "ngshare":
    user_scopes.append("access:services!service=ngshare")
c.JupyterHub.load_roles.append({"name": "user", "scopes": user_scopes})
c.JupyterHub.load_roles.append({"name": "course-instructor", "users": sorted(INSTRUCTORS),
                                "scopes": ["tokens!user"]})
# the Token page tells a student she has none (hub_templates/token.html)
c.JupyterHub.template_paths = [os.path.join(HERE, "hub_templates")]
c.JupyterHub.template_vars = {"course_instructors": sorted(INSTRUCTORS)}
if settings["exchange"] == "ngshare":
    c.JupyterHub.services.append({
        "name": "ngshare",
        "url": f"http://127.0.0.1:{settings['ngshare_port']}",
        "command": [os.path.join(NGSHARE_ENV, "bin", "python"), os.path.join(HERE, "ngshare_service.py"),
                    "--admins", ",".join(sorted(INSTRUCTORS)),
                    "--database", f"sqlite:///{os.path.join(STATE, 'ngshare.sqlite')}",
                    "--storage", os.path.join(STATE, "ngshare-files")],
        "environment": OURS,
        # nbgrader's exchange calls ngshare with the API token of the user's
        # server; ngshare has no browser login (deploy/ngshare_service.py), no
        # page for the Services menu, and the hub approves no login for it unasked
        "display": False,
    })
