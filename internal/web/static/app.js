// Errata dashboard: progressive enhancement only; every page works without it.
// Hand-written, no dependencies, no build step. It runs once, after parsing
// (the layout loads it with defer), and adds:
//   - <time datetime> in the browser's time zone, with a relative phrase;
//   - <button data-copy="#id" hidden> copy buttons (revealed here);
//   - <form data-confirm="…"> confirmation before submitting;
//   - keyboard shortcuts (press ? for the list; r, i and a act on the
//     selected row of the project page's triage list).
// The Content-Security-Policy forbids inline script and style: everything is
// wired here with addEventListener and styled by classes in style.css.
(() => {
  "use strict";

  const main = () => document.getElementById("main") || document.body;

  // ---- Times ---------------------------------------------------------------

  const zone = (() => {
    try { return Intl.DateTimeFormat().resolvedOptions().timeZone || "local"; } catch (e) { return "local"; }
  })();
  const absolute = new Intl.DateTimeFormat(undefined, {
    year: "numeric", month: "short", day: "numeric",
    hour: "2-digit", minute: "2-digit", second: "2-digit", timeZoneName: "short",
  });
  // In a table cell a time is shorter (no seconds; the year only when it is
  // not this one), so that a column of them fits on one line per row; the
  // UTC text stays in the title.
  const compact = new Intl.DateTimeFormat(undefined, {
    month: "short", day: "numeric", hour: "2-digit", minute: "2-digit", timeZoneName: "short",
  });
  const compactYear = new Intl.DateTimeFormat(undefined, {
    year: "numeric", month: "short", day: "numeric", hour: "2-digit", minute: "2-digit", timeZoneName: "short",
  });
  const relative = new Intl.RelativeTimeFormat(undefined, { numeric: "auto", style: "short" });
  // Largest unit first: a difference is told in the first unit it reaches.
  const units = [["year", 31536e6], ["month", 2592e6], ["week", 6048e5],
    ["day", 864e5], ["hour", 36e5], ["minute", 6e4]];

  /** ago returns "3 min ago", "in 2 hr", "now" for the instant ms. */
  function ago(ms, now) {
    const diff = ms - now;
    for (const [unit, size] of units) {
      if (Math.abs(diff) >= size) return relative.format(Math.round(diff / size), unit);
    }
    return relative.format(0, "second"); // "now"
  }

  /** localTime rewrites one server-rendered UTC <time> element. */
  function localTime(el, now) {
    const when = Date.parse(el.getAttribute("datetime") || "");
    if (Number.isNaN(when)) return;
    if (!el.title) el.title = el.textContent.trim(); // the UTC text stays reachable
    const rel = document.createElement("span");
    rel.className = "rel";
    rel.textContent = ago(when, now);
    let format = absolute;
    if (el.closest("td")) {
      format = new Date(when).getFullYear() === new Date(now).getFullYear() ? compact : compactYear;
    }
    el.textContent = format.format(when) + " · ";
    el.append(rel);
    el.dataset.local = zone; // marks the rewrite (and says which zone)
  }

  /** refreshTimes updates the relative phrases; called every minute. */
  function refreshTimes() {
    const now = Date.now();
    for (const el of document.querySelectorAll("time[data-local]")) {
      const rel = el.querySelector(".rel");
      if (rel) rel.textContent = ago(Date.parse(el.getAttribute("datetime")), now);
    }
  }

  // ---- Copy buttons --------------------------------------------------------

  /** copyButton reveals one data-copy button and gives it a status line. */
  function copyButton(btn) {
    const status = document.createElement("span");
    status.className = "copied";
    status.setAttribute("role", "status");
    status.setAttribute("aria-live", "polite");
    btn.after(status);
    btn.hidden = false;
    let timer = 0;
    const say = (text) => {
      status.textContent = text;
      clearTimeout(timer);
      timer = setTimeout(() => { status.textContent = ""; }, 2000);
    };
    btn.addEventListener("click", async () => {
      let target = null;
      try { target = document.querySelector(btn.dataset.copy); } catch (e) { /* bad selector */ }
      if (!target) return;
      const field = target instanceof HTMLInputElement || target instanceof HTMLTextAreaElement;
      const text = field ? target.value : target.textContent;
      try {
        await navigator.clipboard.writeText(text);
        say("Copied");
      } catch (e) {
        // No clipboard API (plain http, old browser, refused): select the
        // text so the reader can copy it themselves.
        selectText(target);
        let ok = false;
        try { ok = document.execCommand("copy"); } catch (e2) { /* unsupported */ }
        say(ok ? "Copied" : "Selected: press Ctrl+C to copy");
      }
    });
  }

  function selectText(el) {
    if (typeof el.select === "function") { el.select(); return; }
    const range = document.createRange();
    range.selectNodeContents(el);
    const sel = window.getSelection();
    sel.removeAllRanges();
    sel.addRange(range);
  }

  // ---- Confirmations -------------------------------------------------------

  // A form (or the button that submits it) with data-confirm asks first.
  function confirmSubmit(e) {
    const from = (e.submitter && e.submitter.dataset.confirm) ? e.submitter : e.target;
    const msg = from.dataset && from.dataset.confirm;
    if (msg && !window.confirm(msg)) e.preventDefault();
  }

  // ---- Keyboard shortcuts --------------------------------------------------

  // "g" then one of these keys follows a link: home, or a tab of the project.
  const goto = {
    h: ["Home", () => document.querySelector("a.brand") || { href: "/" }],
    t: ["Tickets", () => tab("/tickets")],
    g: ["Error groups", () => tab("/groups")],
    s: ["INFO summaries", () => tab("/summaries")],
    c: ["Channels", () => tab("/channels")],
  };
  const tab = (suffix) => document.querySelector('nav.tabs a[href$="' + suffix + '"]');

  const keys = [
    ["j", "Next row"], ["k", "Previous row"], ["o / Enter", "Open the selected row"],
    ["/", "Search or filter"],
    ["r", "Resolve the selected error group (triage list)"], ["i", "Ignore the selected error group"],
    ["a", "Assign the selected error group to me"],
    ...Object.entries(goto).map(([k, [name]]) => ["g " + k, "Go to " + name]),
    ["?", "Show or hide this help"], ["Esc", "Close"],
  ];

  let current = -1; // index of the highlighted row
  let pendingG = 0; // timer while waiting for the key after "g"
  let help = null; // the help <dialog>, made on first use

  /** rows are the body rows with a link of the first such table in #main. */
  function rows() {
    for (const t of main().querySelectorAll("table")) {
      const r = [...t.querySelectorAll("tbody tr")].filter((tr) => tr.querySelector("a[href]"));
      if (r.length) return r;
    }
    return [];
  }

  function move(step) {
    const r = rows();
    if (!r.length) return;
    const focused = document.activeElement && document.activeElement.closest("tr");
    let i = r.indexOf(focused);
    if (i < 0) i = current >= 0 && current < r.length ? current : -1;
    i = i < 0 ? 0 : Math.min(r.length - 1, Math.max(0, i + step));
    for (const tr of r) tr.classList.remove("kb-current");
    r[i].classList.add("kb-current");
    r[i].querySelector("a[href]").focus(); // focus scrolls it into view
    current = i;
  }

  function open() {
    const r = rows();
    const focused = document.activeElement && document.activeElement.closest("tr");
    const tr = r.includes(focused) ? focused : r[current];
    const a = tr && tr.querySelector("a[href]");
    if (a) a.click();
  }

  /**
   * act applies the triage list's bulk action to the selected row only
   * (r, i, a): a same-origin form POST, as the bulk bar's buttons send.
   */
  function act(action) {
    const bar = main().querySelector("form.triage-form");
    const r = rows();
    const focused = document.activeElement && document.activeElement.closest("tr");
    const tr = r.includes(focused) ? focused : r[current];
    if (!bar || !tr || !tr.dataset.group) return false;
    const f = document.createElement("form");
    f.method = "post";
    f.action = bar.getAttribute("action"); // bar.action is its buttons named action
    for (const [name, value] of [["action", action], ["group_ids", tr.dataset.group]]) {
      const input = document.createElement("input");
      input.type = "hidden";
      input.name = name;
      input.value = value;
      f.append(input);
    }
    document.body.append(f);
    f.submit();
    return true;
  }

  function search() {
    const field = main().querySelector('form[role="search"] input:not([type="hidden"]), ' +
      'form[role="search"] select, form.filters input:not([type="hidden"]), form.filters select, input[type="search"]');
    if (!field) return false;
    field.focus();
    if (typeof field.select === "function") field.select();
    return true;
  }

  function toggleHelp() {
    if (!help) help = makeHelp();
    if (help.open) { help.close(); return; }
    help.returnTo = document.activeElement;
    help.showModal();
  }

  /** makeHelp builds the shortcut list as a modal <dialog>. */
  function makeHelp() {
    const d = document.createElement("dialog");
    d.id = "keys-help";
    d.className = "keys-help";
    d.setAttribute("aria-labelledby", "keys-help-title");
    const h = document.createElement("h2");
    h.id = "keys-help-title";
    h.textContent = "Keyboard shortcuts";
    const dl = document.createElement("dl");
    for (const [k, what] of keys) {
      const dt = document.createElement("dt");
      k.split(" ").forEach((part, i) => {
        if (i) dt.append(" ");
        if (part === "/" && k !== "/") { dt.append("or"); return; }
        const kbd = document.createElement("kbd");
        kbd.textContent = part;
        dt.append(kbd);
      });
      const dd = document.createElement("dd");
      dd.textContent = what;
      dl.append(dt, dd);
    }
    const close = document.createElement("button");
    close.type = "button";
    close.textContent = "Close";
    close.addEventListener("click", () => d.close());
    d.append(h, dl, close);
    // Escape closes a modal dialog natively; either way focus goes back.
    d.addEventListener("close", () => {
      if (d.returnTo && d.returnTo.isConnected) d.returnTo.focus();
    });
    document.body.append(d);
    return d;
  }

  function typing(el) {
    return el && (el.isContentEditable || /^(INPUT|SELECT|TEXTAREA)$/.test(el.tagName));
  }

  function onKey(e) {
    if (e.key === "Shift" || e.defaultPrevented || e.ctrlKey || e.metaKey || e.altKey || typing(e.target)) return;
    if (help && help.open) {
      if (e.key === "?") { e.preventDefault(); help.close(); }
      return; // the dialog has the keyboard
    }
    if (pendingG) {
      clearTimeout(pendingG);
      pendingG = 0;
      const to = goto[e.key] && goto[e.key][1]();
      if (to && to.href) { e.preventDefault(); location.href = to.href; }
      return;
    }
    switch (e.key) {
      case "j": move(1); break;
      case "k": move(-1); break;
      case "o": open(); break;
      case "Enter":
        // A focused link or button handles Enter itself.
        if ((e.target.closest && e.target.closest("a, button, summary")) || current < 0) return;
        open();
        break;
      case "/": if (!search()) return; break;
      case "r": if (!act("resolve")) return; break;
      case "i": if (!act("ignore")) return; break;
      case "a": if (!act("assign-me")) return; break;
      case "g": pendingG = setTimeout(() => { pendingG = 0; }, 1500); break;
      case "?": toggleHelp(); break;
      default: return;
    }
    e.preventDefault();
  }

  /** helpButton adds a visible way to the shortcut list in the footer. */
  function helpButton() {
    const foot = document.querySelector("footer.foot");
    if (!foot) return;
    const b = document.createElement("button");
    b.type = "button";
    b.className = "keys-button";
    b.textContent = "Keyboard shortcuts (?)";
    b.addEventListener("click", toggleHelp);
    foot.append(" ", b);
  }

  // ---- Start ---------------------------------------------------------------

  function init() {
    const now = Date.now();
    for (const el of document.querySelectorAll("time[datetime]")) localTime(el, now);
    setInterval(refreshTimes, 60e3);
    for (const btn of document.querySelectorAll("button[data-copy]")) copyButton(btn);
    document.addEventListener("submit", confirmSubmit);
    document.addEventListener("keydown", onKey);
    helpButton();
    document.documentElement.dataset.js = "ready"; // for browser tests
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init);
  else init();
})();
