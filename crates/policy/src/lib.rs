//! Every timing decision, as pure functions (stub: being written).
