"""A paper of the served collection by its id or any external id (`search/paper_lookup.py`), else 404 with hints."""

from __future__ import annotations

from sciembed.index.collection import Collection
from sciembed.search.paper_lookup import PaperLookup
from sciembed.server.errors import ApiError


def resolve_paper(collection: Collection, paper_id: str) -> str:
    """The collection's id for `paper_id` (an id, DOI, arXiv, ACL … id); 404 naming near ids and titles."""
    catalog = collection.catalog
    if catalog.has_paper(paper_id):
        return paper_id
    lookup = PaperLookup(catalog.titles(), catalog.external_ids, "this collection")
    found = lookup.find(paper_id)
    if found is None:
        hints = [{"id": p, "title": lookup.titles.get(p, "")} for p in lookup.suggestions(paper_id)]
        raise ApiError(404, lookup.message(paper_id), details={"suggestions": hints})
    return found
