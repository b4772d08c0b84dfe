"""The release switch: threshold-signed, time-locked release statements and what they publish.

- ``statement``: the file format ``sealboard-release/1`` (parse strictly, write);
- ``scope``: which items a statement's scope covers;
- ``verify``: signatures against the registry's maintainer threshold, digest, clock;
- ``status``: every benchmark's release state with its reasons (embargoed / scheduled /
  partly released / released);
- ``apply``: what the build does with that state (released items, needles, commitments);
- ``identity``: publishing the embargo identity after a full release;
- ``outputs`` and ``pages``: the released data files and pages.
"""
