"""The “Your model” box of the pages whose workload form is a GET: a config.json pasted or
uploaded there is posted to the custom-model view, which comes back to the page with it."""

from typing import Any

from django import template

from frontend.forms import CustomModelForm

register = template.Library()


@register.inclusion_tag("frontend/_custom_model.html", takes_context=True)
def custom_model_box(context: template.Context) -> dict[str, Any]:
    request = context["request"]
    form = CustomModelForm(initial={"next": request.get_full_path()})
    return {"model_form": form, "request": request, "csrf_token": context.get("csrf_token")}
