"""The leak scan: embargoed item text, canaries and key material, in the output and in lab text.

- ``fold``: Disguises folded out of lab-supplied text before the leak scan reads it (issue 22)
- ``gunzip``: gzip opened for the scans, bounded (a bomb in the repository is not inflated)
- ``keyscan``: Key material in the output: an age identity, an OpenSSH or PEM private key
  (design, security invariant 8; issue 20)
- ``labkeys``: Key material in lab text: that lab's bundle is refused, before any output exists
  (issue 44)
- ``labtext``: The lab-text leak scan: disguised and scattered question text (issue 22)
- ``normalise``: The leak scan's normalisation (steps 2–5 of :mod:`builder.leakscan.scan`), the
  same for needles and output: words separated by single spaces, padded
- ``rejections``: Rejections never quote key material (issue 44)
- ``scan``: The leak scan: find embargoed item text (canaries, question text) in text and bytes
"""
