"""Which submissions share what is graded: code in a normal form, written answers as words.

:mod:`.code` writes code in a normal form that renaming, reformatting, no-ops,
dead code, calls whose result nobody keeps (:mod:`.discarded`), checks after
every line (:mod:`.checks`), bookkeeping (:mod:`.bookkeeping`: a counter's updates and the tests
only it decides), the spelling of loops and no-op wrappers (:mod:`.wrappers`: calls of
functions that give back their argument, elements of literals picked by a
constant) do not change; :mod:`.text` reads written
answers as runs of words, each as it reads (:mod:`.letters`: invisible
characters, case and look-alike letters set aside), a run found with words
put between its words, formulas as written and as one word each; :mod:`.values` reads the numbers a submission
holds and finds a classmate's variant's values among them; :mod:`.verdicts`
finds students of different variants handing in the same verdicts where their
variants' right ones differ; :mod:`.material`
takes of a submission what is compared, within bounds
(:class:`~.material.SimilarityCheck`); :func:`.compare.compare` compares two
submissions; :func:`.page.write_report` writes the report.
"""
