"""The docs site's pages, rendered from the declarations when the site is built.

docs/*.md hold, where a list of the code's extension points belongs, a marker such as
``<!-- site:rules KNB0 -->``; docs/hooks/pages.py (an MkDocs hook) replaces each with what
the declarations render (knobregistry.docsite.pages), as Ruff's docs are generated from its
rules. A new rule, compare mode or language is then its module and its test: no page is
edited. The tests read the pages as rendered (``render_page``).
"""

from knobregistry.docsite.pages import MarkerError, render_page

__all__ = ["MarkerError", "render_page"]
