// Put first into a copy of a report page by the browser tests: every uncaught error, rejected promise and
// console.error of the page is kept in window.__loopsmithErrors (probe.js reports them); and animation frames wait in
// window.__loopsmithFrames until probe.js runs them at the times it chooses (headless Chromium draws frames when it can,
// so playing in real or virtual time would make a flaky test).
(function () {
  "use strict";
  var errors = window.__loopsmithErrors = [];
  window.addEventListener("error", function (event) {
    errors.push((/^Uncaught/.test(event.message) ? "" : "Uncaught ") + event.message + " (" + event.filename + ":" + event.lineno + ":" + event.colno + ")");
  });
  window.addEventListener("unhandledrejection", function (event) { errors.push("Unhandled rejection: " + event.reason); });
  var frames = window.__loopsmithFrames = [];
  window.requestAnimationFrame = function (callback) { frames.push(callback); return frames.length; };
  var original = console.error;
  console.error = function () {
    errors.push("console.error: " + Array.prototype.map.call(arguments, String).join(" "));
    return original.apply(console, arguments);
  };
})();
