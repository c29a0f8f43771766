"""Request and response bodies (they are also the OpenAPI schema at /docs)."""

from __future__ import annotations

import dataclasses
from typing import Any, get_type_hints

from pydantic import BaseModel, ConfigDict, Field, create_model

from sciembed.index.collection_results import Hit


class SearchFilters(BaseModel):
    model_config = ConfigDict(extra="forbid")
    year_min: int | None = Field(None, description="Earliest year (inclusive).")
    year_max: int | None = Field(None, description="Latest year (inclusive).")
    venue: str | None = Field(None, description="Venue, case-insensitive exact match of the source's venue text or "
                                                "its short name (ACL, EMNLP, NAACL, …).")
    domain: str | None = Field(None, description="Domain / field, case-insensitive exact match.")


class SearchRequest(BaseModel):
    """Exactly one of `query`, `paper_id`, `paper`."""

    model_config = ConfigDict(extra="forbid")
    query: str | None = Field(None, description="Free-text query.", max_length=10_000)
    paper_id: str | None = Field(None, description="A paper of the collection: papers like it.")
    paper: dict[str, Any] | None = Field(None, description="A whole paper in sciembed's own JSON format.")
    k: int = Field(10, description="Hits per page (larger values are clamped to the server's max_k).")
    offset: int = Field(0, ge=0, description="Hits to skip (paging).")
    filters: SearchFilters = Field(default_factory=SearchFilters)
    ef_search: int | None = Field(None, ge=1, le=4096, description="HNSW search breadth for this request.")
    nprobe: int | None = Field(None, ge=1, le=65_536, description="IVF lists probed for this request.")
    refine_k_factor: int | None = Field(
        None, ge=1, le=256, description="IVF-PQ with refine: candidates re-ranked exactly = this × k (this request)."
    )


def model_of(cls: type, name: str) -> type[BaseModel]:
    """A response model with the fields of dataclass `cls`: their types, defaults and ``doc`` as description."""
    hints = get_type_hints(cls)
    fields: dict[str, Any] = {}
    for item in dataclasses.fields(cls):
        info: dict[str, Any] = {"description": item.metadata.get("doc")}
        if item.default_factory is not dataclasses.MISSING:
            info["default_factory"] = item.default_factory
        else:
            info["default"] = ... if item.default is dataclasses.MISSING else item.default
        fields[item.name] = (hints[item.name], Field(**info))
    return create_model(name, **fields)


HitOut = model_of(Hit, "HitOut")


class SearchResponse(BaseModel):
    hits: list[HitOut]
    k: int
    offset: int
    more: bool = Field(description="Whether a next page may hold hits.")
    took_ms: float
    query_views: int = Field(description="Vectors the query was searched with (a paper: its TA and windows).")
    notes: list[str] = []
    paper: dict[str, Any] | None = Field(None, description="The uploaded paper as read (id, title, sections).")


WAIT = ("true: answer once the papers are searchable; false: once they are on disk, queued to be indexed by "
        "the server's write queue (searchable shortly after; `GET /stats` counts what waits)")


class AddPapersRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")
    papers: list[dict[str, Any]] = Field(description="Papers in sciembed's own JSON format (Paper.to_dict()).")
    wait: bool = Field(True, description=WAIT)


class AddPapersResponse(BaseModel):
    added: int
    replaced: int
    views: int
    skipped_no_text: int
    rejected: int
    rejections: list[dict[str, Any]] = []
    papers: int = Field(description="Papers in the collection afterwards.")
    ids: list[dict[str, str]] = Field(default=[], description="Id and title of each paper added or replaced "
                                                              "(the first 50).")
    queued: int = Field(0, description="Papers queued to be indexed (`wait`: false): on disk, not yet searchable.")
    waiting: int = Field(0, description="Papers waiting in the write queue after this request.")
