// The referee's service worker: the scoring page and its static files, network first,
// with the last copy kept so that a reload without a connection still opens the page
// (and its outbox, which referee.js sends when the connection returns). Writes (POST)
// are never touched: they go through the page's outbox. Served at the site's root
// (/referee-sw.js) so that its scope covers /games/.../score/. Logging out deletes the
// copy (capicu.js), so the cache name is written in both files.
"use strict";
var CACHE = "capicu-referee-1";
var PAGE = /^\/games\/\d+\/score\/$/;
var STATIC = new URL(self.registration.scope).pathname + "static/";

self.addEventListener("install", function () { self.skipWaiting(); });
self.addEventListener("activate", function (event) { event.waitUntil(self.clients.claim()); });
self.addEventListener("fetch", function (event) {
  var request = event.request;
  if (request.method !== "GET") return;
  var url = new URL(request.url);
  if (url.origin !== self.location.origin) return;
  if (!PAGE.test(url.pathname) && url.pathname.indexOf(STATIC) !== 0) return;
  if (request.headers.get("HX-Request")) return;  // live parts: never from a copy
  event.respondWith(fetch(request).then(function (response) {
    if (response.ok && !response.redirected) {
      var copy = response.clone();
      caches.open(CACHE).then(function (cache) { cache.put(request, copy); });
    }
    return response;
  }).catch(function () {
    return caches.match(request).then(function (kept) { return kept || Response.error(); });
  }));
});
// The page names what it needs (itself, its scripts and styles): keep a copy of each now,
// since the first visit was loaded before this worker was there to keep anything.
self.addEventListener("message", function (event) {
  var urls = (event.data && event.data.keep) || [];
  event.waitUntil(caches.open(CACHE).then(function (cache) {
    return Promise.all(urls.filter(function (href) {
      var url = new URL(href);
      return url.origin === self.location.origin &&
        (PAGE.test(url.pathname) || url.pathname.indexOf(STATIC) === 0);
    }).map(function (href) {
      return cache.match(href).then(function (kept) {
        return kept || cache.add(href).catch(function () { /* next visit, then */ });
      });
    }));
  }));
});
