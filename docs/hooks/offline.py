"""MkDocs hook: the site opens from disk with no network.

Material's `offline` plugin makes search run without a web server by loading its
worker through the iframe-worker shim, which it links from unpkg.com. This hook
points each page at the copy in docs/assets/javascripts instead.
"""

from __future__ import annotations

from typing import Any

SHIM_URL = "https://unpkg.com/iframe-worker/shim"
SHIM_COPY = "assets/javascripts/iframe-worker-shim.js"


def on_post_page(output: str, page: Any, config: Any) -> str:
    """The page's HTML with the shim loaded from the site itself."""
    depth = page.url.count("/")
    return output.replace(SHIM_URL, "../" * depth + SHIM_COPY)


def on_post_template(output_content: str, template_name: str, config: Any) -> str:
    """The same for pages rendered from a template alone (404.html, at the site's root)."""
    return output_content.replace(SHIM_URL, SHIM_COPY)
