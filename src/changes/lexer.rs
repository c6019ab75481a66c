//! A small shell lexer: words, quotes, operators, redirections and
//! here-documents.
//!
//! It is not a shell parser; it only needs to find command words and
//! redirection targets, so that [`super::rules::bash_changes_files`] can judge
//! each simple command on its own.
//!
//! # Why bytes and borrowed words
//!
//! The archive scanner lexes every shell command of every session, and
//! agents' commands are often long (a here-document carries a whole file).
//! Every character the lexer acts on is ASCII, and in UTF-8 an ASCII byte
//! is never part of another character, so the lexer walks bytes and
//! decodes a character only where Unicode matters (a word read after a
//! redirection or a quote ends at any Unicode space). A word that is a
//! plain run of the command's text is borrowed from it; only a word with
//! quotes or escapes in it is built anew.

use std::borrow::Cow;

/// One word of a simple command, after quote removal.
pub(super) type Word<'a> = Cow<'a, str>;

/// A command line, split into simple commands.
#[derive(Debug, Default)]
pub(super) struct Lexed<'a> {
    /// The simple commands, each a list of words.
    pub(super) commands: Vec<Vec<Word<'a>>>,
    /// Some output redirection targets a real file.
    pub(super) file_redirect: bool,
}

/// Split `src` into simple commands, and note file redirections.
pub(super) fn lex(src: &str) -> Lexed<'_> {
    Lexer::new(src).run()
}

/// A here-document whose body is still to be skipped.
#[derive(Debug)]
struct Heredoc<'a> {
    delimiter: Word<'a>,
    /// `<<-`: leading tabs are stripped from the body's lines.
    strip_tabs: bool,
}

/// The word being read: borrowed while it is one run of the source.
#[derive(Debug)]
struct WordBuf<'a> {
    text: Word<'a>,
    /// Where the borrowed run starts and ends in the source; meaningless
    /// once the word is owned.
    start: usize,
    end: usize,
}

/// The lexer's state: one method per construct, each starting at the
/// construct's first byte and leaving `i` after it.
#[derive(Debug)]
struct Lexer<'a> {
    src: &'a str,
    i: usize,
    out: Lexed<'a>,
    /// The words of the simple command being read.
    words: Vec<Word<'a>>,
    /// The word being read, if one is.
    word: Option<WordBuf<'a>>,
    /// Here-documents opened on the current line.
    heredocs: Vec<Heredoc<'a>>,
}

/// The bytes that [`Lexer::run`] acts on; any other byte is part of a
/// word.
fn is_special(b: u8) -> bool {
    matches!(
        b,
        b'\n'
            | b' '
            | b'\t'
            | b';'
            | b'|'
            | b'('
            | b')'
            | b'`'
            | b'&'
            | b'>'
            | b'<'
            | b'\''
            | b'"'
            | b'\\'
            | b'$'
    )
}

impl<'a> Lexer<'a> {
    fn new(src: &'a str) -> Lexer<'a> {
        Lexer {
            src,
            i: 0,
            out: Lexed::default(),
            words: vec![],
            word: None,
            heredocs: vec![],
        }
    }

    fn run(mut self) -> Lexed<'a> {
        let bytes = self.src.as_bytes();
        while let Some(&b) = bytes.get(self.i) {
            match b {
                b'\n' => self.newline(),
                b' ' | b'\t' => {
                    self.end_word();
                    self.i += 1;
                }
                b';' | b'|' | b'(' | b')' | b'`' => self.separator(1),
                b'&' if self.at(1) == Some(b'>') => self.redirect_both(),
                b'&' => self.separator(1),
                b'>' => self.redirect_out(),
                b'<' => self.redirect_in(),
                b'\'' | b'"' | b'\\' => self.quoted(),
                b'$' if self.at(1) == Some(b'(') => self.separator(2),
                _ => {
                    // A run of word bytes (a lone `$` included).
                    let start = self.i;
                    self.i += 1;
                    while bytes.get(self.i).is_some_and(|&b| !is_special(b)) {
                        self.i += 1;
                    }
                    self.push_run(start, self.i);
                }
            }
        }
        self.end_word();
        self.end_command();
        self.out
    }

