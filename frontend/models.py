"""What the pages store of their own: a model brought as a Hugging Face config.json, kept so
that a link can name it. The API needs none of this (it takes `model_config` inline)."""

from django.db import models

# The slug of a stored model begins so; no shipped model's does.
CUSTOM_PREFIX = "custom:"


class CustomModel(models.Model):
    """A config.json pasted or uploaded on a page, stored once: its `config` is the
    `model_config` the engine gets (the pasted object with its name as `_display_name`) and
    `sha256` the hash of that object's canonical JSON. Pages name it `custom:` and the first
    16 hex digits of the hash (`slug`), in their addresses and as the engine's model slug."""

    sha256 = models.CharField(max_length=64, unique=True)
    name = models.CharField(max_length=80)
    config = models.JSONField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ("-created_at",)

    def __str__(self) -> str:
        return f"{self.name} ({self.slug})"

    @property
    def slug(self) -> str:
        return f"{CUSTOM_PREFIX}{self.sha256[:16]}"
