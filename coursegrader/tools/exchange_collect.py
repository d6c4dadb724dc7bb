"""``nbgrader collect`` that takes only the regular files of a student's own folder.

With nbgrader's shared-folder exchange, a student owns the folder their
submission lands in (``<exchange>/<course>/inbound/<student>+<ps>+<time>+<n>``)
and can add links to it after ``nbgrader submit``. nbgrader's own collect,
run as the instructor, copies that folder with ``shutil.copytree``, which
follows the links: a link to the source notebook or to ``.grader_secret``
becomes a plain copy of it in ``submitted/``. :class:`NoLinkCollect` copies
with :func:`coursegrader.tools.regular_files.copy_regular_files` instead: a link,
wherever it points, is skipped and logged, never followed. It is selected
in ``nbgrader_config.py`` through nbgrader's exchange factory
(``c.ExchangeFactory.collect``).
"""

from nbgrader.exchange.default.collect import ExchangeCollect

from .regular_files import copy_regular_files

__all__ = ["NoLinkCollect"]


class NoLinkCollect(ExchangeCollect):
    """nbgrader's folder-exchange collect, copying only regular files."""

    def do_copy(self, src, dest, log=None):
        coursedir = self.coursedir
        try:
            report = copy_regular_files(
                src, dest, exclude=coursedir.ignore, include=coursedir.include,
                max_file_bytes=1000 * coursedir.max_file_size if coursedir.max_file_size
                else None,
                max_total_bytes=1000 * coursedir.max_dir_size if coursedir.max_dir_size
                else None,
                file_mode=0o664 if coursedir.groupshared else 0o644,
                dir_mode=0o2770 if coursedir.groupshared else 0o755)
        except ValueError as exc:
            self.log.warning("Not collected: %s", exc)
            return
        for path, why in report.skipped:
            self.log.warning("Skipped %s in %s: %s", path, src, why)
        self.log.info("Collected %d file(s), %d byte(s), from %s", len(report.taken),
                      report.bytes, src)
