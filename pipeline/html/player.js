// Loopsmith's report player: plays every output's stick figure from the output's own frames.
// Each .player holds its data as JSON (fps, frames, views, marks, segments; see player.py). Several views (before and
// after) play side by side in step; the timeline below shows the marks (seams, blends) and the segments (clips) drawn by
// the page, and a cursor. The player's data-frame attribute always holds the frame shown, for tests and people alike.
(function () {
  "use strict";
  var NS = "http://www.w3.org/2000/svg";
  var HOLD_SECONDS = 0.3;  // a one-frame mark stays lit this long, so the eye catches it at full speed
  var DRIFT_SECONDS = 0.05;  // the song is put back in step with the player when it drifts further than this
  var BEAT_SECONDS = 0.1;  // the beat indicator stays lit this long at each beat

  // The song that plays with the dance (data.audio, from data.audio_start s into it): an <audio> element that follows the
  // player's clock (play, pause, seek, speed), put back in step whenever it drifts more than DRIFT_SECONDS.
  function songOf(player, data) {
    if (!data.audio) return null;
    var audio = document.createElement("audio");
    audio.className = "song";
    audio.preload = "auto";
    audio.src = data.audio;
    player.appendChild(audio);
    var start = +data.audio_start || 0, pending = false;
    return {
      element: audio,
      follow: function (time, playing, rate) {
        var target = start + time;
        audio.playbackRate = rate;
        if (!playing) { if (!audio.paused) audio.pause(); }
        else if (audio.paused && !pending) {
          pending = true;  // a browser may refuse to play before the page is clicked: try again after it settles
          var started = audio.play();
          if (started && started.then) started.then(function () { pending = false; }, function () { pending = false; });
          else pending = false;
        }
        if (Math.abs(audio.currentTime - target) > DRIFT_SECONDS && isFinite(target)) {
          try { audio.currentTime = target; } catch (error) { /* not loaded yet: the next tick tries again */ }
        }
      }
    };
  }

  function onBeat(beats, time) {
    if (!beats) return false;
    for (var k = 0; k < beats.length; k++) if (time >= beats[k] && time < beats[k] + BEAT_SECONDS) return true;
    return false;
  }

  function make(parent, name, attributes) {
    var element = document.createElementNS(NS, name);
    for (var key in attributes) element.setAttribute(key, attributes[key]);
    parent.appendChild(element);
    return element;
  }

  function tallest(view) {
    var top = 1;
    view.positions_mm.forEach(function (pose) { for (var i = 2; i < pose.length; i += 3) top = Math.max(top, pose[i]); });
    return top;
  }

  function figureOf(svg, view, colour) {
    var width = +svg.getAttribute("width"), ground = +svg.getAttribute("height") - 24;
    var scale = (ground - 30) / tallest(view);  // pixels per millimetre
    var marks = make(svg, "g", {stroke: "#999"}), markLines = [];
    for (var k = 0; k < 40; k++) markLines.push(make(marks, "line", {y1: ground, y2: ground + 6}));
    var bones = make(svg, "g", {"stroke-width": 3, "stroke-linecap": "round", stroke: colour});
    var lines = view.parents.map(function (parent) { return parent < 0 ? null : make(bones, "line", {}); });
    return {
      bones: bones,
      draw: function (i, axis) {
        var pose = view.positions_mm[i], centre = pose[view.root * 3 + axis];
        function x(bone) { return width / 2 + (pose[bone * 3 + axis] - centre) * scale; }
        function y(bone) { return ground - pose[bone * 3 + 2] * scale; }
        lines.forEach(function (line, bone) {
          if (!line) return;
          var parent = view.parents[bone];
          line.setAttribute("x1", x(parent)); line.setAttribute("y1", y(parent));
          line.setAttribute("x2", x(bone)); line.setAttribute("y2", y(bone));
        });
        // Ground marks every half metre scroll by as the character travels.
        var spacing = 500 * scale, shift = ((-centre * scale) % spacing + spacing) % spacing;
        markLines.forEach(function (mark, k) { mark.setAttribute("x1", shift + k * spacing); mark.setAttribute("x2", shift + k * spacing); });
      }
    };
  }

  function activeMark(marks, frame, fps) {
    for (var k = 0; k < marks.length; k++) {
      var mark = marks[k], until = Math.max(mark.last, mark.first + HOLD_SECONDS * fps);
      if (frame >= mark.first && frame <= until) return mark;
    }
    return null;
  }

  function segmentAt(segments, frame) {
    for (var k = 0; k < segments.length; k++) if (frame >= segments[k].first && frame <= segments[k].last) return segments[k];
    return null;
  }

  function setUp(player) {
    var data = JSON.parse(player.querySelector(".figure-data").textContent);
    var frames = data.frames, last = data.last, duration = last / data.fps;
    var svgs = player.querySelectorAll("svg.figure"), markColour = player.getAttribute("data-mark-colour");
    var figures = data.views.map(function (view, k) { return figureOf(svgs[k], view, "#333"); });
    var flags = player.querySelectorAll(".mark-flag"), labels = player.querySelectorAll(".segment-label");
    var clock = player.querySelector(".clock"), cursor = player.querySelector(".cursor"), timeline = player.querySelector(".timeline");
    var view = player.querySelector(".view"), rate = player.querySelector(".rate"), button = player.querySelector(".play");
    var width = +timeline.getAttribute("width"), index = 0, time = 0, previous = null, playing = true;
    var song = songOf(player, data), beat = player.querySelector(".beat");

    function keepTime() {
      if (song) song.follow(time, playing, +rate.value);
      if (beat) {
        var lit = onBeat(data.beats, time);
        beat.setAttribute("fill", lit ? "#e03c3c" : "#ddd");
        player.setAttribute("data-beat", lit ? "1" : "0");
      }
    }

    function show(i) {
      index = i;
      var frame = frames[i], mark = activeMark(data.marks, frame, data.fps), segment = segmentAt(data.segments, frame);
      figures.forEach(function (figure) {
        figure.draw(i, +view.value);
        figure.bones.setAttribute("stroke", mark ? markColour : (segment && segment.colour) || "#333");
      });
      flags.forEach(function (flag) {
        flag.textContent = mark ? mark.label : "";
        flag.setAttribute("visibility", mark ? "visible" : "hidden");
      });
      labels.forEach(function (label) { label.textContent = segment ? segment.label : ""; });
      clock.textContent = "frame " + frame + " of " + last + " (" + (frame / data.fps).toFixed(2) + " s)";
      cursor.setAttribute("x1", frame / Math.max(last, 1) * width); cursor.setAttribute("x2", frame / Math.max(last, 1) * width);
      player.setAttribute("data-frame", frame);
    }
    function at(seconds) {
      var frame = seconds * data.fps, i = 0;
      while (i + 1 < frames.length && frames[i + 1] <= frame) i++;
      return i;
    }
    function tick(now) {
      if (previous !== null && playing && duration > 0) {
        time = (time + (now - previous) / 1000 * rate.value) % duration;
        show(at(time));
      }
      keepTime();
      previous = now;
      requestAnimationFrame(tick);
    }
    function stepBy(delta) {
      playing = false;
      button.textContent = "Play";
      var i = (index + delta + frames.length) % frames.length;
      time = frames[i] / data.fps;
      show(i);
      keepTime();
    }
    button.onclick = function () { playing = !playing; button.textContent = playing ? "Pause" : "Play"; };
    player.querySelector(".back").onclick = function () { stepBy(-1); };
    player.querySelector(".forward").onclick = function () { stepBy(1); };
    view.onchange = function () { show(index); };
    timeline.onclick = function (event) { time = event.offsetX / width * duration; show(at(time)); keepTime(); };
    show(0);
    requestAnimationFrame(tick);
  }

  document.querySelectorAll(".player").forEach(setUp);
})();
