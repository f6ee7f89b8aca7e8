"""The verdict on a corpus row the engine cannot predict honestly."""


class NotModeled(Exception):  # noqa: N818 (a verdict, not an error)
    """The row cannot be predicted honestly; the message says why."""
