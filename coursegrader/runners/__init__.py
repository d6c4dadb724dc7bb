"""The runners that run inside the sandbox, and the one home of their protocol.

The files of this package are bound into every sandbox as the package
``sandboxrunner`` (:mod:`coursegrader.sandbox`), next to the two student-side
modules they share with the notebook's check (:mod:`.from_coursecheck`); the
package imports on the host as well, where the grader uses its protocol.

* :mod:`.protocol` -- the markers and framing both sides speak;
* :mod:`.part_runner` -- the judge's runner: one forked process per part;
* :mod:`.kernel_runner` -- the notebook's run in a Jupyter kernel;
* :mod:`.audit_hook` -- the message a part gets for a forbidden attempt;
* :mod:`.code_origin` -- reports code a part runs that was not handed in as source;
* :mod:`.landlock` -- the kernel's file-system confinement, a second layer;
* :mod:`.private` -- keeps a runner's descriptors out of its parts' reach.

Nothing here imports ``coursegrader`` or ``coursecheck`` by name, except the
host's fallback in :mod:`.from_coursecheck`.
"""
