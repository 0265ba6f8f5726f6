// Progressive enhancement of /events/: view links re-render in place through cal/views/v2/html
// (with the page's tvn1/tvn2 tokens) and push the view's URL; without scripts they are plain links.
(function () {
  "use strict";
  var page = document.querySelector(".cal-page");
  if (!page || !window.fetch || !window.history || !history.pushState) { return; }
  var rest = page.getAttribute("data-cal-rest");
  function tokens() {
    var block = document.getElementById("cal-tokens");
    try { return JSON.parse(block ? block.textContent : "{}"); } catch (error) { return {}; }
  }
  // Two quick Back presses start two loads whose answers may come back in either order: only the
  // latest navigation may render (or fall back to a full load), or the page would show a view the
  // address bar has already left.
  var latest = 0;
  function load(url, push) {
    var ticket = ++latest;
    var view = document.getElementById("cal-view");
    var state = tokens();
    var body = new URLSearchParams({u: url, pu: location.href, smu: push ? "1" : "0",
                                    tvn1: state.tvn1 || "", tvn2: state.tvn2 || ""});
    if (view) { view.setAttribute("aria-busy", "true"); }
    return fetch(rest, {method: "POST", body: body, credentials: "same-origin"}).then(function (response) {
      if (!response.ok) { throw new Error("view " + response.status); }
      return response.json();
    }).then(function (answer) {
      if (ticket !== latest) { return; }
      page.innerHTML = answer.html;
      if (push) { history.pushState({calendar: true}, "", url); }
      var target = url.indexOf("#") >= 0 ? document.getElementById(decodeURIComponent(url.split("#")[1])) : null;
      var heading = document.getElementById("cal-heading");
      if (target) { target.setAttribute("tabindex", "-1"); target.focus(); target.scrollIntoView(); }
      else if (heading) { heading.focus(); }
    }).catch(function () { if (ticket === latest) { location.href = url; } });
  }
  page.addEventListener("click", function (event) {
    var link = event.target.closest ? event.target.closest("a[data-cal-link]") : null;
    if (!link || event.metaKey || event.ctrlKey || event.shiftKey || event.button !== 0) { return; }
    if (link.hash && link.pathname === location.pathname) { return; }
    event.preventDefault();
    load(link.href, true);
  });
  window.addEventListener("popstate", function () { load(location.href, false); });
}());
