"""The Data page's ssh-keygen recipe trusts the repository's build key, not the site's own
copy (issue 44, class 8). A wholly forged site carries its forger's key in
``attestation/allowed_signers`` and signatures that key satisfies: the recipe as the page
prints it must refuse it. Control: a site signed by the build key passes the same commands.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

TEMPLATE = Path(__file__).resolve().parents[2] / "builder" / "render" / "templates" / "data.md.j2"


def _recipe() -> list[str]:
    text = TEMPLATE.read_text()
    section = text[text.index("## Checking this site") :]
    blocks = re.findall(r"```sh\n(.*?)```", section, re.S)
    lines = blocks[1].replace("\\\n", " ").splitlines()
    return [line.strip().removeprefix("ssh-keygen ") for line in lines if line.strip().startswith("ssh-keygen -Y verify")]


def _key(tmp_path: Path, name: str) -> Path:
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", name, "-f", str(tmp_path / name)], check=True)
    return tmp_path / name


def _site(tmp_path: Path, signer: Path) -> Path:
    site = tmp_path / f"site-{signer.name}"
    (site / "attestation").mkdir(parents=True)
    for name in ("statement.json", "SHA256SUMS"):
        (site / "attestation" / name).write_text(f"{name} of a deploy\n")
        subprocess.run(
            ["ssh-keygen", "-Y", "sign", "-q", "-n", "sealboard-site", "-f", str(signer), str(site / "attestation" / name)], check=True
        )
    # the site's own copy names whoever signed it
    (site / "attestation" / "allowed_signers").write_text(
        f'sealboard-build namespaces="sealboard-site" {signer.with_suffix(".pub").read_text()}'
    )
    return site


def _run_recipe(site: Path, build_signers: Path) -> list[int]:
    codes = []
    for command in _recipe():
        args = command.split()
        sig_in = args.index("<")
        argv = ["ssh-keygen", *args[:sig_in]]
        argv[argv.index("-f") + 1] = str(build_signers) if argv[argv.index("-f") + 1] == "build_signers" else argv[argv.index("-f") + 1]
        with (site / args[sig_in + 1]).open("rb") as fh:
            codes.append(subprocess.run(argv, stdin=fh, cwd=site, capture_output=True).returncode)
    return codes


def test_the_recipe_names_the_repository_key_never_the_sites_copy() -> None:
    recipe = _recipe()
    assert len(recipe) == 2 and all("-f build_signers" in c for c in recipe)
    assert "-f attestation/allowed_signers" not in TEMPLATE.read_text()
    assert "sealboard keys allowed-signers --root BOARD-REPO --namespace sealboard-site --out build_signers" in TEMPLATE.read_text()


def test_a_forged_site_fails_the_recipe_and_the_real_one_passes(tmp_path: Path) -> None:
    build, forger = _key(tmp_path, "build"), _key(tmp_path, "forger")
    build_signers = tmp_path / "build_signers"  # what `sealboard keys allowed-signers` writes from the registry
    build_signers.write_text(f'sealboard-build namespaces="sealboard-site" {build.with_suffix(".pub").read_text()}')
    forged = _site(tmp_path, forger)
    assert all(code != 0 for code in _run_recipe(forged, build_signers))  # ssh-keygen: no principal for this key
    # the old recipe (the site's own copy) accepted the forgery: the reason for the change
    assert _run_recipe(forged, forged / "attestation" / "allowed_signers") == [0, 0]
    assert _run_recipe(_site(tmp_path, build), build_signers) == [0, 0]
