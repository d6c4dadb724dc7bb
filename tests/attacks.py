"""Attacks a clever student plays, each written once and run by every test where it applies.

A test imports the attack it plays from here (``from attacks import HOSTILE``):
the grader's own tests, the pages that show a student's work and the hub's
browser tests then play the same attack.
"""

#: Each attack of the hostile written answer; every one tries to set window.pwned.
ATTACKS = {
    "script": "<script>window.pwned = 'script'</script>",
    "img onerror": '<img src="x" onerror="window.pwned = \'img\'">',
    "svg onload": '<svg onload="window.pwned = \'svg\'"><circle r="5"/></svg>',
    "iframe": '<iframe srcdoc="<script>parent.pwned = 1</script>"></iframe>',
    "javascript link": "[click me](javascript:window.pwned='md-link')",
    "mixed-case scheme": '<a href="JaVaScRiPt:window.pwned=\'a\'">and me</a>',
    "data link": "[or me](data:text/html;base64,PHNjcmlwdD5wd25lZDwvc2NyaXB0Pg==)",
    "data image": '<img src="data:image/svg+xml;base64,PHN2Zy8+" alt="a picture">',
    "style": "<style>body { display: none }</style>",
    "refresh": '<meta http-equiv="refresh" content="0; url=https://pwned.example/">',
    "formgrader api":
        "<script>fetch(base_url + '/api/grade/1', {method: 'PUT'})</script>",
}
HOSTILE = "My answer.\n\n" + "\n\n".join(f"Attack {i}: {attack}"
                                          for i, attack in enumerate(ATTACKS.values()))

#: Outputs of a code cell of mallory's (display is IPython's; nothing else in it).
HOSTILE_CODE = """\
try:
    from IPython.display import HTML, Markdown, display
    display(HTML('<img src="x" onerror="window.pwned = 1"><b>bold output</b>'))
    display(Markdown("[out](javascript:window.pwned=2) <svg onload='pwned=3'></svg>"))
    display(HTML('<iframe src="javascript:window.pwned=4"></iframe><style>*{}</style>'))
except Exception:
    pass
"""
