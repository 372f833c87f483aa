// The viewer's one script: pages work without it; it only saves clicks.
"use strict";
document.addEventListener("DOMContentLoaded", () => {
  // A filter that is a select or a checkbox applies as soon as it changes.
  for (const field of document.querySelectorAll("form.filters select, form.filters input[type=checkbox]")) {
    field.addEventListener("change", () => field.form.requestSubmit());
  }
  // A row of a table that leads somewhere opens it on a click anywhere in the row.
  for (const row of document.querySelectorAll("tr[data-href]")) {
    row.addEventListener("click", (event) => {
      if (event.target.closest("a, button, input, select, summary")) return;
      window.location.assign(row.dataset.href);
    });
  }
  // Actions that cannot be taken back ask first.
  for (const form of document.querySelectorAll("form[data-confirm]")) {
    form.addEventListener("submit", (event) => {
      if (!window.confirm(form.dataset.confirm)) event.preventDefault();
    });
  }
  // "/" jumps to the search box, as in most tools with one.
  const search = document.querySelector("input[type=search]");
  if (search) {
    document.addEventListener("keydown", (event) => {
      if (event.key === "/" && document.activeElement.tagName !== "INPUT" && document.activeElement.tagName !== "TEXTAREA") {
        event.preventDefault();
        search.focus();
      }
    });
  }
});
