"""The demo instance: synthetic data (synth_*), written as a complete signed, sealed instance (instance).

- ``deploys``: The demo's past: two earlier commits (the first few submissions of each benchmark),
  each deployed (data only, signed) and recorded, so snapshots and the changelog have history
- ``figures``: The records the synthetic generators (`synth_*`) hand to the demo writer
- ``history``: `sealboard demo --history`: the embargoed commit deployed, signed and recorded, then the
  audit after release of KCSAT-ML recorded, so the demo's audit has a past to re-derive
- ``instance``: Write a complete demo instance: throwaway keys, registry, configs, dataset and
  result bundles, all signed and sealed for real, in the repository …
- ``optin``: What the demo's labs opt to publish at release (`publish_on_release`), so the demo
  shows every case the sealing design has (builder.bundles.sealing):
- ``releases``: The demo's three release states, all real (threshold-signed statements, a
  published identity):
- ``repository``: The demo as a git repository: `sealboard demo` commits what it wrote
- ``synth_common``: Shared machinery of the synthetic generators: seeded randomness, exact
  counts, swaps
- ``synth_kcsat``: Synthetic KCSAT-ML (seed paper 002): every Table 8 configuration on all 664
  items
- ``synth_kcsat_items``: The 339 KCSAT-ML core items: cohort error rates, points, years, forms,
  answers
- ``synth_kcsat_table``: KCSAT-ML Table 8 (Appendix A; Table 2 is a subset of it), one row per
  configuration
- ``synth_lmb``: Synthetic LiveMathematicianBench (seed paper 001): monthly editions of 5-option
  items
- ``synth_soohak``: Synthetic SOOHAK (seed paper 000): 702 Mini, 340 Challenge, 99 Refusal
  items, en+ko
- ``synth_soohak_panel``: The SOOHAK model panel: who was evaluated, how, and the figures the
  paper prints
- ``synth_soohak_text``: SOOHAK subject table and the (clearly synthetic) bilingual question
  templates
"""