    /// The byte `k` places after the current one.
    fn at(&self, k: usize) -> Option<u8> {
        self.src.as_bytes().get(self.i + k).copied()
    }

    /// Add `src[start..end]` to the word being read.
    fn push_run(&mut self, start: usize, end: usize) {
        let run = &self.src[start..end];
        match &mut self.word {
            None => {
                self.word =
                    Some(WordBuf { text: Cow::Borrowed(run), start, end })
            }
            Some(w) => match w.text {
                Cow::Borrowed(_) if w.end == start => {
                    w.text = Cow::Borrowed(&self.src[w.start..end]);
                    w.end = end;
                }
                _ => w.text.to_mut().push_str(run),
            },
        }
    }

    /// Add text that is not one run of the source (quotes removed).
    fn push_text(&mut self, text: Word<'a>) {
        match &mut self.word {
            None => {
                // Never extended in place: `end` matches no position.
                self.word =
                    Some(WordBuf { text, start: usize::MAX, end: usize::MAX })
            }
            Some(w) => w.text.to_mut().push_str(&text),
        }
    }

    fn end_word(&mut self) {
        if let Some(w) = self.word.take() {
            self.words.push(w.text);
        }
    }

    fn end_command(&mut self) {
        if !self.words.is_empty() {
            self.out.commands.push(std::mem::take(&mut self.words));
        }
    }

    /// An operator of `len` bytes that ends the command: `;`, `|`, `(`,
    /// `)`, a backquote, `&`, or `$(`, after which what follows is a
    /// command of its own.
    fn separator(&mut self, len: usize) {
        self.end_word();
        self.end_command();
        self.i += len;
    }

    /// A newline ends the command, then the bodies of the line's
    /// here-documents are skipped.
    fn newline(&mut self) {
        self.separator(1);
        for doc in std::mem::take(&mut self.heredocs) {
            self.skip_heredoc_body(&doc);
        }
    }

    fn skip_heredoc_body(&mut self, doc: &Heredoc<'_>) {
        let src = self.src;
        loop {
            let start = self.i.min(src.len());
            let end = memchr::memchr(b'\n', &src.as_bytes()[start..])
                .map_or(src.len(), |n| start + n);
            self.i = (end + 1).min(src.len());
            let line = &src[start..end];
            let line = if doc.strip_tabs {
                line.trim_start_matches('\t')
            } else {
                line
            };
            if line == doc.delimiter || self.i >= src.len() {
                break;
            }
        }
    }

    /// A word that starts with a quote or a backslash.
    fn quoted(&mut self) {
        let w = self.read_word();
        self.push_text(w);
    }

    /// `&>file` and `&>>file`.
    fn redirect_both(&mut self) {
        self.end_word();
        self.i += 2;
        if self.at(0) == Some(b'>') {
            self.i += 1;
        }
        let target = self.read_word();
        self.target(&target);
    }

    /// `>`, `>>`, `>|`, `>&`, and `>(` (process substitution, not a file).
    fn redirect_out(&mut self) {
        // A word of digits just before is the fd being redirected.
        let fd = self
            .word
            .as_ref()
            .is_some_and(|w| w.text.bytes().all(|b| b.is_ascii_digit()));
        if fd {
            self.word = None;
        } else {
            self.end_word();
        }
        self.i += 1;
        match self.at(0) {
            Some(b'(') => {
                self.end_command();
                self.i += 1;
            }
            Some(b'&') => {
                // `>&2`, `>&-`: duplicating a descriptor. `>&file` writes a
                // file.
                self.i += 1;
                let target = self.read_word();
                let dup = target == "-"
                    || target.bytes().all(|b| b.is_ascii_digit());
                if !dup {
                    self.target(&target);
                }
            }
            next => {
                if matches!(next, Some(b'>') | Some(b'|')) {
                    self.i += 1;
                }
                let target = self.read_word();
                self.target(&target);
            }
        }
    }

