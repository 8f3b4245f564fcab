// baton dashboard: keeps the page live, remembers the token for this tab, and runs the
// admin buttons. No dependencies.
(function () {
  "use strict";
  var TOKEN = "baton.token";
  var ACTOR = "baton.actor";
  var busy = false;

  function token() { return sessionStorage.getItem(TOKEN) || ""; }

  function headers() {
    var h = {};
    if (token()) { h["Authorization"] = "Bearer " + token(); }
    var actor = sessionStorage.getItem(ACTOR);
    if (actor) { h["X-Baton-Actor"] = actor; }
    return h;
  }

  function flash(text, ok) {
    var el = document.getElementById("flash");
    if (!el) { return; }
    el.textContent = text;
    el.className = ok ? "ok" : "bad";
  }

  function showTokenState() {
    document.body.classList.toggle("has-token", token() !== "");
  }

  // Whether the person is typing in a field of the live region (a refresh would lose it).
  function typing() {
    var field = document.activeElement;
    var live = document.getElementById("live");
    return field && live && live.contains(field) && /^(INPUT|SELECT|TEXTAREA)$/.test(field.tagName);
  }

  // Fetches this page again (with the token, if any) and swaps in its live region.
  function refresh() {
    if (busy || typing()) { return Promise.resolve(); }
    busy = true;
    return fetch(window.location.href, { headers: headers(), cache: "no-store" })
      .then(function (response) { return response.text().then(function (html) { return [response, html]; }); })
      .then(function (pair) {
        var doc = new DOMParser().parseFromString(pair[1], "text/html");
        var fresh = doc.getElementById("live");
        var live = document.getElementById("live");
        if (fresh && live) {
          live.innerHTML = fresh.innerHTML;
          live.setAttribute("data-refresh", fresh.getAttribute("data-refresh") || "0");
          if (doc.title) { document.title = doc.title; }
        }
      })
      .catch(function () { /* the next refresh tries again */ })
      .then(function () { busy = false; });
  }

  function schedule() {
    var live = document.getElementById("live");
    var every = live ? parseInt(live.getAttribute("data-refresh") || "0", 10) : 0;
    window.setTimeout(function () {
      var again = every > 0 && !document.hidden ? refresh() : Promise.resolve();
      again.then(schedule);
    }, every > 0 ? every : 2000);
  }

  function act(button) {
    var question = button.getAttribute("data-confirm");
    if (question && !window.confirm(question)) { return; }
    button.disabled = true;
    fetch(button.getAttribute("data-post"), { method: "POST", headers: headers() })
      .then(function (response) {
        return response.json().then(function (body) {
          if (response.ok) {
            flash(button.textContent.trim() + ": done", true);
          } else {
            flash(button.textContent.trim() + ": " + (body.error ? body.error.message : response.status), false);
          }
        });
      })
      .catch(function (err) { flash(button.textContent.trim() + ": " + err, false); })
      .then(function () { button.disabled = false; return refresh(); });
  }

  document.addEventListener("DOMContentLoaded", function () {
    var form = document.getElementById("token-form");
    var actor = document.getElementById("actor");
    actor.value = sessionStorage.getItem(ACTOR) || "";
    form.addEventListener("submit", function (event) {
      event.preventDefault();
      var input = document.getElementById("token");
      if (input.value) { sessionStorage.setItem(TOKEN, input.value); }
      if (actor.value) { sessionStorage.setItem(ACTOR, actor.value); } else { sessionStorage.removeItem(ACTOR); }
      input.value = "";
      showTokenState();
      refresh();
    });
    document.getElementById("forget-token").addEventListener("click", function () {
      sessionStorage.removeItem(TOKEN);
      showTokenState();
      refresh();
    });
    document.addEventListener("click", function (event) {
      var button = event.target.closest("button.admin");
      if (button) { act(button); }
    });
    showTokenState();
    // A page that asked for a token is fetched again with the one this tab keeps.
    if (token() && document.querySelector("[data-needs-token]")) { refresh(); }
    schedule();
  });
})();
