"""Render: board data (JSON/CSV), the Markdown pages made from that same data, the site.

- ``data``: board, index, submissions and rejections as JSON/CSV (the public data contract)
- ``pages``: Markdown pages from those same dicts, through ``templates/`` (Jinja2)
- ``site``: stages pages and data and runs the site generator
- ``site_tree``: the plain docs tree (with Sealboard's default pages, theme override and
  assets from ``site_template/``) and the generated site config
- ``generator``: mkdocs or Zensical in a child process holding nothing secret
- ``jinja_sandbox``: the generated config's first hook: theme templates in Jinja's sandbox
- ``nav_cache``, ``raw_html_blocks``: hooks that only save time (the nav once per folder for
  pages out of it; raw HTML blocks to Markdown's stash without html.parser)
- ``mkdocs_plugin``: the ``sealboard`` plugin, a preview shim for ``mkdocs serve``
"""
