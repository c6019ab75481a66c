//! Text from a transcript made inert for a terminal or a spreadsheet.
//!
//! A transcript is written by whatever the agent read: its `cwd`, its
//! prompts and its messages can hold any character. Printed raw to a
//! terminal, `ESC ] 52 ;` writes the clipboard, `ESC ] 0 ;` retitles the
//! window and `ESC [ 2 J` clears the screen; opened in a spreadsheet, a
//! cell that starts with `=` is a formula. So every text the human output
//! prints goes through [`terminal`], whatever `--color` says (the colour
//! choice only strips *our* escapes), and every CSV cell through
//! [`csv_cell`].

use std::borrow::Cow;

/// `s` with every control character written as a visible escape: the C0
/// controls (tab and line feed included, which would break a table's
/// row) and DEL as `\xNN`, the C1 controls (U+0080 to U+009F) as
/// `\u{NN}`, and a backslash that starts such an escape doubled, so the
/// text can be read back. Borrowed when there is nothing to escape, the
/// common case.
pub fn terminal(s: &str) -> Cow<'_, str> {
    if !s.chars().any(|c| is_control(c) || c == '\\') {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x80 && is_control(c) => {
                out.push_str(&format!("\\x{:02x}", c as u32))
            }
            c if is_control(c) => {
                out.push_str(&format!("\\u{{{:x}}}", c as u32))
            }
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// Every line of `s` through [`terminal`], the line breaks kept: for a
/// message of several lines, such as a block's.
pub fn terminal_lines(s: &str) -> String {
    s.split('\n').map(terminal).collect::<Vec<_>>().join("\n")
}

/// A C0 control, DEL, or a C1 control.
fn is_control(c: char) -> bool {
    matches!(c, '\0'..='\x1f' | '\x7f'..='\u{9f}')
}

/// The characters that make a spreadsheet read a cell as a formula (or,
/// for tab and carriage return, that some tools strip before looking for
/// one), as OWASP's "CSV Injection" page lists them.
const FORMULA_STARTS: [char; 6] = ['=', '+', '-', '@', '\t', '\r'];

/// A CSV cell that no spreadsheet evaluates: one that starts with a
/// character of [`FORMULA_STARTS`] gets a single quote in front, as
/// OWASP advises; the CSV writer quotes the cell as it needs.
pub fn csv_cell(cell: String) -> String {
    if cell.starts_with(FORMULA_STARTS) {
        format!("'{cell}")
    } else {
        cell
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn controls_are_escaped() {
        assert!(matches!(terminal("plain · 日本"), Cow::Borrowed(_)));
        assert_eq!(
            terminal("\x1b]0;pwn\x07\x1b[2J\u{9b}x\x7f\t\n"),
            "\\x1b]0;pwn\\x07\\x1b[2J\\u{9b}x\\x7f\\x09\\x0a"
        );
        assert_eq!(terminal("C:\\x1b"), "C:\\\\x1b");
        assert_eq!(terminal_lines("a\x1b\nb\r"), "a\\x1b\nb\\x0d");
    }

    #[test]
    fn formulas_are_quoted() {
        for cell in ["=1+1", "+1", "-2", "@SUM(A1)", "\t=1", "\r=1"] {
            assert_eq!(csv_cell(cell.to_string()), format!("'{cell}"));
        }
        for cell in ["", "a=1", "1", "[\"-x\"]", "'quoted"] {
            assert_eq!(csv_cell(cell.to_string()), cell);
        }
    }
}
