// Appended to a copy of a report page by the browser tests (tests/browser/conftest.py): after the page has loaded, it
// plays every player by running the animation frames guard.js held back at chosen times, steps it with its buttons,
// reads its timeline and every chart, then writes what it found as base64 JSON into <pre id="loopsmith-probe">, which
// `chromium --dump-dom` prints. The page's errors are collected by guard.js.
(function () {
  "use strict";
  var SETTLE_MS = 100;  // after load, before the probe takes over (virtual time: no real wait)
  var PLAY_STEP_MS = 250;  // between the animation frames the probe runs

  function attribute(element, name) {
    var value = element.getAttribute(name);
    return value === null ? null : +value;
  }

  function box(element) {
    try {
      var b = element.getBoundingClientRect();
      return {left: b.left, right: b.right, top: b.top, bottom: b.bottom, width: b.width, height: b.height};
    } catch (error) {
      return null;
    }
  }

  function rects(svg, selector) {
    return Array.prototype.map.call(svg ? svg.querySelectorAll(selector) : [], function (rect) {
      return {first: attribute(rect, "data-first"), last: attribute(rect, "data-last"), fill: rect.getAttribute("fill"),
              title: rect.querySelector("title") ? rect.querySelector("title").textContent : null};
    });
  }

  function probePlayer(player, frameAtLoad, played) {
    var data = JSON.parse(player.querySelector(".figure-data").textContent);
    var timeline = player.querySelector("svg.timeline");
    var flag = player.querySelector(".mark-flag"), label = player.querySelector(".segment-label");
    var result = {data: data, frame_at_load: frameAtLoad, played: played, play_step_ms: PLAY_STEP_MS, frame_before_steps: attribute(player, "data-frame"),
                  timeline_marks: rects(timeline, "rect.mark"), timeline_segments: rects(timeline, "rect.segment"),
                  timeline_names: Array.prototype.map.call(timeline ? timeline.querySelectorAll("text") : [], function (t) {
                    return {text: t.textContent, box: box(t)};
                  }),
                  buttons: {play: !!player.querySelector("button.play"), back: !!player.querySelector("button.back"),
                            forward: !!player.querySelector("button.forward")},
                  forward: [], back: []};
    var forward = player.querySelector("button.forward"), back = player.querySelector("button.back");
    if (!forward || !back) return result;
    // Once round every frame the figure holds, and one more, so the wrap to the first frame is seen too.
    for (var k = 0; k <= data.frames.length; k++) {
      forward.click();
      result.forward.push({frame: attribute(player, "data-frame"),
                           flag: flag && flag.getAttribute("visibility") === "visible" ? flag.textContent : null,
                           segment: label ? label.textContent : null});
    }
    for (k = 0; k < 3; k++) {
      back.click();
      result.back.push({frame: attribute(player, "data-frame")});
    }
    result.play_label = player.querySelector("button.play").textContent;
    return result;
  }

  function probeChart(svg) {
    var texts = Array.prototype.slice.call(svg.querySelectorAll("text"));
    function ticks(kind) {
      return texts.filter(function (t) { return t.getAttribute("class") === kind; }).map(function (t) {
        return {text: t.textContent.trim(), x: +t.getAttribute("x"), y: +t.getAttribute("y"), box: box(t)};
      });
    }
    var xTicks = ticks("x-tick"), yTicks = ticks("y-tick");
    var lowestTick = Math.max.apply(null, xTicks.map(function (t) { return t.y; }).concat([-Infinity]));
    var leftmostTick = Math.min.apply(null, yTicks.map(function (t) { return t.x; }).concat([Infinity]));
    var titles = texts.filter(function (t) { return !t.getAttribute("class"); });
    // The x axis title sits below the x ticks; the y axis title is turned on its side left of the y ticks.
    var xTitle = titles.filter(function (t) { return +t.getAttribute("y") > lowestTick && !/rotate/.test(t.getAttribute("transform") || ""); })[0];
    var yTitle = titles.filter(function (t) {
      return /rotate\(-90/.test(t.getAttribute("transform") || "") || (yTicks.length > 0 && +t.getAttribute("x") < leftmostTick - 20);
    })[0];
    function described(t) { return t ? {text: t.textContent.trim(), box: box(t)} : null; }
    return {label: svg.getAttribute("aria-label"), x_ticks: xTicks, y_ticks: yTicks, x_title: described(xTitle),
            y_title: described(yTitle), box: box(svg)};
  }

  function run(framesAtLoad, played) {
    var verdict = {sections: [], errors: window.__loopsmithErrors || [],
                   height: Math.max(document.documentElement.scrollHeight, document.body.scrollHeight)};
    try {
      document.querySelectorAll("section.entry").forEach(function (section) {
        verdict.sections.push({
          kind: section.getAttribute("data-kind"),
          players: Array.prototype.map.call(section.querySelectorAll(".player"), function (player) {
            return probePlayer(player, framesAtLoad.get(player), played.get(player));
          }),
          charts: Array.prototype.map.call(section.querySelectorAll("svg.chart"), probeChart)
        });
      });
    } catch (error) {
      verdict.errors.push("probe: " + error + (error.stack ? " " + error.stack : ""));
    }
    var out = document.createElement("pre");
    out.id = "loopsmith-probe";
    out.textContent = btoa(unescape(encodeURIComponent(JSON.stringify(verdict))));
    document.body.appendChild(out);
  }

  // Runs the animation frames the page asked for (guard.js holds them) at ``now`` milliseconds.
  function animate(now) {
    var waiting = window.__loopsmithFrames.splice(0);
    waiting.forEach(function (callback) { callback(now); });
  }

  window.addEventListener("load", function () {
    setTimeout(function () {
      var players = document.querySelectorAll(".player"), framesAtLoad = new Map(), played = new Map();
      players.forEach(function (player) { framesAtLoad.set(player, attribute(player, "data-frame")); played.set(player, []); });
      // Play: frames at 1000 ms, then every PLAY_STEP_MS, long enough to wrap round the longest output.
      var longest = 0;
      players.forEach(function (player) {
        var data = JSON.parse(player.querySelector(".figure-data").textContent);
        longest = Math.max(longest, data.last / data.fps);
      });
      var steps = Math.min(Math.ceil(longest * 1000 / PLAY_STEP_MS) + 3, 400);
      for (var k = 0; k <= steps; k++) {
        animate(1000 + k * PLAY_STEP_MS);
        players.forEach(function (player) { played.get(player).push(attribute(player, "data-frame")); });
      }
      run(framesAtLoad, played);
    }, SETTLE_MS);
  });
})();
