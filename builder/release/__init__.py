"""The release switch: threshold-signed, time-locked release statements and what they publish.

- ``statement``: the file format ``sealboard-release/1`` (parse strictly, write);
- ``scope``: which items a statement's scope covers;
- ``verify``: signatures against the registry's maintainer threshold (the version in force
  when git admitted the statement: ``registry_history``), digest, clock;
- ``status``: every benchmark's release state with its reasons (embargoed / scheduled /
  partly released / released), and the one statement governing each item;
- ``apply``: what the build does with that state (released items, needles, commitments);
- ``identity``: publishing the embargo identity when the release authorises all it opens;
- ``dataset_admission`` and ``commitment_history``: a dataset judged as it was merged;
- ``outputs`` and ``pages``: the released data files and pages.
"""
