// The beats command's players: each song's <audio> with its beats flashing and a playhead on the envelope chart.
// Inlined once per beats section; a player is set up once, whatever the number of copies of this script.
(function () {
  "use strict";
  var FLASH = 0.12; // seconds a beat stays lit
  function first(times, t) { // index of the first beat after t
    var low = 0, high = times.length;
    while (low < high) { var mid = (low + high) >> 1; if (times[mid] <= t) low = mid + 1; else high = mid; }
    return low;
  }
  function setUp(root) {
    if (root.getAttribute("data-ready")) return;
    root.setAttribute("data-ready", "1");
    var data = root.querySelector(".beat-times"), audio = root.querySelector("audio.song");
    var flash = root.querySelector(".beat-flash"), count = root.querySelector(".beat-count");
    var heads = root.querySelectorAll(".playhead");
    if (!data || !audio || !flash) return;
    var times = JSON.parse(data.textContent), frame = 0;
    function draw() {
      var t = audio.currentTime, next = first(times, t), lit = next > 0 && t - times[next - 1] < FLASH;
      flash.style.background = lit ? "#e0529c" : "#ddd";
      if (count) count.textContent = "beat " + next + " of " + times.length + " \u00b7 " + t.toFixed(2) + " s";
      for (var k = 0; k < heads.length; k++) { // a chart over the song's first seconds loses its playhead past its end
        var head = heads[k], left = parseFloat(head.getAttribute("data-left")), width = parseFloat(head.getAttribute("data-width"));
        var seconds = parseFloat(head.getAttribute("data-seconds")) || 1, x = left + Math.min(t / seconds, 1) * width;
        head.setAttribute("x1", x.toFixed(1));
        head.setAttribute("x2", x.toFixed(1));
        head.setAttribute("visibility", t <= seconds + 0.05 ? "visible" : "hidden");
      }
    }
    function loop() { draw(); frame = audio.paused ? 0 : window.requestAnimationFrame(loop); }
    audio.addEventListener("play", function () { if (!frame) frame = window.requestAnimationFrame(loop); });
    audio.addEventListener("seeked", draw);
    audio.addEventListener("ended", draw);
    draw();
  }
  var roots = document.querySelectorAll(".beats-player");
  for (var k = 0; k < roots.length; k++) setUp(roots[k]);
})();
