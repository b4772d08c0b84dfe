"""Time-lock encryption to a drand beacon round (drand's ``tlock``, the ``tle`` file format).

- ``ibe``: Boneh–Franklin IBE on BLS12-381 and BLS verification of a round signature
- ``chain``: a drand chain (public key, period, genesis) and its round clock; quicknet pinned
- ``tle``: the age file with a ``tlock`` stanza that stock ``tle`` and ``tlock-js`` read and write
- ``beacon``: a round's signature from a file or a relay, verified before it counts

What Sealboard does with it (scheduling and opening a release) is ``builder.release.timelock``.
"""
