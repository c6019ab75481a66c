//! Audits shown rather than told: a command's run pasted with what it
//! printed, or a table of cases with a column of what each gave.
//!
//! Agents often end a turn by showing the check instead of telling it:
//!
//! ```text
//! $ curl -s 'localhost:8080/api/items?page=2' | jq '.items | length'
//! 20
//! ```
//!
//! or `| input | expected | got |` and a row per case. No verb of checking
//! stands in either, so the told forms ([`plain`](super::plain),
//! [`outcome`](super::outcome)) miss them, yet both are as specific as an
//! audit gets. Two guards keep advice out: a block whose lead-in is a
//! hedge, a plan, a request or an instruction ("You should see:", "To
//! verify:", "実行してください"), and a block with no output after its
//! command, are none; a table needs a column of what came of each case
//! ("got", "result", "結果", "결과"), not only of what was expected. The
//! words are in the language tables (`lang/`).

use super::plain_audit::PlainAudit;

/// The words of the configured languages that the forms read.
#[derive(Clone, Debug, Default)]
pub(crate) struct Words {
    /// Headers of a column that tells what came of each case, lowercased.
    pub(crate) result_columns: Vec<&'static str>,
    /// Lead-ins that make a pasted run an instruction, lowercased.
    pub(crate) instructions: Vec<&'static str>,
}

/// The first audit shown in `text`. `unsure` tells whether a lead-in is
/// a hedge, a plan or advice.
pub(crate) fn find(
    text: &str,
    words: &Words,
    unsure: impl Fn(&str) -> bool,
) -> Option<PlainAudit> {
    find_run(text, &words.instructions, &unsure)
        .or_else(|| find_table(text, &words.result_columns))
}

