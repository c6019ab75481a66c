//! What the plain-language grammar found: an audit's lead, its referent
//! and where it stands.
//!
//! The grammar ([`plain`](super::plain)), the outcome reading
//! ([`outcome`](super::outcome)) and the runs and tables shown
//! ([`shown`](super::shown)) each find one, so it sits below all three.

/// A plain-language audit found in a text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlainAudit {
    /// The lead, as written in the table ("edge cases", "確認しました").
    pub(crate) lead: String,
    /// The referent that makes it specific, as found in the text.
    pub(crate) referent: String,
    /// The lead's byte range in the text.
    pub(crate) span: std::ops::Range<usize>,
}

/// What a reading of the grammar may rest on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Grounds {
    /// Every form: besides what [`Grounds::Told`] reads, the shapes of a
    /// check's outcome in [`outcome`](super::outcome) (a try and what came
    /// of it, a measurement, a contrast of then and now, a topic heading
    /// with a finding, a case beside its result).
    Any,
    /// Only a check told outright: a statement or an act of checking
    /// ("Verified …", "Ran …", "確認しました"), or a run or a table of
    /// results [`shown`](super::shown). A design described with its
    /// numbers has the shapes of an outcome ("Uploads over 25 MB are
    /// refused with a 413", "アーカイブすると…復元されます"), so those
    /// alone do not tell a check when the learned judge doubts one.
    Told,
}

impl PlainAudit {
    /// An audit that only the learned model found: no lead, no referent,
    /// and the empty span at the text's start.
    pub(crate) fn learned() -> PlainAudit {
        PlainAudit { lead: String::new(), referent: String::new(), span: 0..0 }
    }

    /// Whether only the learned model found this audit, so that it has no
    /// lead: the whole text is the audit.
    pub fn is_learned(&self) -> bool {
        self.lead.is_empty()
    }

    /// The lead that names what was checked, as written in the pattern
    /// table ("edge cases", "確認しました", "위험"); empty when only the
    /// learned model found the audit.
    pub fn lead(&self) -> &str {
        &self.lead
    }

    /// The specific referent after the lead, as found in the text: an
    /// identifier, a path, a number, a command or a named failure mode;
    /// empty when only the learned model found the audit.
    pub fn referent(&self) -> &str {
        &self.referent
    }

    /// The lead's byte range in the judged text.
    pub fn span(&self) -> std::ops::Range<usize> {
        self.span.clone()
    }
}