    /// `<file`, a here-document `<<WORD` or `<<-WORD`, a here-string
    /// `<<<word`: nothing is written.
    fn redirect_in(&mut self) {
        self.end_word();
        self.i += 1;
        if self.at(0) != Some(b'<') {
            self.read_word(); // the input's source
            return;
        }
        self.i += 1;
        if self.at(0) == Some(b'<') {
            self.i += 1;
            self.read_word(); // the here-string
            return;
        }
        let strip_tabs = self.at(0) == Some(b'-');
        if strip_tabs {
            self.i += 1;
        }
        let delimiter = self.read_word();
        if !delimiter.is_empty() {
            self.heredocs.push(Heredoc { delimiter, strip_tabs });
        }
    }

    /// An output redirection's target: a real file is a change.
    fn target(&mut self, target: &str) {
        if !target.is_empty() && !is_device(target) {
            self.out.file_redirect = true;
        }
    }

    /// Read one word from `i` (after blanks), honouring quotes. It ends at
    /// any Unicode space or at one of `;&|<>()`.
    fn read_word(&mut self) -> Word<'a> {
        let src = self.src;
        let bytes = src.as_bytes();
        let mut i = self.i;
        while matches!(bytes.get(i), Some(b' ' | b'\t')) {
            i += 1;
        }
        let start = i;
        // The word once a quote or an escape made it differ from the
        // source.
        let mut owned: Option<String> = None;
        let own = |owned: &mut Option<String>, upto: usize| -> String {
            owned.take().unwrap_or_else(|| src[start..upto].to_string())
        };
        while let Some(&b) = bytes.get(i) {
            match b {
                b'\'' => {
                    let mut w = own(&mut owned, i);
                    let body = i + 1;
                    let close = memchr::memchr(b'\'', &bytes[body..])
                        .map_or(bytes.len(), |n| body + n);
                    w.push_str(&src[body..close]);
                    owned = Some(w);
                    i = close + 1;
                }
                b'"' => {
                    let mut w = own(&mut owned, i);
                    i = double_quoted(src, i + 1, &mut w) + 1;
                    owned = Some(w);
                }
                b'\\' if i + 1 < bytes.len() => {
                    let mut w = own(&mut owned, i);
                    let ch = next_char(src, i + 1);
                    w.push_str(ch);
                    owned = Some(w);
                    i += 1 + ch.len();
                }
                b if b.is_ascii() => {
                    if b.is_ascii_whitespace()
                        || b == b'\x0B'
                        || b";&|<>()".contains(&b)
                    {
                        break;
                    }
                    if let Some(w) = owned.as_mut() {
                        w.push(char::from(b));
                    }
                    i += 1;
                }
                _ => {
                    let ch = next_char(src, i);
                    if ch.chars().all(char::is_whitespace) {
                        break;
                    }
                    if let Some(w) = owned.as_mut() {
                        w.push_str(ch);
                    }
                    i += ch.len();
                }
            }
        }
        // An unclosed quote runs to the end.
        self.i = i.min(bytes.len());
        match owned {
            Some(w) => Cow::Owned(w),
            None => Cow::Borrowed(&src[start..self.i]),
        }
    }
}

/// Push the body of a double-quoted string that starts at byte `i` of
/// `src` onto `w`, its escapes resolved, and return where its closing
/// quote stands (the end of `src` when it has none).
fn double_quoted(src: &str, mut i: usize, w: &mut String) -> usize {
    let bytes = src.as_bytes();
    // Runs up to the next quote or backslash go in whole (both are ASCII,
    // so the runs end on characters).
    loop {
        let run = memchr::memchr2(b'"', b'\\', &bytes[i..])
            .map_or(bytes.len(), |n| i + n);
        w.push_str(&src[i..run]);
        i = run;
        if bytes.get(i) != Some(&b'\\') {
            return i;
        }
        // A backslash keeps the character after it; a last backslash keeps
        // itself.
        let at = if i + 1 < bytes.len() { i + 1 } else { i };
        let ch = next_char(src, at);
        w.push_str(ch);
        i = at + ch.len();
    }
}

/// The character that starts at byte `i` of `src`, as a string.
fn next_char(src: &str, i: usize) -> &str {
    let len = src[i..].chars().next().map_or(0, char::len_utf8);
    &src[i..i + len]
}