/// A fenced block that holds a command at a shell prompt (`$ `) and a
/// line of its output after it.
fn find_run(
    text: &str,
    instructions: &[&'static str],
    unsure: &impl Fn(&str) -> bool,
) -> Option<PlainAudit> {
    let mut offset = 0;
    let mut in_block = false;
    let mut lead_in = "";
    let mut block: Vec<(usize, &str)> = vec![];
    for line in text.split_inclusive('\n') {
        // Where the trimmed line starts in `text`.
        let at = offset + (line.len() - line.trim_start().len());
        offset += line.len();
        let trimmed = line.trim();
        if trimmed.starts_with("```") {
            if in_block {
                let found = run_in(&block, lead_in, instructions, unsure);
                if found.is_some() {
                    return found;
                }
            }
            block.clear();
            in_block = !in_block;
            continue;
        }
        if in_block {
            block.push((at, trimmed));
        } else if !trimmed.is_empty() {
            lead_in = trimmed;
        }
    }
    None
}

/// The command run with its output in the lines of one fenced block.
fn run_in(
    block: &[(usize, &str)],
    lead_in: &str,
    instructions: &[&'static str],
    unsure: &impl Fn(&str) -> bool,
) -> Option<PlainAudit> {
    let lower = lead_in.to_lowercase();
    if unsure(lead_in) || instructions.iter().any(|w| lower.contains(w)) {
        return None;
    }
    block.windows(2).find_map(|pair| {
        let [(at, line), (_, output)] = pair else { return None };
        let command = line.strip_prefix("$ ")?.trim();
        let printed = !output.is_empty() && !output.starts_with('$');
        // No word leads a run shown: the command is what was checked, so
        // the span is empty at its line and the hollow gate weighs it.
        (printed && !command.is_empty()).then(|| PlainAudit {
            lead: command.to_string(),
            referent: output.to_string(),
            span: *at..*at,
        })
    })
}

/// A markdown table with a column of what each case gave and a row under
/// its header.
fn find_table(
    text: &str,
    result_columns: &[&'static str],
) -> Option<PlainAudit> {
    let lines: Vec<(usize, &str)> = text
        .split_inclusive('\n')
        .scan(0, |offset, line| {
            let at = *offset + (line.len() - line.trim_start().len());
            *offset += line.len();
            Some((at, line.trim()))
        })
        .collect();
    lines.windows(3).find_map(|rows| {
        let [(at, header), (_, rule), (_, first)] = rows else { return None };
        if !is_row(header) || !is_rule(rule) || !is_row(first) {
            return None;
        }
        let column = cells(header).position(|cell| {
            let cell = cell.to_lowercase();
            result_columns.iter().any(|w| cell == *w)
        })?;
        let value = cells(first).nth(column)?;
        (!value.is_empty()).then(|| PlainAudit {
            lead: cells(header).nth(column).unwrap_or_default().to_string(),
            referent: value.to_string(),
            span: *at..*at + header.len(),
        })
    })
}

/// Whether `body` opens with a markdown table none of whose columns tells
/// what came of each case: "| case | handling |" describes the cases.
pub(crate) fn table_without_results(
    body: &str,
    result_columns: &[&'static str],
) -> bool {
    let mut lines = body.trim_start().lines().map(str::trim);
    let (Some(header), Some(rule)) = (lines.next(), lines.next()) else {
        return false;
    };
    is_row(header)
        && is_rule(rule)
        && !cells(header).any(|cell| {
            let cell = cell.to_lowercase();
            result_columns.iter().any(|w| cell == *w)
        })
}

/// Whether `line` is a row of a markdown table.
fn is_row(line: &str) -> bool {
    line.starts_with('|') && line.len() > 1 && line.ends_with('|')
}

/// Whether `line` is the rule under a markdown table's header.
fn is_rule(line: &str) -> bool {
    is_row(line) && line.bytes().all(|b| b"|-: ".contains(&b))
}

/// The trimmed cells of a table row.
fn cells(row: &str) -> impl Iterator<Item = &str> {
    let inner = row.trim_matches('|');
    inner.split('|').map(str::trim)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words() -> Words {
        Words {
            result_columns: vec!["got", "result", "結果"],
            instructions: vec!["to verify", "run:"],
        }
    }

    fn shown(text: &str) -> bool {
        find(text, &words(), |s| s.contains("should")).is_some()
    }

    /// The span found is empty at the prompt's line, or is the table's
    /// header, as it stands in the text, indented or not.
    #[test]
    fn spans_stand_in_the_text() {
        let run = "Output:\n```\n  $ curl -s é/x\n  20\n```";
        let found = find(run, &words(), |_| false).unwrap();
        assert!(found.span.is_empty());
        assert!(run[found.span.start..].starts_with("$ curl -s é/x\n"));
        let table = "  | 入力 | 結果 |\n  |---|---|\n  | `a` | `b` |";
        let found = find(table, &words(), |_| false).unwrap();
        assert_eq!(&table[found.span], "| 入力 | 結果 |");
    }

    /// A run with its output, and a table with a column of results, are
    /// audits; a run with no output, an instruction, a listing and a
    /// table of what is expected only are none.
    #[test]
    fn runs_and_tables() {
        assert!(shown("Output:\n```\n$ curl -s localhost/x | jq .n\n20\n```"));
        assert!(shown("```\n$ mytool status\nno projects\n$ echo $?\n0\n```"));
        assert!(shown(
            "| input | expected | got |\n|---|---|---|\n| `a` | 1 | 1 |"
        ));
        assert!(shown("| 入力 | 結果 |\n|---|---|\n| `\"\"` | `Empty` |"));
        assert!(!shown("Run:\n```\n$ make deploy\n```"));
        assert!(!shown("You should see:\n```\n$ curl localhost\n200\n```"));
        assert!(!shown("To verify:\n```\n$ curl localhost\n200\n```"));
        assert!(!shown("```rust\nlet x = 1;\n```"));
        assert!(!shown("| input | expected |\n|---|---|\n| `a` | 1 |"));
        assert!(!shown("| file | got |\n|---|---|"));
    }
}
