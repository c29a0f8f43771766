"""One Paper schema: the dataclass, the Arrow table schema and the JSONL validator agree field for field."""

from __future__ import annotations

import dataclasses
import json

import pyarrow as pa
import pytest

from sciembed.papers.io import PAPER_SCHEMA, read_parquet, write_parquet
from sciembed.papers.model import ExternalIds, Paper, Reference, Section, SectionRole
from sciembed.papers.readers import own
from sciembed.papers.readers.records import Loc
from sciembed.papers.schema import arrow_schema, unknown_keys, validator_model

FULL = Paper(
    id="p1",
    title="A title",
    abstract="An abstract.",
    sections=(Section("Introduction", "Body text.", SectionRole.INTRODUCTION, "1"),),
    references=(Reference(title="Cited", paper_id="p2", year=2020, raw="raw entry",
                          external_ids=ExternalIds(doi="10.1/x")),),
    venue="ACL",
    year=2021,
    domain="cs",
    fields_of_study=("Computer Science",),
    external_ids=ExternalIds(doi="10.1/p1", arxiv="2101.00001", acl="2021.acl-long.1"),
    flags=("checked",),
    source="test",
)


@pytest.mark.parametrize("cls", [Paper, Section, Reference, ExternalIds])
def test_arrow_and_validator_have_the_dataclass_fields_in_order(cls) -> None:
    names = [f.name for f in dataclasses.fields(cls)]
    assert arrow_schema(cls).names == names
    assert list(validator_model(cls).model_fields) == names


def test_nested_types_follow_the_dataclass() -> None:
    sections = PAPER_SCHEMA.field("sections").type
    assert isinstance(sections, pa.ListType)
    assert [f.name for f in sections.value_type] == [f.name for f in dataclasses.fields(Section)]
    assert PAPER_SCHEMA.field("year").type == pa.int32()
    assert PAPER_SCHEMA.field("external_ids").type == arrow_schema(Paper).field("external_ids").type
    assert PAPER_SCHEMA.equals(arrow_schema(Paper))


def test_every_field_round_trips_through_jsonl_validation_and_parquet(tmp_path) -> None:
    """A paper with every field set survives to_dict → JSONL validator and Parquet write → read unchanged."""
    record = json.loads(json.dumps(FULL.to_dict()))
    assert unknown_keys(record, Paper) == []
    parsed = own.parse(record, Loc("papers.jsonl", 1))
    assert isinstance(parsed, Paper)
    assert dataclasses.replace(parsed, source="test") == FULL
    path = tmp_path / "papers.parquet"
    write_parquet([FULL], path)
    assert list(read_parquet(path)) == [FULL]


def test_validator_rules() -> None:
    model = validator_model(Paper)
    assert model.model_validate({"id": 7}).id == "7"  # integer ids read as text
    assert model.model_validate({"id": "x", "title": None}).title is None  # null text accepted (read as "")
    assert model.model_validate({"id": "x"}).title == ""
    with pytest.raises(ValueError):
        model.model_validate({"id": ""})
    with pytest.raises(ValueError):
        model.model_validate({"id": "x", "sections": [{"role": "preface"}]})  # not a SectionRole
    assert unknown_keys({"id": "x", "extra": 1, "sections": [{"page": 3}]}, Paper) == ["extra", "sections.0.page"]
