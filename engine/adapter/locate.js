// Locators evaluated in the page. find(loc) returns the elements a locator
// matches, in document order.
(function () {
  const norm = (s) => (s || "").replace(/\s+/g, " ").trim();
  const matches = (hay, needle, exact) =>
    exact ? norm(hay) === needle : norm(hay).toLowerCase().includes(needle.toLowerCase());
  const visible = (el) => {
    const r = el.getBoundingClientRect();
    const st = getComputedStyle(el);
    return r.width > 0 && r.height > 0 && st.visibility !== "hidden" && st.display !== "none";
  };
  const textOf = (el) => {
    if (el.tagName === "INPUT" && ["button", "submit", "reset"].includes(el.type)) return el.value;
    return el.innerText !== undefined ? el.innerText : el.textContent;
  };
  const implicitRole = (el) => {
    const t = el.tagName.toLowerCase();
    const type = (el.getAttribute("type") || "").toLowerCase();
    switch (t) {
      case "button": return "button";
      case "a": case "area": return el.hasAttribute("href") ? "link" : "";
      case "h1": case "h2": case "h3": case "h4": case "h5": case "h6": return "heading";
      case "textarea": return "textbox";
      case "select": return el.multiple || el.size > 1 ? "listbox" : "combobox";
      case "option": return "option";
      case "li": return "listitem";
      case "ul": case "ol": return "list";
      case "img": return el.getAttribute("alt") === "" ? "presentation" : "img";
      case "table": return "table";
      case "tr": return "row";
      case "td": return "cell";
      case "th": return "columnheader";
      case "nav": return "navigation";
      case "main": return "main";
      case "form": return "form";
      case "dialog": return "dialog";
      case "progress": return "progressbar";
      case "input":
        if (["button", "submit", "reset", "image"].includes(type)) return "button";
        if (type === "checkbox") return "checkbox";
        if (type === "radio") return "radio";
        if (type === "range") return "slider";
        if (type === "number") return "spinbutton";
        if (type === "search") return "searchbox";
        if (["", "text", "email", "tel", "url", "password"].includes(type)) return "textbox";
        return "";
    }
    return "";
  };
  const roleOf = (el) => (el.getAttribute("role") || "").trim().split(/\s+/)[0] || implicitRole(el);
  const labelsOf = (el) => {
    const out = [];
    if (el.getAttribute("aria-label")) out.push(el.getAttribute("aria-label"));
    const by = el.getAttribute("aria-labelledby");
    if (by) out.push(by.split(/\s+/).map((id) => { const l = document.getElementById(id); return l ? textOf(l) : ""; }).join(" "));
    if (el.labels) for (const l of el.labels) out.push(textOf(l));
    return out;
  };
  const nameOf = (el) => {
    const labels = labelsOf(el);
    if (labels.length) return labels[0];
    const t = el.tagName;
    if (t === "IMG") return el.getAttribute("alt") || "";
    if (t === "INPUT" || t === "TEXTAREA" || t === "SELECT") return el.getAttribute("placeholder") || el.getAttribute("title") || (el.type === "submit" || el.type === "button" ? el.value : "");
    return norm(textOf(el)) || el.getAttribute("title") || "";
  };
  const all = () => Array.from(document.querySelectorAll("body *")).filter((el) => !["SCRIPT", "STYLE", "TEMPLATE", "NOSCRIPT"].includes(el.tagName));
  return function find(loc) {
    if (loc.css) return Array.from(document.querySelectorAll(loc.css));
    if (loc.text) {
      // The innermost elements whose text matches, as Playwright's
      // getByText does.
      return all().filter((el) => matches(textOf(el), loc.text, loc.exact) &&
        !Array.from(el.children).some((c) => matches(textOf(c), loc.text, loc.exact)));
    }
    if (loc.label) {
      return all().filter((el) => labelsOf(el).some((l) => matches(l, loc.label, loc.exact)));
    }
    if (loc.role) {
      return all().filter((el) => roleOf(el) === loc.role && el.getAttribute("aria-hidden") !== "true" &&
        (!loc.name || matches(nameOf(el), loc.name, loc.exact)));
    }
    return [];
  };
})()
