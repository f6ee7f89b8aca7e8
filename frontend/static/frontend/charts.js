// Draws every <canvas data-chart="kind" data-source="json-script-id"> on the page, on load and
// after each htmx swap. Data comes from json_script blocks rendered by the server.
(function () {
  "use strict";
  const COLORS = ["#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#d62728", "#8c564b", "#7f7f7f"];

  function tooltipLabel(ctx) {
    const p = ctx.raw;
    return `${p.name}: $${Math.round(p.x).toLocaleString()}, ${Math.round(p.y).toLocaleString()} tok/s`;
  }

  // Context length on a log2 axis, ticks at the powers of two in short form (512, 1K, … 128K).
  // Two lines on one x axis, the first on the left y axis, the second dashed on the right one.
  function twoAxisLines(x, left, right) {
    const dataset = (line, yAxisID, extra) => ({ label: line.label, data: line.data, borderColor: line.color,
      backgroundColor: line.color, yAxisID, ...extra });
    return {
      type: "line",
      data: { datasets: [dataset(left, "y", {}), dataset(right, "y1", { borderDash: [4, 4] })] },
      options: {
        scales: {
          x,
          y: { beginAtZero: true, title: { display: true, text: left.axis } },
          y1: { position: "right", beginAtZero: true, title: { display: true, text: right.axis },
            grid: { drawOnChartArea: false } },
        },
      },
    };
  }

  function contextAxis() {
    const short = (v) => (v >= 1024 ? `${Math.round(v / 1024)}K` : `${v}`);
    return {
      type: "logarithmic", title: { display: true, text: "context (tokens)" },
      afterBuildTicks: (scale) => {
        const ticks = [];
        for (let v = 512; v <= scale.max * 1.001; v *= 2) if (v >= scale.min * 0.999) ticks.push({ value: v });
        scale.ticks = ticks;
      },
      ticks: { callback: short, maxRotation: 0, autoSkip: true },
    };
  }

  const builders = {
    scatter(points) {
      const frontier = points.filter((p) => p.pareto).sort((a, b) => a.x - b.x);
      return {
        type: "scatter",
        data: {
          datasets: [
            { label: "builds", data: points, backgroundColor: "rgba(31,119,180,0.35)", pointRadius: 3 },
            { label: "Pareto frontier", data: frontier, showLine: true, borderColor: "#d62728",
              backgroundColor: "#d62728", pointRadius: 5 },
          ],
        },
        options: {
          scales: {
            x: { title: { display: true, text: "build price (USD)" } },
            y: { title: { display: true, text: "tokens/s" } },
          },
          plugins: { tooltip: { callbacks: { label: tooltipLabel } } },
        },
      };
    },
    memory(data) {
      return {
        type: "bar",
        data: {
          labels: [`one GPU (${data.vram_gb} GB)`],
          datasets: data.segments.map((s, i) => ({ label: s.label, data: [s.gb], backgroundColor: COLORS[i] })),
        },
        options: {
          indexAxis: "y",
          scales: { x: { stacked: true, max: data.vram_gb, title: { display: true, text: "GB" } }, y: { stacked: true } },
        },
      };
    },
    steps(data) {
      return {
        type: "bar",
        data: {
          labels: data.labels,
          datasets: [
            { label: "compute s", data: data.compute_s, backgroundColor: COLORS[0] },
            { label: "transfer s", data: data.transfer_s, backgroundColor: COLORS[1] },
          ],
        },
        options: { scales: { y: { title: { display: true, text: "seconds per step" } } } },
      };
    },
    curve(data) {
      const xy = (ys) => data.resident.map((x, i) => ({ x, y: ys[i] }));
      return {
        type: "line",
        data: {
          datasets: [
            { label: "tokens/s", data: xy(data.tokens_per_s), borderColor: COLORS[0], backgroundColor: COLORS[0], yAxisID: "y" },
            { label: "micro-batch", data: xy(data.micro_batch), borderColor: COLORS[2], backgroundColor: COLORS[2],
              borderDash: [4, 4], yAxisID: "y1" },
            { label: "optimal", data: [{ x: data.best[0], y: data.best[1] }], type: "scatter", pointRadius: 8,
              pointStyle: "star", borderColor: "#2ca02c", backgroundColor: "#2ca02c", borderWidth: 3 },
            { label: "greedy", data: data.greedy ? [{ x: data.greedy[0], y: data.greedy[1] }] : [], type: "scatter", pointRadius: 7,
              pointStyle: "triangle", borderColor: "#d62728", backgroundColor: "#d62728" },
          ],
        },
        options: {
          scales: {
            x: { type: "linear", title: { display: true, text: "resident layers" }, ticks: { precision: 0 } },
            y: { title: { display: true, text: "tokens/s" }, beginAtZero: true },
            y1: { position: "right", title: { display: true, text: "micro-batch" }, beginAtZero: true,
              grid: { drawOnChartArea: false } },
          },
        },
      };
    },
    timeline(data) {
      return {
        type: "bar",
        data: {
          labels: data.layers,
          datasets: [
            { label: "transfer", data: data.transfers, backgroundColor: COLORS[1] },
            { label: "compute", data: data.computes, backgroundColor: COLORS[0] },
          ],
        },
        options: {
          indexAxis: "y",
          grouped: true,
          scales: {
            x: { type: "linear", min: 0, title: { display: true, text: "seconds into the micro-batch" } },
            y: { ticks: { autoSkip: true, maxTicksLimit: 24 } },
          },
        },
      };
    },
    // Serving: GB of each part of the model per place (VRAM, CPU RAM, disk), stacked.
    placement(data) {
      return {
        type: "bar",
        data: {
          labels: data.locations,
          datasets: data.datasets.map((d, i) => ({ label: d.label, data: d.gb, backgroundColor: COLORS[i] })),
        },
        options: {
          indexAxis: "y",
          scales: { x: { stacked: true, beginAtZero: true, title: { display: true, text: "GB" } }, y: { stacked: true } },
          plugins: { legend: { labels: { boxWidth: 12 } },
            tooltip: { callbacks: { label: (ctx) => `${ctx.dataset.label}: ${ctx.raw.toLocaleString("en-US", { maximumFractionDigits: 2 })} GB` } } },
        },
      };
    },
    // Serving: the KV cache against context length (log2 axis), and the room left for it.
    kv(data) {
      const depths = data.points.map((p) => p.depth_tokens);
      return {
        type: "line",
        data: {
          datasets: [
            { label: "KV cache (GB)", data: data.points.map((p) => ({ x: p.depth_tokens, y: p.kv_cache_gb })),
              borderColor: COLORS[4], backgroundColor: COLORS[4] },
            { label: `room in ${data.kv_location} (GB)`, pointRadius: 0, borderDash: [4, 4], borderColor: COLORS[6],
              backgroundColor: COLORS[6], data: [{ x: Math.min(...depths), y: data.kv_room_gb }, { x: Math.max(...depths), y: data.kv_room_gb }] },
          ],
        },
        options: {
          scales: {
            x: contextAxis(),
            y: { beginAtZero: true, title: { display: true, text: "GB" } },
          },
        },
      };
    },
    // Serving: decode and prefill tokens/s against the tokens already in the context.
    depth(data) {
      const xy = (key) => data.points.filter((p) => p[key] !== null).map((p) => ({ x: p.depth_tokens, y: p[key] }));
      return twoAxisLines(
        contextAxis(),
        { label: "decode tokens/s", data: xy("decode_tokens_per_s"), color: COLORS[0], axis: "decode tokens/s" },
        { label: "prefill tokens/s", data: xy("prefill_tokens_per_s"), color: COLORS[1], axis: "prefill tokens/s" },
      );
    },
    // Serving: decode tokens/s of all requests together and of each, against how many decode at once.
    batch(data) {
      const fits = data.points.filter((p) => p.decode_tokens_per_s !== null);
      const xy = (key) => fits.map((p) => ({ x: p.requests, y: p[key] }));
      return twoAxisLines(
        { type: "logarithmic", title: { display: true, text: "concurrent requests" },
          min: fits.length ? fits[0].requests : 1, max: fits.length ? fits[fits.length - 1].requests : 1,
          afterBuildTicks: (scale) => { scale.ticks = fits.map((p) => ({ value: p.requests })); },
          ticks: { callback: (v) => `${v}`, maxRotation: 0 } },
        { label: "all requests (tokens/s)", data: xy("decode_tokens_per_s"), color: COLORS[0], axis: "decode tokens/s, all" },
        { label: "each request (tokens/s)", data: xy("per_request_tokens_per_s"), color: COLORS[2], axis: "tokens/s, each" },
      );
    },
    // One stepped line per condition over time, up to today (x: days, so uneven gaps look
    // uneven); a price holds until the next observation, hence the step after each point. Ticks
    // fall on the first of a month, at most six of them.
    price(data) {
      const DAY_MS = 86400000;
      const day = (iso) => Date.parse(`${iso}T00:00:00Z`) / DAY_MS;
      const month = (days) => new Date(days * DAY_MS).toISOString().slice(0, 7);
      const usd = (y) => `$${y.toLocaleString("en-US", { maximumFractionDigits: 2 })}`;
      const days = data.series.flatMap((s) => s.points.map((p) => day(p.x)));
      const [min, max] = [Math.min(...days) - 15, Math.max(day(data.today), ...days) + 15];
      function monthTicks(scale) {
        const starts = [];
        const d = new Date(min * DAY_MS);
        d.setUTCDate(1);
        for (d.setUTCMonth(d.getUTCMonth() + 1); d.getTime() / DAY_MS <= max; d.setUTCMonth(d.getUTCMonth() + 1)) {
          starts.push(d.getTime() / DAY_MS);
        }
        const every = Math.ceil(starts.length / 6);
        scale.ticks = starts.filter((_, i) => i % every === 0).map((value) => ({ value }));
      }
      return {
        type: "line",
        data: {
          datasets: data.series.map((s, i) => ({
            label: s.label, data: s.points.map((p) => ({ ...p, x: day(p.x) })), stepped: "after",
            borderColor: COLORS[i], backgroundColor: COLORS[i], pointRadius: 4,
          })),
        },
        options: {
          scales: {
            x: { type: "linear", min, max, afterBuildTicks: monthTicks, title: { display: true, text: "observed" },
              ticks: { callback: (v) => month(v), maxRotation: 0, autoSkip: true } },
            y: { title: { display: true, text: "USD" }, grace: "10%", ticks: { callback: usd } },
          },
          plugins: { tooltip: { callbacks: {
            title: (items) => new Date(items[0].raw.x * DAY_MS).toISOString().slice(0, 10),
            label: (ctx) => `${usd(ctx.raw.y)}${ctx.raw.published ? ` (${ctx.raw.published} converted)` : ""} ${ctx.dataset.label}, ${ctx.raw.vendor}`,
          } } },
        },
      };
    },
  };

  // Predicted against measured, log axes, one colour per category; the line is parity.
  function accuracyLabel(ctx) {
    const p = ctx.raw;
    if (!p.id) return `predicted = measured (${Math.round(p.x).toLocaleString()})`;
    return `${p.id}: measured ${p.x.toLocaleString()} ${p.unit}, predicted ${p.y.toLocaleString()} ${p.unit}`;
  }
  builders.accuracy = function (data) {
    const palette = [...COLORS, "#17becf", "#bcbd22", "#e377c2", "#393b79", "#637939", "#843c39"];
    const datasets = data.categories.map((c, i) => ({
      label: c.label, data: c.points, backgroundColor: palette[i % palette.length],
      borderColor: palette[i % palette.length], pointRadius: 4,
    }));
    datasets.push({ label: "predicted = measured", data: [{ x: data.min, y: data.min }, { x: data.max, y: data.max }],
      showLine: true, pointRadius: 0, borderColor: "#7f7f7f", borderDash: [4, 4], backgroundColor: "#7f7f7f" });
    // Only the powers of ten are labelled, in short form (1K, 10K): Chart.js's own log labels (1, 2,
    // 3, 5 of every decade) overlapped where the axis spans several decades, even at desktop width.
    const compact = new Intl.NumberFormat("en", { notation: "compact", maximumFractionDigits: 1 });
    const decades = Math.log10(data.max / data.min);
    function decadeLabel(value, index, ticks) {
      if (decades < 2) return Chart.Ticks.formatters.logarithmic.call(this, value, index, ticks);
      const exponent = Math.log10(value);
      return Math.abs(exponent - Math.round(exponent)) < 1e-9 ? compact.format(value) : "";
    }
    const axis = (text) => ({ type: "logarithmic", min: data.min, max: data.max, title: { display: true, text },
      ticks: { callback: decadeLabel, maxRotation: 0, autoSkip: true } });
    return {
      type: "scatter",
      data: { datasets },
      options: {
        scales: { x: axis("measured"), y: axis("predicted") },
        // Small legend swatches: the many categories take less of the plot's height on a phone.
        plugins: { legend: { labels: { boxWidth: 12 } }, tooltip: { callbacks: { label: accuracyLabel } } },
      },
    };
  };

  function render(root) {
    if (typeof Chart === "undefined") return;
    root.querySelectorAll("canvas[data-chart]").forEach((canvas) => {
      if (Chart.getChart(canvas)) return;
      const source = document.getElementById(canvas.dataset.source);
      const build = builders[canvas.dataset.chart];
      if (!source || !build) return;
      const data = JSON.parse(source.textContent);
      if (canvas.dataset.chart === "timeline") {
        canvas.parentElement.style.height = `${Math.max(240, data.layers.length * 9 + 90)}px`;
      }
      const config = build(data);
      config.options = { ...config.options, responsive: true, maintainAspectRatio: false, animation: false };
      new Chart(canvas, config);
    });
  }

  document.addEventListener("DOMContentLoaded", () => render(document));
  document.addEventListener("htmx:afterSettle", () => render(document));
})();
