"""Render: board data (JSON/CSV) and the Markdown pages made from that same data."""
