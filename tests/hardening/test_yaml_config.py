"""The one YAML → pydantic loader (suite, study and funnel configs): every failure names the file, and the field."""

from __future__ import annotations

import pytest
from pydantic import BaseModel, ConfigDict, Field

from sciembed.ioutil.yaml_config import read_yaml_mapping, validate_model


class _Inner(BaseModel):
    k: int = Field(ge=1)


class _Conf(BaseModel):
    model_config = ConfigDict(extra="forbid")
    inner: _Inner
    name: str = "x"


class _Err(ValueError):
    pass


@pytest.mark.parametrize(("content", "message"), [
    (None, "thing not found"),
    (b"a: [1, 2\n", "not valid YAML"),
    (b"name: \xff\n", r"not valid YAML \(UnicodeDecodeError"),
    (b"- a\n- b\n", "top level must be a mapping, got list"),
])
def test_unreadable_files_raise_the_callers_error_with_the_file(tmp_path, content, message):
    path = tmp_path / "c.yaml"
    if content is not None:
        path.write_bytes(content)
    with pytest.raises(_Err, match=message) as info:
        read_yaml_mapping(path, _Err, "thing")
    assert str(path) in str(info.value)


def test_empty_file_is_an_empty_mapping_and_problems_name_dotted_fields(tmp_path):
    (tmp_path / "e.yaml").write_text("")
    assert read_yaml_mapping(tmp_path / "e.yaml", _Err) == {}
    with pytest.raises(_Err, match=r"^src.yaml: 2 invalid setting\(s\): inner.k: .*greater than or equal to 1; "
                                   r"extra: Extra inputs"):
        validate_model(_Conf, {"inner": {"k": 0}, "extra": 1}, "src.yaml", _Err, "invalid setting(s)")
    assert validate_model(_Conf, {"inner": {"k": 2}}, "src.yaml", _Err).inner.k == 2
