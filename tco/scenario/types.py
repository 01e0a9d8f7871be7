"""The base types every scenario section shares (tco.scenario.workload, tco.scenario.options, tco.scenario,
tco.scenario.proposal): strict frozen models that refuse unknown keys and non-finite numbers, the sane bounds
of the numbers and their types, and plain-text fields that refuse control characters (a
client's name must never carry a line break into a CSV row, a bidi override into a PDF, or escape codes into
a terminal). Imports nothing from tco, so both schema modules can use it without importing each other."""

import functools
import re
from typing import Annotated

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

MAX_NAME_CHARS = 200
MAX_TEXT_CHARS = 5000
MAX_PATH_CHARS = 4096

_INVISIBLE = "\u00ad\u180e\u200b-\u200f\u2060-\u2064\ufeff"
"""Characters that print as nothing (soft hyphen, zero-width space and joiners, direction marks, word joiner,
byte-order mark): two names that differ only by one of them look the same on every report."""
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069" + _INVISIBLE + "]")
_CONTROL_TEXT = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def _plain(pattern: re.Pattern):
    def check(v: str) -> str:
        m = pattern.search(v)
        if m:
            import unicodedata

            c = m.group()
            kind = (f"invisible character U+{ord(c):04X} ({unicodedata.name(c, 'no name')})" if re.match(
                f"[{_INVISIBLE}]", c) else f"control character U+{ord(c):04X}")
            raise ValueError(f"{kind} at position {m.start() + 1} is not allowed here; write plain text")
        return v
    return check


def _visible(v: str) -> str:
    if not v.strip():
        raise ValueError("must contain a visible character, not only spaces")
    return v


Name = Annotated[str, Field(min_length=1, max_length=MAX_NAME_CHARS), AfterValidator(_plain(_CONTROL)),
                 AfterValidator(_visible)]
"""A label: one line of plain text, 1–200 characters."""
Line = Annotated[str, Field(max_length=MAX_NAME_CHARS), AfterValidator(_plain(_CONTROL))]
"""One line of plain text, up to 200 characters (may be empty)."""
Id = Annotated[str, Field(min_length=1, max_length=MAX_NAME_CHARS), AfterValidator(_plain(_CONTROL))]
"""A catalog id or name."""
PathText = Annotated[str, Field(min_length=1, max_length=MAX_PATH_CHARS), AfterValidator(_plain(_CONTROL))]
Text = Annotated[str, Field(max_length=MAX_TEXT_CHARS), AfterValidator(_plain(_CONTROL_TEXT))]
"""Free text: tabs and line breaks allowed, up to 5,000 characters."""

# Sane upper bounds: far beyond any real workload, low enough that the arithmetic stays finite.
MAX_USERS = 1e10
"""More than everyone on Earth."""
MAX_TOKENS_PER_REQUEST = 1e7
MAX_REQUESTS_PER_USER_PER_DAY = 1e5
MAX_TRAINING_TOKENS = 1e15
"""About 30× the largest published pre-training run (~3.6e13 tokens)."""
MAX_GPU_HOURS = 1e10
MAX_USD_PER_HOUR = 1e4
"""Per server-hour; the dearest 8-GPU cloud instances list about US$ 100/h."""
MAX_BRL_PER_MONTH = 1e8
"""Per server-month."""
START_YEARS = (1990, 2200)
"""First and last year a timeline may start in."""
MAX_OPTIONS = 100
"""Options one scenario may compare: each gets a calculation sheet in the workbook and a series in its charts (Excel
draws at most 255), and a comparison a reader can follow; 3,000 options (a 414 kB file) ran for minutes and lost
options from the chart."""
MAX_SERVERS = 100_000
"""Servers or instances of one fleet (a training cluster, a committed baseline): far more than any one buyer rents."""
MAX_PLAN_CANDIDATES = 100_000_000
"""The plan search's ceiling on plans scored: 20× its default (5,000,000), about what scores in minutes."""
MIN_EFFICIENCY = 0.01
"""Lowest achieved share of a peak (MFU, memory bandwidth or FLOPS efficiency, usable memory, planned utilisation) a
scenario may give. Zero divides by zero and a tiny share multiplies the fleet without limit; published training
MFUs are around 0.4 and serving efficiencies above 0.5, so a figure under 1 % is a typo, not a plan."""

Share = Annotated[float, Field(ge=0.0, le=1.0)]
Efficiency = Annotated[float, Field(ge=MIN_EFFICIENCY, le=1.0)]
"""An achieved share of a peak: MIN_EFFICIENCY (1 %) to 1."""
Positive = Annotated[float, Field(gt=0.0)]
NonNegative = Annotated[float, Field(ge=0.0)]
Users = Annotated[float, Field(ge=0.0, le=MAX_USERS)]
PositiveUsers = Annotated[float, Field(gt=0.0, le=MAX_USERS)]
UsdPerHour = Annotated[float, Field(gt=0.0, le=MAX_USD_PER_HOUR)]
BrlPerMonth = Annotated[float, Field(gt=0.0, le=MAX_BRL_PER_MONTH)]


class Frozen(BaseModel):
    # strict: "36" is not 36 and "yes" is not true (typos stay errors); finite: inf and nan are refused.
    # The field docstrings are the schema's help text, read by field_docs() when a reference is rendered:
    # pydantic's use_attribute_docstrings would parse every class's source at each start (~20 ms of `validate`).
    model_config = ConfigDict(frozen=True, extra="forbid", strict=True, allow_inf_nan=False)


@functools.cache
def field_docs(model: type[BaseModel]) -> dict[str, str]:
    """Each field's docstring, the string literal written below its annotation (as pydantic's
    ``use_attribute_docstrings`` reads it: cleaned by ``inspect.cleandoc``), for the fields declared in
    ``model`` and in the schema classes it derives from. Reads the source, so only documentation calls it."""
    import ast
    import inspect
    import textwrap

    docs: dict[str, str] = {}
    for cls in reversed(model.__mro__):
        if not (isinstance(cls, type) and issubclass(cls, BaseModel)) or cls is BaseModel:
            continue
        try:
            source = textwrap.dedent(inspect.getsource(cls))
        except (OSError, TypeError):  # no source (a frozen build): no help text
            continue
        node = ast.parse(source).body[0]
        body = node.body if isinstance(node, ast.ClassDef) else []
        for field, doc in zip(body, body[1:]):
            if (isinstance(field, ast.AnnAssign) and isinstance(field.target, ast.Name) and isinstance(doc, ast.Expr)
                    and isinstance(doc.value, ast.Constant) and isinstance(doc.value.value, str)):
                docs[field.target.id] = inspect.cleandoc(doc.value.value)
    return docs
