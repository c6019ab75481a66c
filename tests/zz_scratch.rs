//! Scratch: why a case is judged as it is. Not committed.
use stopgate::config::{Config, Gate};
use stopgate::judge::{Facts, Gates, SessionView};
use stopgate::read::ToolCall;

fn tool(code: &str, i: usize) -> ToolCall {
    let (name, cmd) = match code.trim() {
        "W" => ("Write", None),
        "E" => ("Edit", None),
        "R" => ("Read", None),
        c => match c.strip_prefix("B:") {
            Some(cmd) => ("Bash", Some(cmd)),
            None => ("Read", None),
        },
    };
    ToolCall::new(Some(&format!("t{i}")), name, cmd, 0, i)
}

#[test]
fn why() {
    let file = std::env::var("WHY").unwrap();
    let text = std::fs::read_to_string(file).unwrap();
    for line in text.lines().filter(|l| !l.is_empty() && !l.starts_with('#')) {
        let cols: Vec<&str> = line.split('\t').collect();
        let (gate, tools, prompt, msg) =
            (cols[0], cols[1], cols[2], cols[3].replace("\\n", "\n"));
        let uses: Vec<ToolCall> = tools
            .split('|')
            .filter(|t| !t.is_empty())
            .enumerate()
            .map(|(i, t)| tool(t, i))
            .collect();
        let mut c = Config::default();
        c.order = match gate {
            "audit" => vec![Gate::Audit, Gate::Hollow],
            "hollow" => vec![Gate::Hollow],
            "ownership" => vec![Gate::Ownership],
            _ => vec![Gate::Reverify],
        };
        let g = Gates::new(&c).unwrap();
        let facts = Facts::new(&msg)
            .with_prompt(Some(prompt))
            .with_tool_uses(&uses)
            .with_changed(uses.iter().any(|t| t.change().is_some()));
        let v = g.evaluate(&facts, &SessionView::default());
        println!(
            "== [{}] {}\n   status {:?}\n   verdict {:?}\n   matched {:?}",
            cols.get(4).unwrap_or(&""),
            msg.chars().take(60).collect::<String>().replace('\n', " "),
            g.audit_status_of(&facts),
            v.block().map(|b| (b.rule(), b.matched().to_vec())),
            g.matched(&facts)
        );
    }
}
