"""What a sandbox holds and how much it may use: the one policy of every run of student code."""

from dataclasses import dataclass, field

__all__ = ["Policy", "JUDGE", "KERNEL", "MODES", "SCRATCH"]

#: The confinement modes: the sandbox, or the instructor's explicit opt-out.
MODES = ("bubblewrap", "unconfined")
#: The sandbox's private, writable folder (a size-capped tmpfs).
SCRATCH = "/tmp"


def _fixed_env(**extra):
    env = {"PATH": "/usr/bin:/bin", "HOME": SCRATCH, "TMPDIR": SCRATCH, "LANG": "C.UTF-8",
           "MPLBACKEND": "Agg", "MPLCONFIGDIR": SCRATCH + "/.config/matplotlib",
           "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
           "PYTHONDONTWRITEBYTECODE": "1"}
    env.update(extra)
    return tuple(sorted(env.items()))


@dataclass(frozen=True)
class Policy:
    """What a sandbox holds and how much it may use."""

    packages: tuple = ("numpy", "scipy", "cvxpy")   # importable distributions (+ requirements)
    scratch_bytes: int = 256 * 1024**2               # the writable tmpfs at /tmp
    cpu_seconds: int = 120                           # CPU time per process
    memory_bytes: int = 4 * 1024**3                  # address space per process
    run_memory_bytes: int = 4 * 1024**3              # the whole run's (a cgroup)
    processes: int = 64                              # processes of the sandbox's user at once
    file_bytes: int = 64 * 1024**2                   # largest file a process may write
    output_bytes: int = 16 * 1024**2                 # bytes the grader reads back
    env: tuple = field(default_factory=_fixed_env)


#: graded functions: numerical packages only
JUDGE = Policy()
#: the notebook's run: also Jupyter's kernel machinery (never nbgrader)
KERNEL = Policy(packages=("numpy", "scipy", "cvxpy", "matplotlib", "ipykernel", "nbclient"),
                memory_bytes=8 * 1024**3, run_memory_bytes=8 * 1024**3, processes=128,
                env=_fixed_env(JUPYTER_RUNTIME_DIR=SCRATCH + "/.jupyter/runtime",
                               JUPYTER_CONFIG_DIR=SCRATCH + "/.jupyter",
                               JUPYTER_DATA_DIR=SCRATCH + "/.jupyter/data",
                               JUPYTER_PLATFORM_DIRS="1", IPYTHONDIR=SCRATCH + "/.ipython"))
