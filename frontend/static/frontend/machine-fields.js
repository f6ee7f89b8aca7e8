// A whole system (unified memory) is its own GPU and CPU (the engine refuses it beside a
// PC's): on the serving form, choosing one sets the GPU and CPU to none, and choosing a GPU
// or a CPU sets the whole system to none, before htmx sends the form (this listener runs in
// the capture phase, ahead of the form's own change trigger).
document.addEventListener(
  "change",
  (event) => {
    const field = event.target;
    if (!(field instanceof HTMLSelectElement) || !field.form || field.value === "") return;
    const form = field.form;
    if (!(form.elements.namedItem("unified") instanceof HTMLSelectElement)) return;
    const others = { unified: ["gpu", "cpu"], gpu: ["unified"], cpu: ["unified"] }[field.name];
    for (const name of others || []) {
      const other = form.elements.namedItem(name);
      if (other instanceof HTMLSelectElement) other.value = "";
    }
  },
  true,
);
