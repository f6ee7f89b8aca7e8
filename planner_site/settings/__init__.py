"""Settings package: `base` holds everything read from the environment; `test` and
`production` adjust it. `planner_site.settings` itself is the embedded default."""

from planner_site.settings.base import *  # noqa: F403
