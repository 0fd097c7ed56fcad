//! A permission decided, and why: what `tidings_rights` decides and what is stored of it.

use serde::{Deserialize, Serialize};
use std::fmt;

/// A permission decided, and why.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Ruling {
    pub allowed: bool,
    pub reason: String,
}

impl Ruling {
    pub fn yes(reason: impl Into<String>) -> Ruling {
        Ruling {
            allowed: true,
            reason: reason.into(),
        }
    }

    pub fn no(reason: impl Into<String>) -> Ruling {
        Ruling {
            allowed: false,
            reason: reason.into(),
        }
    }
}

impl fmt::Display for Ruling {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let word = if self.allowed { "allowed" } else { "refused" };
        write!(f, "{word}: {}", self.reason)
    }
}