/// Whether a redirection's target is a device, not a file: writing to it
/// changes nothing.
pub(super) fn is_device(target: &str) -> bool {
    target == "/dev/null"
        || target == "/dev/stdout"
        || target == "/dev/stderr"
        || target == "/dev/tty"
        || target.starts_with("/dev/fd/")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The lexer as first written, on `Vec<char>` and owned words: the
    /// oracle for the byte lexer.
    mod naive {
        #[derive(Debug, Default)]
        pub struct Lexed {
            pub commands: Vec<Vec<String>>,
            pub file_redirect: bool,
        }

        pub fn lex(src: &str) -> Lexed {
            Lexer::new(src).run()
        }

        struct Heredoc {
            delimiter: String,
            strip_tabs: bool,
        }

        struct Lexer {
            chars: Vec<char>,
            i: usize,
            out: Lexed,
            words: Vec<String>,
            word: String,
            in_word: bool,
            heredocs: Vec<Heredoc>,
        }

        impl Lexer {
            fn new(src: &str) -> Lexer {
                Lexer {
                    chars: src.chars().collect(),
                    i: 0,
                    out: Lexed::default(),
                    words: vec![],
                    word: String::new(),
                    in_word: false,
                    heredocs: vec![],
                }
            }

            fn run(mut self) -> Lexed {
                while let Some(&c) = self.chars.get(self.i) {
                    match c {
                        '\n' => self.newline(),
                        ' ' | '\t' => {
                            self.end_word();
                            self.i += 1;
                        }
                        ';' | '|' | '(' | ')' | '`' => self.separator(1),
                        '&' if self.at(1) == Some('>') => self.redirect_both(),
                        '&' => self.separator(1),
                        '>' => self.redirect_out(),
                        '<' => self.redirect_in(),
                        '\'' | '"' | '\\' => self.quoted(),
                        '$' if self.at(1) == Some('(') => self.separator(2),
                        c => {
                            self.word.push(c);
                            self.in_word = true;
                            self.i += 1;
                        }
                    }
                }
                self.end_word();
                self.end_command();
                self.out
            }

            fn at(&self, k: usize) -> Option<char> {
                self.chars.get(self.i + k).copied()
            }

            fn end_word(&mut self) {
                if self.in_word {
                    self.words.push(std::mem::take(&mut self.word));
                    self.in_word = false;
                }
            }

            fn end_command(&mut self) {
                if !self.words.is_empty() {
                    self.out.commands.push(std::mem::take(&mut self.words));
                }
            }

            fn separator(&mut self, len: usize) {
                self.end_word();
                self.end_command();
                self.i += len;
            }

            fn newline(&mut self) {
                self.separator(1);
                for doc in std::mem::take(&mut self.heredocs) {
                    self.skip_heredoc_body(&doc);
                }
            }

            fn skip_heredoc_body(&mut self, doc: &Heredoc) {
                let chars = &self.chars;
                loop {
                    let start = self.i;
                    while self.i < chars.len() && chars[self.i] != '\n' {
                        self.i += 1;
                    }
                    let line: String = chars[start..self.i].iter().collect();
                    self.i = (self.i + 1).min(chars.len());
                    let line = if doc.strip_tabs {
                        line.trim_start_matches('\t')
                    } else {
                        &line
                    };
                    if line == doc.delimiter || self.i >= chars.len() {
                        break;
                    }
                }
            }

            fn quoted(&mut self) {
                let w = self.read_word();
                self.word.push_str(&w);
                self.in_word = true;
            }

            fn redirect_both(&mut self) {
                self.end_word();
                self.i += 2;
                if self.at(0) == Some('>') {
                    self.i += 1;
                }
                let target = self.read_word();
                self.target(&target);
            }

            fn redirect_out(&mut self) {
                if self.in_word
                    && self.word.chars().all(|c| c.is_ascii_digit())
                {
                    self.word.clear();
                    self.in_word = false;
                } else {
                    self.end_word();
                }
                self.i += 1;
                match self.at(0) {
                    Some('(') => {
                        self.end_command();
                        self.i += 1;
                    }
                    Some('&') => {
                        self.i += 1;
                        let target = self.read_word();
                        let dup = target == "-"
                            || target.chars().all(|c| c.is_ascii_digit());
                        if !dup {
                            self.target(&target);
                        }
                    }
                    next => {
                        if matches!(next, Some('>') | Some('|')) {
                            self.i += 1;
                        }
                        let target = self.read_word();
                        self.target(&target);
                    }
                }
            }

            fn redirect_in(&mut self) {
                self.end_word();
                self.i += 1;
                if self.at(0) != Some('<') {
                    self.read_word();
                    return;
                }
                self.i += 1;
                if self.at(0) == Some('<') {
                    self.i += 1;
                    self.read_word();
                    return;
                }
                let strip_tabs = self.at(0) == Some('-');
                if strip_tabs {
                    self.i += 1;
                }
                let delimiter = self.read_word();
                if !delimiter.is_empty() {
                    self.heredocs.push(Heredoc { delimiter, strip_tabs });
                }
            }

            fn target(&mut self, target: &str) {
                if !target.is_empty() && !super::super::is_device(target) {
                    self.out.file_redirect = true;
                }
            }

            fn read_word(&mut self) -> String {
                let chars = &self.chars;
                let mut i = self.i;
                while i < chars.len() && (chars[i] == ' ' || chars[i] == '\t')
                {
                    i += 1;
                }
                let mut w = String::new();
                while i < chars.len() {
                    match chars[i] {
                        '\'' => {
                            i += 1;
                            while i < chars.len() && chars[i] != '\'' {
                                w.push(chars[i]);
                                i += 1;
                            }
                            i += 1;
                        }
                        '"' => {
                            i += 1;
                            while i < chars.len() && chars[i] != '"' {
                                if chars[i] == '\\' && i + 1 < chars.len() {
                                    i += 1;
                                }
                                w.push(chars[i]);
                                i += 1;
                            }
                            i += 1;
                        }
                        '\\' if i + 1 < chars.len() => {
                            w.push(chars[i + 1]);
                            i += 2;
                        }
                        c if c.is_whitespace() || ";&|<>()".contains(c) => {
                            break
                        }
                        c => {
                            w.push(c);
                            i += 1;
                        }
                    }
                }
                self.i = i;
                w
            }
        }
    }

    fn fast(src: &str) -> (Vec<Vec<String>>, bool) {
        let lexed = lex(src);
        let commands = lexed
            .commands
            .iter()
            .map(|c| c.iter().map(|w| w.to_string()).collect())
            .collect();
        (commands, lexed.file_redirect)
    }

    fn oracle(src: &str) -> (Vec<Vec<String>>, bool) {
        let lexed = naive::lex(src);
        (lexed.commands, lexed.file_redirect)
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(4096))]
        #[test]
        fn same_as_the_char_lexer(
            parts in proptest::collection::vec(proptest::sample::select(vec![
                "a", "b", "1", "2", " ", "\t", "\n", ";", "|", "&", ">", "<",
                "(", ")", "`", "$", "$(", "'", "\"", "\\", "-", "EOF", "\r",
                "\u{0B}", "\u{0C}", "\u{a0}", "\u{3000}", "é", "日", "/dev/null",
                "<<", "<<-", ">&", "&>", ">>", "2>", "sed", "-i", "=",
            ]), 0..40),
        ) {
            let src: String = parts.concat();
            proptest::prop_assert_eq!(fast(&src), oracle(&src));
        }
    }

    #[test]
    fn plain_words_are_borrowed() {
        let lexed = lex("sed -i 's/a/b/' f.rs && ls");
        let words = &lexed.commands[0];
        assert!(matches!(words[0], Cow::Borrowed("sed")));
        assert!(matches!(words[1], Cow::Borrowed("-i")));
        assert_eq!(words[2], "s/a/b/");
        assert!(matches!(words[3], Cow::Borrowed("f.rs")));
    }

    #[test]
    fn heredoc_bodies_and_unclosed_quotes() {
        for src in [
            "cat > f <<'EOF'\na > b\nEOF\nls",
            "cat <<-X\n\ta\n\tX\necho > y",
            "echo 'unclosed > f",
            "echo \"a\\",
            "x\\",
            "echo a >\u{3000}b",
            "cat <<E\u{a0}\nq",
        ] {
            assert_eq!(fast(src), oracle(src), "{src:?}");
        }
    }
}
