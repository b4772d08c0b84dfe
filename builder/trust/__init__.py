"""Trust: who may sign what, and what only the embargo key opens.

- ``sshwire``: the SSH wire format (strings, mpints) both key and signature code read
- ``sshkeys``: SSH public and private keys (Ed25519, ECDSA P-256, RSA), fingerprints
- ``sshsig``: OpenSSH signatures (SSHSIG), strict sign and verify, the four namespaces
- ``agekeys``: age identities and recipients (X25519, Bech32)
- ``seal``: age encryption in memory (pyrage), with a strict header check first
- ``registry_format``: one registry version file, parsed (not yet trusted)
- ``registry``: the verified registry chain: thresholds, key windows, revocations
- ``registry_admin``: maintainers' write operations (propose, sign, status)
- ``credentials``: the build's two secrets (embargo identity, build key) from a file or the environment
"""
