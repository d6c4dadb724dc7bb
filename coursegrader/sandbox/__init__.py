"""The sandbox, where student code runs, and its one channel.

* :mod:`.policy` -- what a sandbox holds and how much it may use;
* :mod:`.mounts` -- what it shows of the machine: the ``bwrap`` command;
* :mod:`.caps` -- its resource limits and its cgroup;
* :mod:`.launch` -- whether it can be built here, starting and stopping one;
* :mod:`.channel` -- the grader's end of the runner inside it.
"""

from .caps import run_caps
from .channel import Channel, Stopped, stop_for_exit
from .launch import (ConfinementUnavailable, Run, check_mode, describe, prepare, probe,
                     start, stop)
from .mounts import KERNEL_RUNNER, PART_RUNNER, bwrap_argv
from .policy import JUDGE, KERNEL, MODES, Policy

__all__ = ["Policy", "JUDGE", "KERNEL", "MODES", "PART_RUNNER", "KERNEL_RUNNER", "probe",
           "prepare", "start", "stop", "describe", "run_caps", "bwrap_argv", "check_mode",
           "ConfinementUnavailable", "Run", "Channel", "Stopped", "stop_for_exit"]
