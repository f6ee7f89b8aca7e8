// The compare tray: builds added from any ranking or build list (buttons with
// data-compare-kind "builds" or "parts", data-compare-value and data-compare-name), kept in
// this browser's localStorage across pages, at most four, and a link to /compare/ that
// carries them all with the workload of the page they were added from: a shareable URL.
// A static file, no inline code: the Content-Security-Policy allows nothing else.
(function () {
  "use strict";
  const KEY = "planner.compareTray";
  const MAX = 4;

  function load() {
    try {
      const items = JSON.parse(window.localStorage.getItem(KEY) || "[]");
      return Array.isArray(items) ? items.slice(0, MAX) : [];
    } catch (e) {
      return [];
    }
  }

  function save(items) {
    window.localStorage.setItem(KEY, JSON.stringify(items.slice(0, MAX)));
  }

  function same(a, b) {
    return a.kind === b.kind && a.value === b.value;
  }

  function compareUrl(items) {
    const params = new URLSearchParams(items.length ? items[items.length - 1].workload || "" : "");
    params.delete("builds");
    params.delete("parts");
    items.forEach((item) => params.append(item.kind, item.value));
    return "/compare/?" + params.toString();
  }

  function render() {
    const tray = document.getElementById("compare-tray");
    if (!tray) return;
    const items = load();
    const list = tray.querySelector("ol");
    list.replaceChildren();
    items.forEach((item, index) => {
      const li = document.createElement("li");
      li.textContent = item.name + " ";
      const remove = document.createElement("button");
      remove.type = "button";
      remove.className = "link";
      remove.dataset.compareRemove = String(index);
      remove.textContent = "remove";
      remove.setAttribute("aria-label", "Remove " + item.name + " from the compare tray");
      li.appendChild(remove);
      list.appendChild(li);
    });
    const link = tray.querySelector("a.compare-go");
    link.href = compareUrl(items);
    link.textContent = "Compare " + items.length + " builds";
    link.hidden = items.length < 2;
    tray.querySelector(".compare-count").textContent =
      items.length + " of " + MAX + (items.length < 2 ? ": add at least two" : "");
    tray.hidden = items.length === 0;
    document.querySelectorAll("[data-compare-value]").forEach((button) => {
      const mine = { kind: button.dataset.compareKind, value: button.dataset.compareValue };
      const added = items.some((item) => same(item, mine));
      button.setAttribute("aria-pressed", added ? "true" : "false");
      button.textContent = added ? "In tray" : "Compare";
      button.disabled = !added && items.length >= MAX;
    });
  }

  document.addEventListener("click", (event) => {
    const add = event.target.closest("[data-compare-value]");
    if (add) {
      const item = {
        kind: add.dataset.compareKind,
        value: add.dataset.compareValue,
        name: add.dataset.compareName,
        workload: add.dataset.compareWorkload || "",
      };
      let items = load();
      items = items.some((i) => same(i, { kind: item.kind, value: item.value }))
        ? items.filter((i) => !same(i, { kind: item.kind, value: item.value }))
        : items.concat([item]).slice(0, MAX);
      save(items);
      render();
      return;
    }
    const remove = event.target.closest("[data-compare-remove]");
    if (remove) {
      const items = load();
      items.splice(Number(remove.dataset.compareRemove), 1);
      save(items);
      render();
    }
    if (event.target.closest("[data-compare-clear]")) {
      save([]);
      render();
    }
  });
  document.addEventListener("DOMContentLoaded", render);
  document.addEventListener("htmx:afterSwap", render);
  window.addEventListener("storage", render);
})();
