// tidings' reader: keyboard shortcuts and local times. Every page works without this file;
// the shortcuts press the same links and buttons a reader would (forms are plain POSTs, so
// the Content-Security-Policy allows this script from tidings itself and nothing else).
"use strict";

(function () {
  // Times are written in UTC; show them in the reader's own time zone.
  for (const el of document.querySelectorAll("time[datetime]")) {
    const at = new Date(el.getAttribute("datetime"));
    if (!isNaN(at)) {
      el.title = el.textContent;
      el.textContent = at.toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });
    }
  }

  const items = Array.from(document.querySelectorAll("ol.entries > li"));
  const KEPT = "tidings-selected";
  let selected = -1;

  function select(index) {
    if (items.length === 0) return;
    index = Math.max(0, Math.min(items.length - 1, index));
    if (selected >= 0) items[selected].classList.remove("selected");
    selected = index;
    const item = items[selected];
    item.classList.add("selected");
    item.scrollIntoView({ block: "nearest" });
    const link = item.querySelector("a.title");
    if (link) link.focus({ preventScroll: true });
  }

  // After a form sent the browser back here, the entry it acted on is selected again.
  const kept = sessionStorage.getItem(KEPT);
  sessionStorage.removeItem(KEPT);
  if (kept) {
    const index = items.findIndex((item) => item.id === kept);
    if (index >= 0) select(index);
  }

  function send(form) {
    if (!form) return;
    if (selected >= 0) sessionStorage.setItem(KEPT, items[selected].id);
    form.requestSubmit();
  }

  function follow(css) {
    const link = document.querySelector(css);
    if (link) window.location.href = link.href;
  }

  // The selected entry in a list, else the entry this page shows.
  function here(css) {
    if (selected >= 0) return items[selected].querySelector(css);
    return document.querySelector("nav.entrybar " + css);
  }

  document.addEventListener("keydown", (event) => {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    const target = event.target;
    if (target.closest && target.closest("input, textarea, select, [contenteditable]")) return;
    const inList = items.length > 0;
    switch (event.key) {
      case "j":
        if (inList) select(selected + 1);
        else follow("a[rel=next]");
        break;
      case "k":
        if (inList) select(selected - 1);
        else follow("a[rel=prev]");
        break;
      case "o":
      case "Enter":
        if (selected < 0) return;
        follow("#" + items[selected].id + " a.title");
        break;
      case "m":
        send(here("form.read"));
        break;
      case "s":
        send(here("form.star"));
        break;
      case "A":
        send(document.querySelector("form.mark-all"));
        break;
      case "r":
        send(document.querySelector("form.read-now"));
        break;
      case "/": {
        const search = document.getElementById("top-q");
        if (search) search.focus();
        break;
      }
      case "?": {
        const help = document.getElementById("shortcuts");
        if (help) {
          help.open = !help.open;
          if (help.open) help.scrollIntoView({ block: "nearest" });
        }
        break;
      }
      default:
        return;
    }
    event.preventDefault();
  });
})();
