"""Unit: a typed Python function → the tool's input model and JSON schema (session/extend/function_schema.py)."""

from __future__ import annotations

from typing import Annotated, Literal, Optional

import pytest
from pydantic import BaseModel, Field, ValidationError

from axon_cli.session.extend.function_schema import SchemaError, function_schema
from axon_cli.session.extend.pytools import ToolOptions, spec_for, tool
from axon_cli.settings.config import Settings
from axon_cli.tools.spec import ToolContext


class Point(BaseModel):
    x: int
    y: int


def search(query: str, limit: int = 10, ratio: float = 0.5, exact: bool = False,
           mode: Literal["fast", "full"] = "fast", tags: list[str] | None = None,
           owner: Optional[str] = None, depth: int = Field(2, ge=0, le=5),
           label: Annotated[str, Field(max_length=8)] = "x") -> str:
    """Search the index.

    Looks through every document.

    Args:
        query: the words to look for,
            several allowed.
        limit (int): at most this many hits.
        ratio: minimum score.
        exact: match whole words only.
        mode: how hard to look.
        tags: only documents with these tags.
        owner: only this owner's documents.
        depth: how deep to follow links.
    """
    return query


def test_types_defaults_and_descriptions_from_a_google_docstring():
    schema = function_schema(search)
    assert schema.name == "search" and schema.description == "Search the index.\n\nLooks through every document."
    props = schema.input_model.model_json_schema()["properties"]
    assert props["query"] == {"description": "the words to look for, several allowed.", "title": "Query",
                              "type": "string"}
    assert props["limit"]["type"] == "integer" and props["limit"]["default"] == 10
    assert props["limit"]["description"] == "at most this many hits."
    assert props["ratio"]["type"] == "number" and props["exact"]["type"] == "boolean"
    assert props["mode"]["enum"] == ["fast", "full"] and props["mode"]["default"] == "fast"
    assert props["tags"]["anyOf"][0] == {"items": {"type": "string"}, "type": "array"}
    assert props["owner"]["default"] is None
    assert props["depth"]["minimum"] == 0 and props["depth"]["maximum"] == 5
    assert props["depth"]["description"] == "how deep to follow links."
    assert props["label"]["maxLength"] == 8
    assert schema.input_model.model_json_schema()["required"] == ["query"]


def test_the_model_validates_and_forbids_unknown_arguments():
    model = function_schema(search).input_model
    ok = model.model_validate({"query": "q", "mode": "full", "tags": ["a"]})
    assert ok.mode == "full" and ok.tags == ["a"] and ok.limit == 10
    for bad in ({"query": "q", "mode": "slow"}, {"query": "q", "depth": 9}, {"limit": 1},
                {"query": "q", "limt": 3}, {"query": "q", "limit": "many"}):
        with pytest.raises(ValidationError):
            model.model_validate(bad)


def test_numpy_and_sphinx_docstrings():
    def numpy_style(path: str, count: int = 1) -> str:
        """Read a file.

        Parameters
        ----------
        path : str
            The file to read.
        count : int, optional
            How many times.

        Returns
        -------
        str
        """
        return path

    def sphinx_style(path: str) -> str:
        """Read a file.

        :param path: The file to read.
        :returns: its text
        """
        return path

    numpy = function_schema(numpy_style)
    assert numpy.description == "Read a file."
    props = numpy.input_model.model_json_schema()["properties"]
    assert props["path"]["description"] == "The file to read." and props["count"]["description"] == "How many times."
    sphinx = function_schema(sphinx_style)
    assert sphinx.description == "Read a file."
    assert sphinx.input_model.model_json_schema()["properties"]["path"]["description"] == "The file to read."


def test_pydantic_model_parameters_and_the_context_parameter():
    def move(point: Point, ctx: ToolContext) -> str:
        """Move a point."""
        return str(point)

    schema = function_schema(move)
    assert schema.context_param == "ctx" and schema.params == ["point"]
    assert schema.input_model.model_validate({"point": {"x": 1, "y": 2}}).point == Point(x=1, y=2)


def test_missing_docstring_type_hint_and_star_args_are_refused():
    def undocumented(x: int) -> str:
        return str(x)

    def untyped(x) -> str:  # type: ignore[no-untyped-def]
        """Do it."""
        return x

    def star(*names: str) -> str:
        """Do it."""
        return ""

    with pytest.raises(SchemaError, match="no docstring"):
        function_schema(undocumented)
    with pytest.raises(SchemaError, match="parameter 'x' has no type hint"):
        function_schema(untyped)
    with pytest.raises(SchemaError, match=r"\*args"):
        function_schema(star)


def test_decorator_options_become_the_spec(tmp_path):
    ctx = ToolContext(project_root=tmp_path, state_dir=tmp_path / ".axon", session_id="s", settings=Settings())

    @tool(risk="read", timeout=5, retries=2, deferred=True)
    def flaky(n: int) -> dict:
        """Fail twice, then answer."""
        flaky.calls += 1  # type: ignore[attr-defined]
        if flaky.calls < 3:  # type: ignore[attr-defined]
            raise OSError("not yet")
        return {"n": n}

    flaky.calls = 0  # type: ignore[attr-defined]
    spec = spec_for(flaky, flaky.__axon_tool__, ".axon/tools/f.py")  # type: ignore[attr-defined]
    assert (spec.category, spec.timeout, spec.deferred, spec.source) == ("read", 5, True, "python:.axon/tools/f.py")
    assert spec.is_read_only(None) and not spec.is_destructive(None)
    assert spec.handler(spec.input_model(n=4), ctx) == '{\n "n": 4\n}'
    assert flaky.calls == 3  # type: ignore[attr-defined]
    with pytest.raises(ValueError, match="risk must be one of"):
        tool(risk="dangerous")  # type: ignore[arg-type]
    default = spec_for(search, ToolOptions(), "x.py")
    assert default.category == "other" and default.is_destructive(None)
