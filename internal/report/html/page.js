// toolgrade's HTML report. Every string from a model, a tool or a suite is
// put on the page as a text node (textContent, createTextNode), never as
// markup: the data blocks are JSON, parsed, then drawn with DOM calls.
(function () {
  "use strict";
  var D = JSON.parse(document.getElementById("overview").textContent);
  var S = D.summary;
  var trials = null; // parsed on first use: the overview does not need them
  var byKey = null;

  var OUTCOMES = ["pass", "wrong_tool", "hallucinated_tool", "no_call", "call_in_text", "call_in_thinking", "empty_answer",
    "unexpected_call", "hidden_constraint", "invalid_args", "wrong_args", "missing_call", "call_failed", "extra_call", "round_limit",
    "wrong_answer", "wrong_state", "infra_error"];
  var SVGNS = "http://www.w3.org/2000/svg";
  // Outcomes whose colour is light enough to need dark text on it.
  var LIGHT = ["hidden_constraint", "invalid_args", "wrong_args", "extra_call", "wrong_answer", "empty_answer"];

  // h builds an element: attrs are set with setAttribute/properties, children
  // that are strings become text nodes.
  function h(tag, attrs) {
    var el = document.createElement(tag);
    setAttrs(el, attrs);
    for (var i = 2; i < arguments.length; i++) add(el, arguments[i]);
    return el;
  }
  function s(tag, attrs) {
    var el = document.createElementNS(SVGNS, tag);
    setAttrs(el, attrs);
    for (var i = 2; i < arguments.length; i++) add(el, arguments[i]);
    return el;
  }
  function setAttrs(el, attrs) {
    if (!attrs) return;
    for (var k in attrs) {
      var v = attrs[k];
      if (v === undefined || v === null || v === false) continue;
      if (k === "onclick") el.addEventListener("click", v);
      else if (k === "text") el.textContent = v;
      else el.setAttribute(k, v);
    }
  }
  function add(el, c) {
    if (c === undefined || c === null || c === false) return;
    if (Array.isArray(c)) { c.forEach(function (x) { add(el, x); }); return; }
    el.appendChild(typeof c === "object" ? c : document.createTextNode(String(c)));
  }

  function variants() {
    return S && S.models.some(function (m) { return m.variant; });
  }
  function label(m) {
    return variants() ? m.model + " (" + (m.variant || "base") + ")" : m.model;
  }
  function pct(v) { return (v * 100).toFixed(1) + "%"; }
  function rateText(r) { return r.n ? pct(r.value) : "–"; }
  function kn(r) { return r.k + "/" + r.n; }
  function secs(v) {
    if (!v) return "–";
    if (v >= 1) return v.toFixed(2) + " s";
    // Under 10 ms one decimal, so that the log-scaled latency bins of a
    // fast run do not read 0 ms, 1 ms, 1 ms.
    var ms = v * 1000;
    return (ms < 10 ? String(Number(ms.toFixed(1))) : ms.toFixed(0)) + " ms";
  }
  function num(n) { return n.toLocaleString("en-US"); }
  function passColor(v) {
    // red (0) → amber → green (1), at readable lightness
    var hue = Math.round(v * 130);
    return "hsl(" + hue + ",62%," + (v >= 1 ? 40 : 46) + "%)";
  }

  function tkey(t) {
    return [t.m, t.v || "base", t.c, t.r].map(encodeURIComponent).join("/");
  }
  function loadTrials() {
    if (trials) return trials;
    trials = JSON.parse(document.getElementById("trials").textContent);
    byKey = {};
    trials.forEach(function (t) { byKey[tkey(t)] = t; });
    return trials;
  }

  // ---------- overview ----------

  function section(title, id, note) {
    return h("section", { id: id, class: "card" }, h("h2", null, title), note ? h("p", { class: "note" }, note) : null);
  }

  function whisker(r, w) {
    var H = 18, x = function (v) { return 4 + v * (w - 8); };
    var g = s("svg", { width: w, height: H, class: "whisker", role: "img" });
    g.appendChild(s("rect", { x: 4, y: 7, width: w - 8, height: 4, rx: 2, class: "track" }));
    if (r.n) {
      g.appendChild(s("rect", { x: 4, y: 6, width: Math.max(0, x(r.value) - 4), height: 6, rx: 3, fill: passColor(r.value) }));
      g.appendChild(s("line", { x1: x(r.lo), x2: x(r.hi), y1: 9, y2: 9, class: "ci" }));
      g.appendChild(s("line", { x1: x(r.lo), x2: x(r.lo), y1: 4, y2: 14, class: "ci" }));
      g.appendChild(s("line", { x1: x(r.hi), x2: x(r.hi), y1: 4, y2: 14, class: "ci" }));
      g.appendChild(s("circle", { cx: x(r.value), cy: 9, r: 3.5, class: "dot" }));
    }
    add(g, s("title", null, r.n ? pct(r.value) + " (95% CI " + pct(r.lo) + "–" + pct(r.hi) + ")" : "no trials"));
    return g;
  }

  function rateCell(r, name, extra) {
    return h("td", { class: "rate", "data-metric": name },
      h("span", { class: "v" }, rateText(r)), " ", h("span", { class: "kn" }, kn(r)), extra || null,
      r.n ? h("div", { class: "ci-text", title: "95% Wilson interval" }, pct(r.lo) + " – " + pct(r.hi)) : null);
  }

  // sweepCharts shows a chart per curve of a sweep run. The SVG is drawn by
  // the Go report (internal/report/sweep_svg.go), which writes no script and escapes
  // every text, so it is parsed as XML and imported as a node.
  function sweepCharts() {
    if (!D.sweep || !D.sweep.length) return null;
    var tools = D.sweep.every(function (c) { return c.axis === "decoys"; });
    var sec = section(tools ? "Tool-count sweep" : "Sweeps", "sweep", "Selection with its 95% Wilson interval against " + (tools ? "the tools offered" : "the swept value") +
      ", the 80% threshold dashed; below, p50 latency (left scale) and the first request's prompt tokens (right scale). Infrastructure errors are in no figure.");
    var grid = h("div", { class: "sweep-grid" });
    var parser = new DOMParser();
    D.sweep.forEach(function (c) {
      var doc = parser.parseFromString(c.svg, "image/svg+xml");
      var fig = h("figure", { class: "sweep" }, h("h3", null, c.title));
      if (doc.documentElement && doc.documentElement.nodeName === "svg") fig.appendChild(document.importNode(doc.documentElement, true));
      fig.appendChild(h("figcaption", { class: "note" }, c.line));
      grid.appendChild(fig);
    });
    sec.appendChild(grid);
    return sec;
  }

  // chooseSection is the page of `toolgrade choose --format html`: the
  // recommendation, every model's rates with their intervals beside its cost
  // (cells rendered by the Go report, as the terminal table has them), the
  // frontier, the verdict against the reference, and the chart drawn by the
  // Go report (internal/report/choose_svg.go), imported as a node.
  function chooseSection() {
    var C = D.choose;
    if (!C) return null;
    var c = C.choice, rec = c.recommendation;
    var sec = section("Choosing a model", "choose", C.how);
    sec.appendChild(h("p", { class: "recommendation", "data-kind": rec.kind }, h("b", null, "Recommendation: "), rec.text));
    var others = function (m) { return m.rates.filter(function (r) { return r.metric !== c.metric; }); };
    var first = function (m) { return m.rates.filter(function (r) { return r.metric === c.metric; })[0]; };
    var head = h("tr", null, ["Model", "Frontier", C.metric].concat(C.head, others(c.models[0]).map(function (r) { return r.label; }))
      .map(function (x) { return h("th", null, x); }));
    var body = h("tbody");
    c.models.forEach(function (m, i) {
      body.appendChild(h("tr", { "data-row": m.model, class: m.frontier ? "frontier" : "dominated" },
        h("th", { class: "name" }, m.model,
          m.reference ? h("span", { class: "badge role-ref" }, "reference") : null,
          m.candidate ? h("span", { class: "badge role-cand" }, "candidate") : null,
          m.parameter_size ? h("div", { class: "variant" }, [m.parameter_size, m.quantization].filter(Boolean).join(" ")) : null),
        h("td", { "data-col": "frontier" }, m.frontier ? "yes" : ["no", h("div", { class: "ci-text" }, m.dominated_by + " is as good, for less")]),
        rateCell(first(m).rate, first(m).metric, h("div", null, whisker(first(m).rate, 120))),
        C.cells[i].map(function (x, j) { return h("td", { class: j < 2 ? "verdict" : "num", "data-col": C.head[j] }, x); }),
        others(m).map(function (r) { return rateCell(r.rate, r.metric); })));
    });
    sec.appendChild(h("div", { class: "scroll" }, h("table", { class: "models choose" }, h("thead", null, head), body)));
    var doc = new DOMParser().parseFromString(C.svg, "image/svg+xml");
    var fig = h("figure", { class: "choose-fig" }, h("h3", null, c.metric + " against cost"));
    if (doc.documentElement && doc.documentElement.nodeName === "svg") fig.appendChild(document.importNode(doc.documentElement, true));
    sec.appendChild(fig);
    C.notes.forEach(function (n) { sec.appendChild(h("p", { class: "note" }, n)); });
    (c.warnings || []).forEach(function (w) { sec.appendChild(h("p", { class: "note warn" }, "warning: " + w)); });
    return sec;
  }

  // coerced notes validity once arguments are coerced as a lenient client
  // would, when that differs from validity as sent.
  function coerced(m) {
    var c = m.arg_validity_coerced;
    if (!c || c.k <= m.arg_validity.k) return null;
    return h("div", { class: "ci-text", title: "valid once coerced as a lenient client would (\"5\" → 5, \"true\" → true)" },
      "valid if coerced " + rateText(c));
  }

  // judgedCell is a row's judged rate: the answers its judge model passed
  // against their rubric, with the judge, its self-agreement and the
  // judgements that count in no rate (judge errors, stale verdicts).
  function judgedCell(m) {
    var r = m.judged || { k: 0, n: 0 };
    var a = m.judge_agreement;
    var td = rateCell(r, "judged");
    td.appendChild(h("div", { class: "ci-text judge" },
      m.judge_model ? h("div", { title: "the judge model" }, "by " + m.judge_model) : null,
      a && a.n ? h("div", { title: "the judge's self-agreement: answers judged more than once whose verdicts all agreed (" + kn(a) + "; 95% Wilson interval " + pct(a.lo) + " – " + pct(a.hi) + ")" }, "self-agreement " + rateText(a)) : null,
      m.judge_errors ? h("span", { class: "badge infra", title: "the judge failed on these answers: left out of the judged rate, not the model's failure" }, m.judge_errors + " judge errors") : null,
      m.judge_stale ? h("span", { class: "badge", title: "judged against a rubric the suite has since changed: rescore --rejudge" }, m.judge_stale + " stale") : null));
    return td;
  }

  function modelTable() {
    var sec = section("Models", "models", "Rates with their 95% Wilson intervals, a case's repeats counted as one cluster (a case is the unit of evidence); infrastructure errors are kept out of every rate. Round limit and failed call (trials in which the model was given an error for a call): lower is better.");
    // The judged column only for runs with rubrics (answer: {judge: ...}).
    var judgedCol = S.models.some(function (m) { return m.judged || m.judge_errors || m.judge_stale; });
    var head = h("tr", null, ["Model", "Pass", "Tool selection", "Arg validity", "Arg accuracy", "Irrelevance",
      "Round limit", "Failed call"].concat(judgedCol ? ["Judged"] : [], ["Rounds", "Latency p50 / p95", "tok/s", "pass@k / pass^k"]).map(function (c) { return h("th", null, c); }));
    var body = h("tbody");
    S.models.forEach(function (m) {
      var at = m.pass_at_k != null ? [pct(m.pass_at_k) + " / " + pct(m.pass_hat_k), h("div", { class: "ci-text" }, "k = " + m.k)] : "–";
      body.appendChild(h("tr", { "data-row": label(m) },
        h("th", { class: "name" }, m.model, variants() ? h("div", { class: "variant" }, m.variant || "base") : null,
          m.infra_errors ? h("span", { class: "badge infra" }, m.infra_errors + " infra") : null,
          m.truncated_excluded ? h("span", { class: "badge infra", title: "a prompt reached num_ctx: kept out of every rate" }, m.truncated_excluded + " truncated") : null,
          m.calls_repeated ? h("span", { class: "badge", title: "calls that repeated an earlier call of their trial with the same arguments" }, m.calls_repeated + " repeated") : null),
        rateCell(m.pass, "pass", h("div", null, whisker(m.pass, 120))),
        rateCell(m.tool_selection, "tool_selection"),
        rateCell(m.arg_validity, "arg_validity", coerced(m)),
        rateCell(m.arg_accuracy, "arg_accuracy"),
        rateCell(m.irrelevance, "irrelevance"),
        rateCell(m.round_limit, "round_limit"),
        rateCell(m.failed_call || { k: 0, n: 0 }, "failed_call"),
        judgedCol ? judgedCell(m) : null,
        h("td", { class: "num" }, m.rounds_mean.toFixed(2)),
        h("td", { class: "num" }, secs(m.trial_latency.p50_s) + " / " + secs(m.trial_latency.p95_s)),
        h("td", { class: "num" }, m.tokens_per_second ? m.tokens_per_second.toFixed(1) : "–"),
        h("td", { class: "num" }, at)));
    });
    sec.appendChild(h("div", { class: "scroll" }, h("table", { class: "models" }, h("thead", null, head), body)));
    return sec;
  }

  // bfclSection shows, for a run of an imported BFCL suite, BFCL's accuracy
  // per category beside toolgrade's pass rate and outcomes of the same
  // trials, then the leaderboard's summary columns (internal/report/html_bfcl.go).
  function bfclSection() {
    var B = D.bfcl;
    if (!B || !B.rows || !B.rows.length) return null;
    var sec = section("BFCL", "bfcl", B.note);
    var head = h("tr", null, ["Model", "BFCL category", "Cases", "BFCL accuracy", "Round trip", "Pass (toolgrade)", "Outcomes"].map(function (c) { return h("th", null, c); }));
    var body = h("tbody");
    B.rows.forEach(function (r) {
      r.categories.forEach(function (c, i) {
        var tr = h("tr", { "data-row": r.label, "data-category": c.category, class: i === 0 ? "group" : null });
        if (i === 0) tr.appendChild(h("th", { class: "name", rowspan: r.categories.length }, r.label));
        add(tr, [
          h("td", { class: "cat" }, h("code", null, c.category)),
          h("td", { class: "num", "data-metric": "cases" }, String(c.cases),
            c.infra_errors ? h("span", { class: "badge infra" }, c.infra_errors + " infra") : null),
          lineRate(c.accuracy, "bfcl_accuracy", true),
          h("td", { class: "num", "data-metric": "round_trip", title: "the accuracy with every open trial invalid, and with every one valid" }, c.round_trip || "-"),
          lineRate(c.pass, "pass", false),
          h("td", { class: "outcomes" }, c.outcomes.map(function (o) {
            return h("span", { class: "pill o-" + o.outcome, "data-outcome": o.outcome }, o.outcome.replace(/_/g, " ") + " " + o.n);
          }))]);
        body.appendChild(tr);
      });
    });
    sec.appendChild(h("div", { class: "scroll" }, h("table", { class: "bfcl" }, h("thead", null, head), body)));
    var cols = [["non_live_ast", "Non-Live AST"], ["live", "Live"], ["irrelevance", "Irrelevance Detection"], ["relevance", "Relevance Detection"]];
    sec.appendChild(h("h3", null, "Leaderboard summary"));
    sec.appendChild(h("div", { class: "scroll" }, h("table", { class: "bfcl-summary" },
      h("thead", null, h("tr", null, h("th", null, "Model"), cols.map(function (c) { return h("th", null, c[1]); }))),
      h("tbody", null, B.rows.map(function (r) {
        return h("tr", { "data-row": r.label }, h("th", { class: "name" }, r.label), cols.map(function (c) {
          var v = r[c[0]];
          return v === null || v === undefined ?
            h("td", { class: "num na", "data-col": c[0], title: "a category this column needs was not run" }, "N/A") :
            h("td", { class: "num", "data-col": c[0] }, pct(v));
        }));
      })))));
    B.rows.forEach(function (r) {
      if (r.round_trip) sec.appendChild(h("p", { class: "note", "data-round-trip": r.label }, r.label + ": these figures are BFCL's verdicts as received; " + r.round_trip + "."));
      if (r.differs) sec.appendChild(h("p", { class: "note", "data-differs": r.label }, r.label + ": " + r.differs + "."));
    });
    return sec;
  }

  // lineRate is a rate on one line (value, k/n, whisker, interval): a BFCL
  // table has a row per model and category, and stays compact.
  function lineRate(r, name, bar) {
    return h("td", { class: "rate line", "data-metric": name },
      h("span", { class: "v" }, rateText(r)), " ", h("span", { class: "kn" }, kn(r)), bar ? whisker(r, 100) : null,
      r.n ? h("span", { class: "ci-text", title: "95% Wilson interval" }, pct(r.lo) + " – " + pct(r.hi)) : null);
  }

  function legend(list) {
    return h("div", { class: "legend" }, list.map(function (o) {
      return h("span", null, h("i", { class: "sw o-" + o }), o.replace(/_/g, " "));
    }));
  }

  function outcomeBars() {
    var sec = section("Outcomes", "outcomes", "Every trial has exactly one outcome.");
    var seen = OUTCOMES.filter(function (o) { return S.models.some(function (m) { return m.outcomes[o]; }); });
    sec.appendChild(legend(seen));
    var W = 560;
    S.models.forEach(function (m) {
      var g = s("svg", { width: W, height: 22, class: "stack", viewBox: "0 0 " + W + " 22", preserveAspectRatio: "none" });
      var x = 0;
      seen.forEach(function (o) {
        var n = m.outcomes[o] || 0;
        if (!n) return;
        var w = n / m.trials * W;
        var r = s("rect", { x: x, y: 2, width: Math.max(w - 1, 1), height: 18, class: "o-" + o });
        add(r, s("title", null, o + ": " + n + " of " + m.trials));
        g.appendChild(r);
        if (w > 22) g.appendChild(s("text", { x: x + w / 2, y: 15, class: "bar-label" + (LIGHT.indexOf(o) >= 0 ? " dark" : "") }, String(n)));
        x += w;
      });
      sec.appendChild(h("div", { class: "stack-row" }, h("span", { class: "name" }, label(m)), g,
        h("span", { class: "kn" }, plural(m.trials, "trial"))));
    });
    return sec;
  }

  var showAllCases = false;

  function heatmap() {
    var anyJudged = S.models.some(function (m) { return m.cases.some(function (c) { return c.judged; }); });
    var sec = section("Cases × models", "matrix", "Passing trials of each case (k/n)" +
      (anyJudged ? "; ⚖ k/n: the answers the judge passed against the case's rubric" : "") + ". Click a cell to read its trials.");
    var cases = [];
    S.models.forEach(function (m) { m.cases.forEach(function (c) { if (cases.indexOf(c.id) < 0) cases.push(c.id); }); });
    cases.sort();
    // A large suite shows its worst cases first; the rest on request.
    var MAXROWS = 50, all = cases.length;
    if (all > MAXROWS && !showAllCases) {
      var worst = function (id) {
        var v = 2;
        S.models.forEach(function (m) { var c = m.cases.find(function (x) { return x.id === id; }); if (c && c.pass.n) v = Math.min(v, c.pass.value); });
        return v;
      };
      var score = {};
      cases.forEach(function (id) { score[id] = worst(id); });
      cases = cases.slice().sort(function (a, b) { return score[a] - score[b] || (a < b ? -1 : 1); }).slice(0, MAXROWS);
      sec.appendChild(h("p", { class: "note" }, "The " + MAXROWS + " cases of " + all + " with the lowest pass rate, worst first. ",
        h("a", { href: "#matrix", onclick: function (e) { e.preventDefault(); showAllCases = true; route(); } }, "Show all " + all + " cases")));
    }
    var head = h("tr", null, h("th", null, "Case"), S.models.map(function (m) { return h("th", { class: "col" }, label(m)); }));
    var body = h("tbody");
    cases.forEach(function (id) {
      var tr = h("tr", null, h("th", { class: "name" }, id));
      S.models.forEach(function (m) {
        var c = m.cases.find(function (x) { return x.id === id; });
        if (!c) { tr.appendChild(h("td", { class: "cell empty" }, "")); return; }
        var fails = Object.keys(c.outcomes).filter(function (o) { return o !== "pass"; }).sort();
        // Mid rates are amber: dark text reads better on them.
        var style = c.pass.n ? "background:" + passColor(c.pass.value) + (c.pass.value > 0.25 && c.pass.value < 0.8 ? ";color:#1d2433" : "") : "";
        var td = h("td", {
          class: "cell" + (c.pass.n ? "" : " infra-only") + (c.pass.k < c.pass.n ? " failing" : ""),
          style: style, tabindex: 0, role: "button",
          "data-model": m.model, "data-variant": m.variant || "", "data-case": id,
          title: fails.map(function (o) { return o + " ×" + c.outcomes[o]; }).join(", ") || "all pass",
          onclick: function () { openCell(m.model, m.variant || "", id); }
        }, c.pass.n ? kn(c.pass) : c.infra_errors ? "infra" : "truncated");
        td.addEventListener("keydown", function (e) { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); openCell(m.model, m.variant || "", id); } });
        if (c.infra_errors) td.appendChild(h("sup", null, "+" + c.infra_errors));
        if (c.truncated_excluded) td.appendChild(h("sup", { title: "a prompt reached num_ctx: kept out of the rates" }, "✂" + c.truncated_excluded));
        if (c.judged) td.appendChild(h("span", { class: "judged-kn", "data-judged": c.judged.k + "/" + c.judged.n,
          title: "the judge passed " + c.judged.k + " of " + c.judged.n + " answers against the case's rubric" }, " ⚖" + c.judged.k + "/" + c.judged.n));
        tr.appendChild(td);
      });
      body.appendChild(tr);
    });
    sec.appendChild(h("div", { class: "scroll" }, h("table", { class: "heat" }, h("thead", null, head), body)));
    return sec;
  }

  function failures() {
    var judged = S.models.some(function (m) { return m.judge_failures; });
    var failedCall = S.models.some(function (m) { return m.failed_call_passes; });
    var sec = section("Failures", "failures", "Failing trials by outcome, the first few by case and repeat" +
      (judged ? "; then the answers a judge failed against their rubric (their outcomes stand)" : "") +
      (failedCall ? "; then the passes in which a call failed, with its error and the answer" : "") + ".");
    var any = false;
    S.models.forEach(function (m) {
      // The answers the judge failed come last, apart from the outcomes:
      // a judged answer never changes a trial's outcome.
      // So do the passes whose answer rests on no result of a failed call.
      var groups = (m.failures || []).concat(m.judge_failures ? [m.judge_failures] : [],
        m.failed_call_passes ? [m.failed_call_passes] : []);
      if (!groups.length) return;
      any = true;
      var list = h("div", { class: "fail-groups" });
      groups.forEach(function (f) {
        var judged = f === m.judge_failures, passed = f === m.failed_call_passes;
        var sw = judged ? "o-judged" : passed ? "o-pass" : "o-" + f.outcome;
        list.appendChild(h("div", { class: "fail-group", "data-group": f.outcome },
          h("h4", null, h("i", { class: "sw " + sw }), judged || passed ? f.outcome : f.outcome.replace(/_/g, " "), h("span", { class: "kn" }, " " + f.count)),
          h("ul", null, (f.examples || []).map(function (e) {
            var k = [m.model, m.variant || "base", e.case, e.repeat].map(encodeURIComponent).join("/");
            return h("li", null, h("a", { href: "#t/" + k }, e.case + " #" + e.repeat),
              e.detail ? h("span", { class: "detail" }, " " + firstLine(e.detail)) : null);
          }))));
      });
      sec.appendChild(h("h3", null, label(m)));
      sec.appendChild(list);
    });
    return any ? sec : null;
  }
  function firstLine(t) {
    var l = t.split("\n")[0];
    return l.length > 140 ? l.slice(0, 140) + "…" : l;
  }

  function confusionTables() {
    if (!D.confusion || !D.confusion.length) return null;
    var sec = section("Expected tool vs called tool", "confusion",
      "First tool called per trial against the case's expected tool (the tool the run's correct trials called).");
    var grid = h("div", { class: "grid wide" });
    D.confusion.forEach(function (c) {
      var max = 1;
      c.counts.forEach(function (r) { r.forEach(function (v) { max = Math.max(max, v); }); });
      var t = h("table", { class: "confusion" },
        h("thead", null, h("tr", null, h("th", { class: "corner" }, "expected ↓ called →"), c.called.map(function (x) { return h("th", null, x); }))),
        h("tbody", null, c.expected.map(function (e, i) {
          return h("tr", null, h("th", null, e), c.counts[i].map(function (v, j) {
            var diag = e === c.called[j] || (e === "(no tool)" && c.called[j] === "(no call)");
            var a = v / max;
            return h("td", { class: "num" + (diag ? " diag" : " off"), style: v ? "--a:" + (0.15 + 0.85 * a).toFixed(2) : "" }, v ? String(v) : "");
          }));
        })));
      grid.appendChild(h("div", null, h("h3", null, c.label), h("div", { class: "scroll" }, t)));
    });
    sec.appendChild(grid);
    return sec;
  }

  // bars draws a bar chart of values, H high, with a count over each bar and
  // a tick label under it; top (default 0) is a band kept free above the
  // bars, for marks the caller adds (the latency quantiles).
  function bars(values, labels, W, H, cls, tip, top) {
    top = top || 0;
    var max = Math.max.apply(null, values.concat([1]));
    var bw = W / values.length;
    var svg = s("svg", { width: W, height: top + H + 30, class: "hist", viewBox: "0 0 " + W + " " + (top + H + 30) });
    var g = s("g", { transform: "translate(0," + top + ")" });
    svg.appendChild(g);
    g.appendChild(s("line", { x1: 0, x2: W, y1: H, y2: H, class: "axis" }));
    values.forEach(function (v, i) {
      var bh = v / max * (H - 12);
      var r = s("rect", { x: i * bw + 2, y: H - bh, width: Math.max(bw - 4, 1), height: bh, class: cls });
      add(r, s("title", null, tip(i, v)));
      g.appendChild(r);
      if (v) g.appendChild(s("text", { x: i * bw + bw / 2, y: H - bh - 3, class: "bar-val" }, String(v)));
      if (labels[i] !== "") g.appendChild(s("text", { x: i * bw + bw / 2, y: H + 14, class: "bar-tick" }, labels[i]));
    });
    return svg;
  }

  function roundsHist() {
    var sec = section("Rounds per trial", "rounds", "Requests to Ollama per conversation (scored trials).");
    var maxR = 1;
    S.models.forEach(function (m) { Object.keys(m.rounds || {}).forEach(function (k) { maxR = Math.max(maxR, +k); }); });
    var grid = h("div", { class: "grid" });
    S.models.forEach(function (m) {
      var vals = [], labs = [];
      for (var r = 1; r <= maxR; r++) { vals.push((m.rounds || {})[r] || 0); labs.push(String(r)); }
      grid.appendChild(h("div", null, h("h3", null, label(m)),
        bars(vals, labs, Math.min(40 * maxR, 320), 90, "b-rounds", function (i, v) { return plural(v, "trial") + " with " + plural(i + 1, "round"); })));
    });
    sec.appendChild(grid);
    return sec;
  }

  function latencyHist() {
    var L = D.latency;
    if (!L) return null;
    var sec = section("Latency", "latency", "Wall time per trial, log-scaled bins; p50 and p95 from the summary.");
    var grid = h("div", { class: "grid" });
    L.labels.forEach(function (lab, i) {
      var m = S.models[i];
      var ticks = L.counts[i].map(function (_, j) { return j % 3 === 0 ? secs(L.edges[j]) : ""; });
      // The quantiles are labelled in a band of their own above the bars,
      // so no label sits on a bar's count.
      var W = 360, band = 14;
      var g = bars(L.counts[i], ticks, W, 90, "b-lat", function (j, v) { return plural(v, "trial") + " in " + secs(L.edges[j]) + "–" + secs(L.edges[j + 1]); }, band);
      var lo = Math.log(L.edges[0]), span = Math.log(L.edges[L.edges.length - 1]) - lo;
      var at = function (v) { return v && span ? Math.min(Math.max((Math.log(v) - lo) / span, 0), 1) * W : null; };
      quantileMarks(at(m.trial_latency.p50_s), at(m.trial_latency.p95_s), W).forEach(function (q) {
        g.appendChild(s("line", { x1: q.x, x2: q.x, y1: band - 2, y2: band + 90, class: "q-" + q.name }));
        g.appendChild(s("text", { x: q.tx, y: band - 4, "text-anchor": q.anchor, class: "q-label" }, q.name));
      });
      // The bars' counts go over the lines, which pass behind them.
      var counts = s("g", { transform: "translate(0," + band + ")" });
      [].slice.call(g.querySelectorAll(".bar-val")).forEach(function (t) { counts.appendChild(t); });
      g.appendChild(counts);
      grid.appendChild(h("div", null, h("h3", null, lab, h("span", { class: "kn" }, "  p50 " + secs(m.trial_latency.p50_s) + " · p95 " + secs(m.trial_latency.p95_s))), g));
    });
    sec.appendChild(grid);
    return sec;
  }

  // quantileMarks places the p50 and p95 labels (x50, x95: their lines'
  // positions, null when unknown) so that they neither leave the chart nor
  // cover each other: p50 to the left of its line, p95 to the right, each
  // turned inward at an edge, and p95 pushed right of p50 when they meet.
  function quantileMarks(x50, x95, W) {
    var LW = 24, out = [];
    if (x50 !== null) out.push(x50 < LW + 3 ? { name: "p50", x: x50, tx: x50 + 3, anchor: "start" } : { name: "p50", x: x50, tx: x50 - 3, anchor: "end" });
    if (x95 !== null) {
      var m = x95 > W - LW - 3 ? { name: "p95", x: x95, tx: x95 - 3, anchor: "end" } : { name: "p95", x: x95, tx: x95 + 3, anchor: "start" };
      var p = out[0];
      if (p) {
        var p50r = p.anchor === "end" ? p.tx : p.tx + LW; // where the p50 label ends
        var p95l = m.anchor === "start" ? m.tx : m.tx - LW;
        if (p95l < p50r + 2) { m.tx = p50r + 2; m.anchor = "start"; }
        if (m.anchor === "start" && m.tx + LW > W) { m.tx = W; m.anchor = "end"; p.tx = W - LW - 2; p.anchor = "end"; }
      }
      out.push(m);
    }
    return out;
  }

  function tokens() {
    var sec = section("Tokens", "tokens", "Prompt and generated tokens summed over every round.");
    var max = 1;
    S.models.forEach(function (m) { max = Math.max(max, m.prompt_tokens + m.eval_tokens); });
    S.models.forEach(function (m) {
      var W = 420, a = m.prompt_tokens / max * W, b = m.eval_tokens / max * W;
      var g = s("svg", { width: W, height: 18, class: "stack" },
        s("rect", { x: 0, y: 2, width: a, height: 14, class: "t-prompt" }),
        s("rect", { x: a, y: 2, width: Math.max(b, 1), height: 14, class: "t-eval" }));
      sec.appendChild(h("div", { class: "stack-row" }, h("span", { class: "name" }, label(m)), g,
        h("span", { class: "kn" }, num(m.prompt_tokens) + " in · " + num(m.eval_tokens) + " out · " +
          (m.scored ? Math.round(m.eval_tokens / Math.max(m.trials, 1)) + " out/trial" : ""))));
    });
    sec.appendChild(h("div", { class: "legend" }, h("span", null, h("i", { class: "sw t-prompt" }), "prompt"), h("span", null, h("i", { class: "sw t-eval" }), "generated")));
    return sec;
  }

  function warningsCard() {
    var w = (D.skipped || []).concat(S && S.warnings ? S.warnings : []);
    if (S) S.models.forEach(function (m) {
      var f = m.flaky_cases || [];
      if (f.length) w.push(label(m) + ": " + plural(f.length, "flaky case") + " (pass in some repeats, fail in others): " +
        f.slice(0, 8).join(", ") + (f.length > 8 ? " and " + (f.length - 8) + " more" : ""));
    });
    if (S && S.server_restarts) Object.keys(S.server_restarts).sort().forEach(function (k) {
      w.push("server " + k + " crashed and was restarted " + plural(S.server_restarts[k], "time"));
    });
    if (!w.length) return null;
    var sec = section("Warnings", "warnings");
    sec.classList.add("warn");
    sec.appendChild(h("ul", null, w.map(function (x) {
      // A warning that lists hundreds of cases folds after its start.
      return h("li", null, x.length <= 280 ? x : h("details", null, h("summary", null, x.slice(0, 240) + "…"), x));
    })));
    return sec;
  }

  // shownMetrics are the paired rates of the metric table (D.compare_metrics:
  // name and short name), leaving out arg_validity_coerced when coercion
  // changed no call in any group of c: the column would repeat arg_validity;
  // and the rates no group of c has a row of.
  function shownMetrics(c) {
    var differs = (c.groups || []).some(function (g) {
      var rate = function (m) { return (g.rates || []).find(function (x) { return x.metric === m; }); };
      var a = rate("arg_validity"), b = rate("arg_validity_coerced");
      return a && b && (a.rate.base.k !== b.rate.base.k || a.rate.current.k !== b.rate.current.k);
    });
    // A rate no group pairs (judged, in runs without rubrics) has no column.
    var paired = function (m) { return (c.groups || []).some(function (g) { return (g.rates || []).some(function (x) { return x.metric === m.name; }); }); };
    return (D.compare_metrics || []).filter(function (m) { return (differs || m.name !== "arg_validity_coerced") && paired(m); });
  }

  // byCall says, under a rate the run's tables count by call (argument
  // validity), that count, when it reads differently from the per-trial
  // one the pairs need: otherwise the two pages show two numbers unexplained.
  function byCall(r) {
    var b = r.by_call;
    if (!b || (rateText(b.base) === rateText(r.rate.base) && rateText(b.current) === rateText(r.rate.current))) return null;
    return h("div", { class: "ci-text", title: "Judged per trial here (a trial is valid when all its calls were), so that trials pair; the run's tables count calls." },
      "by call: " + rateText(b.base) + " → " + rateText(b.current) + " (" + b.current.k + "/" + plural(b.current.n, "call") + ")");
  }

  // marginLine is a rate's non-inferiority verdict under its McNemar one:
  // the difference's interval in points and the verdict in the same words
  // as the terminal, marked by verdict, with the cases an undecided one
  // needs (a case is the unit of evidence). Nothing without a margin.
  function marginLine(ni) {
    if (!ni) return null;
    var p = function (v) { return (v >= 0 ? "+" : "") + (v * 100).toFixed(1); };
    var words = ni.words;
    var cases = (ni.evidence && ni.evidence.cases) || 0;
    if (ni.verdict === "undecided") words += ni.cases_needed ? " (~" + ni.cases_needed + " cases, " + Math.max(ni.cases_needed - cases, 0) + " more)" : " (the observed loss exceeds the margin)";
    var over = cases ? plural(cases, "case") + " (" + plural(ni.pairs, "pair") + ")" : plural(ni.pairs, "pair");
    return h("div", { class: "ni ni-" + ni.verdict, title: "Tango's 95% interval of the paired difference, a case's pairs one cluster, over " + over + "; the smallest margin these pairs decide: " + (ni.smallest_margin * 100).toFixed(1) + " pts" },
      "[" + p(Math.floor(ni.lo * 1000) / 1000) + ", " + p(Math.ceil(ni.hi * 1000) / 1000) + "] · " + words);
  }

  function comparisons() {
    if (!D.comparisons || !D.comparisons.length) return null;
    var sec = section("Paired comparisons", "paired", "Trials paired by case and repeat: each cell is base → current, coloured only where the paired test (McNemar) supports a difference. Regressed cases first, then fixes.");
    D.comparisons.forEach(function (c) {
      var metrics = shownMetrics(c);
      sec.appendChild(h("h3", null, c.base + " → " + c.current));
      if (c.margin) sec.appendChild(h("p", { class: "note" }, "Margin " + +(c.margin * 100).toFixed(1) + " pts: under each rate, Tango's 95% interval of " + c.current + " − " + c.base + " and whether " + c.current +
        " is not worse by more than the margin. It is another question than the colour's (McNemar: any detectable difference): worse there and \"not worse by more than the margin\" here is a real loss smaller than the margin."));
      var body = h("tbody");
      var changes = [];
      (c.groups || []).forEach(function (g) {
        var name = g.model || g.variant || "all";
        body.appendChild(h("tr", null, h("th", { class: "name" }, name, h("div", { class: "ci-text" }, plural(g.scored_pairs, "pair")),
          g.truncated_excluded && (g.truncated_excluded.base || g.truncated_excluded.current) ?
            h("div", { class: "ci-text", title: "trials whose prompt reached num_ctx, kept out of every pair" },
              "truncated: " + g.truncated_excluded.base + " base, " + g.truncated_excluded.current + " current") : null),
          metrics.map(function (metric) {
            var r = (g.rates || []).find(function (x) { return x.metric === metric.name; });
            if (!r) return h("td", null, "–");
            var cls = r.verdict === "worse" ? "worse" : r.verdict === "better" ? "better" : "same";
            var d = (r.delta >= 0 ? "+" : "") + (r.delta * 100).toFixed(1);
            return h("td", { class: "pc " + cls, title: r.too_few ? "too few discordant pairs for a verdict" : "p = " + r.p.toFixed(3) },
              rateText(r.rate.base) + " → " + rateText(r.rate.current),
              h("div", { class: "ci-text" }, d + " pts · " + (r.too_few ? "too few pairs" : r.verdict === "~" ? "no detectable difference" : r.verdict)),
              byCall(r), marginLine(r.noninferiority));
          }),
          h("td", { class: "num" }, h("span", { class: "tag" + (g.regressions ? " regression" : "") }, g.regressions + " regressed"), " ", h("span", { class: "tag" + (g.fixes ? " fix" : "") }, g.fixes + " fixed"))));
        (g.cases || []).forEach(function (cc) { changes.push({ g: g, cc: cc }); });
      });
      sec.appendChild(h("div", { class: "scroll" }, h("table", { class: "pairs" },
        h("thead", null, h("tr", null, h("th", null, c.mode === "variants" ? "Model" : c.mode === "models" ? "Variant" : "Model"),
          metrics.map(function (m) { return h("th", null, m.short.replace(/_/g, " ")); }), h("th", null, "Cases"))), body)));
      // Regressions first, over every group.
      changes.sort(function (a, b) { return (a.cc.kind === "fix") - (b.cc.kind === "fix"); });
      if (!changes.length) { sec.appendChild(h("p", { class: "note" }, "No case regressed or was fixed.")); return; }
      sec.appendChild(h("ul", { class: "changes" }, changes.map(function (x) {
        var g = x.g, cc = x.cc;
        var link = function (side) {
          var m = c.mode === "models" ? (side === 0 ? c.base : c.current) : g.model;
          var v = c.mode === "variants" ? (side === 0 ? c.base : c.current) : (g.variant || "base");
          return "#t/" + [m, v, cc.case, cc.repeat].map(encodeURIComponent).join("/");
        };
        return h("li", { class: cc.kind },
          h("span", { class: "tag " + cc.kind }, cc.kind), " ", h("b", null, cc.case), " ",
          h("span", { class: "kn" }, (g.model || g.variant || "") + " · " + kn(cc.pass.base) + " → " + kn(cc.pass.current) + " · "),
          c.mode !== "runs" ? [h("a", { href: link(0) }, c.base + " #" + cc.repeat), " vs ", h("a", { href: link(1) }, c.current + " #" + cc.repeat)] : null,
          " ", h("span", { class: "pill o-" + cc.outcome.base }, cc.outcome.base.replace(/_/g, " ")), " → ",
          h("span", { class: "pill o-" + cc.outcome.current }, cc.outcome.current.replace(/_/g, " ")),
          cc.detail ? h("div", { class: "detail" }, firstLine(cc.detail)) : null);
      })));
    });
    return sec;
  }

  function overview() {
    var app = h("div", { id: "overview-page" });
    if (S) {
      var total = 0, scored = 0, passed = 0;
      S.models.forEach(function (m) { total += m.trials; scored += m.scored; passed += m.pass.k; });
      app.appendChild(h("div", { class: "kpis" },
        kpi(String(S.models.length), variants() ? "models × variants" : "models"),
        kpi(num(total), "trials"),
        kpi(scored ? pct(passed / scored) : "–", "pass overall"),
        kpi(String(new Set([].concat.apply([], S.models.map(function (m) { return m.cases.map(function (c) { return c.id; }); }))).size), "cases")));
      add(app, [warningsCard(), modelTable(), sweepCharts(), bfclSection(), comparisons(), heatmap(), outcomeBars(), failures(), confusionTables(), roundsHist(), latencyHist(), tokens()]);
    } else add(app, [chooseSection(), comparisons()]);
    return app;
  }
  function kpi(v, l) { return h("div", { class: "kpi" }, h("b", null, v), h("span", null, l)); }

  // ---------- transcripts ----------

  var filt = { model: "", variant: "", outcome: "", tag: "", case: "" };
  var LIMIT = 300; // list items drawn at once

  function openCell(model, variant, id) {
    filt = { model: model, variant: variant || "base", outcome: "", tag: "", case: id };
    var ts = loadTrials().filter(match).sort(function (a, b) {
      return ((a.o === "pass") - (b.o === "pass")) || a.r - b.r;
    });
    location.hash = ts.length ? "#t/" + tkey(ts[0]) : "#t";
  }

  function match(t) {
    return (!filt.model || t.m === filt.model) && (!filt.variant || (t.v || "base") === filt.variant) &&
      (!filt.outcome || t.o === filt.outcome || (filt.outcome === "failing" && t.o !== "pass" && t.o !== "infra_error")) &&
      (!filt.tag || (t.tags || []).indexOf(filt.tag) >= 0) && (!filt.case || t.c === filt.case);
  }

  function select(name, values, allLabel) {
    var sel = h("select", { "aria-label": name, "data-filter": name }, h("option", { value: "" }, allLabel));
    values.forEach(function (v) { var o = h("option", { value: v }, v); if (filt[name] === v) o.selected = true; sel.appendChild(o); });
    sel.addEventListener("change", function () { filt[name] = sel.value; route(); });
    return sel;
  }

  function uniq(f) {
    var seen = {};
    trials.forEach(function (t) { [].concat(f(t)).forEach(function (v) { if (v !== undefined) seen[v] = 1; }); });
    return Object.keys(seen).sort();
  }

  function viewer(key) {
    loadTrials();
    var cur = key ? byKey[key] : null;
    var list = trials.filter(match);
    list.sort(function (a, b) { return a.m < b.m ? -1 : a.m > b.m ? 1 : (a.v || "") < (b.v || "") ? -1 : (a.v || "") > (b.v || "") ? 1 : a.c < b.c ? -1 : a.c > b.c ? 1 : a.r - b.r; });
    var filters = h("div", { class: "filters" },
      select("model", uniq(function (t) { return t.m; }), "all models"),
      uniq(function (t) { return t.v || "base"; }).length > 1 ? select("variant", uniq(function (t) { return t.v || "base"; }), "all variants") : null,
      select("outcome", ["failing"].concat(OUTCOMES.filter(function (o) { return trials.some(function (t) { return t.o === o; }); })), "all outcomes"),
      uniq(function (t) { return t.tags || []; }).length ? select("tag", uniq(function (t) { return t.tags || []; }), "all tags") : null,
      select("case", uniq(function (t) { return t.c; }), "all cases"));
    var ul = h("ul", { class: "tlist" });
    var at = cur ? list.indexOf(cur) : -1;
    var from = at >= LIMIT ? at - Math.floor(LIMIT / 2) : 0;
    list.slice(from, from + LIMIT).forEach(function (t) {
      var k = tkey(t);
      ul.appendChild(h("li", { class: k === key ? "on" : "" }, h("a", { href: "#t/" + k },
        h("i", { class: "sw o-" + t.o, title: t.o }), h("span", { class: "c" }, t.c + " #" + t.r),
        h("span", { class: "m" }, t.m + (t.v ? " · " + t.v : "") + (t.o !== "pass" ? " · " + t.o.replace(/_/g, " ") : "")))));
    });
    var left = h("aside", { class: "side" }, filters, h("p", { class: "note" }, list.length + " of " + plural(trials.length, "trial") + (list.length > LIMIT ? " (" + (from + 1) + "–" + Math.min(from + LIMIT, list.length) + " listed; filter to narrow)" : "")), ul);
    var right = h("article", { class: "transcript", id: "transcript" });
    if (cur) drawTrial(right, cur);
    else if (key) right.appendChild(h("p", { class: "note" }, "No trial " + decoded(key) + " in this run."));
    else right.appendChild(h("p", { class: "note" }, "Choose a trial."));
    return h("div", { class: "viewer" }, left, right);
  }

  function block(cls, title, text, extra) {
    return h("div", { class: "msg " + cls }, h("div", { class: "who" }, title, extra || null), h("pre", null, text));
  }

  function drawTrial(el, t) {
    add(el, h("header", { class: "thead" },
      h("h2", null, h("span", { class: "case" }, t.c), " ", h("span", { class: "kn" }, "#" + t.r)),
      h("div", { class: "meta" },
        h("span", { class: "pill o-" + t.o, "data-outcome": t.o }, t.o.replace(/_/g, " ")),
        h("span", null, t.m + (t.v ? " · variant " + t.v : "")),
        (t.tags || []).map(function (g) { return h("span", { class: "tag" }, g); }),
        h("span", null, secs(t.ms / 1000)),
        h("span", null, plural((t.rounds || []).length, "round")),
        h("span", null, num(tokensOf(t, "pt")) + " prompt / " + num(tokensOf(t, "et")) + " generated tokens"),
        t.att ? h("span", null, plural(t.att, "attempt")) : null,
        t.limit ? h("span", { class: "tag warnc" }, "round limit hit") : null,
        t.trunc ? h("span", { class: "tag warnc" }, "prompt truncated") : null,
        t.noexec ? h("span", { class: "tag" }, "tools not executed") : null),
      h("a", { class: "permalink", href: "#t/" + tkey(t) }, "link to this trial")));
    if (t.d) el.appendChild(h("div", { class: "detail-box" }, h("div", { class: "who" }, t.o === "wrong_args" ? "Arguments: what differs from the expected call" : "Why it is " + t.o.replace(/_/g, " ")), diffPre(t.d)));
    if (t.fail) el.appendChild(block("fail", "Infrastructure failure", t.fail));
    if (t.sys >= 0 && D.systems) el.appendChild(block("system", "system", D.systems[t.sys]));
    (t.setup || []).forEach(function (c, i) { el.appendChild(stateCall("Setup " + (i + 1), c)); });
    (t.msgs || []).forEach(function (m) { el.appendChild(block(m.role, m.role, m.text)); });
    var turns = t.turns || [];
    (t.rounds || []).forEach(function (r, i) {
      turns.forEach(function (u, k) {
        if (u.first !== i) return;
        if (k > 0) el.appendChild(turnAnswer(turns[k - 1]));
        el.appendChild(h("div", { class: "rhead turn" }, "Turn " + (k + 1) + " of " + turns.length + (u.limit ? " (round limit hit)" : ""),
          h("span", { class: "kn" }, secs(u.ms / 1000))));
        el.appendChild(block("user", u.um ? "user (the user model)" : "user", u.user));
      });
      var rd = h("div", { class: "round" }, h("div", { class: "rhead" }, "Round " + (i + 1) + (r.final ? " (final, without tools)" : ""),
        h("span", { class: "kn" }, secs(r.ms / 1000) + " · " + num(r.pt) + " prompt / " + num(r.et) + " generated tokens" + (r.done ? " · done: " + r.done : ""))));
      if (r.think) rd.appendChild(block("thinking", "thinking", r.think));
      (r.calls || []).forEach(function (c) {
        var call = h("div", { class: "call" }, h("div", { class: "who" }, "→ ", h("code", null, c.name)), h("pre", { class: "args" }, pretty(c.args)));
        if (c.res !== undefined) call.appendChild(h("div", { class: "result" + (c.kind ? " err" : "") },
          h("div", { class: "who" }, "result" + (c.kind ? " · " + c.kind : "") + (c.ms ? " · " + secs(c.ms / 1000) : "")),
          h("pre", null, c.res), c.err ? h("pre", { class: "errtext" }, c.err) : null));
        rd.appendChild(call);
      });
      // The last round's content is the answer, shown once below.
      if (r.text && !(i === t.rounds.length - 1 && r.text === t.a)) rd.appendChild(block("assistant", "assistant", r.text));
      if (r.fail) rd.appendChild(block("fail", "failure", r.fail));
      if (rd.childNodes.length === 1) rd.appendChild(h("p", { class: "note" }, "no tool call: the model answered (below)"));
      el.appendChild(rd);
    });
    el.appendChild(h("div", { class: "msg answer" }, h("div", { class: "who" }, "Answer"), h("pre", { id: "answer" }, t.a || "(empty)")));
    (t.checks || []).forEach(function (c, i) {
      el.appendChild(stateCall("Check " + (i + 1) + (c.ok ? " · ok" : " · failed: " + (c.d || "")), c, c.ok ? "" : " err"));
    });
  }

  // turnAnswer is the answer that ended a scenario's turn u (the last
  // turn's is the trial's answer, drawn last).
  function turnAnswer(u) {
    return h("div", { class: "msg answer" }, h("div", { class: "who" }, "Answer"), h("pre", null, u.a || "(empty)"));
  }

  // stateCall draws a call the suite made itself: a setup call or a state
  // check, with its result.
  function stateCall(title, c, cls) {
    return h("div", { class: "call state" + (cls || "") }, h("div", { class: "who" }, title + " → ", h("code", null, c.name)),
      h("pre", { class: "args" }, pretty(c.args)),
      h("div", { class: "result" + (c.kind ? " err" : "") }, h("div", { class: "who" }, "result" + (c.kind ? " · " + c.kind : "")),
        h("pre", null, c.res || ""), c.err ? h("pre", { class: "errtext" }, c.err) : null));
  }

  // decoded is a permalink's key as written, or as it came when it is no
  // valid encoding (a hand-edited or cut link): never an exception that
  // would leave the view blank.
  function decoded(k) {
    try { return decodeURIComponent(k); } catch (e) { return k; }
  }
  function plural(n, w) { return n + " " + w + (n === 1 ? "" : "s"); }
  function tokensOf(t, f) { return (t.rounds || []).reduce(function (a, r) { return a + r[f]; }, 0); }
  function pretty(a) {
    try { return JSON.stringify(a, null, 2); } catch (e) { return String(a); }
  }
  function diffPre(text) {
    var pre = h("pre", { class: "diff" });
    text.split("\n").forEach(function (l) {
      var c = /^\s*-/.test(l) ? "del" : /^\s*\+/.test(l) ? "ins" : "";
      pre.appendChild(h("span", { class: c }, l + "\n"));
    });
    return pre;
  }

  // ---------- routing ----------

  function route() {
    var hash = location.hash.replace(/^#/, "");
    var app = document.getElementById("app");
    app.textContent = "";
    if (hash === "t" || hash.indexOf("t/") === 0) {
      var key = hash.slice(2);
      loadTrials();
      var t = key && byKey[key];
      if (t && !match(t)) {
        // A link from elsewhere: list the trial's own model and variant.
        filt = { model: t.m, variant: t.v || "base", outcome: "", tag: "", case: "" };
      }
      app.appendChild(viewer(key));
      window.scrollTo(0, 0);
      var on = app.querySelector("ul.tlist li.on");
      if (on) on.scrollIntoView({ block: "nearest" });
    } else {
      app.appendChild(overview());
      if (hash && hash !== "overview") {
        var target = document.getElementById(hash);
        if (target) target.scrollIntoView();
      }
    }
  }

  var banner = document.getElementById("banner");
  if (D.status) banner.appendChild(h("div", { class: "partial" }, "Partial results: the run is " + D.status + ". What finished is shown."));
  window.addEventListener("hashchange", route);
  route();
  // When the overview was drawn, in ms since navigation began (the
  // benchmark reads it).
  document.body.setAttribute("data-drawn", String(Math.round(performance.now())));
})();
