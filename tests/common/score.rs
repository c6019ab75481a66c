//! Precision and recall of "block" against hand labels, for the labelled
//! sets (`tests/labelled_parts.rs`, `tests/blind_parts.rs`).

/// Counts of "block" against the label.
#[derive(Clone, Copy, Debug, Default)]
pub struct Score {
    pub tp: u32,
    pub fp: u32,
    pub fn_: u32,
    pub tn: u32,
}

impl Score {
    /// Count one case: what the label wants, what the gate gave.
    pub fn add(&mut self, want: bool, got: bool) {
        match (want, got) {
            (true, true) => self.tp += 1,
            (false, true) => self.fp += 1,
            (true, false) => self.fn_ += 1,
            (false, false) => self.tn += 1,
        }
    }

    pub fn precision(&self) -> f64 {
        f64::from(self.tp) / f64::from((self.tp + self.fp).max(1))
    }

    pub fn recall(&self) -> f64 {
        f64::from(self.tp) / f64::from((self.tp + self.fn_).max(1))
    }

    /// `precision 0.950 recall 0.900 (tp … fp … fn … tn …)`.
    pub fn line(&self) -> String {
        format!(
            "precision {:.3} recall {:.3} (tp {} fp {} fn {} tn {})",
            self.precision(),
            self.recall(),
            self.tp,
            self.fp,
            self.fn_,
            self.tn
        )
    }

    /// `0.950 / 0.900 (tp/fp/fn/tn)`, for a table.
    pub fn cell(&self) -> String {
        format!(
            "{:.3} / {:.3} ({}/{}/{}/{})",
            self.precision(),
            self.recall(),
            self.tp,
            self.fp,
            self.fn_,
            self.tn
        )
    }
}
