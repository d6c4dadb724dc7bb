"""Zips as an LMS writes them, for the tests of ``make zip_collect``."""

import io
import zipfile

#: Canvas's gradebook CSV: its header and its points row.
CANVAS_HEADER = "Student,ID,SIS User ID,SIS Login ID,Section,ps1\n"
CANVAS_POINTS = "Points Possible,,,,,10\n"


def canvas_zip(members, date_time=(2026, 11, 20, 9, 0, 0)):
    """The bytes of a zip of ``members`` ([(name, bytes)]), every entry dated
    ``date_time`` as Canvas dates them: when the archive was made."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in members:
            zf.writestr(zipfile.ZipInfo(name, date_time=date_time), data)
    return buf.getvalue()


def canvas_roster(rows):
    """Canvas's gradebook CSV with the students ``rows`` ([(name, Canvas id,
    SIS user id, SIS login id)])."""
    return CANVAS_HEADER + CANVAS_POINTS + "".join(
        f"{name},{user},{sis_user},{login},Kernel Methods,\n"
        for name, user, sis_user, login in rows)
