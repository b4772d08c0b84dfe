"""Render: board data (JSON/CSV), the Markdown pages made from that same data, the site.

- ``data``: board, index, submissions and rejections as JSON/CSV (the public data contract)
- ``pages``: Markdown pages from those same dicts, through ``templates/`` (Jinja2)
- ``site``: stages pages and data and runs the mkdocs-material build
- ``mkdocs_plugin``: the ``sealboard`` mkdocs plugin: adds staged pages and Sealboard's
  default pages, theme overrides and assets (``site_template/``) to a site
"""
