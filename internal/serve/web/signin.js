// The sign-in page keeps the request a notification's link named
// (/#req_…): the fragment never reaches the server, and /login redirects
// to / without it. The inbox (app.js) opens that card after sign-in, if
// the link was followed within the last 30 minutes.
"use strict";
if (/^#req_[A-Za-z0-9_-]{1,64}$/.test(location.hash)) {
  try {
    localStorage.setItem("toolguard.next", JSON.stringify({ hash: location.hash, at: Date.now() }));
  } catch (e) { /* no storage: the link opens the inbox without the card */ }
}
