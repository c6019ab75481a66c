//! How a session and its project are named in the scan's reports: the
//! table, the HTML report and the hook-health section all name them the
//! same way.

use stopgate::archive::FileReport;

/// The project of a file: the last part of the folder its session ran in,
/// else the folder the file is in (Claude Code names it after the
/// project's path).
pub fn project_label(report: &FileReport) -> String {
    let from_cwd = report.project.as_deref().and_then(|cwd| {
        cwd.trim_end_matches(['/', '\\'])
            .rsplit(['/', '\\'])
            .next()
            .filter(|s| !s.is_empty())
            .map(str::to_string)
    });
    from_cwd
        .or_else(|| {
            report
                .path
                .parent()
                .and_then(|p| p.file_name())
                .map(|n| n.to_string_lossy().into_owned())
        })
        .unwrap_or_else(|| "-".to_string())
}

/// A session's label for people: project, date, the first prompt's
/// opening words.
pub fn session_label(report: &FileReport) -> String {
    let date = report
        .turns
        .iter()
        .find_map(|t| t.timestamp.as_deref())
        .and_then(|t| t.get(..10))
        .unwrap_or("undated");
    let words = report.first_prompt.as_deref().unwrap_or("(no prompt)");
    format!("{} · {date} · {words}", project_label(report))
}
