"""The one error the engine raises for bad input: it names the offending field."""


class EngineInputError(ValueError):
    """Input the engine cannot simulate; `field` is a dotted path such as `workload.seq_len`."""

    def __init__(self, *, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message
