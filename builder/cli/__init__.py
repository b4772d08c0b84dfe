"""The ``sealboard`` command: one short click command per verb, a client of the library.

- ``attest``: `sealboard verify-site`, `record-attestation` and `audit`: a deploy's signed attestation, and
  the audit after release
- ``build``: `sealboard build`
- ``bundle``: `sealboard bundle create | sign | verify` — the lab's side
- ``common``: Shared CLI plumbing: error translation and progress output
- ``dataset``: `sealboard dataset …`: the maintainers' sealed, committed dataset bundles
- ``demo``: `sealboard demo`
- ``export``: `sealboard export eee`: the site's Every Eval Ever records as one datastore
- ``importers``: `sealboard import inspect-ai | lm-eval` — results.jsonl and a run.yaml from
  harness logs
- ``init``: `sealboard init`: scaffold a new leaderboard repository
- ``keys``: `sealboard keys …`: maintain the threshold-signed trust registry in keys/registry
- ``release``: `sealboard release flip|sign|status|verify|publish-identity|identity-due`
- ``status``: `sealboard status`: what happened to each of a lab's bundles
- ``validate``: `sealboard validate` — the pull-request check
"""

from __future__ import annotations

import click

from builder import __version__


@click.group(context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(__version__, prog_name="sealboard")
def main() -> None:
    """Sealboard: signed, sealed leaderboard bundles in; a verified, scored site out.

    \b
    Quick start:
      sealboard demo --out demo        # a complete demo instance, built into demo/site
      sealboard build --root demo --identity demo/keys/demo/identity.txt
    """


def _register() -> None:
    from builder.cli.attest import audit_command, record_attestation_command, verify_site_command
    from builder.cli.build import build_command
    from builder.cli.bundle import bundle
    from builder.cli.dataset import dataset
    from builder.cli.demo import demo_command
    from builder.cli.export import export_group
    from builder.cli.importers import import_group
    from builder.cli.init import init_command, pin_wheel_command
    from builder.cli.keys import keys
    from builder.cli.release import release
    from builder.cli.status import status_command
    from builder.cli.validate import validate_command

    for command in (
        build_command,
        demo_command,
        export_group,
        bundle,
        dataset,
        import_group,
        init_command,
        pin_wheel_command,
        keys,
        release,
        status_command,
        validate_command,
        verify_site_command,
        record_attestation_command,
        audit_command,
    ):
        main.add_command(command)


_register()
