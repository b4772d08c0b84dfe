"""Render: board data (JSON/CSV), the Markdown pages made from that same data, the site.

- ``charts``: Chart specs for sealboard.js: each board charts its own dimension
- ``confinement``: Landlock for the site generator's child (it sees only the staged tree), and
  non-dumpable for the build while it holds a secret
- ``compare``: The compare page of a benchmark: 2–5 models side by side on every board
- ``data``: The public data contract: `site/data/index.json` and one JSON + CSV per board
- ``data_files``: the Data page's download links: every file the build published under ``data/``, grouped
- ``eee_export``: `sealboard export eee DIR`: a built site's Every Eval Ever records merged into
  one datastore, byte for byte
- ``eee_samples``: Every Eval Ever instance-level samples files of released, opted-in results
- ``escaping``: One escaping rule for lab text at every sink: pages, search documents, data
  scripts draw, tooltips
- ``exports``: each submission as an Every Eval Ever 0.3 datastore record (every board cell the
  site publishes) and Hugging Face `.eval_results` entries, each pointing back to its bundle's
  manifest digest
- ``forest``: Forest bars: each row's 95% interval drawn as a bar on one axis shared by the board
- ``fragments``: generated HTML reaches a page through the theme (front matter ``template:``),
  never through Markdown
- ``formulas``: Which page text holds formulas (KaTeX, site_template/assets/katex/, loads only
  there), and how a formula we write ourselves reaches a page through Markdown unharmed
- ``generator``: Run the site generator (mkdocs or Zensical) over the staged tree in a child
  process that holds nothing secret
- ``hangul_font``: the Hangul web font: Noto Sans CJK KR cut to the Hangul the pages hold, linked
  only by those pages
- ``hf_results``: Hugging Face `.eval_results/` entries (a board's ranking metric for a model
  card), written only for a Hub dataset and an absolute site address
- ``jinja_sandbox``: the generated config's first hook: theme templates render in Jinja's sandbox
- ``lunr_fix``: the two lunr fixes (token-set key, Korean word characters) applied to the
  built site's copy of Material's search worker, for the tested Material only
- ``labels``: Human-readable column titles and number formats for the pages (the data files keep
  ids)
- ``mkdocs_plugin``: The `sealboard` mkdocs plugin: a thin preview shim for `mkdocs serve -f
  mkdocs.yml`
- ``fragment_reader``: hook that only saves time: a page's HTML fragments read, not compiled as
  templates
- ``page_templates``: The Jinja environment of Sealboard's own page templates: no autoescape,
  dict keys found without an exception
- ``pages``: Markdown pages rendered from the board data dicts (never from frames directly)
- ``progress_hook``: the generated config's last hook: pages converted and written, for the
  build's progress line
- ``reasons``: the reason codes page: every code Sealboard reports, who raises it, what to do
- ``search_docs``: the search documents of the generated pages, from their source; the index
  split into the config every page loads and the documents loaded when search opens
- ``search_index``: hook writing the search index from mkdocs events and Material's
  ``search: exclude`` (``search_docs``), then the lunr fixes
- ``search_worker``: Material's search worker as one script, so search opened from disk runs
  in a real worker (from a ``blob:`` URL), off the page's thread
- ``site``: Stage the generated pages and data as a plain docs tree, then run the site generator
- ``site_guard``: What the site may be built from: refuse mkdocs config or site sources that
  could read files outside the site (design, security invariant 6), …
- ``site_tree``: The plain docs tree the site generator builds, and its generated config
- ``tested_versions``: The third-party versions the site was tested and measured with (the lunr
  fixes run only on these; ``pyproject.toml`` caps the generator at them)
"""
