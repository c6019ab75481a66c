//! `stopgate scan --format html`: one self-contained page a team lead can
//! open offline and browse.
//!
//! Everything is inline: the styles, a chart per project over time (SVG),
//! a few lines of script that sort a table when its header is clicked, and
//! every finding with its evidence (the matched words, the line, an
//! excerpt) under a disclosure. No network, no external file.

use std::fmt::Write as _;
use std::io::{self, Write};

use stopgate::archive::Finding;

use super::health::HealthBuilder;
use super::label::project_label;
use super::report::{percent, trend, Counts, Flagged, Summary};

/// Escape `s` for HTML text and attribute values.
fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

const STYLE: &str = "
body{font:14px/1.45 system-ui,sans-serif;margin:2em auto;max-width:72em;padding:0 1em;color:#222}
h1{font-size:1.5em}h2{margin-top:2em;border-bottom:1px solid #ddd}
table{border-collapse:collapse;margin:.5em 0}
th,td{padding:.25em .6em;border-bottom:1px solid #eee;text-align:left;vertical-align:top}
td.n,th.n{text-align:right}
#projects td,#periods td,#findings td:nth-child(2){white-space:nowrap}
th.sortable{cursor:pointer;user-select:none}th.sortable:after{content:' \\2195';color:#aaa}
.muted{color:#777}.bad{color:#b00}.good{color:#070}
details summary{cursor:pointer}pre{white-space:pre-wrap;background:#f6f6f6;padding:.5em}
.charts{display:flex;flex-wrap:wrap;gap:1em 2em}figure{margin:0}figcaption{font-weight:600}
.legend span{display:inline-block;margin-right:1em}
.sw{display:inline-block;width:.8em;height:.8em;margin-right:.3em;vertical-align:middle}
";

const SCRIPT: &str = "
(function(){
  function key(cell){var t=cell.getAttribute('data-sort')||cell.textContent.trim();
    var n=parseFloat(t.replace('%',''));return isNaN(n)?t.toLowerCase():n;}
  function sortBy(table,col,desc){var body=table.tBodies[0];
    var rows=Array.prototype.slice.call(body.rows);
    rows.sort(function(a,b){var x=key(a.cells[col]),y=key(b.cells[col]);
      var r=(typeof x===typeof y)?(x<y?-1:x>y?1:0):(typeof x==='number'?-1:1);
      return desc?-r:r;});
    rows.forEach(function(r){body.appendChild(r);});
    table.setAttribute('data-sorted',col+(desc?' desc':' asc'));}
  var tables=document.querySelectorAll('table.sortable');
  Array.prototype.forEach.call(tables,function(table){
    var ths=table.tHead.rows[0].cells;
    Array.prototype.forEach.call(ths,function(th,i){th.className+=' sortable';
      th.addEventListener('click',function(){
        var desc=table.getAttribute('data-sorted')===i+' asc';sortBy(table,i,desc);});});
    var first=table.getAttribute('data-initial-sort');
    if(first!==null){sortBy(table,parseInt(first,10),true);}
  });
  document.body.setAttribute('data-ready','1');
})();
";

/// Write the report: the counts of `s`, then the findings table with
/// `rows`, the rows [`finding_rows`] wrote as the scan went (kept out of
/// memory by the caller, since there is one per finding).
pub fn write(
    out: &mut impl Write,
    s: &Summary,
    rows: &mut impl io::Read,
    scanned: &str,
) -> io::Result<()> {
    let mut h = String::new();
    let _ = write!(
        h,
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width\">\
         <title>stopgate scan report</title><style>{STYLE}</style></head><body>\n\
         <h1>stopgate scan report</h1>\n<p class=\"muted\">{}</p>\n",
        esc(scanned)
    );
    if let (Some(a), Some(b)) = (s.first, s.last) {
        let _ = writeln!(
            h,
            "<p>Turns dated {} to {}; trend by {}.</p>",
            esc(&s.show(a)),
            esc(&s.show(b)),
            if s.period == super::report::Period::Day {
                "day"
            } else {
                "week"
            }
        );
    }
    summary_section(&mut h, &s.all);
    project_section(&mut h, s);
    period_section(&mut h, s);
    health_section(&mut h, &s.health);
    h.push_str(FINDINGS_HEAD);
    out.write_all(h.as_bytes())?;
    io::copy(rows, out)?;
    write!(
        out,
        "</tbody></table>\n<script>{SCRIPT}</script>\n</body></html>\n"
    )
}

fn summary_section(h: &mut String, c: &Counts) {
    let _ = write!(
        h,
        "<h2>Summary</h2>\n<p>{} change turns: {}, \
         <span class=\"bad\">unaudited {}</span>.</p>\n<table><thead><tr>\
         <th>finding</th><th class=\"n\">turns</th>\
         <th class=\"n\">rate</th><th>over</th></tr></thead><tbody>\n",
        c.change_turns,
        c.audit_breakdown(),
        c.unaudited
    );
    for f in Finding::ALL {
        let of = c.denominator(f);
        let n = c.of(f);
        let rate = if of > 0 { n as f64 * 100.0 / of as f64 } else { 0.0 };
        let _ = writeln!(
            h,
            "<tr><td>{}</td><td class=\"n\">{n}</td><td class=\"n\">{rate:.1}%</td>\
             <td>{of} {}</td></tr>",
            f.as_str(),
            Counts::denominator_name(f)
        );
    }
    h.push_str("</tbody></table>\n");
}

/// The header cells the per-project and per-period tables share.
const COUNT_HEADS: &str = "<th class=\"n\">change turns</th><th class=\"n\">audited</th>\
     <th class=\"n\">by marker</th><th class=\"n\">in plain language</th>\
     <th class=\"n\">by a check it ran</th><th class=\"n\">by escape hatch</th>\
     <th class=\"n\">uncertain</th>\
     <th class=\"n\">unaudited</th><th class=\"n\">hollow</th><th class=\"n\">deferral</th>\
     <th class=\"n\">capitulation</th><th class=\"n\">unverified claim</th>";

/// The cells under [`COUNT_HEADS`] for `c`.
fn count_cells(c: &Counts) -> String {
    [
        c.change_turns.to_string(),
        percent(c.audited_share()),
        c.marker.to_string(),
        c.plain.to_string(),
        c.grounded.to_string(),
        c.escape.to_string(),
        c.uncertain.to_string(),
        c.unaudited.to_string(),
        c.hollow.to_string(),
        c.of(Finding::Deferral).to_string(),
        c.of(Finding::Capitulation).to_string(),
        c.of(Finding::UnverifiedClaim).to_string(),
    ]
    .iter()
    .map(|v| format!("<td class=\"n\">{v}</td>"))
    .collect()
}

fn project_section(h: &mut String, s: &Summary) {
    let _ = writeln!(
        h,
        "<h2>By project</h2>\n<table class=\"sortable\" id=\"projects\"><thead><tr>\
         <th>project</th><th class=\"n\">sessions</th>{COUNT_HEADS}</tr></thead><tbody>"
    );
    for (project, c) in &s.by_project {
        let _ = writeln!(
            h,
            "<tr><td>{}</td><td class=\"n\">{}</td>{}</tr>",
            esc(project),
            c.sessions,
            count_cells(c)
        );
    }
    h.push_str("</tbody></table>\n");
    h.push_str(
        "<p class=\"legend\"><span><i class=\"sw\" style=\"background:#3a3\"></i>audited</span>\
         <span><i class=\"sw\" style=\"background:#e90\"></i>hollow</span>\
         <span><i class=\"sw\" style=\"background:#c33\"></i>unaudited</span></p>\n",
    );
    h.push_str("<div class=\"charts\">\n");
    for (project, periods) in &s.by_project_period {
        let _ = write!(h, "<figure><figcaption>{}</figcaption>", esc(project));
        chart(h, periods);
        h.push_str("</figure>\n");
    }
    h.push_str("</div>\n");
}

/// Hook health: per project, whether stopgate's Stop hook ran, its blocks,
/// the blocks the client overrode, hook errors and timeouts; then the
/// sessions where something went wrong.
fn health_section(h: &mut String, health: &HealthBuilder) {
    h.push_str("<h2>Hook health</h2>\n");
    if !health.all.any_trace() {
        h.push_str(
            "<p class=\"muted\">No hook activity recorded (only interactive \
             Claude Code sessions record which Stop hooks ran).</p>\n",
        );
        return;
    }
    h.push_str(
        "<table class=\"sortable\" id=\"health\"><thead><tr><th>project</th>\
         <th class=\"n\">stops</th><th class=\"n\">stopgate ran</th>\
         <th class=\"n\">blocks</th><th class=\"n\">overridden by the client</th>\
         <th class=\"n\">hook errors</th><th class=\"n\">hook timeouts</th>\
         <th class=\"n\">not guarding</th></tr></thead><tbody>\n",
    );
    for (project, c) in &health.by_project {
        if c.stops == 0 && !c.any_trace() {
            continue;
        }
        let _ = write!(h, "<tr><td>{}</td>", esc(project));
        for (v, bad) in [
            (c.stops.to_string(), false),
            (c.ran_cell(), false),
            (c.blocks.to_string(), false),
            (c.overridden.to_string(), c.overridden > 0),
            (c.errors.to_string(), c.errors > 0),
            (c.timeouts.to_string(), c.timeouts > 0),
            (c.unguarded.to_string(), c.unguarded > 0),
        ] {
            let class = if bad { "n bad" } else { "n" };
            let _ = write!(h, "<td class=\"{class}\">{}</td>", esc(&v));
        }
        h.push_str("</tr>\n");
    }
    h.push_str(
        "</tbody></table>\n<p class=\"muted\">stopgate ran: the Stops after which \
         stopgate's hook ran, of those whose transcript records the Stop hooks. \
         Errors and timeouts count hooks of every event.</p>\n",
    );
    if !health.troubled.is_empty() {
        h.push_str("<ul>\n");
        for t in &health.troubled {
            let _ = writeln!(
                h,
                "<li>{}: <span class=\"bad\">{}</span><br><code>{}</code></li>",
                esc(&t.label),
                esc(&super::health::trouble_words(&t.health)),
                esc(&t.path.display().to_string())
            );
        }
        h.push_str("</ul>\n");
    }
}

/// A stacked bar per period: audited, hollow and unaudited change turns.
fn chart(
    h: &mut String,
    periods: &std::collections::BTreeMap<String, Counts>,
) {
    let max =
        periods.values().map(|c| c.change_turns).max().unwrap_or(0).max(1);
    let (bar, gap, height, top, bottom) =
        (24usize, 10usize, 80usize, 14usize, 24usize);
    let width = periods.len() * (bar + gap) + gap + 30;
    let _ = write!(
        h,
        "<svg role=\"img\" width=\"{width}\" height=\"{}\" \
         viewBox=\"0 0 {width} {}\" xmlns=\"http://www.w3.org/2000/svg\">\
         <title>change turns per period: audited, hollow, unaudited</title>",
        height + top + bottom,
        height + top + bottom
    );
    let scale = |n: usize| n * height / max;
    for (i, (start, c)) in periods.iter().enumerate() {
        let x = 30 + gap + i * (bar + gap);
        let mut y = top + height;
        for (n, colour) in
            [(c.audited(), "#3a3"), (c.hollow, "#e90"), (c.unaudited, "#c33")]
        {
            let dh = scale(n);
            if dh > 0 {
                y -= dh;
                let _ = write!(
                    h,
                    "<rect x=\"{x}\" y=\"{y}\" width=\"{bar}\" height=\"{dh}\" fill=\"{colour}\"/>"
                );
            }
        }
        let _ = write!(
            h,
            "<text x=\"{}\" y=\"{}\" font-size=\"10\" text-anchor=\"middle\">{}</text>\
             <text x=\"{}\" y=\"{}\" font-size=\"9\" text-anchor=\"middle\" fill=\"#666\">{}</text>",
            x + bar / 2,
            y.saturating_sub(3).max(10),
            c.change_turns,
            x + bar / 2,
            top + height + 14,
            esc(start.get(5..).unwrap_or(start)),
        );
    }
    let _ = writeln!(
        h,
        "<line x1=\"30\" y1=\"{0}\" x2=\"{width}\" y2=\"{0}\" stroke=\"#999\"/>\
         <text x=\"2\" y=\"{1}\" font-size=\"10\">{max}</text></svg>",
        top + height,
        top + 8
    );
}

fn period_section(h: &mut String, s: &Summary) {
    let noun = s.period.noun();
    let _ = writeln!(
        h,
        "<h2>By {noun}</h2>\n<table class=\"sortable\" id=\"periods\"><thead><tr>\
         <th>{noun}</th>{COUNT_HEADS}<th>trend</th></tr></thead><tbody>"
    );
    let mut before = None;
    for (start, c) in &s.by_period {
        let share = c.audited_share();
        let _ = writeln!(
            h,
            "<tr><td>{}</td>{}<td>{}</td></tr>",
            esc(start),
            count_cells(c),
            esc(&trend(before, share))
        );
        before = share.or(before);
    }
    h.push_str("</tbody></table>\n");
}

/// The findings table's head; its rows come from [`finding_rows`].
const FINDINGS_HEAD: &str = "<h2>Findings</h2>\n<table class=\"sortable\" id=\"findings\" data-initial-sort=\"1\">\
     <thead><tr><th>session</th><th>date</th><th class=\"n\">turn</th><th>finding</th>\
     <th>evidence</th></tr></thead><tbody>\n";

/// The findings table's rows for one file, with their evidence.
pub fn finding_rows(h: &mut String, flagged: &Flagged) {
    let Flagged { label, report: r } = flagged;
    for t in &r.turns {
        for e in &t.findings {
            let date = t.timestamp.as_deref().unwrap_or("");
            let matched = if e.matched.is_empty() {
                "(no audit marker or plain-language audit)".to_string()
            } else {
                e.matched.join(", ")
            };
            let _ = writeln!(
                h,
                "<tr><td>{}</td><td data-sort=\"{}\">{}</td><td class=\"n\">{}</td>\
                 <td>{}</td><td><details><summary>{}: {}</summary>\
                 <p>line {} of <code>{}</code> ({} · {})</p>{}<pre>{}</pre></details></td></tr>",
                esc(label),
                esc(date),
                esc(date.get(..10).unwrap_or(date)),
                t.turn,
                e.finding.as_str(),
                esc(e.rule.as_str()),
                esc(&matched),
                e.line.map_or("?".to_string(), |l| l.to_string()),
                esc(&r.path.to_string_lossy()),
                esc(&project_label(r)),
                esc(&r.session_id),
                changes_line(&t.changes),
                esc(&e.excerpt),
            );
        }
    }
}

/// Where a turn's changes came from, as a paragraph; nothing for a turn
/// with none.
fn changes_line(changes: &[String]) -> String {
    if changes.is_empty() {
        return String::new();
    }
    format!("<p>changes: {}</p>", esc(&changes.join("; ")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_markup() {
        assert_eq!(
            esc("<a href=\"x\">&'</a>"),
            "&lt;a href=&quot;x&quot;&gt;&amp;&#39;&lt;/a&gt;"
        );
    }
}
