"""The HTML report's one inline script (admitted by hash in the page's CSP): a finding selects
its calls and events, swimlane marks and event rows highlight each other, marks show their
hover text as a tooltip, a trace index searches and pages, and a link to a rule opens its text.
The page reads fine without it.
"""

from __future__ import annotations

SCRIPT = """(function () {
  var active = null;
  function clear() {
    document.querySelectorAll('.hl').forEach(function (e) { e.classList.remove('hl'); });
    document.querySelectorAll('.trace.focus').forEach(function (e) {
      e.classList.remove('focus'); });
    if (active) { active.classList.remove('active'); active.setAttribute('aria-pressed', 'false'); }
    active = null;
  }
  function focus(card) {
    var was = card === active;
    clear();
    if (was) { return; }
    var trace = card.closest('.trace');
    var ids = (card.getAttribute('data-calls') || '').split(' ').filter(Boolean);
    if (!trace || !ids.length) { return; }
    ids.forEach(function (id) {
      trace.querySelectorAll('[data-call="' + id + '"]').forEach(function (e) {
        e.classList.add('hl'); });
    });
    trace.classList.add('focus');
    card.classList.add('active');
    card.setAttribute('aria-pressed', 'true');
    active = card;
  }
  document.querySelectorAll('article.finding[data-calls]').forEach(function (card) {
    card.setAttribute('tabindex', '0');
    card.setAttribute('role', 'button');
    card.setAttribute('aria-pressed', 'false');
    card.addEventListener('click', function (ev) {
      if (ev.target.closest('a, summary')) { return; }
      focus(card);
    });
    card.addEventListener('keydown', function (ev) {
      if (ev.key === 'Enter' || ev.key === ' ') { ev.preventDefault(); focus(card); }
    });
  });
  function fromHash() {
    var id = decodeURIComponent(location.hash.slice(1));
    var card = id ? document.getElementById(id) : null;
    if (card && card.matches('details.rule')) { card.open = true; }
    if (card && card.matches('article.finding[data-calls]') && card !== active) { focus(card); }
  }
  function evmark(id, on) {
    document.querySelectorAll('[data-ev="' + id + '"]').forEach(function (e) {
      e.classList.toggle('evhl', on); });
  }
  document.querySelectorAll('[data-ev]').forEach(function (e) {
    var id = e.getAttribute('data-ev');
    e.addEventListener('mouseenter', function () { evmark(id, true); });
    e.addEventListener('mouseleave', function () { evmark(id, false); });
    if (e.tagName === 'g') {
      e.addEventListener('click', function () {
        var row = document.querySelector('tr[data-ev="' + id + '"]');
        if (row) { row.scrollIntoView({block: 'nearest'}); row.focus(); }
      });
    }
  });
  document.querySelectorAll('section.tindex').forEach(function (sec) {
    var size = parseInt(sec.getAttribute('data-page'), 10) || 25, page = 0;
    var rows = Array.prototype.slice.call(sec.querySelectorAll('tbody tr'));
    var box = sec.querySelector('input.tsearch');
    function show() {
      var q = box.value.toLowerCase(), hits = rows.filter(function (r) {
        return r.textContent.toLowerCase().indexOf(q) >= 0; });
      var pages = Math.max(1, Math.ceil(hits.length / size));
      page = Math.min(page, pages - 1);
      rows.forEach(function (r) { r.hidden = true; });
      hits.slice(page * size, (page + 1) * size).forEach(function (r) { r.hidden = false; });
      sec.querySelector('.tcount').textContent = hits.length + ' of ' + rows.length + ' traces';
      sec.querySelector('.pageno').textContent = 'page ' + (page + 1) + ' of ' + pages;
    }
    box.addEventListener('input', function () { page = 0; show(); });
    sec.querySelector('.prev').addEventListener('click', function () {
      page = Math.max(0, page - 1); show(); });
    sec.querySelector('.next').addEventListener('click', function () { page += 1; show(); });
    show();
  });
  var tip = document.createElement('div');
  tip.className = 'tip';
  tip.hidden = true;
  document.body.appendChild(tip);
  function place(ev) {
    tip.style.left = (ev.pageX + 12) + 'px'; tip.style.top = (ev.pageY + 12) + 'px'; }
  document.querySelectorAll('svg.swim g.ev, svg.swim rect.ph, svg.swim g.outcome')
    .forEach(function (e) {
      var t = e.querySelector('title');
      if (!t) { return; }
      e.addEventListener('mouseenter', function (ev) {
        tip.textContent = t.textContent; tip.hidden = false; place(ev); });
      e.addEventListener('mousemove', place);
      e.addEventListener('mouseleave', function () { tip.hidden = true; });
    });
  window.addEventListener('hashchange', fromHash);
  fromHash();
  document.body.setAttribute('data-ready', 'true');
})();
"""
